#!/usr/bin/env bash
# Proof that a change to the grader changes no verdict: the reference, the skeletons
# and every known-wrong submission graded by the grader of BASE (a checkout of the
# repository before the change: `git worktree add BASE REV`, or `git archive REV | tar
# -x -C BASE`) and by this one, all on hidden data from one secret, then compared test
# by test (scripts/compare_verdicts.py). Each grader grades with its own harness, so
# pick a BASE whose labs/ this change did not touch. With two GPUs the two graders run
# at once, one on each; with four, each grader's trees and its known-wrong runs too.
# One line per comparison; exit 1 on any difference.
#   check-verdicts.sh BASE OUT [LABS]      (LABS: lab1,lab2,...; default every lab)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
source "$root/scripts/bubblewrap-env.sh"
if [ $# -lt 2 ] || [ ! -f "$1/CMakeLists.txt" ]; then
  echo "usage: check-verdicts.sh BASE OUT [LABS]: BASE must be a checkout of this repository" >&2
  exit 2
fi
base=$(cd "$1" && pwd) out=$2
labs=${3:-$(cd "$root/labs" && ls -d lab*_* | sed 's/_.*//' | sort -u | paste -sd,)}
source "$root/scripts/owned-dirs.sh"
owned_dir "$out" || exit 2
out=$(cd "$out" && pwd)
python3 -c 'import secrets; print(secrets.token_hex(16))' >"$out/secret"
gtest=()
[ -d "$root/.deps/googletest" ] && gtest=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")

trees() {  # name, repository whose grader grades, GPU
  local name=$1 repo=$2
  export CUDA_VISIBLE_DEVICES=$3
  for tree in solutions skeletons; do
    (cd "$repo" && python3 -m grader grade --impl "$repo/$tree" --labs "$labs" \
      --build-dir "$out/build-$name-$tree" --secret-file "$out/secret" "${gtest[@]}" \
      --report "$out/$name-$tree" >"$out/$name-$tree.log" 2>&1)
  done
}
known_wrong() {  # name, repository whose grader grades, GPU
  local name=$1 repo=$2 kit=grader.classroom
  export CUDA_VISIBLE_DEVICES=$3
  # A BASE from before grader/classroom/ ran its instructor commands as `grader`.
  [ -d "$repo/grader/classroom" ] || kit=grader
  (cd "$repo" && python3 -m "$kit" known-wrong --labs "$labs" --build-root "$out/kw-$name" \
    --build-jobs 8 "${gtest[@]}" --secret-file "$out/secret" \
    --outcomes "$out/$name-known-wrong.json" >"$out/$name-known-wrong.log" 2>&1) ||
    echo "known-wrong ($name): not every submission rejected as expected" >>"$out/problems.txt"
}
# One GPU per grading where there are four, one per grader where there are two.
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 4 ]; then
  trees base "$base" 0 &
  known_wrong base "$base" 1 &
  trees head "$root" 2 &
  known_wrong head "$root" 3
  wait
elif [ "$gpus" -ge 2 ]; then
  # Not `&&`: a skeleton's grading exits 1, and its known-wrong runs must still come.
  (trees base "$base" 0; known_wrong base "$base" 0) &
  trees head "$root" 1; known_wrong head "$root" 1
  wait
else
  trees base "$base" 0; known_wrong base "$base" 0
  trees head "$root" 0; known_wrong head "$root" 0
fi

fail=0
# results.json has every test's status and score (also as an older BASE held it back).
for part in solutions skeletons known-wrong.json; do
  name=${part%.json}
  python3 "$root/scripts/compare_verdicts.py" "$out/base-${part}" "$out/head-${part}" \
    >"$out/$name.txt" || fail=1
  echo "$name: $(head -1 "$out/$name.txt")"
done
[ -f "$out/problems.txt" ] && cat "$out/problems.txt" && fail=1
exit $fail
