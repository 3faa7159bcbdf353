#!/usr/bin/env bash
# A class at the deadline on a machine with a CUDA GPU (submissions/deadline_class.py):
#   1. writes five student repositories with dated commits, a late policy with an
#      extension, and a roster;
#   2. `collect`s each student's last commit before their due time;
#   3. grades submissions/typical once (the calibration: its figures on this GPU, this job),
#      then `batch`es the class on labs 1 and 3 on hidden data, against it;
#   4. writes the `gradebook`, an anonymised `leaderboard` and the `similarity` report;
#   5. checks each against what the class must get, and prints the table last (exit 1
#      on any difference).
# Everything goes under OUT (default build/deadline-class). About 4 minutes on an H100.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
source "$root/scripts/bubblewrap-env.sh"
source "$root/scripts/owned-dirs.sh"
out=${OUT:-$root/build/deadline-class}
owned_dir "$out" || exit 2
cmake_args=()
[ -d "$root/.deps/googletest" ] && cmake_args=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
cd "$root" || exit 1
labs=lab1,lab3

step() {  # name, command...: the command's output to OUT/name.log, its exit status shown
  echo "== $1"
  "${@:2}" >"$out/$1.log" 2>&1
  local status=$?
  echo "   exit $status ($out/$1.log)"
  return $status
}
python3 submissions/deadline_class.py make "$out/work" || exit 1
mv "$out/work"/* "$out" && rmdir "$out/work"
head -c 24 /dev/urandom | base64 >"$out/secret"  # the instructor's, outside the students' folders

step collect python3 -m grader.classroom collect "$out/repos" --policy "$out/deadline.json" --out "$out/class"
step calibration python3 -m grader grade --impl submissions/typical --labs "$labs" --no-sanitize \
  --build-dir "$out/build-calibration" --report "$out/calibration" "${cmake_args[@]}"
step batch python3 -m grader.classroom batch "$out/class" --labs "$labs" --secret-file "$out/secret" \
  --calibration "$out/calibration/results.json" --gpus 1 \
  --build-root "$out/build" --report "$out/report" "${cmake_args[@]}"
step gradebook python3 -m grader.classroom gradebook --class-report "$out/report" --roster "$out/roster.csv" \
  --collected "$out/class/collected.json"
step leaderboard python3 -m grader.classroom leaderboard --class-report "$out/report" --anonymise \
  --salt deadline-class
step similarity python3 -m grader.classroom similarity "$out/class" --report "$out/similarity" --labs "$labs"
rm -rf "$out/build" "$out/build-calibration"

echo "== collect"
sed 's/^grader: /   /' "$out/collect.log"
echo "== batch: $(grep -h "batch done" "$out/batch.log" | sed 's/^grader: //')"
echo "== gradebook ($out/report/gradebook.csv)"
python3 -c 'import csv, sys; [print("  ", " | ".join(r)) for r in csv.reader(open(sys.argv[1]))]' \
  "$out/report/gradebook.csv"
echo "== leaderboard ($out/report/leaderboard.md)"
grep -A5 "unrolling8 / interleaved" "$out/report/leaderboard.md"
echo "== similarity ($out/similarity/similarity.md)"
grep '^| [0-9]' "$out/similarity/similarity.md" | head -3
echo "== as expected (submissions/deadline_class.py check)"
python3 submissions/deadline_class.py check "$out"
