// Kernels the harness ships: the course's tiny textbook kernels (a demonstration
// that predicated branches do not diverge) and plain GPU references used to check
// outputs too large for the CPU reference to recompute quickly.
#pragma once

#include "variants.hpp"

namespace lab2 {

// The course's pari_dispari_1 (a = 2 for even threads, b = 1 for odd ones,
// c[tid] = a + b), with a bound check: c[i] = i even ? 2 : 1.
void textbook_even_odd(int* c, int n, int threads);
// The same tiny body, branch on (tid / warpSize) % 2: c[i] = warp even ? 2 : 1.
void textbook_warp_aligned(int* c, int n, int threads);

// One thread per element, out[i] as the contract defines it for `family`.
void gpu_reference(Family family, const float* in, int n, float* out);

}  // namespace lab2
