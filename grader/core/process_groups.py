"""The tests of one test program share a process.

Starting a CUDA process costs more than most correctness tests do, so a test
program runs a bounded group of its untimed tests in one process
(`--gtest_filter=A.x:A.y:...`), and its timed tests in one more, which has the
GPU to itself as a timed test alone would. A sound process settles every case it
reported, passed or failed with GoogleTest's message, in a report the harness's
end marker vouches for (provenance.py): its neighbours are the student's own
cases, each on its own buffers, and the harness waits for every kernel, so a case
that fails only after another ran shows code that keeps state between calls, a
defect the lab's programs meet too. Only what a crash, a timeout or a broken
context leaves unknown runs again in a fresh process, and that run's verdict
counts (tests/test_process_groups.py checks it against every test run alone):

- the case whose failure or output names a CUDA error (a sticky error fails every
  later CUDA call), unless it ran first, and every case after it;
- a skipped case (that claim is judged per test), and every case after it;
- a case missing from the report (a crash, an early exit, another name);
- the whole group when the process timed out, hit the kernel watchdog, printed
  too much, ended without a vouched-for report, exited with neither 0 nor 1,
  printed a CUDA error outside any case, or matched a skip pattern.

Of timed tests, whose figure a failure does not give, only the passes before the
first other case are settled. Of an untimed group that settled something, the
first unsettled case's variant runs again alone (its other cases are likely to
break too) and the other cases as a group again (schedule.py). Of a group that
settled nothing, the variant of the case it started and never finished (`unfinished`:
its own output says so, a hint for what to run again, never a verdict) runs alone
and the other cases as a group again; without such a case, every case runs alone.

Dataset setups and sanitizer runs always run alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from grader.core.discovery import SANITIZE_KIND
from grader.core.gtest_xml import GtestCase
from grader.core.model import LabTest, Outcome
from grader.core.provenance import Provenance
from grader.core.verdict import ProcessResult, cuda_error, search_pattern

# A group is a serial chain inside one process: bounded, so that a hang wastes a
# bounded time before the re-runs (the kernel watchdog stops most hangs sooner). Large,
# because CUDA creates one context at a time for the whole machine: each process costs
# the machine about 0.2 s (CONTRIBUTING.md, "What limits the speed").
MAX_GROUP_SIZE = 96
GROUP_TIMEOUT_CAP_S = 120.0
# GoogleTest's own names: no wildcard, no second pattern, no negative part.
_EXACT_NAME = re.compile(r"[^*?:\-\s]+")

ProgramKey = tuple[object, ...]
_RUN_LINE = "[ RUN      ] "
_END_LINES = ("[       OK ]", "[  FAILED  ]", "[  SKIPPED ]")


class GroupRun(NamedTuple):
    """What one process of a group gave: the outcomes it settled, by test name, and
    the test whose case it started and never finished (`unfinished`)."""

    settled: dict[str, Outcome]
    unfinished: str | None = None


def untimed_check(test: LabTest) -> bool:
    """A check of the student's code with no figure to measure: not timed, not a
    dataset setup, not a sanitizer run. Such a test may share a process
    (`groupable`)."""
    return not test.is_timed and not test.is_setup and test.kind != SANITIZE_KIND


def _exact(test: LabTest) -> bool:
    name = test.gtest_filter
    return name is not None and _EXACT_NAME.fullmatch(name) is not None


def groupable(test: LabTest) -> bool:
    """An untimed check selected by its exact GoogleTest name."""
    return _exact(test) and untimed_check(test)


def timed_groupable(test: LabTest) -> bool:
    """A timed test selected by its exact GoogleTest name: it may share a process
    with its program's other timed tests, never the GPU."""
    return _exact(test) and test.is_timed and not test.is_setup and test.kind != SANITIZE_KIND


def timed_groups(tests: Sequence[LabTest]) -> list[list[LabTest]]:
    """The timed tests among `tests`, one group per program, in their order;
    a program with a single timed test has no group."""
    by_key: dict[ProgramKey, list[LabTest]] = {}
    for test in tests:
        if timed_groupable(test):
            by_key.setdefault(program_key(test), []).append(test)
    return [group for group in by_key.values() if len(group) > 1]


def program_key(test: LabTest) -> ProgramKey:
    """Tests with one key differ only in their filter: one process can run them all."""
    command = tuple(a for a in test.command if not a.startswith("--gtest_filter="))
    return (
        test.lab,
        test.kind,
        command,
        test.cwd,
        tuple(sorted(test.env.items())),
        test.fixtures_required,
        test.skip_return_codes,
        test.skip_patterns,
    )


