#!/usr/bin/env bash
# Writes every skeleton source, skeletons/labN_topic/FILE.cu, from its master, the
# reference solution solutions/labN_topic/FILE.cu. Where the two differ, the master
# holds both texts:
#   #if LAB_SKELETON
#     ...what the student gets: TODO, hints...
#   #else
#     ...the solution...
#   #endif
# (`#if !LAB_SKELETON` ... `#endif` for solution-only code). The compiler, with
# LAB_SKELETON undefined, sees the solution; unifdef -DLAB_SKELETON=1 writes the skeleton.
# Edit the master, never the skeleton, then run this script and commit both.
#
#   bash scripts/make_skeletons.sh          rewrite the skeletons that differ
#   bash scripts/make_skeletons.sh --check  change nothing; fail, naming the file and
#                                           showing the diff, if a skeleton differs
#
# Only the generated skeletons/labN_topic/*.cu are written (skeletons/labN_topic/REPORT.md
# and everything else is left alone); nothing is deleted. Needs unifdef (scripts/setup.sh
# installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: bash scripts/make_skeletons.sh [--check]"
check=0
case $# in
  0) ;;
  1)
    case $1 in
      --check) check=1 ;;
      -h | --help)
        echo "$usage"
        exit 0
        ;;
      *)
        echo "$usage" >&2
        exit 2
        ;;
    esac
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac

if ! command -v unifdef >/dev/null; then
  echo "make_skeletons: unifdef not found: install it (Debian/Ubuntu: apt-get install unifdef," \
    "or bash scripts/setup.sh)" >&2
  exit 2
fi

shopt -s nullglob
masters=(solutions/lab*_*/*.cu)
if [ ${#masters[@]} -eq 0 ]; then
  echo "make_skeletons: no master found (solutions/labN_topic/*.cu)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every skeleton is generated into $work first; nothing is written unless all succeed.
failed=0
for master in "${masters[@]}"; do
  rel=${master#solutions/}
  out=$work/$rel
  mkdir -p "$(dirname "$out")"
  # -B: one blank line where a removed region had blank lines on both sides.
  # -x 1: exit 0 when the output differs from the master, as it must (the skeleton is
  # not the solution); 1 when it is the same; 2 on an error (unbalanced #if, ...).
  rc=0
  unifdef -B -x 1 -DLAB_SKELETON=1 "$master" >"$out" || rc=$?
  case $rc in
    0) ;;
    1)
      echo "make_skeletons: $master has no #if LAB_SKELETON region: its skeleton would be" \
        "the solution itself" >&2
      failed=1
      continue
      ;;
    *)
      echo "make_skeletons: unifdef could not process $master (exit status $rc)" >&2
      failed=1
      continue
      ;;
  esac
  if grep -n 'LAB_SKELETON' "$out" >"$work/leftover"; then
    echo "make_skeletons: $master: a LAB_SKELETON condition unifdef left in the skeleton" \
      "(use only #if LAB_SKELETON, #if !LAB_SKELETON, #else, #endif):" >&2
    sed -E 's/^([0-9]+):/  line \1 of the skeleton: /' "$work/leftover" >&2
    failed=1
  fi
done
# A skeleton source without a master would never be regenerated.
for skeleton in skeletons/lab*_*/*.cu; do
  if [ ! -f "solutions/${skeleton#skeletons/}" ]; then
    echo "make_skeletons: $skeleton has no master solutions/${skeleton#skeletons/}" >&2
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  exit 1
fi

differ=0
for master in "${masters[@]}"; do
  rel=${master#solutions/}
  out=$work/$rel
  target=skeletons/$rel
  if [ -f "$target" ] && [ ! -L "$target" ] && cmp -s "$out" "$target"; then
    continue
  fi
  if [ "$check" -eq 1 ]; then
    differ=1
    if [ -f "$target" ]; then
      echo "make_skeletons: $target differs from what $master generates:" >&2
      diff -u --label "$target (committed)" --label "$target (from $master)" \
        "$target" "$out" >&2 || true
    else
      echo "make_skeletons: $target is missing (its master is $master)" >&2
    fi
    continue
  fi
  if [ -L "$target" ] || { [ -e "$target" ] && [ ! -f "$target" ]; }; then
    echo "make_skeletons: $target is not a regular file: not overwritten" >&2
    differ=1
    continue
  fi
  mkdir -p "$(dirname "$target")"
  cp "$out" "$target"
  echo "make_skeletons: wrote $target"
done

if [ "$check" -eq 1 ]; then
  if [ "$differ" -ne 0 ]; then
    echo "make_skeletons: skeletons out of date: edit the masters in solutions/, then run" \
      "bash scripts/make_skeletons.sh" >&2
    exit 1
  fi
  echo "make_skeletons: ${#masters[@]} skeletons match their masters"
fi
exit "$differ"
