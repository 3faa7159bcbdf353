// lab1_histogram: runs histogram variants on a data.bin file and prints one row per
// variant like the course's tables, each with its first 10 bins (compare them with the
// CPU's, or with first_bins.py, the course's Python reader); or a colour variant (rgb,
// hue) on an image file. Exits 1 when one is wrong.
#include <algorithm>
#include <climits>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab1.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

namespace {

// --threads: any block size CUDA launches, named in the message of a value outside it.
int threads_option(const harness::Args& args, int fallback) {
  return static_cast<int>(args.get_int("threads", fallback, 1, 1024));
}

using harness::Cell;
using harness::Column;

std::vector<Column> columns() {
  return {Column("variant", -15),
          Column("blocks", 7).missing("auto"),
          Column("threads", 7),
          Column("slice", 6),
          Column("operations", -30).gap("  ").missing("-"),
          Column("time_ms", 9).fixed(3),
          Column("gbps", 8).titled("GB/s").fixed(1),
          Column("check", -5).gap("  "),
          Column("first_bins").titled("first 10 bins").gap("  ")};
}

// The number of samples the launch reads, shown as the product that makes it.
Cell operations(const lab1::Variant& v, const lab1::Launch& l) {
  const long long blocks = l.blocks, threads = l.threads, slice = l.slice;
  if (v.work == lab1::Work::SlicePerThread) {
    return Cell(blocks * threads * slice)
        .shown_as(harness::str_printf("%lld x %lld x %lld = %lld", blocks, threads, slice,
                                      blocks * threads * slice));
  }
  if (v.work == lab1::Work::ChunkPerBlock) {
    return Cell(blocks * slice)
        .shown_as(harness::str_printf("%lld x %lld = %lld", blocks, slice, blocks * slice));
  }
  return Cell();
}

// The first 10 bins, as the course's Python reader prints them: "[32663, 32848, ...]".
std::string first_bins(const std::vector<int>& hist) {
  std::string text = "[";
  for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + std::to_string(hist[i]);
  return text + "]";
}

// Checks then times one variant; returns false when its histogram is wrong.
bool run_variant(harness::ResultWriter& out, lab1::HistogramBench& bench, const lab1::Variant& v,
                 lab1::Launch requested, int reps) {
  const lab1::Launch l = lab1::resolve_launch(v, bench.n(), requested);
  const std::string wrong = bench.check(v.run, l);
  const std::string bins = first_bins(bench.last_result());  // before timing, on the file's data
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v.run, l, options) : harness::not_timed();
  out.row({v.name, l.blocks ? Cell(l.blocks) : Cell(), l.threads, l.slice, operations(v, l),
           t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms),
           wrong.empty() ? "ok" : "WRONG", bins});
  if (!wrong.empty()) out.note("  " + std::string(v.name) + ": " + wrong);
  return wrong.empty();
}

// What --variant takes: a histogram variant, a colour one, or all the histogram ones.
std::vector<std::string> variant_names() {
  return harness::names_of(lab1::variants(), harness::names_of(lab1::colour_variants(), {"all"}));
}

