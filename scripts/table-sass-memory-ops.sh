#!/usr/bin/env bash
# A course table from a lab program's SASS: each kernel's global (LDG/STG) and shared
# (LDS/STS) loads and stores, counted in `cuobjdump -sass` of PROGRAM, for the
# kernels whose demangled name holds FILTER (e.g. lab4::). A table test's command
# (cmake lab_table): exit 4, "skipped", where cuobjdump is missing.
#
#   bash scripts/table-sass-memory-ops.sh PROGRAM FILTER
set -euo pipefail
program=$1 filter=$2
command -v cuobjdump >/dev/null || { echo "no cuobjdump on the PATH: skipped"; exit 4; }
demangle="cat"
command -v c++filt >/dev/null && demangle=c++filt
cuobjdump -sass "$program" | awk '
  /Function :/ { name = $3; order[++n] = name }
  { for (f = 1; f <= NF; f++) if ($f ~ /^(LDG|STG|LDS|STS)/) { split($f, op, "."); count[name, op[1]]++; break } }
  END { for (i = 1; i <= n; i++) { m = order[i]; printf "%-60s LDG %2d  STG %2d  LDS %2d  STS %2d\n", m,
        count[m, "LDG"], count[m, "STG"], count[m, "LDS"], count[m, "STS"] } }' |
  $demangle | grep -F "$filter" | sed 's/(anonymous namespace):://'
