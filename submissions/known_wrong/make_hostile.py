"""Write the hostile submissions: the reference solution plus one cheat each, the
way a determined student would write it (macros, token pasting, assembler
labels, aliases), so that no rule over source text could see it.

    python3 submissions/known_wrong/make_hostile.py [OUTDIR]

Each must be refused by the checks before any test (`grader check`, kind
"static" in hostile.json) for the reason hostile.json gives: what the compiler
produced gives it away, whatever the source looked like.
"""

import re
import secrets
import textwrap
from pathlib import Path

from solution_source import complete_lab, out_dir, read_solution, with_launchers

REPO = Path(__file__).resolve().parents[2]
OUT = out_dir(__doc__, REPO / "build-known-wrong" / "trees")
FILES = {
    "lab1": ("lab1_histogram", "histogram_kernels.cu", "histogram.cuh"),
    "lab2": ("lab2_divergence", "divergence_kernels.cu", "divergence.cuh"),
    "lab3": ("lab3_reduction", "reduce_kernels.cu", "reduction.cuh"),
    "lab4": ("lab4_power_array", "power_kernels.cu", "power_array.cuh"),
    "lab5": ("lab5_matmul", "matmul_kernels.cu", "matmul.cuh"),
    "lab6": ("lab6_image_pipeline", "thrust_pipeline.cu", "image_pipeline.cuh"),
}
# Helpers every cheat may use: names built by the preprocessor.
MACROS = (
    "#define CHEAT_STR2(x) #x\n#define CHEAT_STR(x) CHEAT_STR2(x)\n#define CHEAT_PASTE(a, b) a##b\n"
)


def hostile(
    lab, name, why, prelude, hook=None, call="", extra_files=None, launchers=False, filename=None
):
    """Write OUT/<lab>_<name>: the solution with `prelude` after the contract's
    #include and `call` as the first statement of contract function `hook`; with
    `launchers`, the lab's launcher header is written into the file first, for a
    hook in a launcher the lab fixes. `filename`: another student file than FILES's."""
    folder, default_file, header = FILES[lab]
    filename = filename or default_file
    text = read_solution(REPO / "solutions" / folder / filename)  # regions resolved
    if launchers:
        text = with_launchers(text, REPO / "labs" / folder)
    include = f'#include "{header}"\n'
    assert text.count(include) == 1, (lab, name)
    text = text.replace(include, include + MACROS + textwrap.dedent(prelude).lstrip("\n"))
    if hook:
        opening = re.compile(rf"^(\w[\w:<>* ]*\b{hook}\([^)]*\)\s*\{{\n)", re.M)
        assert len(opening.findall(text)) == 1, (lab, name, hook)
        text = opening.sub(lambda m: m.group(1) + f"  {call}\n", text)
    banner = (
        textwrap.fill(
            f"HOSTILE ({lab}_{name}): {why}", 88, initial_indent="// ", subsequent_indent="// "
        )
        + "\n"
    )
    path = OUT / f"{lab}_{name}" / folder / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(banner + text)
    for extra, content in (extra_files or {}).items():
        (path.parent / extra).write_text(content)
    complete_lab(path.parent, REPO / "solutions" / folder)


hostile(
    "lab5",
    "interpose_runtime",
    "an assembler label defines cudaEventElapsedTime, so "
    "the harness's timer reads whatever the student returns.",
    """
        extern "C" cudaError_t cheat_elapsed(float* ms, cudaEvent_t, cudaEvent_t) __asm__(
            CHEAT_STR(CHEAT_PASTE(cudaEvent, ElapsedTime)));
        extern "C" cudaError_t cheat_elapsed(float* ms, cudaEvent_t, cudaEvent_t) {
          *ms = 1e-3f;
          return cudaSuccess;
        }
        """,
)

hostile(
    "lab5",
    "interpose_harness",
    "a namespace spelled by token pasting defines a function of the harness's namespace.",
    """
        namespace CHEAT_PASTE(har, ness) {
        double measured_ratio() { return 100.0; }
        }  // namespace harness
        """,
)

