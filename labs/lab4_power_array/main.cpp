// lab4_power_array: runs the power-array variants (A[i] = A[i]^k) and the window
// variants on a dataset and prints one row per variant like the course's examples;
// --memory prints the course's memory table beside this GPU's own numbers, and
// Little's law's "parallelism needed" from the latencies and throughputs measured;
// --occupancy prints each kernel's resources and occupancy (Part 3).
// Exits 1 when a result is wrong.
#include <algorithm>
#include <climits>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab4.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

namespace {

struct Settings {
  int k = 4;
  int radius = 32;
  int reps = 20;
  double ceiling_gbps = 0;
};

using harness::Cell;
using harness::Column;

std::vector<Column> columns() {
  return {Column("variant", -17),
          Column("array", -8),
          Column("k_or_radius", 7).titled("k|r"),
          Column("blocks", 8).missing("auto"),
          Column("threads", 7),
          Column("time_ms", 10).fixed(4),
          Column("gbps", 8).titled("GB/s").fixed(1),
          Column("copy_pct", 6).titled("%copy").fixed(1),
          Column("check").gap("  ")};
}

// One row: the time, its bandwidth and its share of the copy ceiling.
void print_row(harness::ResultWriter& out, const char* name, const char* storage, int param,
               int blocks, int threads, double ms, double gbps, double ceiling,
               const std::string& check) {
  out.row({name, storage, param, blocks ? Cell(blocks) : Cell(), threads, ms, gbps,
           100 * gbps / ceiling, check});
}

harness::TimingOptions options_for(const lab4::PowerBench& bench, int reps) {
  harness::TimingOptions o = bench.timing_options();
  o.min_reps = o.max_reps = reps;
  return o;
}

bool report(harness::ResultWriter& out, const char* name, const std::string& wrong) {
  if (!wrong.empty()) out.note("  " + std::string(name) + ": " + wrong);
  return wrong.empty();
}

bool run_power(harness::ResultWriter& out, lab4::PowerBench& bench, const lab4::PowerVariant& v,
               lab4::Launch requested, const Settings& s) {
  const lab4::Launch l = lab4::resolve_launch(v.grid, bench.n(), requested);
  const std::string wrong = bench.check(v, s.k, l);
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v, s.k, l, options_for(bench, s.reps)) : harness::not_timed();
  print_row(out, v.name, v.storage == lab4::Storage::Symbol ? "dA[]" : "pointer", s.k, l.blocks,
            l.threads, t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms), s.ceiling_gbps,
            wrong.empty() ? "ok" : "WRONG");
  return report(out, v.name, wrong);
}

bool run_window(harness::ResultWriter& out, lab4::PowerBench& bench, const lab4::WindowVariant& v,
                lab4::Launch requested, const Settings& s) {
  const lab4::Launch l = lab4::resolve_launch(v.grid, bench.n(), requested);
  const std::string wrong = bench.check(v, s.radius, l);
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v, s.radius, l, options_for(bench, s.reps)) : harness::not_timed();
  print_row(out, v.name, "pointer", s.radius, l.blocks, l.threads, t.median_ms,
            harness::gbps(bench.bytes_moved(), t.median_ms), s.ceiling_gbps,
            wrong.empty() ? "ok" : "WRONG");
  return report(out, v.name, wrong);
}

void print_littles_law(harness::ResultWriter& out, const cudaDeviceProp& p, int sm_khz,
                       double copy_gbps, double dram_cycles);

