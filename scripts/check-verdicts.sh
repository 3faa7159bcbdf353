#!/usr/bin/env bash
# Proof that a change to the grader changes no verdict: each tree built once and graded
# by this grader and by the grader of BASE (a checkout of the repository before the
# change: `git worktree add BASE REV`, or `git archive REV | tar -x -C BASE`), both on
# the same build, on hidden data from one secret, then compared test by test
# (scripts/compare_verdicts.py); then the known-wrong submissions, each refused for its
# own reason by this grader, and by BASE's too, compared entry by entry. One line per
# comparison; exit 1 on any difference.
#   check-verdicts.sh BASE OUT [LABS]      (LABS: lab1,lab2,...; default every lab)
# TREES (default: solutions skeletons submissions/typical submissions/slow) picks the
# trees; KNOWN_WRONG (default: every entry; `none`, or names separated by commas)
# picks the known-wrong entries.
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
grade=(--labs "$labs" --secret-file "$out/secret")

fail=0
for tree in ${TREES:-solutions skeletons submissions/typical submissions/slow}; do
  name=$(basename "$tree")
  (cd "$root" && python3 -m grader grade --impl "$root/$tree" --build-dir "$out/build-$name" \
    "${gtest[@]}" "${grade[@]}" --report "$out/head-$name" >"$out/head-$name.log" 2>&1)
  # BASE's grader judges the same build as this repository's (its labs, its include paths).
  (cd "$base" && python3 -m grader grade --repo "$root" --build "$out/build-$name" "${grade[@]}" \
    --report "$out/base-$name" >"$out/base-$name.log" 2>&1)
  python3 "$root/scripts/compare_verdicts.py" "$out/base-$name" "$out/head-$name" \
    >"$out/$name.txt" || fail=1
  echo "$name: $(head -1 "$out/$name.txt")"
done

known_wrong() {  # name, repository whose grader judges
  local name=$1 repo=$2 kit=grader.classroom only=()
  # A BASE from before grader/classroom/ ran its instructor commands as `grader`.
  [ -d "$repo/grader/classroom" ] || kit=grader
  for entry in ${KNOWN_WRONG//,/ }; do only+=(--only "$entry"); done
  (cd "$repo" && python3 -m "$kit" known-wrong --labs "$labs" --build-root "$out/kw-$name" \
    --build-jobs 8 "${gtest[@]}" "${only[@]}" --secret-file "$out/secret" \
    --outcomes "$out/$name-known-wrong.json" >"$out/$name-known-wrong.log" 2>&1) ||
    echo "known-wrong ($name): not every submission rejected as expected" >>"$out/problems.txt"
}
KNOWN_WRONG=${KNOWN_WRONG:-}
if [ "$KNOWN_WRONG" != none ]; then
  known_wrong head "$root"
  known_wrong base "$base"
  python3 "$root/scripts/compare_verdicts.py" "$out/base-known-wrong.json" \
    "$out/head-known-wrong.json" >"$out/known-wrong.txt" || fail=1
  echo "known-wrong: $(head -1 "$out/known-wrong.txt")"
fi
[ -f "$out/problems.txt" ] && cat "$out/problems.txt" && fail=1
exit $fail
