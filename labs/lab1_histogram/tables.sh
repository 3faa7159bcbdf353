#!/usr/bin/env bash
# lab1's seed-style tables, run by scripts/gpu-suite.sh with BIN and DATA set.
set -u
"$BIN/lab1_histogram" --variant all --data "$DATA/uniform_2p25.bin"
"$BIN/lab1_histogram" --variant all --data "$DATA/contention_2p25.bin"
echo "# the seed's grid/slice variations (uniform data)"
for cfg in "64 1024 512" "64 512 1024" "64 256 2048"; do
  set -- $cfg
  "$BIN/lab1_histogram" --variant global --blocks $1 --threads $2 --slice $3 --data "$DATA/uniform_2p25.bin" | tail -1
done
for cfg in "2048 512 32" "2048 256 64" "2048 128 128" "4096 256 32" "4096 128 64" "8192 64 64"; do
  set -- $cfg
  "$BIN/lab1_histogram" --variant shared --blocks $1 --threads $2 --slice $3 --data "$DATA/uniform_2p25.bin" | tail -1
done
for t in 256 512 1024; do
  "$BIN/lab1_histogram" --variant banks --threads $t --data "$DATA/uniform_2p25.bin" | tail -1
done