// The course's table (global memory, registers, L1, L2, shared memory) beside what
// this GPU reports, and load latencies measured by pointer chasing.
void print_memory_table(harness::ResultWriter& out) {
  using harness::str_printf;
  cudaDeviceProp p{};
  int device = 0, mem_khz = 0, sm_khz = 0, l1_shared = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  LAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&l1_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const double peak_gbps = 2.0 * mem_khz * 1e3 * (p.memoryBusWidth / 8) / 1e9;  // DDR
  const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
  out.context(
      str_printf("# memory: the course's numbers | this GPU (%s, %d SMs, SM clock %d MHz)", p.name,
                 p.multiProcessorCount, sm_khz / 1000),
      {{"gpu", p.name}, {"sm_count", p.multiProcessorCount}, {"sm_clock_mhz", sm_khz / 1000}});
  out.context(
      str_printf("global memory  | 8-48 GB, 500-2000 GB/s, 300-400 cycles | %.1f GB, %d-bit "
                 "bus at %d MHz: %.0f GB/s peak, %.0f GB/s measured copy (read+write)",
                 p.totalGlobalMem / 1e9, p.memoryBusWidth, mem_khz / 1000, peak_gbps, ceiling.gbps),
      {{"global_memory_gb", p.totalGlobalMem / 1e9},
       {"memory_bus_bits", p.memoryBusWidth},
       {"mem_clock_mhz", mem_khz / 1000},
       {"peak_gbps", peak_gbps},
       {"copy_ceiling_gbps", ceiling.gbps}});
  out.context(str_printf("registers      | 65536/SM, 1 per cycle | %d per SM, %d per block, %d "
                         "threads per SM (%d registers each at full occupancy)",
                         p.regsPerMultiprocessor, p.regsPerBlock, p.maxThreadsPerMultiProcessor,
                         p.regsPerMultiprocessor / p.maxThreadsPerMultiProcessor),
              {{"registers_per_sm", p.regsPerMultiprocessor},
               {"registers_per_block", p.regsPerBlock},
               {"max_threads_per_sm", p.maxThreadsPerMultiProcessor}});
  out.note(
      "L1 cache       | 64-192 KB/SM, ~4 cycles | unified with shared memory: the part "
      "not given to shared memory (not reported separately)");
  out.context(str_printf("L2 cache       | 8-40 MB | %.1f MB (up to %.1f MB can be set aside for "
                         "persisting accesses)",
                         p.l2CacheSize / 1048576.0, p.persistingL2CacheMaxSize / 1048576.0),
              {{"l2_mb", p.l2CacheSize / 1048576.0},
               {"persisting_l2_max_mb", p.persistingL2CacheMaxSize / 1048576.0}});
  out.context(str_printf("shared memory  | 32-128 KB/SM, ~4 cycles | %zu KB per SM, %zu KB per "
                         "block by default, %zu KB per block on request (opt-in)",
                         p.sharedMemPerMultiprocessor / 1024, p.sharedMemPerBlock / 1024,
                         p.sharedMemPerBlockOptin / 1024),
              {{"shared_per_sm_kb", p.sharedMemPerMultiprocessor / 1024},
               {"shared_per_block_kb", p.sharedMemPerBlock / 1024},
               {"shared_per_block_optin_kb", p.sharedMemPerBlockOptin / 1024}});
  out.context(str_printf("constant memory| per-SM constant cache | %zu KB", p.totalConstMem / 1024),
              {{"constant_kb", p.totalConstMem / 1024}});
  out.context(str_printf("warp size %d, max %d threads per block, %d blocks per SM", p.warpSize,
                         p.maxThreadsPerBlock, p.maxBlocksPerMultiProcessor),
              {{"warp_size", p.warpSize},
               {"max_threads_per_block", p.maxThreadsPerBlock},
               {"max_blocks_per_sm", p.maxBlocksPerMultiProcessor}});
  out.note("# load latency, one thread chasing pointers (SM cycles per load)");
  out.table({Column("level", -22), Column("cycles", 7).fixed(1),
             Column("how").gap(" cycles  (").suffix(")")},
            harness::TableHeader::Hidden);
  const std::vector<lab4::Latency> latencies = lab4::measure_latencies();
  for (const lab4::Latency& row : latencies) out.row({row.level, row.cycles, row.how});
  print_littles_law(out, p, sm_khz, ceiling.gbps, latencies.back().cycles);
}

