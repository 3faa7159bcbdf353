#!/usr/bin/env bash
# lab4's seed-style tables, run by scripts/gpu-suite.sh with BIN and DATA set.
set -u
"$BIN/lab4_power_array" --memory
for k in 4 64; do
  echo "# 2^24 floats, k = $k (every variant), window radius 16"
  "$BIN/lab4_power_array" --data "$DATA/big_2p24.bin" --k $k --radius 16
done
echo "# the seed's N = 1024, k = 4 (launch overhead dominates)"
"$BIN/lab4_power_array" --data "$DATA/seed_1024.bin" --k 4 | grep -E "^(variant|global|register|shared) "
echo "# window radius sweep, 2^24 floats: global memory vs shared memory"
for r in 1 4 8 16 32 64; do
  for v in window_global window_shared; do
    "$BIN/lab4_power_array" --variant $v --radius $r --data "$DATA/big_2p24.bin" | tail -1
  done
done
echo "# the seed's kernel: one load in the SASS (LDG = global load, STG = store, LDS = shared load)"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN/lab4_power_array" | grep -E "Function : .*(global_kernel|register_kernel|shared_kernel)|LDG|STG|LDS|STS" | grep -B0 -A0 -E "Function|LD|ST" | head -40
fi
