#!/usr/bin/env bash
# lab5's seed-style tables, run by scripts/gpu-suite.sh with BIN set (lab5 makes
# its matrices in-process from seeds, so DATA is not used).
set -u
echo "# dense products, GFLOP/s and share of cuBLAS FP32"
"$BIN/lab5_matmul" --variant all --n 4096
"$BIN/lab5_matmul" --variant all --n 4099 --k 3001 --m 2053 --reps 5
echo "# the seed's naive kernel over block shapes (4096)"
for b in "8 8" "16 16" "32 8" "32 32" "64 4"; do
  set -- $b
  "$BIN/lab5_matmul" --variant naive --n 4096 --block-x $1 --block-y $2 --reps 5 | grep '^naive'
done
echo "# granularity: one thread per product (fine) vs one per element (naive), 512"
"$BIN/lab5_matmul" --variant fine --n 512 --reps 5 | grep '^fine'
"$BIN/lab5_matmul" --variant naive --n 512 --reps 5 | grep '^naive'
echo "# MQDB challenge: the seed's three instances"
"$BIN/lab5_matmul" --mqdb --seed 0 --n 1000 --blocks 3 --host
"$BIN/lab5_matmul" --mqdb --seed 1 --n 5000 --blocks 5
"$BIN/lab5_matmul" --mqdb --seed 2 --n 10000 --blocks 10 --reps 5
