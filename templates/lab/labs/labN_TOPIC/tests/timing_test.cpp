// labN timing bar: a ratio measured in this process, on this GPU (lab.json "bars",
// generated into labN_bars.hpp).
#include <gtest/gtest.h>

#include "labN.hpp"
#include "labN_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace labN {
namespace {

TEST(Timing, SaxpyReachesItsShareOfTheCopyBandwidth) {
  SaxpyBench bench(kTimedN, kTimedSeed);
  const Launch launch = covering(kTimedN, kDefaultThreads);
  const std::string wrong = bench.check(launch);
  ASSERT_TRUE(wrong.empty()) << "saxpy gives a wrong result, so its time means nothing; fix "
                                "correctness first:\n"
                             << wrong;
  harness::expect_passed(
      harness::copy_share_at_least(
          kSaxpyCopyShare, bench.bytes_moved(), [&] { return bench.time(launch); },
          "saxpy on 2^25 floats, 256 threads per block"),
      {"saxpy / copy ceiling"});
}

}  // namespace
}  // namespace labN
