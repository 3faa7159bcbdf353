#!/usr/bin/env bash
# lab2's seed-style tables, run by scripts/gpu-suite.sh with BIN set (lab2 needs no
# DATA: its inputs are generated in-process).
set -u
echo "# divergent kernels and their twins, 2^24 elements, 256 threads per block"
"$BIN/lab2_divergence" --variant all
echo "# the same with 128 and 1024 threads per block"
"$BIN/lab2_divergence" --variant all --threads 128 | tail -9
"$BIN/lab2_divergence" --variant all --threads 1024 | tail -9
echo "# simpleDivergence, as in the course (32 ints, one warp)"
"$BIN/lab2_divergence" --variant simple_divergence --n 32 --threads 32 | tail -34
echo "# sumMatrixOnGPU2D, the course's four block shapes on 2^14 x 2^14, then (64,8) and (128,2)"
"$BIN/lab2_sum_matrix"
"$BIN/lab2_sum_matrix" --block-x 64 --block-y 8 | tail -1
"$BIN/lab2_sum_matrix" --block-x 128 --block-y 2 | tail -1
echo "# the divergent barrier"
"$BIN/lab2_barrier_demo"
echo "# the harness kills a hung kernel, and the other tests still run"
ctest --test-dir "$BIN/.." -R '^harness\.lab2\.hung|SumMatrix.*block32x16__97x31|Kernels.*even_odd__n97__threads96' \
  --output-on-failure 2>&1 | grep -E "Test +#|timed out|tests passed|Total"
if command -v ncu >/dev/null; then
  echo "# Nsight Compute: branch efficiency, warp efficiency, achieved occupancy (n = 2^20)"
  timeout 120 ncu --metrics smsp__sass_average_branch_targets_threads_uniform.pct,smsp__thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$BIN/lab2_divergence" --n 1048576 --reps 1 2>&1 | grep -E "^  .*\(|branch_targets|thread_inst|warps_active|ERR" | sed 's/, Context.*//' | awk '/^  [^ ]/{show = !seen[$0]++} show' 
  echo "# Nsight Compute: sumMatrixOnGPU2D occupancy, load efficiency and throughput (2^12 x 2^12)"
  timeout 120 ncu --metrics sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second \
    "$BIN/lab2_sum_matrix" --nx 4096 --ny 4096 --reps 1 2>&1 | grep -E "^  .*\(|warps_active|bytes_per_sector|per_second|ERR" | sed 's/, Context.*//' | awk '/^  [^ ]/{show = !seen[$0]++} show' 
fi
