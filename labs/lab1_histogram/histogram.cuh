// lab1 contract: every function the harness calls, in
// skeletons/lab1_histogram/histogram_kernels.cu (reference: solutions/...). The
// launchers of (i) and (k), and (k)'s kernel around the student's atomic_mul, are
// the lab's: histogram_launchers.cuh, included at the end of the student's file.
//
// Each launcher receives device pointers, launches its kernel(s) on the default
// stream and returns without synchronizing or allocating:
//   samples  n values in [0, kBins), device memory, 256-byte aligned;
//   hist     kBins ints of GARBAGE: the launcher must zero it first
//            (cudaMemsetAsync), then count. After the harness synchronizes,
//            hist[v] must equal the number of samples equal to v, for every n >= 1.
#pragma once
#include <cuda_runtime.h>

namespace lab1 {

inline constexpr int kBins = 1024;  // 10-bit samples: values 0..1023

// Launch configuration, chosen on the lab program's command line.
struct Launch {
  int blocks;   // grid size; the harness makes the grid cover all n samples
                // (histogram_best gets 0 unless --blocks is given: pick your own grid)
  int threads;  // threads per block
  int slice;    // slice variants: samples per thread; per-bin variants: samples per block
};

// Method 1: a thread counts a slice of samples into the global histogram.
// (a) thread t handles samples [t * slice, (t + 1) * slice), atomicAdd on hist.
void histogram_global(const int* samples, int n, int* hist, Launch launch);
// (b) the same loop with `#pragma unroll`.
void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch);
// (c) the same loop unrolled by hand, four atomicAdds per iteration (ILP x4).
void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch);
// (d) one sample per thread (launch.slice is 1).
void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch);
// (e) each block counts its threads' slices into a shared-memory histogram,
//     then adds it to hist.
void histogram_shared(const int* samples, int n, int* hist, Launch launch);

// Method 2: a thread owns bins. Block b handles samples [b * slice, (b + 1) * slice)
// (launch.slice values, up to 10240: 40 KiB of shared memory, plus 4 KiB for a
// block histogram if you want one, stays under the 48 KiB a block gets by default);
// thread t owns bins t, t + threads, t + 2 * threads, ...
// (f) "inverse": load the block's samples into shared memory, then each thread
//     scans them for its bins.
void histogram_inverse(const int* samples, int n, int* hist, Launch launch);
// (g) the same, written so that the scan reads shared memory without bank
//     conflicts (all threads read the same word: a broadcast) and without a branch.
void histogram_banks(const int* samples, int n, int* hist, Launch launch);
// (g2) banks unrolled by 2, the course's histogram_banks2: thread t owns the pairs of
//     bins (b, b + kBins / 2) for b = t, t + threads, ... < kBins / 2, and each read of
//     a shared sample feeds both of a pair's counters (the course launches 512 threads).
void histogram_banks2(const int* samples, int n, int* hist, Launch launch);
// (g4) unrolled by 4, the course's histogram_banks4: thread t owns the quadruples
//     (b, b + kBins / 4, b + kBins / 2, b + 3 * kBins / 4) for b = t, t + threads, ...
//     < kBins / 4, one read feeding four counters (the course launches 256 threads).
void histogram_banks4(const int* samples, int n, int* hist, Launch launch);

// Your fastest histogram, any method (launch.blocks is 0: pick the grid).
// The timing test measures every variant above and this one and grades the fastest.
void histogram_best(const int* samples, int n, int* hist, Launch launch);

