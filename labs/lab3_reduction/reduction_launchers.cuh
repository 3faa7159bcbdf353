// lab3: the launchers of the per-block kernels (1)-(9), fixed by the lab: each
// launches exactly launch.blocks blocks of launch.threads threads, as the contract
// says. They are definitions, not declarations: the student's file includes this
// once, at its end, after the kernels they launch (neighbored_kernel ...
// complete_unroll_template_kernel). reduce_shuffle, whose grid the student picks,
// stays in the student's file.
#pragma once
#include "reduction.cuh"

namespace lab3 {

void reduce_neighbored(int* data, int n, int* partial, Launch launch) {
  neighbored_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_neighbored_less(int* data, int n, int* partial, Launch launch) {
  neighbored_less_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_interleaved(int* data, int n, int* partial, Launch launch) {
  interleaved_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling2(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<2><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling4(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<4><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling8(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<8><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unroll_warps8(int* data, int n, int* partial, Launch launch) {
  unroll_warps8_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_complete_unroll8(int* data, int n, int* partial, Launch launch) {
  complete_unroll8_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_complete_unroll_template(int* data, int n, int* partial, Launch launch) {
  switch (launch.threads) {
    case 1024:
      complete_unroll_template_kernel<1024><<<launch.blocks, 1024>>>(data, n, partial);
      break;
    case 512:
      complete_unroll_template_kernel<512><<<launch.blocks, 512>>>(data, n, partial);
      break;
    case 256:
      complete_unroll_template_kernel<256><<<launch.blocks, 256>>>(data, n, partial);
      break;
    case 128:
      complete_unroll_template_kernel<128><<<launch.blocks, 128>>>(data, n, partial);
      break;
    case 64:
      complete_unroll_template_kernel<64><<<launch.blocks, 64>>>(data, n, partial);
      break;
  }
}

}  // namespace lab3
