#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6 step 9: the radix sort. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers. Launchers launch on the default
// stream and must not synchronize, allocate or copy to the host. Every size from
// 1 must work: check bounds. Put your kernels and helpers in the anonymous
// namespace below.
#else
// lab6 reference solution, step 9: the order check and the radix sort, 2 bits
// per pass. Their bodies, and their tests, are not written yet: each launcher
// launches nothing.
#endif
#include "image_pipeline.cuh"

namespace lab6 {
namespace {}  // namespace

// (9a) TODO: *sorted = 1 when the keys never decrease, else 0.
void check_order(const unsigned* keys, int n, int* sorted) {}

// (9b) TODO: one stable pass on the digit (key >> shift) & 3: count each block's
// digits, scan the counts, scatter each key to its place.
void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch) {}

// (9c) TODO: 16 passes of radix_pass, least significant digit first, between keys
// and temp; the result ends in keys.
void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {}

}  // namespace lab6
