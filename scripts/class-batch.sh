#!/usr/bin/env bash
# Grades a sample class (submissions/sample_class.py: SIZE lab1 folders, default 22;
# SIZE=200 is the throughput benchmark's class) with `grader.classroom batch`, once for each
# GPU count in GPUS (default "2 1"), each from a fresh build root so the wall times
# compare, and checks every student's verdict. A count GxS grades on G GPUs of S
# slots each (`batch --resource-spec`, the spec from scripts/gpu_resource_spec.py):
# GPUS="1x3 1" compares one GPU grading three students at once with one at a time.
# BUILD_ONCE=1 builds the fixed parts once per run (`batch --build-once`); JOBS=N gives
# each worker N untimed tests at once (`batch --jobs`; default: up to 8, by CPUs and GPU memory).
# SANITIZE=0 grades without the sanitizer stage (`batch --no-sanitize`), to measure its share.
# CALIBRATE=LABS (lab1, or "lab1,lab3", or all) first grades submissions/typical on those
# labs as an instructor would (hidden data, the sanitizer stage) and prints its time; its
# results.json is then the credit's yardstick (--calibration). CALIBRATION=DIR instead
# takes an earlier such grading's report folder (LOGS/typical of an earlier run), so a
# lent machine can calibrate in one command and grade the class in the next.
# nvidia-smi samples each GPU's use once a second during each batch (LOGS/gpu-usage-N.csv:
# timestamp, index, utilization %, memory MiB). Prints last a table: GPUs, wall time,
# students per GPU-hour, where the workers' time went, how often each GPU was busy, as
# expected. Everything goes under LOGS (default
# build/class-batch). A lent machine is given back soon after its command returns, so
# the class must fit one command there: 22 students on 2 GPUs, 200 on 4 at least.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
source "$root/scripts/bubblewrap-env.sh"
logs=${LOGS:-$root/build/class-batch}
source "$root/scripts/owned-dirs.sh"
owned_dir "$logs" || exit 2
cd "$root" || exit 1
cmake_args=()
# A GoogleTest source tree carried along (no system package on the machine).
[ -d .deps/googletest ] && cmake_args=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")

python3 submissions/sample_class.py make "$logs/class" "${SIZE:-22}" || exit 1
# The instructor's secret lives outside the students' folders.
head -c 24 /dev/urandom | base64 >"$logs/secret"
status=0
# The host's CPU ticks, all and idle (/proc/stat): how busy the CPUs were during a batch.
cpu_ticks() { awk '/^cpu /{t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $5 + $6}' /proc/stat; }
# In how many of a gpu-usage CSV's samples each GPU ran a kernel.
gpu_busy() {
  awk -F', ' 'NF == 4 && $3 ~ /^[0-9]+$/ { n[$2]++; if ($3 > 0) b[$2]++ }
    END { for (g in n) printf "GPU %s busy in %d of %d samples\n", g, b[g], n[g] }' "$1" |
    sort | paste -sd';' | sed 's/;/; /g'
}
sanitize=()
[ "${SANITIZE:-1}" = 0 ] && sanitize=(--no-sanitize)
calibration=()
if [ -n "${CALIBRATION:-}" ]; then
  calibration=(--calibration "$CALIBRATION")
elif [ -n "${CALIBRATE:-}" ]; then
  start=$SECONDS
  labs=()
  [ "$CALIBRATE" = all ] || labs=(--labs "$CALIBRATE")
  python3 -m grader grade --impl submissions/typical "${labs[@]}" --build-dir "$logs/typical-build" \
    --secret-file "$logs/secret" --report "$logs/typical" "${cmake_args[@]}" \
    >"$logs/typical.log" 2>&1 || status=1
  echo "$((SECONDS - start))" >"$logs/typical-wall"
  calibration=(--calibration "$logs/typical")
fi
for n in ${GPUS:-2 1}; do
  gpus=(--gpus "$n")
  if [[ $n =~ ^([0-9]+)x([0-9]+)$ ]]; then
    # The first G GPUs of CUDA_VISIBLE_DEVICES where it is set, else of the machine.
    devices=${CUDA_VISIBLE_DEVICES:-$(seq -s, 0 $((BASH_REMATCH[1] - 1)))}
    CUDA_VISIBLE_DEVICES=$(cut -d, -f1-"${BASH_REMATCH[1]}" <<<"$devices") \
      python3 scripts/gpu_resource_spec.py --slots "${BASH_REMATCH[2]}" "$logs/gpus-$n.json" ||
      status=1
    gpus=(--resource-spec "$logs/gpus-$n.json")
  fi
  read -r total idle < <(cpu_ticks)
  # Line-buffered, so that the samples are in the file when the sampler is stopped.
  stdbuf -oL nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used \
    --format=csv,noheader,nounits -l 1 >"$logs/gpu-usage-$n.csv" 2>&1 &
  sampler=$!
  python3 -m grader.classroom batch "$logs/class" --labs lab1 --secret-file "$logs/secret" "${gpus[@]}" \
    --build-root "$logs/build-$n" --build-jobs "${BUILD_JOBS:-8}" --report "$logs/report-$n" \
    ${BUILD_ONCE:+--build-once} ${JOBS:+--jobs "$JOBS"} "${calibration[@]}" "${sanitize[@]}" \
    "${cmake_args[@]}" >"$logs/batch-$n.log" 2>&1 || status=1
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  read -r total2 idle2 < <(cpu_ticks)
  echo "CPUs busy $(( 100 - 100 * (idle2 - idle) / (total2 - total + 1) )) % of the batch, $(nproc) of them (/proc/stat)" \
    >"$logs/cpu-$n.txt"
  python3 submissions/sample_class.py check "$logs/class" "$logs/report-$n" \
    >"$logs/check-$n.md" 2>&1 || status=1
  rm -rf "$logs/build-$n"
done

echo "== sample class of ${SIZE:-22}, lab1, $(nvidia-smi --query-gpu=name --format=csv,noheader |
  sort | uniq -c | sed 's/^ *//' | paste -sd,)"
if [ -z "${CALIBRATION:-}" ] && [ -n "${CALIBRATE:-}" ]; then
  grading=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["extra_data"]
print("grading %.1f s, score %g" % (d["execution_time_s"], sum(l["score"] for l in d["labs"])))' \
    "$logs/typical/results.json" 2>/dev/null)
  echo "typical, $CALIBRATE: ${grading:-no result: see typical.log}; $(cat "$logs/typical-wall") s with its build"
fi
printf '%-5s %-90s %s\n' GPUs "batch" "as expected"
for n in ${GPUS:-2 1}; do
  done_line=$(grep -h "batch done" "$logs/batch-$n.log" | sed 's/^grader: //')
  printf '%-5s %-90s %s\n' "$n" "${done_line:-no result: see batch-$n.log}" \
    "$(tail -1 "$logs/check-$n.md")"
  grep -h "Worker time" "$logs/batch-$n.log" | sed 's/^grader: /      /'
  echo "      GPU use (nvidia-smi, gpu-usage-$n.csv): $(gpu_busy "$logs/gpu-usage-$n.csv")"
  sed 's/^/      /' "$logs/cpu-$n.txt"
done
exit $status