// ---- Colour images (the course's "istogramma dei colori": RGB or HSV) ----
// An image is n = width * height pixels in row order, one uchar4 per pixel: x red,
// y green, z blue, 8 bits each; w (alpha) is padding: ignore it, the tests fill it with
// anything. `image` is device memory, 256-byte aligned. Each launcher zeroes its `hist`
// (ints of GARBAGE), then launches exactly launch.blocks blocks of launch.threads
// threads (launch.slice is 0), which may be fewer or more threads than pixels: loop
// over the pixels with a grid stride. After the harness synchronizes, every bin must
// hold the number of pixels that fall in it, for every n >= 1.
inline constexpr int kChannels = 3;                       // red, green, blue
inline constexpr int kColourBins = 256;                   // per channel: values 0..255
inline constexpr int kRgbBins = kChannels * kColourBins;  // 768
inline constexpr int kHueBins = 361;                      // hues 0..359, then the greys
inline constexpr int kHueGrey = 360;                      // the bin of the greys

// (l) The three channels' histograms in ONE kernel: hist holds kRgbBins ints, red
//     bins first, then green, then blue (hist[c * kColourBins + v], c = 0, 1, 2). Each
//     block counts its pixels into kRgbBins counters in shared memory, then adds them
//     to hist with atomicAdd.
void histogram_rgb(const uchar4* image, int n, int* hist, Launch launch);
// (m) The hue histogram, the hue computed on the device: hist holds kHueBins ints.
//     With M = max(r, g, b), m = min(r, g, b) and d = M - m, in integers:
//       d == 0 (a grey): no hue, bin kHueGrey;
//       else h6 = 60 * (g - b)            if M == r,
//                 60 * (b - r) + 120 * d  else if M == g,
//                 60 * (r - g) + 240 * d  else (M == b);
//            if h6 < 0, h6 += 360 * d;  bin h6 / d, in 0..359.
//     That is HSV's hue in degrees, 60 * (sector + fraction), rounded down. Where two
//     channels tie for the maximum, the cases give the same bin. h6 / d divides two
//     non-negative ints: C's division, which truncates toward zero, is then the floor.
void histogram_hue(const uchar4* image, int n, int* hist, Launch launch);

// ---- The atomic operations (the course's lecture: testAtomic, check_threshold) ----
// Each launcher launches launch.blocks x launch.threads threads (enough to cover n);
// thread tid = blockIdx.x * blockDim.x + threadIdx.x acts only when tid < n. The
// harness sets the initial values and checks every result exactly.

// The slots of atomic_catalogue, in the order of the course's testAtomic.
enum AtomicSlot : int {
  kSlotAdd,   // atomicAdd(slot, 10)
  kSlotSub,   // atomicSub(slot, 10)
  kSlotExch,  // exch_old[tid] = atomicExch(slot, tid)
  kSlotMax,   // atomicMax(slot, tid)
  kSlotMin,   // atomicMin(slot, tid)
  kSlotInc,   // atomicInc((unsigned int*)slot, 17)
  kSlotDec,   // atomicDec((unsigned int*)slot, 137)
  kSlotCas,   // cas_old[tid] = atomicCAS(slot, -1, tid): the slot starts at -1, one tid claims it
  kSlotAnd,   // atomicAnd(slot, 2 * tid + 7)
  kSlotOr,    // atomicOr(slot, 1 << (tid % 32))
  kSlotXor,   // atomicXor(slot, tid)
  kSlots
};
// (i) testAtomic: every thread tid < n applies to `slots` (kSlots ints, set by the
//     harness) the operation of each slot above; exch_old and cas_old (n ints of
//     garbage) receive the values atomicExch and atomicCAS return to thread tid.
void atomic_catalogue(int* slots, int* exch_old, int* cas_old, int n, Launch launch);
// (j) check_threshold: `flag` (one int of garbage) must end 1 if some values[i] > threshold
//     (set with atomicExch, as the course does), else 0: zero it first.
void check_threshold(const int* values, int n, int threshold, int* flag, Launch launch);
// (k) An atomic the hardware lacks, built from atomicCAS: thread tid < n multiplies
//     *product (set by the harness) by factors[tid], modulo 2^32 like unsigned
//     arithmetic, in one atomic step, and writes the value it replaced to old[tid].
void atomic_multiply(unsigned int* product, const unsigned int* factors, unsigned int* old, int n,
                     Launch launch);

}  // namespace lab1
