#!/usr/bin/env bash
# The whole GPU suite in one command, for a machine with a CUDA GPU:
#   1. builds the reference solutions and the skeletons for this GPU (TREES also
#      takes `export`: the student repository that `grader.classroom export` writes);
#   2. runs every lab test on each: the solutions must pass everything, the
#      skeletons (and the export) must fail every lab test, cleanly (no hang, no
#      crash) and fast;
#   3. prints the course's tables for the reference solutions (ctest label tables.<lab>);
#   4. runs the grader's checks named in CHECKS (none by default), on the solutions:
#      grade (one grading, reports in grade/), typical and typical2 (submissions/typical
#      and submissions/typical2 built and graded, reports in typical/, typical2/),
#      sanitize (`ctest -L sanitize`: compute-sanitizer), repeat (`ctest --repeat
#      until-fail:REPEAT_TIMES`, default 10: a test that fails once in those runs
#      fails), known-wrong (each rejected for its reason), class
#      (scripts/class-batch.sh: the sample class graded by `grader.classroom batch`
#      on GPUS="2 1" GPUs, for a machine with two), sweep
#      (scripts/seed-sweeps.sh: the course's launch-configuration tables and plots
#      through scripts/sweep.py);
#   5. prints a summary table last.
# Logs go to $OUT (default ./gpu-suite-logs). LABS="lab1 lab3" limits the labs,
# TREES="solutions" the trees, TABLES=0 skips the programs' tables, CTEST=0 the
# ctest runs (CTEST="skeletons" runs them on those trees only; the builds are kept
# between calls, so checks can run on their own). The grader's checks run under
# the sandbox when bubblewrap works (LAB_SANDBOX=require insists); a bubblewrap
# package carried in .deps/ is unpacked when none is installed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"  # .venv when setup.sh made one; the bare GPU machine has none
out=${OUT:-$root/gpu-suite-logs}
mkdir -p "$out"
rm -f "$out/startup.txt"
jobs=$(nproc)
labs=${LABS:-$(cd "$root/labs" && ls -d lab*_* | sed 's/_.*//' | sort -u | tr '\n' ' ')}
lab_list=$(echo $labs | tr ' ' ',')
checks=${CHECKS:-}
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DLAB_ONLY=$(echo $labs | tr ' ' ';')")
gtest_args=()
# A GoogleTest source tree carried along (no system package on the machine).
[ -d "$root/.deps/googletest" ] && gtest_args=(-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
cmake_args+=("${gtest_args[@]}")
# The sanitize check and grade's sanitizer stage (on with a secret) need the
# labN.sanitize.* tests; every other ctest run here leaves them out.
case " $checks " in *" sanitize "* | *" grade "*) cmake_args+=(-DLAB_SANITIZE=ON) ;; esac

source "$root/scripts/bubblewrap-env.sh"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu \
  --format=csv >"$out/gpu.txt" 2>&1 || echo "nvidia-smi failed" >>"$out/gpu.txt"

status=0
for tree in ${TREES:-solutions skeletons}; do
  build=$root/build/gpu-$tree
  src=$root impl=$tree
  if [ "$tree" = export ]; then
    # The student repository as `grader.classroom export` writes it (outside this one, as
    # export demands), built and tested on its own.
    src=${EXPORT_DIR:-${TMPDIR:-/tmp}/cuda-labs-export} impl=skeletons
    python3 -m grader.classroom export "$src" --force >"$out/export.log" 2>&1 ||
      { echo "export failed: see $out/export.log"; status=1; continue; }
  fi
  start=$(date +%s)
  if ! { cmake -S "$src" -B "$build" "${cmake_args[@]}" -DLAB_IMPL=$impl &&
         cmake --build "$build" -j "$jobs"; } >"$out/build-$tree.log" 2>&1; then
    echo "build of $tree failed: see $out/build-$tree.log"; tail -30 "$out/build-$tree.log"; status=1
    continue
  fi
  echo "$tree built in $(( $(date +%s) - start )) s"
  # What one CUDA process costs to start, alone and crowded: it bounds how fast
  # the grader can run one process per test. "init" only asks for the device,
  # "context" also creates a context, "ctx+256MiB" also allocates and clears 256 MiB
  # (every test does at least that). With several GPUs, the crowded runs are also
  # spread over all of them ("@all"): a cost that does not shrink is machine-wide.
  if [ ! -f "$out/startup.txt" ]; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    spreads=1; [ "$gpus" -gt 1 ] && spreads="1 $gpus"
    for probe in init context ctx+256MiB; do
      case $probe in init) flag=() ;; context) flag=(--context 0) ;; *) flag=(--context 256) ;; esac
      for spread in $spreads; do
        for n in 1 8 16; do
          [ "$spread" -gt 1 ] && [ "$n" = 1 ] && continue
          t0=$(date +%s%N)
          for i in $(seq $n); do
            pin=(); [ "$spread" -gt 1 ] && pin=(env CUDA_VISIBLE_DEVICES=$((i % spread)))
            "${pin[@]}" "$build/bin/lab_gpu_info" "${flag[@]}" >/dev/null 2>&1 &
          done
          wait
          name=$probe; [ "$spread" -gt 1 ] && name=$probe@all
          echo "$name $n $(( ($(date +%s%N) - t0) / 1000000 ))" >>"$out/startup.txt"
        done
      done
    done
  fi
  run_ctest=${CTEST:-1}
  case " $run_ctest " in " 1 "|*" $tree "*) run_ctest=1 ;; *) run_ctest=0 ;; esac
  for lab in $([ "$run_ctest" = 0 ] || echo $labs); do
    # Correctness in parallel, timing serially (RUN_SERIAL); anchored label: lab1 must not match
    # lab10 (nor lab1.sanitize, which the sanitize check runs). -FC: without the no-GPU
    # summary the GPU tests' fixture brings in (no lab test; cmake/LabNoGpuSummary.cmake).
    ctest --test-dir "$build" -L "^$lab(\.|$)" -LE '^(sanitize|.*\.sanitize)$' -j "$jobs" \
      -FC '^cuda_labs_gpu$' \
      --output-on-failure --output-junit "$out/junit-$tree-$lab.xml" >"$out/ctest-$tree-$lab.log" 2>&1
  done
