#!/usr/bin/env bash
# lab4's seed-style tables, run by scripts/gpu-suite.sh with BIN and DATA set.
set -u
"$BIN/lab4_power_array" --memory
for k in 4 64; do
  echo "# 2^24 floats, k = $k (every variant), window radius 32"
  "$BIN/lab4_power_array" --data "$DATA/big_2p24.bin" --k $k --radius 32
done
echo "# the seed's N = 1024, k = 4 (launch overhead dominates)"
"$BIN/lab4_power_array" --data "$DATA/seed_1024.bin" --k 4 | grep -E "^(variant|global|register|shared) "
echo "# window radius sweep, 2^24 floats: global memory vs shared memory"
for r in 1 4 8 16 32 64; do
  for v in window_global window_shared; do
    "$BIN/lab4_power_array" --variant $v --radius $r --data "$DATA/big_2p24.bin" | tail -1
  done
done
echo "# loads and stores in each kernel's SASS (cuobjdump -sass): LDG/STG global, LDS/STS shared"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN/lab4_power_array" | awk '
    /Function :/ { name = $3; order[++n] = name }
    { for (f = 1; f <= NF; f++) if ($f ~ /^(LDG|STG|LDS|STS)/) { split($f, op, "."); count[name, op[1]]++; break } }
    END { for (i = 1; i <= n; i++) { m = order[i]; printf "%-60s LDG %2d  STG %2d  LDS %2d  STS %2d\n", m,
          count[m, "LDG"], count[m, "STG"], count[m, "LDS"], count[m, "STS"] } }' |
    { command -v c++filt >/dev/null && c++filt || cat; } | grep -E "lab4::" | sed 's/(anonymous namespace):://'
fi