hostile(
    "lab2",
    "gtest_instance",
    "an inline specialization of the vector growth GoogleTest uses to record a failure, "
    "empty: where the linker keeps this copy, a failed assertion is never recorded.",
    """
        #include <vector>
        namespace testing {
        class TestPartResult;
        }  // namespace testing
        template <>
        template <>
        inline __attribute__((used)) void
        std::vector<testing::TestPartResult>::_M_realloc_insert<const testing::TestPartResult&>(
            iterator, const testing::TestPartResult&) {}
        """,
)

hostile(
    "lab4",
    "libstdcxx_copy",
    "a hand-made weak COMDAT copy of std::string::compare(const char*), which libstdc++ "
    "defines for every program: every string comparison of the harness and GoogleTest "
    "would bind to it and find the strings equal.",
    """
        #define CHEAT_COMPARE _ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEPKc
        asm(".section .text." CHEAT_STR(CHEAT_COMPARE) ",\\"axG\\",@progbits,"
            CHEAT_STR(CHEAT_COMPARE) ",comdat\\n.weak " CHEAT_STR(CHEAT_COMPARE)
            "\\n.type " CHEAT_STR(CHEAT_COMPARE) ",@function\\n" CHEAT_STR(CHEAT_COMPARE)
            ":\\n\\txor %eax, %eax\\n\\tret\\n.previous");
        """,
)

hostile(
    "lab3",
    "interpose_gtest",
    "defines GoogleTest's testing::internal::IsTrue, which its assertions call.",
    """
        namespace testing {
        namespace internal {
        bool IsTrue(bool) { return true; }
        }  // namespace internal
        }  // namespace testing
        """,
)

hostile(
    "lab1",
    "constructor",
    "__attribute__((constructor)) runs student code before "
    "main, before the harness has set anything up.",
    """
        #include <cstdio>
        namespace {
        __attribute__((constructor)) void cheat_early() { printf("before main\\n"); }
        }  // namespace
        """,
)

# The linker runs more than .init_array's entries before main: priority-suffixed arrays,
# the older .ctors, and code placed in .init itself.
hostile(
    "lab1",
    "priority_constructor",
    "__attribute__((constructor(101))) runs student code before main from a section "
    "named .init_array.00101, not .init_array.",
    """
        #include <cstdio>
        namespace {
        __attribute__((constructor(101))) void cheat_early() { printf("before main\\n"); }
        }  // namespace
        """,
)

hostile(
    "lab3",
    "ctors_pointer",
    "a function pointer placed in a .ctors.NNNNN section, which the linker gathers "
    "into the constructors run before main.",
    """
        #include <cstdio>
        namespace {
        void cheat_early() { printf("before main\\n"); }
        __attribute__((section(".ctors.00300"), used)) void (*cheat_entry)() = cheat_early;
        }  // namespace
        """,
)

hostile(
    "lab4",
    "init_code",
    "inline assembly puts a call into the .init section, which runs before main as "
    "part of the program's _init.",
    """
        #include <cstdio>
        static __attribute__((used)) void cheat_early() __asm__("cheat_early");
        static void cheat_early() { printf("before main\\n"); }
        asm(".section .init,\\"ax\\",@progbits\\n\\tcall cheat_early\\n\\t.previous");
        """,
)

hostile(
    "lab2",
    "global_object",
    "a global object whose constructor runs before main.",
    """
        #include <cstdio>
        namespace {
        struct CheatSpy {
          CheatSpy() { printf("before main\\n"); }
        } cheat_spy;
        }  // namespace
        """,
)

hostile(
    "lab3",
    "raw_syscall",
    "inline assembly calls the kernel directly (write to stdout), bypassing every import.",
    """
        namespace {
        long cheat_write(const char* text, long bytes) {
          long result;
          asm volatile("syscall" : "=a"(result) : "a"(1L), "D"(1L), "S"(text), "d"(bytes)
                       : "rcx", "r11", "memory");
          return result;
        }
        }  // namespace
        """,
    "reduce_shuffle",
    'cheat_write("hi\\n", 3);',
)

hostile(
    "lab3",
    "split_syscall",
    "the same direct system call hidden from the disassembly: a jump lands inside a mov "
    "whose immediate holds the bytes of `syscall`.",
    """
        namespace {
        long cheat_write(const char* text, long bytes) {
          long result;
          asm volatile("jmp 1f+1\\n1:\\tmov $0x9090050f, %%ecx"
                       : "=a"(result) : "a"(1L), "D"(1L), "S"(text), "d"(bytes)
                       : "rcx", "r11", "memory");
          return result;
        }
        }  // namespace
        """,
    "reduce_shuffle",
    'cheat_write("hi\\n", 3);',
)

