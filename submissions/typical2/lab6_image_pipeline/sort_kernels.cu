// lab6 step 9: the radix sort. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, by the contract's rules for every
// launcher. Put your kernels and helpers in the anonymous namespace below.
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

// (9a) Writes 0 to *sorted where keys[i] > keys[i + 1]; *sorted must be 1
// otherwise (it arrives poisoned: set it first, e.g. with a kernel of one thread).
__global__ void order_kernel(const unsigned* keys, int n, int* sorted) {
  // TODO
}

// (9b) Suggested: three kernels per pass. Count the keys of each digit per block
// (its tile of keys); scan those counts exclusively in digit-major order
// (counts[digit * blocks + block]), which gives every (digit, block) the place its
// keys start in out; then each block writes its keys there, in their order
// within the tile (stable: rank them, e.g. with __ballot_sync and __popc per
// digit). The counts live in `scratch`. Write your kernels here.

}  // namespace

void check_order(const unsigned* keys, int n, int* sorted) {
  // TODO: set *sorted to 1 first
  order_kernel<<<1, 256>>>(keys, n, sorted);  // TODO: your grid
}

void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch) {
  // TODO: your kernels (see above), the counts in scratch
}

void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
  // TODO: 16 passes of radix_pass, least significant digit first, between keys
  // and temp; the result ends in keys
}

}  // namespace lab6