// The colour variants' run: the image's size, the grid, the file, then the GPU.
int run_colour(const harness::Args& args, harness::ResultWriter& out,
               const lab1::ColourVariant& v) {
  const std::string name = v.name;
  if (args.has("slice")) {
    throw harness::UsageError("--slice is not for --variant " + name +
                              ": its kernel loops over the image with a grid stride");
  }
  args.forbid_together("n", "width", "--width and --height give the number of pixels");
  if (args.has("width") != args.has("height")) {
    throw harness::UsageError(
        "--width and --height go together: give both, or neither to take the file's size");
  }
  const long long width = args.get_positive("width", 0), height = args.get_positive("height", 0);
  long long expected = args.get_int("n", -1, 1, INT_MAX);
  if (width > 0) {
    expected = width * height;
    if (expected > INT_MAX) {
      throw harness::UsageError(
          harness::str_printf("--width %lld x --height %lld = %lld pixels, more than %d", width,
                              height, expected, INT_MAX));
    }
  }
  const int reps = args.get_positive("reps", 20);
  const lab1::Launch launch =
      lab1::resolve_colour_launch({args.get_positive("blocks", lab1::kColourLaunch.blocks),
                                   threads_option(args, lab1::kColourLaunch.threads), 0});
  const std::string path = args.get("data", "image.bin");
  std::vector<uchar4> image = lab1::load_image(path, expected);
  harness::require_gpu(out);
  const std::string size =
      width > 0 ? harness::str_printf("%lld x %lld", width, height) : std::to_string(image.size());
  out.context(harness::str_printf("image: %s, %s pixels", path.c_str(), size.c_str()),
              {{"data", path}, {"pixels", image.size()}});
  lab1::ColourBench bench(std::move(image));
  out.context("first 10 bins (CPU): " + first_bins(bench.expected(v)),
              {{"first_bins_cpu", first_bins(bench.expected(v))}});

  out.table(columns());
  const std::string wrong = bench.check(v, launch);
  const std::string bins = first_bins(bench.last_result());
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v, launch, options) : harness::not_timed();
  out.row({v.name, launch.blocks, launch.threads, Cell(),
           Cell(bench.n()).shown_as(harness::str_printf("%lld pixels, grid stride", bench.n())),
           t.median_ms, harness::gbps(bench.bytes_moved(v), t.median_ms),
           wrong.empty() ? "ok" : "WRONG", bins});
  if (!wrong.empty()) out.note("  " + name + ": " + wrong);
  return wrong.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab1_histogram", argc, argv,
      {{"variant", "NAME", "", "shared", variant_names()},
       {"data", "FILE",
        "dataset file, raw int32 samples 0..1023 (rgb, hue: an image, one RGBA pixel per int32)",
        "data.bin (rgb, hue: image.bin)"},
       {"n", "N", "expected number of samples (rgb, hue: pixels)", "the file's size"},
       {"width", "W", "rgb, hue: the image's width (with --height: the file holds W x H pixels)",
        "the file's size"},
       {"height", "H", "rgb, hue: the image's height", "the file's size"},
       {"blocks", "N", "grid size", "just enough to cover n"},
       {"threads", "N", "threads per block, 1..1024", "the variant's"},
       {"slice", "N", "samples per thread, or per block for inverse/banks", "the variant's"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        // Everything that can be wrong with the input is reported before touching the GPU,
        // and the options before reading a file that may be large.
        const std::string name = args.get("variant", "shared");
        const std::vector<std::string> known = variant_names();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          std::string list;
          for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
          throw std::invalid_argument("unknown variant '" + name + "'; known: " + list);
        }
        for (const lab1::ColourVariant& v : lab1::colour_variants()) {
          if (name == v.name) return run_colour(args, out, v);
        }
        if (args.has("width") || args.has("height")) {
          throw harness::UsageError("--width and --height are for --variant rgb and hue");
        }
        const std::string path = args.get("data", "data.bin");
        const long long expected = args.get_int("n", -1, 1, INT_MAX);
        const int reps = args.get_positive("reps", 20);
        const lab1::Variant* chosen = name == "all" ? nullptr : &lab1::find_variant(name);
        lab1::Launch requested{};
        if (chosen) {
          requested.blocks = args.get_positive("blocks", 0);
          requested.threads = threads_option(args, chosen->defaults.threads);
          requested.slice = args.get_positive("slice", chosen->defaults.slice);
        }
        std::vector<int> samples = lab1::load_samples(path, expected);
        if (chosen) {
          lab1::resolve_launch(*chosen, static_cast<long long>(samples.size()), requested);
        }
        harness::require_gpu(out);
        out.context(harness::str_printf("data: %s, %zu samples", path.c_str(), samples.size()),
                    {{"data", path}, {"samples", samples.size()}});
        lab1::HistogramBench bench(std::move(samples));
        out.context("first 10 bins (CPU): " + first_bins(bench.expected()),
                    {{"first_bins_cpu", first_bins(bench.expected())}});

        out.table(columns());
        bool all_right = true;
        if (name == "all") {
          for (const lab1::Variant& v : lab1::variants()) {
            all_right &= run_variant(out, bench, v, v.defaults, reps);
          }
          harness::TimingOptions options;
          options.min_reps = options.max_reps = reps;
          const Cell blank = Cell().shown_as("");
          const harness::TimingStats course = bench.time_course_global(options);
          out.row({"seed_global*", blank, 512, 1024, Cell().shown_as("harness baseline"),
                   course.median_ms, harness::gbps(bench.bytes_moved(), course.median_ms), Cell()});
          const std::string cub_wrong = bench.check_cub();
          const harness::TimingStats cub = bench.time_cub(options);
          out.row({"cub*", blank, blank, blank, Cell().shown_as("DeviceHistogram::HistogramEven"),
                   cub.median_ms, harness::gbps(bench.bytes_moved(), cub.median_ms),
                   cub_wrong.empty() ? "ok" : "WRONG", first_bins(bench.last_result())});
          const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
          out.context(harness::str_printf("* harness yardsticks. Copy ceiling (device-to-device, "
                                          "read+write): %.0f GB/s",
                                          ceiling.gbps),
                      {{"copy_ceiling_gbps", ceiling.gbps}});
        } else {
          all_right = run_variant(out, bench, *chosen, requested, reps);
        }
        return all_right ? 0 : 1;
      });
}
