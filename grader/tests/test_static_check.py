"""The static check: real trees pass, every forbidden pattern is caught with file:line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader.cli import main
from grader.commands.check import check_impl
from grader.static_check import check_source, strip_comments
from grader.symbols import Symbol, check_objects, check_symbols, contract_names, parse_nm
from grader.tests.helpers import DATA

REPO = Path(__file__).resolve().parents[2]
STATIC = DATA / "static"
LAB1_CONTRACT = REPO / "labs" / "lab1_histogram" / "histogram.cuh"


def _rules(code: str, lab: str = "lab1") -> set[str]:
    return {f.rule_id for f in check_source(code, "x.cu", lab)}


@pytest.mark.parametrize("tree", ["skeletons", "solutions"])
def test_the_repository_trees_pass(tree: str) -> None:
    results = check_impl(REPO / tree, REPO, None, None)
    assert "lab1" in results
    assert {lab: [f.describe() for f in found] for lab, found in results.items() if found} == {}


@pytest.mark.parametrize("code, rule", [
    ("#include <cub/cub.cuh>", "library-include"),
    ("#include <thrust/sort.h>", "library-include"),
    ("#include <cublas_v2.h>", "library-include"),
    ("#include \"cudnn.h\"", "library-include"),
    ("#include <cutlass/gemm/device/gemm.h>", "library-include"),
    ("#include \"../../labs/common/include/labs/timer.hpp\"", "harness-include"),
    ("#include <fstream>", "io-include"),
    ("#include <chrono>", "io-include"),
    ("void f() { cub::DeviceHistogram::HistogramEven(0, n); }", "library-call"),
    ("void f() { thrust::reduce(a, b); }", "library-call"),
    ("void f() { cublasSgemm(h); }", "library-call"),
    ("void f() { cublasLtMatmul(h); }", "library-call"),
    ("void f() { cudaEvent_t e; cudaEventCreate(&e); }", "timer"),
    ("float f() { float ms; cudaEventElapsedTime(&ms, a, b); return ms; }", "timer"),
    ("auto t = std::chrono::steady_clock::now();", "timer"),
    ("void f() { timeval tv; gettimeofday(&tv, 0); }", "timer"),
    ("void f() { exit(0); }", "process-control"),
    ("void f() { std::exit(0); }", "process-control"),
    ("void f() { _Exit(0); }", "process-control"),
    ("void f() { abort(); }", "process-control"),
    ("void f() { fork(); }", "process-control"),
    ("void f() { system(\"rm -rf /\"); }", "process-control"),
    ("void f() { popen(\"ls\", \"r\"); }", "process-control"),
    ("void f() { dlopen(\"libcudart.so\", 0); }", "dynamic-loading"),
    ("void f() { fopen(\"data.bin\", \"rb\"); }", "file-io"),
    ("void f() { std::ofstream out(\"x\"); }", "file-io"),
    ("void f() { getenv(\"LAB_DATA_DIR\"); }", "environment"),
    ("void f() { cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost); }", "device-to-host"),
    ("void f() { cudaMemcpyAsync(h, d, 4, cudaMemcpyDefault); }", "device-to-host"),
    ("void f() { cudaMallocManaged(&p, 4); }", "host-visible-memory"),
    ("__managed__ int counts[1024];", "host-visible-memory"),
    ("void f() { int* p = new int[4]; }", "host-visible-memory"),
    ("void f() { cudaDeviceReset(); }", "device-reset"),
    ("void f() { cudaGetLastError(); }", "device-reset"),
    ("double f() { return harness::time_gpu(); }", "harness-symbol"),
    ("#define NAME(a) cuda##a", "token-pasting"),
    ("void f() { cudaEvent\\\nElapsedTime(0, 0, 0); }", "timer"),
])
def test_each_forbidden_pattern_is_caught(code: str, rule: str) -> None:
    assert rule in _rules(code)


@pytest.mark.parametrize("code", [
    "// thrust::sort, cudaEventElapsedTime, exit(1), cudaMemcpyDeviceToHost",
    "/* #include <cub/cub.cuh> */",
    "__global__ void k() { printf(\"exit(1) thrust:: cudaEventCreate\\n\"); }",
    "__global__ void k(long long* t) { *t = clock64(); }",
    "__global__ void k(int* t) { *t = clock(); }",
    "#pragma unroll 4",
    "__global__ void k() { asm volatile(\"membar.gl;\"); }",
    "void f(int* h) { cudaMemsetAsync(h, 0, 4096); }",
    "void f(int* d, const int* s) { cudaMemcpyAsync(d, s, 4, cudaMemcpyDeviceToDevice); }",
    "__global__ void k(int* next_exit) { next_exit[0] = 1; }",
    "#include \"histogram.cuh\"\n#include <cstdint>\n#include <cuda_runtime.h>",
])
def test_allowed_code_is_not_a_finding(code: str) -> None:
    assert _rules(code) == set()


def test_findings_name_file_and_line() -> None:
    results = check_impl(STATIC / "cheater", REPO, ["lab1"], None)
    where = {(f.path, f.line, f.rule_id) for f in results["lab1"]}
    path = "lab1_histogram/histogram_kernels.cu"
    assert where == {(path, 3, "library-include"), (path, 4, "io-include"),
                     (path, 11, "device-to-host"), (path, 13, "process-control")}
    assert "cudaMemcpyDeviceToHost" in results["lab1"][2].describe()


def test_an_exemption_holds_only_inside_its_function() -> None:
    body = "cudaError_t symbol_download(float* h, int n) {\n  return cudaMemcpyFromSymbol(h);\n}\n"
    assert _rules(body, "lab4") == set()
    assert _rules(body, "lab1") == {"device-to-host"}
    other = "void power_best() {\n  cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost);\n}\n"
    assert _rules(body + other, "lab4") == {"device-to-host"}


def test_strip_comments_keeps_lines_and_offsets() -> None:
    text = "a // b\n/* c\n d */ e \"f\"\n"
    stripped = strip_comments(text, blank_strings=True)
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    assert stripped.split() == ["a", "e", '"', '"']
    assert strip_comments("int n = 1'000; // x", blank_strings=True).rstrip() == "int n = 1'000;"


def test_command_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--impl", str(REPO / "solutions"), "--labs", "lab1"]) == 0
    assert main(["check", "--impl", str(STATIC / "cheater")]) == 1
    out = capsys.readouterr().out
    assert "lab1_histogram/histogram_kernels.cu:3: library-include" in out
    assert main(["check", "--impl", str(STATIC / "cheater"), "--labs", "lab3"]) == 2


def test_contract_names_of_lab1() -> None:
    names = contract_names(LAB1_CONTRACT.read_text())
    assert "lab1::histogram_global" in names and "lab1::histogram_best" in names
    assert len(names) == 8


NM_SAMPLE = """\
0000000000000000 V DW.ref.__gxx_personality_v0
00000000000009c0 T __device_stub__ZN4lab1_kernel(int const*, int, int*, int)
00000000000017a0 T lab1::histogram_best(int const*, int, int*, lab1::Launch)
0000000000000970 T lab1::(anonymous namespace)::zero(int*)
0000000000000010 t __nv_cudaEntityRegisterCallback(void**)
0000000000000000 W void lab1::histogram_tiled<16>(int const*)
0000000000000000 W cudaError cudaFuncSetAttribute<void (*)(int)>(void (*)(int), int)
0000000000000020 T lab1::helper(int)
0000000000000030 T cudaEventElapsedTime
0000000000000040 T harness::time_gpu()
0000000000000050 W harness::Timer::stop()
"""


def test_symbols_outside_the_contract_are_caught() -> None:
    symbols = parse_nm(NM_SAMPLE)
    assert Symbol("T", "lab1::histogram_best(int const*, int, int*, lab1::Launch)") in symbols
    allowed = {"lab1::histogram_best", "lab1::histogram_tiled"}
    found = check_symbols(symbols, allowed, "x.o", "histogram.cuh")
    assert [(f.rule_id, f.reason.split(",")[0]) for f in found] == [
        ("extra-symbol", "defines lab1::helper(int) visibly to the linker"),
        ("replaces-symbol", "defines cudaEventElapsedTime"),
        ("replaces-symbol", "defines harness::time_gpu()"),
        ("replaces-symbol", "defines harness::Timer::stop()"),
    ]


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("nm") is None,
                    reason="needs g++ and nm")
def test_a_compiled_object_is_checked(tmp_path: Path) -> None:
    obj_dir = tmp_path / "labs" / "lab1_histogram" / "CMakeFiles" / "lab1_impl.dir" / "x"
    obj_dir.mkdir(parents=True)
    subprocess.run(["g++", "-c", str(STATIC / "symbols.cpp"), "-o", str(obj_dir / "k.cu.o")],
                   check=True)
    found = check_objects(tmp_path, "lab1", LAB1_CONTRACT)
    reasons = " | ".join(f.reason for f in found)
    assert "cudaEventElapsedTime" in reasons and "harness::time_gpu()" in reasons
    assert "lab1::helper_visible()" in reasons
    assert "histogram_global" not in reasons and "helper_hidden" not in reasons
    assert "helper_static" not in reasons


def test_no_object_is_a_finding(tmp_path: Path) -> None:
    assert [f.rule_id for f in check_objects(tmp_path, "lab1", LAB1_CONTRACT)] == ["no-object"]
