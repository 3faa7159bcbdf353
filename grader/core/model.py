"""The two records every other module passes around: a lab test and its outcome.

They are plain frozen data so discovery, running, scoring and reporting stay
independent of each other and can be unit-tested with hand-made values.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

# The kinds a test can carry as its `labN.<kind>` label. `build`, `static` and
# `other` are the grader's own: stand-ins for a lab that did not build or that
# the static check rejected (worth the lab's whole mark, never run), and a test
# with no kind label.
KINDS = ("correctness", "timing", "reference", "data")
TIMED_KINDS = ("timing", "reference")
BUILD_KIND = "build"
STATIC_KIND = "static"
STAND_IN_KINDS = (BUILD_KIND, STATIC_KIND)
OTHER_KIND = "other"

_LAB_ID = re.compile(r"lab(\d+)")


def lab_number(lab: str) -> int:
    """Order labs numerically (lab2 before lab10), which string order gets wrong."""
    match = _LAB_ID.fullmatch(lab)
    return int(match.group(1)) if match else 1 << 30


def is_lab_id(text: str) -> bool:
    """True for `lab` followed by digits, the only form of a lab id."""
    return _LAB_ID.fullmatch(text) is not None


def variant_of(gtest_name: str) -> str:
    """`shuffle` for `.../shuffle__single__block512` (a gtest or ctest name); a case
    that is not parametrized is its own variant. The one rule: the sanitizer stage,
    and the public-data check (scoring.py) group by it."""
    suite, slash, param = gtest_name.rpartition("/")
    return param.split("__", 1)[0] if slash and suite else gtest_name


class Status(str, enum.Enum):
    """What became of a test. ERROR means the grader could not run it at all."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True)
class LabTest:
    """One ctest test, with the properties the grader needs to run it alone.

    `command` is empty when ctest lists the test but its program does not
    exist, which is how a lab that failed to compile shows up.
    """

    name: str
    lab: str
    kind: str
    command: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    timeout: float | None = None
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    fixtures_setup: tuple[str, ...] = ()
    fixtures_required: tuple[str, ...] = ()
    skip_return_codes: tuple[int, ...] = ()
    skip_patterns: tuple[str, ...] = ()
    run_serial: bool = False  # ctest's RUN_SERIAL: the test must have the GPU alone

    @property
    def gtest_filter(self) -> str | None:
        """The `--gtest_filter` value, present only for GoogleTest programs."""
        for arg in self.command:
            if arg.startswith("--gtest_filter="):
                return arg.split("=", 1)[1]
        return None

    def with_filter(self, names: Sequence[str], name: str | None = None) -> LabTest:
        """This test's program over exactly the GoogleTest cases `names` (one process
        runs them all), named `name` (default: this test's name)."""
        flag = "--gtest_filter=" + ":".join(names)
        command = tuple(flag if a.startswith("--gtest_filter=") else a for a in self.command)
        return replace(self, name=name or self.name, command=command)

    @property
    def is_gtest(self) -> bool:
        """GoogleTest programs report their verdict in XML; others by exit status."""
        return self.gtest_filter is not None

    @property
    def is_timed(self) -> bool:
        """A test whose figure must not include anyone else's kernels: it has the GPU alone."""
        return self.run_serial or self.kind in TIMED_KINDS

    @property
    def is_setup(self) -> bool:
        """Dataset setup steps are run as fixtures, not graded."""
        return bool(self.fixtures_setup) or self.kind == "data"


@dataclass(frozen=True)
class Figure:
    """The ratio a timing test judged, as the harness recorded it in the test's XML
    report (labs/common/include/labs/timing_report.hpp): for the leaderboard, the
    summary and the performance credit of a passed test (credit.py).

    `name` reads "<what> / <against>" ("fastest variant / copy ceiling") and is the
    same in every run; `value` is the ratio, higher is better; `needed` is the bar;
    `bar` names the lab.json bar it was derived from ("" when the test named none).
    """

    name: str
    value: float
    needed: float | None = None
    bar: str = ""


@dataclass(frozen=True)
class Outcome:
    """The verdict on one test, with a reason a student can act on.

    `output` is the tail of the program's combined stdout and stderr, kept for
    the reports; the verdict never comes from it.
    """

    status: Status
    reason: str = ""
    output: str = ""
    duration_s: float = 0.0
    returncode: int | None = None
    # Timing tests: the GPU's name, driver and SM/memory clocks before and after.
    clocks: Mapping[str, str] = field(default_factory=dict)
    # Timing and reference tests: their figure, from a report the end marker vouches for.
    figure: Figure | None = None
