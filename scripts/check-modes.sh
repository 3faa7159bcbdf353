#!/usr/bin/env bash
# Issue 23's proof that process mode per-program changes no verdict: each built
# tree (build/gpu-<tree>) is graded in both --process-mode values, and so is every
# known-wrong submission, all on hidden data from one secret, then compared test
# by test (scripts/compare_modes.py). One line per comparison; exit 1 on any
# difference. Run by gpu-suite.sh's check `modes`.
#   check-modes.sh OUT LABS TREE...      (LABS: lab1,lab2,...)
# A TREE named known-wrong stands for the known-wrong submissions, so the parts
# can run on separate machines.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1/modes labs=$2
shift 2
mkdir -p "$out" "$root/build/grade-secret"
secret=$root/build/grade-secret/key
python3 -c 'import secrets; print(secrets.token_hex(16))' >"$secret"
gtest=()
[ -d "$root/.deps/googletest" ] && gtest=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
fail=0
compare() {  # name, the two reports
  python3 "$root/scripts/compare_modes.py" "$2" "$3" >"$out/$1.txt" || fail=1
  echo "$1: $(head -1 "$out/$1.txt")"
}
for tree in "$@"; do
  [ "$tree" = known-wrong ] && continue
  for mode in per-test per-program; do
    python3 -m grader grade --build "$root/build/gpu-$tree" --labs "$labs" --secret-file "$secret" \
      --no-sanitize --process-mode $mode --report "$out/$tree-$mode" >"$out/$tree-$mode.log" 2>&1
  done
  compare "$tree" "$out/$tree-per-test" "$out/$tree-per-program"
done
case " $* " in *" known-wrong "*) ;; *) exit $fail ;; esac
# The second run finds every submission built by the first.
for mode in per-test per-program; do
  python3 -m grader known-wrong --labs "$labs" --build-root "$root/build/known-wrong" \
    --build-jobs 8 "${gtest[@]}" --secret-file "$secret" --process-mode $mode \
    --outcomes "$out/known-wrong-$mode.json" >"$out/known-wrong-$mode.log" 2>&1 ||
    { echo "known-wrong $mode: not every submission rejected as expected"; fail=1; }
done
compare known-wrong "$out/known-wrong-per-test.json" "$out/known-wrong-per-program.json"
exit $fail
