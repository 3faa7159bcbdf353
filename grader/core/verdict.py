"""How a finished test process is judged: passed, failed, skipped or error.

The verdict comes from the exit status and GoogleTest's XML report only.
Output is read for two things: the reason a skip gives, and words that help
explain a failure (a CUDA error, the last lines). It never makes a test pass.
"""

from __future__ import annotations

import re
import signal

from grader.core.gpu import SKIP_EXIT_CODE, skip_reason
from grader.core.gtest_xml import GtestCase, matching
from grader.core.launch import ProcessResult
from grader.core.model import Figure, LabTest, Outcome, Status
from grader.core.provenance import Provenance
from grader.core.sanitize import SANITIZER_EXIT_CODE, is_sanitized, sanitizer_reason

DEADLOCK_HINT = (
    "possible deadlock (a kernel that never finishes, e.g. __syncthreads() "
    "inside a branch not every thread takes)"
)
GTEST_SKIP_TEXT = "[  SKIPPED ]"
WATCHDOG_EXIT = 124  # the harness's kernel watchdog (labs/common/src/sync.cu)
_WATCHDOG_LINE = re.compile(r"cuda-labs: (.*timed out after .*possible deadlock.*)")
_TAIL_LINES = 8
_FAILURE_LINES = 6
_LINE_CHARS = 300


def hung(outcome: Outcome) -> bool:
    """A test killed by the harness's kernel watchdog or by its timeout."""
    return outcome.returncode == WATCHDOG_EXIT or outcome.reason.startswith("timed out after")


_CUDA_ERROR = re.compile(
    r"cudaError[A-Za-z]+|an illegal memory access was encountered|unspecified launch failure"
    r"|misaligned address|an illegal instruction was encountered|device-side assert triggered"
    r"|too many resources requested for launch|invalid configuration argument"
    r"|no kernel image is available|the launch timed out and was terminated"
    r"|CUDA error|out of memory"
)
_CUDA_HINTS = (
    (
        re.compile(r"IllegalAddress|illegal memory access|MisalignedAddress|misaligned address"),
        "a kernel read or wrote out of bounds; run the test under "
        "compute-sanitizer --tool memcheck to see the kernel, block and thread",
    ),
    (
        re.compile(
            r"LaunchOutOfResources|too many resources|InvalidConfiguration"
            r"|invalid configuration argument"
        ),
        "check the launch configuration: at most 1024 threads per block, "
        "shared memory within the limit",
    ),
    (
        re.compile(r"NoKernelImage|no kernel image"),
        "the program was not compiled for this GPU's architecture (CMAKE_CUDA_ARCHITECTURES)",
    ),
)
_SIGNAL_HINTS = {
    "SIGSEGV": "segmentation fault in host code, e.g. a device pointer used on the host "
    "or a host array indexed out of bounds",
    "SIGABRT": "aborted, e.g. a failed assert() or an uncaught exception",
    "SIGBUS": "bus error: a misaligned or invalid host memory access",
    "SIGFPE": "arithmetic error on the host, e.g. an integer division by zero",
    "SIGKILL": "killed from outside, e.g. by the out-of-memory killer",
    "SIGILL": "illegal instruction on the host",
}
_LOCATION_LINE = re.compile(r"(?:.+:\d+|unknown file)")
# GoogleTest's own description of a failed assertion, which comes before the
# harness's message (`EXPECT_TRUE(ok) << "bin 3: expected 5, got 4"`).
_GTEST_OPENER = re.compile(
    r"Value of: |Expected: |Expected equality of these values:|Failed$"
    r"|The difference between "
)
_GTEST_DETAIL = re.compile(r"\s+\S|Expected: |Which is: |Actual: |\S+ evaluates to ")
# An exception that left a test: GoogleTest wraps its what() in a sentence, and
# the harness's CudaError says where first (labs/common/include/labs/cuda_check.hpp).
_GTEST_EXCEPTION = re.compile(
    r'C\+\+ exception with description "(.*)" thrown in (.*?)\.?', re.DOTALL
)
_HARNESS_CUDA_ERROR = re.compile(
    r"(?P<file>\S+):(?P<line>\d+) (?P<expr>.*?): "
    r"(?P<error>cudaError\w+.*)",
    re.DOTALL,
)