done

# The course's tables for the reference solutions: each lab's tests labelled
# tables.<lab> (cmake lab_table; `ctest --preset <lab>-tables` for a student), their
# output without ctest's line numbers.
for lab in $([ "${TABLES:-1}" = 0 ] || echo $labs); do
  ctest --test-dir "$root/build/gpu-solutions" -L "^tables\.$lab$" -V 2>&1 |
    sed -E 's/^[0-9]+: //' >"$out/$lab-tables.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || echo "$lab tables failed: see $out/$lab-tables.txt" >&2
done

# The grader's checks, each one line in checks.txt: name, exit status, seconds.
solutions=$root/build/gpu-solutions
rm -f "$out/checks.txt"
# The gradings' hidden data comes from one secret made for this run, in a folder of its
# own (the sandbox hides the secret's folder from the tests).
secret=$root/build/grade-secret/key
case " $checks " in *" grade "* | *" typical "* | *" typical2 "*)
  mkdir -p "${secret%/*}"
  python3 -c 'import secrets; print(secrets.token_hex(16))' >"$secret" ;;
esac
for check in $checks; do
  start=$(date +%s)
  case $check in
    grade) cmd=(python3 -m grader grade --build "$solutions" --labs "$lab_list"
                --secret-file "$secret" --report "$out/grade") ;;
    # The two typical solutions, each built and graded as an instructor grades a student.
    typical | typical2)
      cmd=(python3 -m grader grade --impl "submissions/$check" --labs "$lab_list"
           --build-dir "$root/build/grade-$check" "${gtest_args[@]/#/--cmake-arg=}"
           --secret-file "$secret" --report "$out/$check") ;;
    # ctest on the build, which holds LABS only (LAB_ONLY); the lab tests are labelled
    # labN, the sanitize tests sanitize and labN.sanitize.
    sanitize) cmd=(ctest --test-dir "$solutions" -L '^sanitize$' -j "$jobs" --output-on-failure) ;;
    repeat) cmd=(ctest --test-dir "$solutions" -L '^lab[0-9]+$' -FC '^cuda_labs_gpu$' -j "$jobs"
                 --repeat "until-fail:${REPEAT_TIMES:-10}" --output-on-failure) ;;
    known-wrong) cmd=(python3 -m grader.classroom known-wrong --labs "$lab_list"
                      --build-root "$root/build/known-wrong" --build-jobs $((jobs < 8 ? jobs : 8))
                      "${gtest_args[@]/#/--cmake-arg=}" --report "$out/$check.md") ;;
    # The sample class through `grader.classroom batch`, on 2 GPUs then 1 (GPUS).
    class) cmd=(env LOGS="$out/class" bash "$root/scripts/class-batch.sh") ;;
    # The course's launch-configuration tables through scripts/sweep.py.
    sweep) cmd=(env BUILD="$solutions" LOGS="$out/sweep" bash "$root/scripts/seed-sweeps.sh") ;;
    *) echo "unknown check $check (grade, typical, typical2, sanitize, repeat, known-wrong, class, sweep)"
       status=1
       continue ;;
  esac
  (cd "$root" && "${cmd[@]}") >"$out/$check.log" 2>&1
  echo "$check $? $(( $(date +%s) - start ))" >>"$out/checks.txt"
done

python3 "$root/scripts/suite_summary.py" "$out" | tee "$out/summary.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
exit $status
