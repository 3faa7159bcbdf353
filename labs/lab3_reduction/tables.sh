#!/usr/bin/env bash
# lab3's seed-style tables, run by scripts/gpu-suite.sh with BIN and DATA set.
set -u
# The seeds' run: 16M ints, block 512, every variant, CUB and the copy ceiling.
"$BIN/lab3_reduction" --variant all --data "$DATA/uniform_2p24.bin"
echo "# block size sweep (the seeds vary it: 1024, 512, 256, 128, 64)"
for t in 1024 256 128 64; do
  "$BIN/lab3_reduction" --variant all --threads $t --data "$DATA/uniform_2p24.bin" --reps 10 |
    grep -E '^(neighbored|interleaved|unrolling8|complete_unroll_template|shuffle) '
done
echo "# 2^28 ints (1 GiB, values 0..7, generated in-process)"
"$BIN/lab3_reduction" --variant all --random 268435456 --reps 10
