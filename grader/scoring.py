"""Points per lab from `labs/<labdir>/grading.json` and the tests' outcomes.

Each test is worth the points of its kind; every point lost carries the reason
of the test that lost it. Reference bars and dataset setups are worth nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.commits import Checkout
from grader.errors import GraderUsageError
from grader.gpu import GpuInfo
from grader.model import OTHER_KIND, STAND_IN_KINDS, Figure, LabTest, Outcome, Status
from grader.sanitize import SANITIZE_KIND

DEFAULT_POINTS: Mapping[str, float] = {"correctness": 1, "timing": 2}
# Worth nothing whatever grading.json says: bars only the reference must meet,
# kinds the grader invents for a lab that did not build or a test with no kind, and
# sanitizer runs (what they find costs the correctness tests of the variant at fault).
_UNSCORED = ("reference", "data", *STAND_IN_KINDS, OTHER_KIND, SANITIZE_KIND)


@dataclass(frozen=True)
class LabPolicy:
    """How one lab is scored. `expected_max` (optional `max_score` in grading.json)
    lets a lab that failed to build still show its full maximum."""

    lab: str
    title: str
    points: Mapping[str, float]
    expected_max: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """`lab1 Histogram`, or just `lab1` when the lab has no title."""
        return f"{self.lab} {self.title}" if self.title else self.lab

    def points_for(self, kind: str) -> float:
        """Points one test of `kind` is worth."""
        return 0 if kind in _UNSCORED else self.points.get(kind, 0)


def load_policy(lab: str, lab_dir: Path | None) -> LabPolicy:
    """Read the lab's grading.json; a lab without one gets the default weights."""
    default_title = lab_dir.name.split("_", 1)[-1].replace("_", " ") if lab_dir else ""
    path = lab_dir / "grading.json" if lab_dir else None
    if path is None or not path.is_file():
        where = f"labs/{lab_dir.name}/grading.json" if lab_dir else f"labs/{lab}_* folder"
        weights = ", ".join(f"{k} {number(v)}" for k, v in DEFAULT_POINTS.items())
        return LabPolicy(
            lab,
            default_title,
            DEFAULT_POINTS,
            notes=(f"{lab} has no {where}: default weights used ({weights}).",),
        )
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        points = {str(k): float(v) for k, v in doc.get("points", {}).items()}
        expected = doc.get("max_score")
        return LabPolicy(
            lab,
            str(doc.get("title") or default_title),
            points,
            float(expected) if expected is not None else None,
        )
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise GraderUsageError(f"{path}: not a valid grading.json ({exc})") from exc


@dataclass(frozen=True)
class ScoredTest:
    """One test's points and, where it lost any, why."""

    test: LabTest
    outcome: Outcome
    points: float
    max_points: float

    @property
    def lost_reason(self) -> str:
        """Empty when nothing was lost; skipped tests say they were not graded."""
        if self.outcome.status is Status.PASSED:
            return ""
        if self.outcome.status is Status.SKIPPED:
            return f"skipped, not graded: {self.outcome.reason}"
        return self.outcome.reason


@dataclass(frozen=True)
class LabScore:
    """A lab's tests with their points; totals are derived, never stored twice."""

    policy: LabPolicy
    tests: tuple[ScoredTest, ...]
    notes: tuple[str, ...] = ()

    @property
    def lab(self) -> str:
        return self.policy.lab

    @property
    def score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_points for t in self.tests)

    def count(self, status: Status) -> int:
        """How many of the lab's tests ended with `status`."""
        return sum(1 for t in self.tests if t.outcome.status is status)

    @property
    def figures(self) -> list[Figure]:
        """The figures of the lab's passed tests, in test order: only what the grade
        accepted is ranked."""
        return [
            t.outcome.figure
            for t in self.tests
            if t.outcome.status is Status.PASSED and t.outcome.figure is not None
        ]


@dataclass(frozen=True)
class Grade:
    """Everything the reports need: labs, the GPU, when, and general notes."""

    labs: tuple[LabScore, ...]
    gpu: GpuInfo
    timestamp: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    # The reports' first line when student code ran outside the sandbox, else "".
    unsandboxed: str = ""
    # Graded on the secret's data: results.json holds such tests back until the due date.
    hidden_data: bool = False
    execution_s: float = 0.0  # wall time from the session's start to its grade
    started: str = ""  # when the session started (ISO 8601, UTC); `timestamp` is when it ended
    # "graded" (the student's folder) and "harness" (this repository): their commits.
    commits: Mapping[str, Checkout] = field(default_factory=dict)
    # Where the wall time went: test processes started, and seconds per phase
    # ("shared": the untimed tests side by side, "sanitize": the sanitizer stage).
    processes_started: int = 0
    phase_s: Mapping[str, float] = field(default_factory=dict)
    # Notes on how tests ran (reruns after a shared run): they tell of outcomes, so
    # reports hold them back with the hidden-data results.
    run_notes: tuple[str, ...] = ()

    @property
    def score(self) -> float:
        return sum(lab.score for lab in self.labs)

    @property
    def max_score(self) -> float:
        return sum(lab.max_score for lab in self.labs)

    def all_tests(self) -> list[ScoredTest]:
        """Every scored test, lab by lab."""
        return [t for lab in self.labs for t in lab.tests]

    def count(self, status: Status) -> int:
        """How many tests of every lab ended with `status`."""
        return sum(lab.count(status) for lab in self.labs)


def score_lab(policy: LabPolicy, results: Sequence[tuple[LabTest, Outcome]]) -> LabScore:
    """Give each test its points; a stand-in (a lab that did not build or that the
    static check rejected) carries the lab's expected maximum."""
    scores = []
    notes = list(policy.notes)
    for test, outcome in results:
        worth = policy.points_for(test.kind)
        if test.kind == OTHER_KIND:
            notes.append(
                f"{test.name} has no {policy.lab}.correctness/timing/reference label: "
                "reported, worth 0."
            )
        gained = worth if outcome.status is Status.PASSED else 0
        scores.append(ScoredTest(test, outcome, gained, worth))
    built_max = sum(s.max_points for s in scores)
    stand_ins = [i for i, s in enumerate(scores) if s.test.kind in STAND_IN_KINDS]
    if policy.expected_max is not None and stand_ins:
        first = stand_ins[0]
        missing = max(0.0, policy.expected_max - built_max)
        scores[first] = ScoredTest(scores[first].test, scores[first].outcome, 0, missing)
    elif stand_ins:
        notes.append(
            f"{policy.lab} was not graded test by test: its maximum is unknown "
            "(a max_score in its grading.json would give it)."
        )
    elif policy.expected_max is not None and policy.expected_max != built_max:
        notes.append(
            f"{policy.lab}: grading.json expects max_score {number(policy.expected_max)}"
            f" but the build's tests are worth {number(built_max)}."
        )
    return LabScore(policy, tuple(scores), tuple(notes))


def number(value: float) -> int | float:
    """3.0 -> 3 so notes and reports read like the grading.json they came from."""
    return int(value) if float(value).is_integer() else round(value, 4)