// The course's tables 3-3 and 3-4, parallelism = latency x throughput, for this GPU:
// every input is measured here, except the SM clock (the device's maximum), which
// turns bytes per second into bytes per cycle.
void print_littles_law(harness::ResultWriter& out, const cudaDeviceProp& p, int sm_khz,
                       double copy_gbps, double dram_cycles) {
  using harness::str_printf;
  const lab4::FmaRates fma = lab4::measure_fma();
  const double ops = fma.latency_cycles * fma.per_cycle_per_sm;
  const int max_warps = p.maxThreadsPerMultiProcessor / p.warpSize;
  out.note(
      "# Little's law: parallelism needed = latency x throughput (the course's tables 3-3, "
      "3-4)");
  out.context(
      str_printf("arithmetic (fmaf) | %.1f cycles x %.1f FMA/cycle/SM = %.0f FMAs in flight per "
                 "SM = %.1f warps of independent FMAs (of %d per SM)",
                 fma.latency_cycles, fma.per_cycle_per_sm, ops, ops / p.warpSize, max_warps),
      {{"fma_latency_cycles", fma.latency_cycles},
       {"fma_per_cycle_per_sm", fma.per_cycle_per_sm},
       {"arithmetic_parallelism_ops_per_sm", ops},
       {"arithmetic_warps_per_sm", ops / p.warpSize}});
  const double bytes_per_cycle = copy_gbps * 1e9 / (sm_khz * 1e3);
  const double in_flight = dram_cycles * bytes_per_cycle;
  const double per_sm = in_flight / p.multiProcessorCount;
  const double warps_4b = per_sm / (4.0 * p.warpSize), warps_16b = per_sm / (16.0 * p.warpSize);
  out.context(
      str_printf("memory (DRAM)     | %.0f cycles x %.0f GB/s copy = %.0f B/cycle at %d MHz: "
                 "%.0f KB in flight, %.0f B per SM = %.1f warps of 4-byte loads or %.1f of "
                 "16-byte loads (of %d per SM)",
                 dram_cycles, copy_gbps, bytes_per_cycle, sm_khz / 1000, in_flight / 1024, per_sm,
                 warps_4b, warps_16b, max_warps),
      {{"memory_latency_cycles", dram_cycles},
       {"memory_bytes_per_cycle", bytes_per_cycle},
       {"memory_parallelism_kb", in_flight / 1024},
       {"memory_bytes_per_sm", per_sm},
       {"memory_warps_per_sm_4b_loads", warps_4b},
       {"memory_warps_per_sm_16b_loads", warps_16b},
       {"max_warps_per_sm", max_warps}});
}

