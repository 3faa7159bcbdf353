"""A stand-in for `lab_gpu_info`: `present`, `absent` or `broken`."""

import json
import sys

H100 = {
    "name": "NVIDIA H100 80GB HBM3",
    "driver_version": "12.4",
    "runtime_version": "12.4",
    "compute_capability": "9.0",
    "sm_count": 132,
    "memory_gb": 85.0,
    "sm_clock_mhz": 1980,
    "mem_clock_mhz": 2619,
}


def main() -> int:
    mode = sys.argv[1]
    if mode == "present":
        print(json.dumps(H100))
        return 0
    if mode == "absent":
        print(
            "cuda-labs: skipped: no CUDA device (cudaErrorNoDevice: no CUDA-capable device "
            "is detected)"
        )
        return 77
    print("lab_gpu_info: cudaErrorUnknown", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