hostile(
    "lab1",
    "read_environment",
    "walks environ to find the grader's settings.",
    """
        extern "C" char** environ;
        namespace {
        int cheat_settings() {
          int count = 0;
          for (char** e = environ; *e; ++e) ++count;
          return count;
        }
        }  // namespace
        """,
    "histogram_best",
    "if (cheat_settings() < 0) return;",
)

hostile(
    "lab1",
    "read_dataset",
    "opens the dataset with a file function whose name is built by token pasting.",
    """
        #include <cstdio>
        namespace {
        int cheat_peek() {
          FILE* f = CHEAT_PASTE(fo, pen)("uniform_2p25.bin", "rb");
          int first = 0;
          if (f) CHEAT_PASTE(fr, ead)(&first, sizeof first, 1, f);
          return first;
        }
        }  // namespace
        """,
    "histogram_best",
    "if (cheat_peek() < 0) return;",
)

hostile(
    "lab5",
    "host_thread",
    "does the work in a host thread that outlives the timed launch.",
    """
        #include <thread>
        """,
    "matmul_best",
    "std::thread([] {}).detach();",
)

hostile(
    "lab3",
    "record_property",
    "records a leaderboard figure of its own through GoogleTest's RecordProperty, "
    "declared by hand so no GoogleTest header is included.",
    """
        #include <string>
        namespace testing {
        class Test {
         public:
          static void RecordProperty(const std::string& key, const std::string& value);
        };
        }  // namespace testing
        namespace {
        void cheat_figure() { testing::Test::RecordProperty("timing_value", "99"); }
        }  // namespace
        """,
    "reduce_shuffle",
    "cheat_figure();",
)

hostile(
    "lab3",
    "std_async",
    "starts the work through std::async.",
    """
        #include <future>
        """,
    "reduce_shuffle",
    "auto later = std::async(std::launch::async, [] { return 0; });",
)

hostile(
    "lab3",
    "other_stream",
    "launches in a non-blocking stream, which the timer's stop event does not wait for.",
    """
        namespace {
        cudaStream_t cheat_stream() {
          static cudaStream_t s = nullptr;
          if (!s) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
          return s;
        }
        }  // namespace
        """,
    "reduce_shuffle",
    "(void)cheat_stream();",
)

hostile(
    "lab1",
    "macro_include",
    "includes a harness header through a path built by macros.",
    f"""
        #define CHEAT_HARNESS(file) CHEAT_STR({REPO}/labs/common/include/labs/file)
        #include CHEAT_HARNESS(named.hpp)
        """,
)

hostile(
    "lab1",
    "include_data",
    "includes a data file (not a source file) from its own folder.",
    """
        namespace {
        __attribute__((used)) const int cheat_table[] = {
        #include "answer.dat"
        };
        }  // namespace
        """,
    extra_files={"answer.dat": "1, 2, 3\n"},
)

# A file outside every folder the compile may see, with a line of its own this run:
# an #include of it must fail without printing it (hostile.json's "canary").
CANARY = OUT.resolve() / "outside-canary.txt"
OUT.mkdir(parents=True, exist_ok=True)
CANARY.write_text(f"cuda-labs canary {secrets.token_hex(16)} never shown to a student\n")
hostile(
    "lab1",
    "include_outside",
    "#includes a file outside the allowed folders by its absolute path: a compile that "
    "could read it would print its lines in the build log the student gets.",
    f"""
        #include "{CANARY}"
        """,
)

hostile(
    "lab3",
    "library_alias",
    "reaches CUB through a macro-built include and a namespace alias, so no line names it.",
    """
        #define CHEAT_LIB(file) <CHEAT_PASTE(c, ub)/file>
        #include CHEAT_LIB(block/block_reduce.cuh)
        namespace lib = CHEAT_PASTE(c, ub);
        namespace {
        __global__ void cheat_sum(const int* in, int* out) {
          using Reduce = lib::BlockReduce<int, 256>;
          __shared__ typename Reduce::TempStorage scratch;
          const int total = Reduce(scratch).Sum(in[threadIdx.x]);
          if (threadIdx.x == 0) *out = total;
        }
        }  // namespace
        """,
    "reduce_shuffle",
    "if (n < 0) cheat_sum<<<1, 256>>>(data, partial);",
)

