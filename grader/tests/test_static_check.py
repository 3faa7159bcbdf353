"""The source rules: libraries named at their line; honest code is never a finding."""

from __future__ import annotations

import pytest

from grader.tests.helpers import DATA
from grader.trust.static_check import check_lab, check_source, strip_comments

STATIC = DATA / "static"


def _rules(code: str) -> set[str]:
    return {f.rule_id for f in check_source(code, "x.cu")}


@pytest.mark.parametrize(
    "code, rule",
    [
        ("#include <cub/cub.cuh>", "library-include"),
        ("#include <thrust/sort.h>", "library-include"),
        ("#include <cublas_v2.h>", "library-include"),
        ('#include "cudnn.h"', "library-include"),
        ("#include <cutlass/gemm/device/gemm.h>", "library-include"),
        ("void f() { cub::DeviceHistogram::HistogramEven(0, n); }", "library-call"),
        ("void f() { thrust::reduce(a, b); }", "library-call"),
        ("void f() { cublasSgemm(h); }", "library-call"),
        ("void f() { cublasLtMatmul(h); }", "library-call"),
        ("void f() { cub\\\n::DeviceReduce::Sum(); }", "library-call"),
    ],
)
def test_each_library_is_named_at_its_line(code: str, rule: str) -> None:
    assert rule in _rules(code)


# Honest code the source rules once refused: the object check judges what it
# compiles to instead.
@pytest.mark.parametrize(
    "code",
    [
        "// thrust::sort, cudaEventElapsedTime, exit(1), cudaMemcpyDeviceToHost",
        "/* #include <cub/cub.cuh> */",
        '__global__ void k() { printf("thrust:: cudaEventCreate\\n"); }',
        "__global__ void k(long long* t) { *t = clock64(); }",
        "#pragma unroll 4",
        '__global__ void k() { asm volatile("membar.gl;"); }',
        "void f() { k<<<1, 32>>>(); cudaError_t e = cudaGetLastError(); (void)e; }",
        "#define CHECK(x) do { if ((x) != cudaSuccess) exit(1); } while (0)",
        "#define JOIN(a, b) a##b",
        '#include "histogram.cuh"\n#include <cstdint>\n#include <cuda_runtime.h>',
    ],
)
def test_honest_code_is_not_a_finding(code: str) -> None:
    assert _rules(code) == set()


def test_findings_name_file_and_line() -> None:
    found = check_lab(STATIC / "cheater" / "lab1_histogram", STATIC / "cheater")
    path = "lab1_histogram/histogram_kernels.cu"
    assert {(f.path, f.line, f.rule_id) for f in found} == {(path, 3, "library-include")}
    assert "cub/cub.cuh" in found[0].describe()


def test_strip_comments_keeps_lines_and_offsets() -> None:
    text = 'a // b\n/* c\n d */ e "f"\n'
    stripped = strip_comments(text, blank_strings=True)
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    assert stripped.split() == ["a", "e", '"', '"']
    assert strip_comments("int n = 1'000; // x", blank_strings=True).rstrip() == "int n = 1'000;"