def classify(
    test: LabTest,
    result: ProcessResult,
    cases: list[GtestCase] | None,
    gpu_present: bool,
    provenance: Provenance | None = None,
) -> tuple[Status, str]:
    """The status and the student-facing reason for one finished test.

    With `provenance`, a GoogleTest report counts only when the harness's end
    marker vouches for it (provenance.py); without a marker, a nonzero exit is
    judged from its status and output alone.
    """
    if result.not_built:
        program = f": {test.command[0]}" if test.command else ""
        return Status.FAILED, f"the test program was not built{program}"
    if result.launch_error:
        return Status.ERROR, f"could not start the test program: {result.launch_error}"
    if result.timed_out:
        reason = f"timed out after {seconds(result.timeout_s)} s"
        return Status.FAILED, f"{reason}: {DEADLOCK_HINT}" if test.is_gtest else reason
    if result.output_overflow:
        return Status.FAILED, (
            "stopped: it printed too much output (a printf inside a kernel or a loop?)"
        )
    rc = result.returncode if result.returncode is not None else -1
    if rc < 0:
        return Status.FAILED, _crash_reason(-rc, result.output)
    if rc == SANITIZER_EXIT_CODE and is_sanitized(test):
        # The tool found an error: a failure even when every check of the program passed.
        return Status.FAILED, sanitizer_reason(test, result.output)
    if provenance is not None and test.is_gtest:
        problem = provenance.problem(rc)
        if problem is not None:
            if rc == 0 or provenance.marker is not None or provenance.preexisting:
                return Status.FAILED, problem
            cases = None  # the harness did not finish: whatever report there is, is not its
    reported = None
    if cases is not None and test.is_gtest:
        reported = matching(cases, test.gtest_filter or "")
    claim = _skip_claim(test, result, reported)
    if claim is not None:
        if gpu_present:
            return Status.FAILED, f"reported itself skipped although a GPU is present ({claim})"
        return Status.SKIPPED, skip_reason(result.output) or claim
    if rc == WATCHDOG_EXIT:
        found = _WATCHDOG_LINE.findall(result.output)
        if found:
            return Status.FAILED, _clip(found[-1].strip())
    if not test.is_gtest:
        return (Status.PASSED, "") if rc == 0 else (Status.FAILED, _exit_reason(rc, result, ()))
    if rc == 0:
        return _passed_or_unreported(test, reported, result.output)
    failures = tuple(f for case in reported or () for f in case.failures)
    after_pass = bool(reported) and all(c.passed for c in reported or ())
    return Status.FAILED, _exit_reason(rc, result, failures, after_pass)


def recorded_figure(
    test: LabTest,
    result: ProcessResult,
    cases: list[GtestCase] | None,
    provenance: Provenance | None,
) -> Figure | None:
    """The figure the test's own case recorded (harness::report_timing), only from a
    report the harness's end marker vouches for. A student's objects cannot call
    GoogleTest (the object check), but their code runs in this process: the figure
    only shares out a passed test's points, capped at full marks (credit.py)."""
    if not test.is_gtest or cases is None or provenance is None or result.returncode is None:
        return None
    if result.timed_out or provenance.problem(result.returncode) is not None:
        return None
    reported = matching(cases, test.gtest_filter or "")
    return reported[0].figure if len(reported) == 1 else None


def _skip_claim(
    test: LabTest, result: ProcessResult, reported: list[GtestCase] | None
) -> str | None:
    """Why the test says it was skipped, or None when it does not say so."""
    rc = result.returncode
    if rc == SKIP_EXIT_CODE or rc in test.skip_return_codes:
        reason = skip_reason(result.output)
        return f"exit status {rc}: {reason}" if reason else f"exit status {rc}"
    if rc != 0:
        return None
    skipped = [case for case in reported or () if case.skipped]
    if skipped:
        message = skipped[0].skip_message
        return "GoogleTest marked it skipped" + (f": {message}" if message else "")
    for pattern in test.skip_patterns:
        if search_pattern(pattern, result.output):
            return f"its output matches the skip pattern {pattern!r}"
    confirmed = bool(reported) and all(case.passed for case in reported or ())
    if GTEST_SKIP_TEXT in result.output and not confirmed:
        return f"its output contains {GTEST_SKIP_TEXT!r}"
    return None