hostile(
    "lab5",
    "numeric_copy_kind",
    "copies the result to the host with the copy kind written as a number.",
    """
        namespace {
        float cheat_host[16];
        }  // namespace
        """,
    "matmul_best",
    "cudaMemcpy(cheat_host, A, sizeof cheat_host, static_cast<cudaMemcpyKind>(2));",
)

hostile(
    "lab1",
    "allocation",
    "allocates its own device memory.",
    """
        namespace {
        int* cheat_scratch() {
          static int* p = nullptr;
          if (!p) cudaMalloc(&p, 1 << 20);
          return p;
        }
        }  // namespace
        """,
    "histogram_best",
    "(void)cheat_scratch();",
)

hostile(
    "lab2",
    "write_report",
    "writes a passing GoogleTest report itself and ends the process before the harness can.",
    """
        #include <cstdio>
        #include <unistd.h>
        namespace {
        void cheat_report() {
          FILE* f = fopen("report.xml", "w");
          if (f) fputs("<testsuites tests=\\"1\\" failures=\\"0\\"/>", f);
          _exit(0);
        }
        }  // namespace
        """,
    "even_odd",
    "if (n < 0) cheat_report();",
    launchers=True,
)

hostile(
    "lab4",
    "host_via_symbol",
    "copies the input to the host through the contract's symbol_download and computes there.",
    """
        namespace {
        float cheat_host[1024];
        }  // namespace
        """,
    "power_symbol_shared",
    "symbol_download(cheat_host, n < 1024 ? n : 1024);",
    launchers=True,
)

hostile(
    "lab2",
    "weak_libc",
    "defines puts as a weak symbol, replacing the C library's for the whole program.",
    """
        extern "C" __attribute__((weak)) int puts(const char*) { return 0; }
        """,
)

# lab6's thrust_pipeline.cu may use Thrust and CUB (lab.json's objects.libraries):
# as their headers' weak instances only, never to replace what the harness runs.
# The harness's yardstick, cub::DeviceScan::InclusiveSum on ints, scanning nothing:
# the student's look-back scan would beat the "CUB" time by any margin.
CUB_SCAN_SPECIALIZATION = """
    #include <cub/device/device_scan.cuh>
    template <>
    {inline}cudaError_t cub::DeviceScan::InclusiveSum<const int*, int*, int>(
        void*, size_t& bytes, const int*, int*, int, cudaStream_t) {{
      bytes = 1;
      return cudaSuccess;
    }}
    """

hostile(
    "lab6",
    "strong_cub",
    "a strong definition of cub::DeviceScan::InclusiveSum (an explicit specialization, "
    "not inline), which replaces the harness's yardstick everywhere it is linked.",
    CUB_SCAN_SPECIALIZATION.format(inline=""),
)

hostile(
    "lab6",
    "inline_cub",
    "the same specialization declared inline, kept by taking its address: a weak "
    "definition like a header's, which the linker may keep instead of the harness's.",
    CUB_SCAN_SPECIALIZATION.format(inline="inline "),
    "thrust_sort_sums",
    "auto volatile cheat_keep = &cub::DeviceScan::InclusiveSum<const int*, int*, int>;",
)

hostile(
    "lab6",
    "thrust_elsewhere",
    "Thrust, included through a macro-built name, in scan_kernels.cu, which may not use it.",
    """
        #include CHEAT_STR(thrust/CHEAT_PASTE(fi, ll).h)
        #include CHEAT_STR(thrust/execution_policy.h)
        """,
    "build_predicate",
    "thrust::fill_n(thrust::device, predicate, n, 1);",
    filename="scan_kernels.cu",
)

hostile(
    "lab3",
    "one_file_broken",
    "reduce_kernels.cu does not compile (it calls a function it never declares) while "
    "nested_kernels.cu does: the lab's other object alone was checked, and called clean.",
    "",
    "reduce_shuffle",
    "cheat_undeclared(data, n);",
)

