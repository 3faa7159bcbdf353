"""Sanitizer mode without a GPU: discovery of the sanitize tests, the report quoted,
the verdict."""

from __future__ import annotations

from typing import Any

from grader.core.discovery import parse_tests
from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, exit_status
from grader.core.launch import ProcessResult
from grader.core.model import LabTest, Status
from grader.core.sanitize import first_report, sanitize_tests, sanitizer_reason, tool_of
from grader.core.verdict import classify

COMMAND = [
    "/cuda/bin/compute-sanitizer",
    "--tool",
    "racecheck",
    "--error-exitcode",
    "86",
    "--print-limit",
    "5",
    "/b/bin/lab1_correctness_test",
    "--gtest_filter=*__single__*",
]


def _entry(name: str, labels: list[str], command: list[str] = COMMAND) -> dict[str, Any]:
    return {
        "name": name,
        "command": command,
        "properties": [
            {"name": "LABELS", "value": labels},
            {"name": "TIMEOUT", "value": 600.0},
            {"name": "FIXTURES_REQUIRED", "value": ["lab1_data"]},
        ],
    }


DOC = {
    "tests": [
        _entry("lab1.sanitize.racecheck", ["lab1.sanitize", "sanitize"]),
        _entry(
            "lab3.sanitize.memcheck",
            ["lab3.sanitize", "sanitize"],
            [*COMMAND[:2], "memcheck", *COMMAND[3:]],
        ),
        _entry(
            "lab1.Correctness/H.X/global__single__seed",
            ["lab1", "lab1.correctness"],
            ["/b/bin/lab1_correctness_test", "--gtest_filter=Correctness/H.X/global__single__seed"],
        ),
    ]
}

MEMCHECK = """\
========= COMPUTE-SANITIZER
[==========] Running 3 tests from 1 test suite.
========= Invalid __global__ write of size 4 bytes
=========     at 0x1b0 in /src/power_kernels.cu:27:lab4::register_kernel(float *, int)
=========     by thread (1,0,0) in block (0,0,0)
=========     Address 0x7f0000000004 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========     Host Frame: [0x2dfbef] in libcuda.so.1
=========
========= ERROR SUMMARY: 3 errors
"""
RACECHECK = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at 0x2c0 in /src/reduce.cu:171:block_sum(int)
=========     and Read access at 0x340 in /src/reduce.cu:173:block_sum(int) [64 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""


def test_sanitize_tests_are_never_graded_and_are_found_by_their_own_label() -> None:
    graded = {t.name for t in parse_tests(DOC)}
    assert graded == {"lab1.Correctness/H.X/global__single__seed"}
    found = sanitize_tests(DOC)
    assert [(t.name, t.lab, t.kind) for t in found] == [
        ("lab1.sanitize.racecheck", "lab1", "sanitize"),
        ("lab3.sanitize.memcheck", "lab3", "sanitize"),
    ]
    assert [t.name for t in sanitize_tests(DOC, ["lab3"])] == ["lab3.sanitize.memcheck"]
    assert found[0].fixtures_required == ("lab1_data",) and found[0].is_gtest
    assert "lab1" not in found[0].labels and tool_of(found[0]) == "racecheck"


def test_the_first_report_is_quoted_without_the_backtrace() -> None:
    report = first_report(MEMCHECK)
    assert report is not None
    assert report.splitlines()[0] == "========= Invalid __global__ write of size 4 bytes"
    assert "register_kernel" in report and "by thread (1,0,0)" in report
    assert "Host Frame" not in report and "Saved host" not in report
    race = first_report(RACECHECK)
    assert race is not None and race.startswith("========= Error: Race reported between Write")
    assert first_report("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n") is None


def test_a_finding_fails_the_test_even_when_its_checks_passed() -> None:
    test = sanitize_tests(DOC)[1]
    result = ProcessResult(86, MEMCHECK + "[  PASSED  ] 3 tests.\n", timeout_s=600)
    status, reason = classify(test, result, [], gpu_present=True)
    assert status is Status.FAILED
    assert reason.startswith("compute-sanitizer --tool memcheck reported 3 errors; the first:\n")
    assert "Invalid __global__ write of size 4 bytes" in reason
    assert "no report" in sanitizer_reason(test, "========= ERROR SUMMARY: 1 error\n")


def test_exit_86_of_an_ordinary_test_is_not_a_sanitizer_report() -> None:
    plain = LabTest(name="lab1.x", lab="lab1", kind="correctness", command=("/b/t",))
    status, reason = classify(plain, ProcessResult(86, "boom\n"), None, gpu_present=True)
    assert status is Status.FAILED and "compute-sanitizer" not in reason


def test_the_exit_status_of_a_run() -> None:
    assert exit_status([Status.PASSED]) == EXIT_OK
    assert exit_status([Status.PASSED, Status.FAILED, Status.SKIPPED]) == EXIT_FAILED
    assert exit_status([Status.ERROR]) == EXIT_FAILED
    assert exit_status([Status.PASSED, Status.SKIPPED]) == EXIT_NO_GPU
    assert exit_status([Status.SKIPPED], allow_skips=True) == EXIT_OK