def search_pattern(pattern: str, text: str) -> bool:
    """A skip pattern as ctest reads it: a regex, else the text itself."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return pattern in text


def _passed_or_unreported(
    test: LabTest, reported: list[GtestCase] | None, output: str
) -> tuple[Status, str]:
    """Exit status 0: only the XML report can make it a pass."""
    if not reported:
        why = (
            "exit status 0 but no GoogleTest report: did the code call exit()?"
            if reported is None
            else f"its GoogleTest report names no test {test.gtest_filter!r}"
        )
        return Status.FAILED, f"the test process exited without reporting a result ({why})"
    failures = tuple(f for case in reported for f in case.failures)
    if failures:
        return Status.FAILED, _with_cuda_error(trim_failures(failures), output)
    if not all(case.ran for case in reported):
        return Status.FAILED, "GoogleTest did not run it (is it disabled?)"
    return Status.PASSED, ""


def _crash_reason(signum: int, output: str) -> str:
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    hint = _SIGNAL_HINTS.get(name)
    reason = f"crashed: {name} ({hint})" if hint else f"crashed: {name}"
    return _with_cuda_error(reason, output)


def _exit_reason(
    rc: int, result: ProcessResult, failures: tuple[str, ...], after_pass: bool = False
) -> str:
    if failures:
        return _with_cuda_error(trim_failures(failures), result.output)
    head = f"exited with status {rc}" + (" after its test passed" if after_pass else "")
    tail = tail_lines(result.output)
    reason = f"{head}; last output:\n{tail}" if tail else f"{head} and printed nothing"
    return _with_cuda_error(reason, result.output)


def trim_failures(failures: tuple[str, ...]) -> str:
    """The first failure message in a few lines, without gtest's file:line header."""
    lines = failures[0].strip().splitlines()
    if len(lines) > 1 and _LOCATION_LINE.fullmatch(lines[0].strip()):
        lines = lines[1:]
    lines = _without_gtest_preamble(_unwrapped_exception(lines))
    kept = [_clip(line) for line in lines[:_FAILURE_LINES]]
    if len(lines) > _FAILURE_LINES:
        kept.append("...")
    if len(failures) > 1:
        more = len(failures) - 1
        kept.append(f"(and {more} more failure{'s' if more > 1 else ''})")
    return "\n".join(kept) or "failed without a message"


def _unwrapped_exception(lines: list[str]) -> list[str]:
    """`C++ exception with description "x:31 kernel: cudaErrorY (...)" thrown in the test
    body.` -> `cudaErrorY (...) in kernel at x:31`: the error's name first, where it
    surfaced after, so the first line of a reason (all a class table keeps) names it."""
    match = _GTEST_EXCEPTION.fullmatch("\n".join(lines).strip())
    if match is None:
        return lines
    what = match.group(1)
    cuda = _HARNESS_CUDA_ERROR.fullmatch(what)
    if cuda is not None:
        where = cuda["file"].rsplit("/", 1)[-1]
        what = f"{cuda['error']} in {cuda['expr']} at {where}:{cuda['line']}"
    else:
        what = f"exception in {match.group(2)}: {what}"
    return what.splitlines()


def _without_gtest_preamble(lines: list[str]) -> list[str]:
    """Drop `Value of: ... Actual: ... Expected: ...` when a message of our own follows."""
    if not lines or not _GTEST_OPENER.match(lines[0]):
        return lines
    end = 1
    while end < len(lines) and _GTEST_DETAIL.match(lines[end]):
        end += 1
    return lines[end:] or lines


def cuda_error(text: str) -> str | None:
    """The first line naming a CUDA error, clipped, or None."""
    for line in text.splitlines():
        if _CUDA_ERROR.search(line):
            return _clip(line.strip())
    return None


def _with_cuda_error(reason: str, output: str) -> str:
    """Name the CUDA error (after one, every later CUDA call fails too) and a hint."""
    line = cuda_error(reason) or cuda_error(output)
    if line is None:
        return reason
    parts = [reason] if line in reason else [reason, f"CUDA error: {line}"]
    hint = next((h for pattern, h in _CUDA_HINTS if pattern.search(line)), None)
    if hint:
        parts.append(f"hint: {hint}")
    return "\n".join(parts)


def tail_lines(output: str, count: int = _TAIL_LINES) -> str:
    """The last non-empty lines of the output, indented, for a reason."""
    lines = [line for line in output.splitlines() if line.strip()]
    return "\n".join(f"  {_clip(line)}" for line in lines[-count:])


def _clip(line: str) -> str:
    return line if len(line) <= _LINE_CHARS else line[: _LINE_CHARS - 3] + "..."


def seconds(value: float) -> str:
    """10.0 -> '10', 2.5 -> '2.5': timeouts as a person writes them."""
    return f"{value:g}"
