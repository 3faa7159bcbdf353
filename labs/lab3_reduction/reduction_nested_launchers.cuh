// lab3: the launchers of the nested reductions (11)-(13), fixed by the lab: each
// launches launch.blocks blocks, each reducing launch.threads elements. They are
// definitions: nested_kernels.cu includes this once, at its end, after the kernels
// they launch (nested_kernel, nested_nosync_kernel, nested2_kernel).
#pragma once
#include "reduction.cuh"

namespace lab3 {

void nested_reduce(int* data, int n, int* partial, Launch launch) {
  nested_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void nested_reduce_nosync(int* data, int n, int* partial, Launch launch) {
  nested_nosync_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void nested_reduce2(int* data, int n, int* partial, Launch launch) {
  nested2_kernel<<<launch.blocks, launch.threads / 2>>>(data, n, partial, launch.threads / 2,
                                                        launch.threads);
}

}  // namespace lab3
