// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// they set the standard the student bars are derived from, and test what the
// README claims about this GPU.
#include <gtest/gtest.h>

#include "lab4.hpp"
#include "lab4_bars.hpp"
#include "labs/bandwidth.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab4 {
namespace {

PowerBench timed_bench() {
  return PowerBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

// On the timed case repeated to the copy ceiling's traffic (2^26 floats read and
// written): the kernel and the copy it is judged against move the same bytes.
TEST(Reference, BestReachesItsShareOfTheCopyBandwidth) {
  const auto count = static_cast<std::size_t>(harness::kCopyCeilingTraffic / (2 * sizeof(float)));
  PowerBench bench(harness::repeated(
      load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN), count));
  const PowerVariant& best = find_power_variant("best");
  const Launch launch = resolve_launch(best.grid, bench.n(), best.defaults);
  const std::string wrong = bench.check(best, kTimedK, launch);
  ASSERT_TRUE(wrong.empty()) << "best gives a wrong result:\n" << wrong;
  harness::expect_passed(
      harness::copy_share_at_least(
          kReferenceCopyShare, bench.bytes_moved(),
          [&] { return bench.time(best, kTimedK, launch, bench.timing_options()); }, "best"),
      {"reference best / copy ceiling"});
}

TEST(Reference, SharedWindowBeatsTheGlobalMemoryWindow) {
  PowerBench bench = timed_bench();
  const WindowVariant& shared = find_window_variant("window_shared");
  const Launch launch = resolve_launch(shared.grid, bench.n(), shared.defaults);
  ASSERT_TRUE(bench.check(shared, kTimedRadius, launch).empty()) << "window_shared is wrong";
  harness::expect_speedup(
      kReferenceWindowSpeedup,
      [&] { return bench.time_window_yardstick(kTimedRadius, bench.timing_options()); },
      [&] { return bench.time(shared, kTimedRadius, launch, bench.timing_options()); },
      [](const harness::TimingStats& global, const harness::TimingStats& mine) {
        return harness::str_printf("window_shared %.4f ms vs global window %.4f ms", mine.median_ms,
                                   global.median_ms);
      },
      {"reference window_shared / global-memory window"});
}

// The README's claim: reading in[i] k times in the source costs nothing, because
// the compiler loads it once. Checked for the course's k = 4 and for k = 64.
class GlobalMatchesRegister : public testing::TestWithParam<int> {};

TEST_P(GlobalMatchesRegister, SeedKernelTimesLikeTheRegisterOne) {
  const int k = GetParam();
  PowerBench bench = timed_bench();
  const PowerVariant& global = find_power_variant("global");
  const PowerVariant& reg = find_power_variant("register");
  const Launch launch = resolve_launch(global.grid, bench.n(), global.defaults);
  ASSERT_TRUE(bench.check(global, k, launch).empty()) << "global is wrong";
  ASSERT_TRUE(bench.check(reg, k, launch).empty()) << "register is wrong";
  // The seed kernel is timed first, before its register twin: not expect_speedup's order.
  const harness::RatioVerdict verdict = harness::ratio_at_least(kGlobalMatchesRegister, [&] {
    const harness::TimingStats g = bench.time(global, k, launch, bench.timing_options());
    const harness::TimingStats r = bench.time(reg, k, launch, bench.timing_options());
    return harness::speedup(r, g,
                            harness::str_printf("k = %d: global %.4f ms, register %.4f ms", k,
                                                g.median_ms, r.median_ms));
  });
  harness::expect_passed(verdict, {"reference global / register, k = " + std::to_string(k)});
}

INSTANTIATE_TEST_SUITE_P(Reference, GlobalMatchesRegister, testing::Values(kTimedK, 64),
                         [](const testing::TestParamInfo<int>& info) {
                           return "k" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace lab4