# Aliases: a reference is charged to every name at its address, so a second name
# neither hides a call inside a function nor takes a call away from one.
hostile(
    "lab5",
    "alias_hides_copy",
    "a helper copies the input to the host with cudaMemcpy, which only mqdb_from_host may "
    "call; an assembler alias names the helper lab5::mqdb_from_host() as well.",
    """
        static float cheat_host[16];
        static __attribute__((noinline, used)) void cheat_fetch(const float* device) __asm__(
            "cheat_fetch");
        static void cheat_fetch(const float* device) {
          cudaMemcpy(cheat_host, device, sizeof cheat_host, cudaMemcpyDeviceToHost);
        }
        asm(".set _ZN4lab514mqdb_from_hostEv, cheat_fetch");
        """,
    "matmul_best",
    "cheat_fetch(A);",
)

hostile(
    "lab4",
    "alias_moves_call",
    "power_best calls symbol_download, which no function may call, through a local "
    "assembler alias of it: no reference names symbol_download.",
    """
        asm(".set cheat_download, _ZN4lab415symbol_downloadEPfi");
        extern "C" cudaError_t cheat_download(float* host, int n);
        namespace {
        float cheat_host[1024];
        }  // namespace
        """,
    "power_best",
    "cheat_download(cheat_host, n < 1024 ? n : 1024);",
)

hostile(
    "lab5",
    "inline_mma",
    "matmul_best may run a tensor-core product: inline PTX mma.sync (bf16 inputs, FP32 "
    "accumulation), its opcode pasted together so that no text names it.",
    """
        namespace {
        __global__ void cheat_mma(const unsigned* a, const unsigned* b, float* c) {
          float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
          asm volatile(CHEAT_STR(CHEAT_PASTE(m, ma)) ".sync.aligned.m16n8k8.row.col"
                       ".f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                       : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                       : "r"(a[0]), "r"(a[1]), "r"(b[0]));
          c[threadIdx.x] = d0 + d1 + d2 + d3;
        }
        }  // namespace
        """,
    "matmul_best",
    "if (n < 0) cheat_mma<<<1, 32>>>(nullptr, nullptr, C);",
)

hostile(
    "lab5",
    "wmma",
    "matmul_best may run a tensor-core product through WMMA fragments (fp16 inputs, FP32 "
    "accumulation): a CUDA header, no library, no inline assembly.",
    """
        #include <mma.h>
        namespace {
        __global__ void cheat_wmma(const half* a, const half* b, float* c) {
          using namespace nvcuda;
          wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
          wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
          wmma::fill_fragment(fc, 0.0f);
          wmma::load_matrix_sync(fa, a, 16);
          wmma::load_matrix_sync(fb, b, 16);
          wmma::mma_sync(fc, fa, fb, fc);
          wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
        }
        }  // namespace
        """,
    "matmul_best",
    "if (n < 0) cheat_wmma<<<1, 32>>>(nullptr, nullptr, C);",
)

hostile(
    "lab6",
    "cub_scan_in_thrust_file",
    "thrust_pipeline.cu, the file allowed Thrust for the Thrust pipeline, also defines the "
    "hand-written scan's shift_exclusive with CUB's device scan (scan_kernels.cu keeps its own; "
    "the linker would keep one).",
    """
        #include <cub/device/device_scan.cuh>
        namespace lab6 {
        void shift_exclusive(const int* inclusive, int* exclusive, int n) {
          std::size_t bytes = 0;
          cub::DeviceScan::ExclusiveSum(nullptr, bytes, inclusive, exclusive, n);
        }
        }  // namespace lab6
        """,
)

hostile(
    "lab6",
    "slowed_scan_levels",
    "scan_kernels.cu defines the harness's scan_levels, which launches the course's "
    "three-kernel scan (the look-back scan's yardstick) too, with a spinning kernel in front "
    "when the kernels are the course's: the bar's denominator slowed.",
    """
        #include "scan_levels.cuh"
        namespace lab6 {
        namespace {
        __global__ void cheat_spin() {
          for (long long t = clock64(); clock64() - t < 100000000;) {
          }
        }
        }  // namespace
        void scan_levels(const ThreeKernelScan& k, const int* in, int* out, int n, Scratch s) {
          if (k.threads == 512) cheat_spin<<<1, 1>>>();  // the course's blocks, not ours
          (void)in, (void)out, (void)n, (void)s;
        }
        }  // namespace lab6
        """,
    filename="scan_kernels.cu",
)
