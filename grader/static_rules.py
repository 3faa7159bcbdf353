"""What a student's source may not contain, and why: the rules of `grader check`.

Each rule is a regular expression matched against the source with comments
removed (and, except for `#include` rules, string literals blanked), so a
comment or a printf mentioning `thrust::` is never a finding.

Deliberately allowed: `#pragma` (unroll, ...), inline `asm`/PTX, the device-side
clocks `clock()`, `clock64()` and `%globaltimer` (they cannot change the
harness's host-side CUDA-event timing, and timing a loop inside a kernel is a
legitimate experiment), `cudaMemsetAsync`, `cudaFuncSetAttribute`, the
occupancy and device-attribute queries, host-to-device and device-to-device
copies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One forbidden pattern: its id, the regex, the student-facing reason."""

    rule_id: str
    pattern: re.Pattern[str]
    reason: str
    on_includes: bool = False  # matched against `#include` lines, strings kept


def _rule(rule_id: str, pattern: str, reason: str, *, on_includes: bool = False) -> Rule:
    return Rule(rule_id, re.compile(pattern, re.MULTILINE), reason, on_includes)


_LIBRARIES = r"cub|thrust|cutlass|cute|cublas(?:Lt)?|cudnn|cusparse(?:Lt)?|cufft|cusolver|nvbench"

RULES: tuple[Rule, ...] = (
    _rule("library-include",
          rf"^[ \t]*#\s*include\s*[<\"]\s*(?:{_LIBRARIES})[\w]*[/._>\"]",
          "includes a library that computes the answer for you (CUB, Thrust, cuBLAS, cuDNN, "
          "cuSPARSE, CUTLASS, ...): write the kernel yourself", on_includes=True),
    _rule("harness-include",
          r"^[ \t]*#\s*include\s*[<\"][^>\"]*(?:labs/|harness|timer|bench|cpu_reference"
          r"|yardsticks|variants|dataset)[^>\"]*[>\"]",
          "includes the harness's own headers: a submission includes only its lab's contract "
          "header and standard headers", on_includes=True),
    _rule("io-include",
          r"^[ \t]*#\s*include\s*<\s*(?:fstream|chrono|sys/time\.h|ctime|time\.h|dlfcn\.h"
          r"|unistd\.h|spawn\.h|sys/wait\.h|signal\.h|csignal|thread|filesystem)\s*>",
          "includes a header for files, timers, threads or processes, which a submission "
          "must not use", on_includes=True),
    _rule("library-call",
          r"\b(?:cub|thrust|cutlass|cute)\s*::|\b(?:cublas|cublasLt|cudnn|cusparse|cufft"
          r"|cusolver)[A-Z_]\w*",
          "calls a library that computes the answer for you (CUB, Thrust, cuBLAS, ...): "
          "write the kernel yourself"),
    _rule("timer",
          r"\bcudaEvent\w*|\bstd\s*::\s*chrono\b|\bchrono\s*::|\bgettimeofday\b"
          r"|\bclock_gettime\b|\btimespec_get\b|\b__rdtsc\b|\bcudaProfiler\w*",
          "uses a host-side timer or CUDA events: the harness does all the timing "
          "(device-side clock()/clock64() inside a kernel are allowed)"),
    _rule("process-control",
          r"(?<![\w.>:])(?:std\s*::\s*)?(?:exit|_exit|_Exit|quick_exit|abort|atexit|at_quick_exit"
          r"|fork|vfork|system|popen|execl|execlp|execle|execv|execvp|execve|posix_spawnp?"
          r"|kill|raise|signal|sigaction|setjmp|longjmp|pthread_create)\s*\(",
          "controls the process (exit, abort, fork, system, signals, threads...): a launcher "
          "must return normally and leave the process to the harness"),
    _rule("dynamic-loading",
          r"\b(?:dlopen|dlsym|dlmopen)\b",
          "loads code at run time (dlopen/dlsym): only the contract's functions may run"),
    _rule("file-io",
          r"\b(?:fopen|freopen|fdopen|open|openat|creat|remove|rename|unlink|mkdir)\s*\("
          r"|\b(?:std\s*::\s*)?(?:o|i)?fstream\b|\bFILE\s*\*",
          "opens, writes or removes files: a submission must not read the datasets or "
          "write anything"),
    _rule("environment",
          r"\b(?:getenv|setenv|putenv|unsetenv|secure_getenv|environ)\b",
          "reads or changes the environment: a submission must not look at the grader's "
          "settings"),
    _rule("device-to-host",
          r"\bcudaMemcpyDeviceToHost\b|\bcudaMemcpyFromSymbol\w*|\bcudaMemcpyDefault\b",
          "copies device memory back to the host: the answer must be computed on the GPU "
          "(the harness reads the output buffers itself)"),
    _rule("host-visible-memory",
          r"\bcudaMallocManaged\b|\b__managed__\b|\bcudaMallocHost\b|\bcudaHostAlloc\b"
          r"|\bcudaHostRegister\b|\bcudaHostGetDevicePointer\b|\bmalloc\s*\(|\bnew\s+\w",
          "allocates host or managed memory: the launchers get every buffer they need "
          "and must not compute on the host"),
    _rule("device-reset",
          r"\bcudaDeviceReset\b|\bcudaSetDevice\b|\bcudaDeviceSetLimit\b|\bcudaGetLastError\b"
          r"|\bcudaPeekAtLastError\b",
          "resets the device or clears its error state: the harness checks errors itself "
          "and a submission must not hide them"),
    _rule("harness-symbol",
          r"\bharness\s*::|\bnamespace\s+harness\b|\btesting\s*::|\bgtest\b",
          "refers to the harness or the test framework: a submission defines only its "
          "contract's functions"),
    _rule("token-pasting",
          r"##",
          "uses token pasting (##), which can build names this check cannot see: "
          "write names out in full"),
)

RULES_BY_ID = {rule.rule_id: rule for rule in RULES}


@dataclass(frozen=True)
class Exemption:
    """A rule a lab's contract needs, allowed only inside one function's body."""

    lab: str
    rule_id: str
    function: str
    why: str


# Contract functions whose job is what a rule otherwise forbids.
EXEMPTIONS: tuple[Exemption, ...] = (
    Exemption("lab4", "device-to-host", "symbol_download",
              "the contract's symbol_download copies dA back to the host"),
)