def plan(
    tests: Sequence[LabTest], jobs: int, max_size: int = MAX_GROUP_SIZE
) -> list[list[LabTest]]:
    """`tests` as units to run, in their order: a group per program, split in
    balanced chunks of at most `max_size` and, together, at least `jobs` chunks
    where there are enough tests; every other test alone."""
    by_key: dict[ProgramKey, list[LabTest]] = {}
    for test in tests:
        if groupable(test):
            by_key.setdefault(program_key(test), []).append(test)
    total = sum(len(group) for group in by_key.values())
    chunks_of: dict[ProgramKey, list[list[LabTest]]] = {}
    for key, group in by_key.items():
        count = max(math.ceil(len(group) / max(1, max_size)), math.ceil(len(group) * jobs / total))
        count = min(count, len(group))
        size, extra = divmod(len(group), count)
        starts = [i * size + min(i, extra) for i in range(count + 1)]
        chunks_of[key] = [group[a:b] for a, b in zip(starts, starts[1:])]
    units: list[list[LabTest]] = []
    for test in tests:
        if not groupable(test):
            units.append([test])
            continue
        chunks = chunks_of[program_key(test)]
        if chunks and chunks[0][0] is test:
            units.append(chunks.pop(0))
    return units


def group_timeout(timeouts: Sequence[float], scale: float = 1.0) -> float:
    """The sum of the tests' timeouts, capped (the longest one is always allowed)."""
    return min(sum(timeouts), max(max(timeouts), GROUP_TIMEOUT_CAP_S * scale))


def settled(
    tests: Sequence[LabTest],
    result: ProcessResult,
    cases: list[GtestCase] | None,
    provenance: Provenance | None,
) -> list[tuple[LabTest, GtestCase]]:
    """The tests of a group whose shared process settles their verdict, with their
    own case, in the order GoogleTest ran them (see the module's docstring)."""
    rc = result.returncode
    if (
        rc not in (0, 1)
        or result.timed_out
        or result.output_overflow
        or cases is None
        or provenance is None
        or provenance.problem(rc) is not None
        or any(search_pattern(p, result.output) for t in tests for p in t.skip_patterns)
    ):
        return []
    broke = [
        cuda_error("\n".join([*c.failures, case_output(result.output, c.name)])) is not None
        for c in cases
    ]
    everything = "\n".join([result.output, *(f for c in cases for f in c.failures)])
    if not any(broke) and cuda_error(everything) is not None:
        return []  # a CUDA error no case owns: nothing here can be trusted
    waiting = {test.gtest_filter: test for test in tests}
    kept: list[tuple[LabTest, GtestCase]] = []
    for index, case in enumerate(cases):
        test = waiting.pop(case.name, None)
        if test is None:
            break
        reported = case.ran and not case.skipped and bool(case.failures)
        if broke[index]:
            if index == 0 and reported and not test.is_timed:
                kept.append((test, case))  # nothing ran before it: as alone
            break
        if not case.passed and (test.is_timed or not reported):
            break
        kept.append((test, case))
    if rc != 0 and not any(case.failures for _, case in kept) and len(kept) == len(tests):
        return []  # a nonzero result with no failed case: nothing here explains it
    return kept


def unfinished(output: str, tests: Sequence[LabTest]) -> str | None:
    """The test among `tests` whose case the process's output started last (its last
    GoogleTest RUN line) and never ended: where a process that settled nothing
    crashed, hung or exited. The student's code could print such lines, so this
    only orders the re-runs."""
    text = "\n" + output
    start = text.rfind("\n" + _RUN_LINE)
    if start < 0:
        return None
    line, _, after = text[start + 1 + len(_RUN_LINE) :].partition("\n")
    name = line.strip()
    if any(f"{end} {name}" in after for end in _END_LINES):
        return None
    return {test.gtest_filter: test.name for test in tests}.get(name)


def case_output(output: str, name: str) -> str:
    """What the process printed between GoogleTest's RUN and OK (or FAILED) lines of `name`."""
    start = output.find(f"{_RUN_LINE}{name}\n")
    if start < 0:
        return ""
    for marker in _END_LINES[:2]:  # OK, FAILED
        end_line = f"{marker} {name}"
        end = output.find(end_line, start)
        if end >= 0:
            return output[start : end + len(end_line)]
    return output[start:]
