"""Sanitizer mode: the labs' small correctness cases run under compute-sanitizer.

CMake registers them with `-DLAB_SANITIZE=ON` (cmake/LabSanitize.cmake) as
`labN.sanitize.<tool>`, labelled `sanitize` and `labN.sanitize` but never `labN`:
discovery leaves them out of every grade; `ctest -L sanitize` runs them, and so does
`grade`'s sanitizer stage (sanitize_stage.py). compute-sanitizer exits with
SANITIZER_EXIT_CODE when its tool reported an error; the test then fails with the tool's
first report quoted, even when the program's own checks passed (a race that happened to
give the right answer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from grader.core.discovery import SANITIZE_KIND, SANITIZE_LABEL, parse_test
from grader.core.model import LabTest

SANITIZER_EXIT_CODE = 86
TOOLS = ("memcheck", "racecheck", "synccheck")

_PREFIX = "========="
# The first line of a report: memcheck's "Invalid __global__ write of size 4 bytes",
# racecheck's "Error: Race reported between ..." (or, in hazard mode, "ERROR:
# Potential RAW hazard ..."), synccheck's "Barrier error detected ...", and the
# generic errors (a CUDA API error, a leak, a device-side assert).
_REPORT_START = re.compile(
    r"Invalid __\w+__ (read|write|atomic)|Error:|ERROR:|Race reported"
    r"|[Hh]azard|Barrier error|Program hit|Leaked|Malloc/Free error"
    r"|Out-of-range|Misaligned|Unspecified",
    re.IGNORECASE,
)
_REPORT_END = re.compile(r"Saved host backtrace|Host Frame|Device Frame")
_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")
_REPORT_LINES = 6


def is_sanitized(test: LabTest) -> bool:
    """True for a test that CMake registered under compute-sanitizer."""
    return SANITIZE_LABEL in test.labels


def sanitize_tests(doc: Mapping[str, Any], labs: Sequence[str] | None = None) -> list[LabTest]:
    """The sanitize tests of a ctest json-v1 document (of `labs`, when given), which
    discovery knows by their labels and leaves out of every grade."""
    tests = [parse_test(entry) for entry in doc.get("tests", [])]
    return [
        t
        for t in tests
        if t is not None and t.kind == SANITIZE_KIND and (not labs or t.lab in labs)
    ]


def tool_of(test: LabTest) -> str:
    """The compute-sanitizer tool a test runs (`memcheck` when none is named)."""
    args = list(test.command)
    for i, arg in enumerate(args[:-1]):
        if arg == "--tool":
            return args[i + 1]
    return "memcheck"


def first_report(output: str) -> str | None:
    """The tool's first report, its `=========` lines without the backtrace, or None."""
    lines = [line for line in output.splitlines() if line.startswith(_PREFIX)]
    for start, line in enumerate(lines):
        body = line[len(_PREFIX) :].strip()
        if not _REPORT_START.search(body) or _SUMMARY.search(body):
            continue
        kept = [line.rstrip()]
        for more in lines[start + 1 :]:
            text = more[len(_PREFIX) :].strip()
            if not text or _REPORT_END.search(text) or not more[len(_PREFIX) :].startswith("    "):
                break
            kept.append(more.rstrip())
            if len(kept) == _REPORT_LINES:
                break
        return "\n".join(kept)
    return None


def error_count(output: str) -> int | None:
    """The number in compute-sanitizer's `ERROR SUMMARY: N errors`, if printed."""
    match = _SUMMARY.search(output)
    return int(match.group(1)) if match else None


def sanitizer_reason(test: LabTest, output: str) -> str:
    """Why a sanitize test failed: the tool, its error count and its first report."""
    tool = tool_of(test)
    count = error_count(output)
    head = f"compute-sanitizer --tool {tool} reported " + (
        f"{count} error{'s' if count != 1 else ''}" if count is not None else "an error"
    )
    report = first_report(output)
    return f"{head}; the first:\n{report}" if report else f"{head} (no report was printed)"