// Part 3: every kernel's registers and shared memory (cudaFuncGetAttributes), the
// blocks per SM that each resource allows by the student's occupancy_limits, and
// the occupancy beside cudaOccupancyMaxActiveBlocksPerMultiprocessor's. `threads`
// (when given) replaces the block size of the kernels that take any.
bool print_occupancy_table(harness::ResultWriter& out, int threads, long long dynamic_bytes) {
  cudaDeviceProp p{};
  int device = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  out.context(
      harness::str_printf(
          "# limits per SM: %d threads (%d warps), %d blocks, %d registers (%d per block), "
          "%zu B shared memory (%zu per block, %zu reserved per block)",
          p.maxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor / p.warpSize,
          p.maxBlocksPerMultiProcessor, p.regsPerMultiprocessor, p.regsPerBlock,
          p.sharedMemPerMultiprocessor, p.sharedMemPerBlock, p.reservedSharedMemPerBlock),
      {{"max_threads_per_sm", p.maxThreadsPerMultiProcessor},
       {"max_warps_per_sm", p.maxThreadsPerMultiProcessor / p.warpSize},
       {"max_blocks_per_sm", p.maxBlocksPerMultiProcessor},
       {"registers_per_sm", p.regsPerMultiprocessor},
       {"registers_per_block", p.regsPerBlock},
       {"shared_per_sm_bytes", static_cast<long long>(p.sharedMemPerMultiprocessor)},
       {"shared_per_block_bytes", static_cast<long long>(p.sharedMemPerBlock)},
       {"shared_reserved_per_block_bytes", static_cast<long long>(p.reservedSharedMemPerBlock)}});
  out.table({Column("kernel", -16), Column("threads", 7), Column("registers", 4).titled("regs"),
             Column("shared_bytes", 7).titled("smem B"), Column("dynamic_bytes", 7).titled("dyn B"),
             Column("by_slots", 5).titled("slots"), Column("by_warps", 5).titled("warps"),
             Column("by_registers", 5).titled("regs"), Column("by_shared", 5).titled("smem"),
             Column("blocks", 6), Column("runtime_blocks", 7).titled("runtime"),
             Column("occupancy_pct", 6).titled("occ%").fixed(1),
             Column("runtime_occupancy_pct", 6).titled("rt occ%").fixed(1), Column("check")});
  bool all_right = true;
  for (const lab4::OccupancyKernel& k : lab4::occupancy_kernels()) {
    const int t = threads > 0 && k.grid != lab4::Grid::FixedBlock ? threads : k.threads;
    const lab4::OccupancyRow r =
        lab4::occupancy_of(k.id, t, static_cast<std::size_t>(dynamic_bytes));
    const bool right = r.blocks == r.runtime_blocks;
    all_right &= right;
    // A limit no resource sets is shown as the empty cell, not as a huge number.
    auto limit = [](int v) { return v >= (1 << 20) ? Cell() : Cell(v); };
    out.row({k.name, t, r.attributes.numRegs, static_cast<long long>(r.attributes.sharedSizeBytes),
             dynamic_bytes, limit(r.limits.by_block_slots), limit(r.limits.by_warps),
             limit(r.limits.by_registers), limit(r.limits.by_shared), r.blocks, r.runtime_blocks,
             r.percent(r.blocks), r.percent(r.runtime_blocks), right ? "ok" : "WRONG"});
  }
  out.note(
      "blocks: the smallest of the limits (slots, warps, regs, smem), by occupancy_limits; "
      "runtime: cudaOccupancyMaxActiveBlocksPerMultiprocessor. Achieved occupancy: "
      "ctest --preset lab4-tables (Nsight Compute)");
  return all_right;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab4_power_array", argc, argv,
      {{"variant", "NAME", "", "all",
        harness::names_of(lab4::power_variants(),
                          harness::names_of(lab4::window_variants(), {"all"}))},
       {"data", "FILE", "dataset file, raw float32 values", "data.bin"},
       {"n", "N", "expected number of values", "the file's size"},
       {"k", "K", "power", "4, the course's"},
       {"radius", "R", "window radius for the window variants, 0..64", "32"},
       {"blocks", "N", "grid size", "just enough to cover n"},
       {"threads", "N", "threads per block, 1..1024 (128 for the shared-array variants)",
        "128, the course's BLOCKSIZE"},
       {"reps", "N", "timed repetitions", "20"},
       {"memory", "", "print the memory table, latencies and Little's law, then stop", ""},
       {"occupancy", "", "print each kernel's resources and occupancy, then stop", ""},
       {"dynamic-shared", "BYTES", "dynamic shared memory per block, for --occupancy", "0"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        Settings s;
        // Everything that can be wrong with the input is reported before touching the GPU.
        const bool occupancy_only = args.has("occupancy");
        const bool memory_only = args.has("memory") || occupancy_only;
        const long long dynamic_bytes = args.get_int("dynamic-shared", 0, 0, INT_MAX);
        // Any block size CUDA launches (the shared-array variants take 128 only).
        const int threads = static_cast<int>(args.get_int("threads", lab4::kBlockSize, 1, 1024));
        const int occupancy_threads = occupancy_only && args.has("threads") ? threads : 0;
        const std::string path = args.get("data", "data.bin");
        const std::string name = args.get("variant", "all");
        const long long k = args.get_int("k", 4, 0, INT_MAX), radius = args.get_int("radius", 32);
        lab4::check_power_k(k);
        lab4::check_radius(radius);
        s.k = static_cast<int>(k);
        s.radius = static_cast<int>(radius);
        s.reps = args.get_positive("reps", 20);
        const long long expected = args.get_int("n", -1, 1, INT_MAX);
        lab4::Launch requested{args.get_positive("blocks", 0), threads};
        std::vector<float> values;
        if (!memory_only) values = lab4::load_values(path, expected);
        const long long n = static_cast<long long>(values.size());
        const lab4::PowerVariant* power = nullptr;
        const lab4::WindowVariant* window = nullptr;
        if (!memory_only && name != "all") {
          if (lab4::is_window_variant(name)) {
            window = &lab4::find_window_variant(name);
            lab4::resolve_launch(window->grid, n, requested);
          } else {
            try {
              power = &lab4::find_power_variant(name);
            } catch (const std::invalid_argument&) {
              throw std::invalid_argument("unknown variant '" + name +
                                          "'; known: global, register, shared, symbol_global, "
                                          "symbol_register, symbol_shared, best, window_global, "
                                          "window_shared, all");
            }
            lab4::check_fits_symbol(*power, n);
            lab4::resolve_launch(power->grid, n, requested);
          }
        }
        harness::require_gpu(out);
        if (occupancy_only)
          return print_occupancy_table(out, occupancy_threads, dynamic_bytes) ? 0 : 1;
        if (memory_only) {
          print_memory_table(out);
          return 0;
        }
        out.context(harness::str_printf("data: %s, %lld values", path.c_str(), n),
                    {{"data", path}, {"values", n}});
        lab4::PowerBench bench(std::move(values));
        s.ceiling_gbps = harness::measure_copy_ceiling().gbps;
        out.table(columns());
        bool all_right = true;
        if (power) {
          all_right = run_power(out, bench, *power, requested, s);
        } else if (window) {
          all_right = run_window(out, bench, *window, requested, s);
        } else {
          for (const lab4::PowerVariant& v : lab4::power_variants()) {
            if (v.storage == lab4::Storage::Symbol && n > lab4::kSymbolCapacity) continue;
            all_right &= run_power(out, bench, v, v.defaults, s);
          }
          const harness::TimingStats vol = bench.time_volatile(s.k, options_for(bench, s.reps));
          print_row(out, "volatile_reads*", "pointer", s.k, 0, 128, vol.median_ms,
                    harness::gbps(bench.bytes_moved(), vol.median_ms), s.ceiling_gbps,
                    bench.check_volatile(s.k).empty() ? "ok" : "WRONG");
          for (const lab4::WindowVariant& v : lab4::window_variants()) {
            all_right &= run_window(out, bench, v, v.defaults, s);
          }
          const std::string wrong = bench.check_window_yardstick(s.radius);
          const harness::TimingStats g =
              bench.time_window_yardstick(s.radius, options_for(bench, s.reps));
          print_row(out, "window_yardstick*", "pointer", s.radius, 0, 128, g.median_ms,
                    harness::gbps(bench.bytes_moved(), g.median_ms), s.ceiling_gbps,
                    wrong.empty() ? "ok" : "WRONG");
          out.context(harness::str_printf("* harness yardsticks. k|r: k for the power variants, "
                                          "the radius for the windows. Copy ceiling "
                                          "(device-to-device, read+write): %.0f GB/s",
                                          s.ceiling_gbps),
                      {{"copy_ceiling_gbps", s.ceiling_gbps}});
        }
        return all_right ? 0 : 1;
      });
}
