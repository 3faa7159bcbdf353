"""Points per lab from the groups of `labs/<labdir>/lab.json` and the tests' outcomes.

A lab's `score` gives each group of tests (by kind: correctness, timing) its
points, split evenly among the group's tests, so adding a case changes no total.
A passed timing test earns its share on the lab's performance-credit curve where the
calibration grading's figure for it is known (credit.py). Every point lost carries the reason
of the test that lost it. Reference bars,
dataset setups and sanitizer runs are worth nothing.

Two rules take a test's points whatever its own verdict (_voided). A timing test
scores 0 while a correctness test that lab.json's `timing_needs` names fails: those
are the variants a timing test may time, and the time of a wrong answer measures
nothing. A variant (model.variant_of) whose failed cases on hidden data all
pass on the public data (the session runs them again there) did not compute its
answer: each of its tests scores 0 and says NOT_COMPUTED.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.core.commits import Checkout
from grader.core.credit import Credit, CreditCurve, read_curve
from grader.core.discovery import SANITIZE_KIND
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.lab_file import LAB_FILE, read_lab_file
from grader.core.model import OTHER_KIND, STAND_IN_KINDS, LabTest, Outcome, Status, variant_of

DEFAULT_GROUPS: Mapping[str, float] = {"correctness": 60, "timing": 40}
# Worth nothing whatever lab.json says: bars only the reference must meet,
# kinds the grader invents for a lab that did not build or a test with no kind, and
# sanitizer runs (what they find costs the correctness tests of the variant at fault).
_UNSCORED = ("reference", "data", *STAND_IN_KINDS, OTHER_KIND, SANITIZE_KIND)
# The flag of a variant right on the public data and wrong on the hidden data of the
# same sizes: its answers were recognised, not computed.
NOT_COMPUTED = "answer not computed: right on public data only"


@dataclass(frozen=True)
class LabPolicy:
    """How one lab is scored: each group's points, by test kind."""

    lab: str
    title: str
    groups: Mapping[str, float]
    notes: tuple[str, ...] = ()
    credit: CreditCurve | None = None  # the timing group's curve (credit.py)
    # lab.json's `timing_needs.tests`: the correctness tests every timing test needs passed.
    timing_needs: re.Pattern[str] | None = None

    @property
    def label(self) -> str:
        """`lab1 Histogram`, or just `lab1` when the lab has no title."""
        return f"{self.lab} {self.title}" if self.title else self.lab

    @property
    def max_score(self) -> float:
        """The lab's full mark: every group's points."""
        return sum(self.groups.values())

    def scored(self, kind: str) -> bool:
        """Whether tests of `kind` share a group's points."""
        return kind not in _UNSCORED and kind in self.groups


def load_policy(lab: str, lab_dir: Path | None) -> LabPolicy:
    """Read the lab's lab.json; a lab without one gets the default groups."""
    default_title = lab_dir.name.split("_", 1)[-1].replace("_", " ") if lab_dir else ""
    doc = read_lab_file(lab_dir) if lab_dir else None
    if doc is None:
        where = f"labs/{lab_dir.name}/{LAB_FILE}" if lab_dir else f"labs/{lab}_* folder"
        defaults = ", ".join(f"{k} {number(v)}" for k, v in DEFAULT_GROUPS.items())
        return LabPolicy(
            lab,
            default_title,
            DEFAULT_GROUPS,
            notes=(f"{lab} has no {where}: default groups used ({defaults}).",),
        )
    try:
        groups = {str(k): float(v) for k, v in doc.get("score", {}).items()}
    except (ValueError, TypeError, AttributeError) as exc:
        raise GraderUsageError(
            f"{lab_dir}/{LAB_FILE}: not a valid {LAB_FILE} (score: {exc})"
        ) from exc
    if not groups or any(v < 0 for v in groups.values()):
        raise GraderUsageError(
            f"{lab_dir}/{LAB_FILE}: not a valid {LAB_FILE} (score must give each group, "
            'by test kind, its points, e.g. {"correctness": 60, "timing": 40})'
        )
    curve = read_curve(doc, f"{lab_dir}/{LAB_FILE}")
    try:
        needs = doc.get("timing_needs")
        timing_needs = re.compile(needs["tests"]) if needs is not None else None
    except (KeyError, TypeError, re.error) as exc:
        raise GraderUsageError(
            f'{lab_dir}/{LAB_FILE}: "timing_needs" must be {{"tests": REGEX, "why": ...}}: {exc}'
        ) from None
    title = str(doc.get("title") or default_title)
    return LabPolicy(lab, title, groups, credit=curve, timing_needs=timing_needs)


@dataclass(frozen=True)
class ScoredTest:
    """One test's outcome and points (a passed timing test's on the curve)."""

    test: LabTest
    outcome: Outcome
    points: float
    max_points: float
    credit: Credit | None = None  # a passed timing test's performance credit


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


def on_hidden_data(hidden_data: bool, test: ScoredTest) -> bool:
    """Whether `test` of a grading on hidden data (or not) ran on it. A stand-in (a lab
    that did not build or the static check rejected) ran on no data: whether the lab
    built is always the student's to see."""
    return hidden_data and test.test.kind not in STAND_IN_KINDS


@dataclass(frozen=True)
class Grade:
    """Everything the reports need: labs, the GPU, when, and general notes."""

    labs: tuple[LabScore, ...]
    gpu: GpuInfo
    timestamp: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    # The reports' first line when student code ran outside the sandbox, else "".
    unsandboxed: str = ""
    # Graded on the secret's data: results.json shows such tests after the due date.
    hidden_data: bool = False
    execution_s: float = 0.0  # wall time from the session's start to its grade
    started: str = ""  # when the session started (ISO 8601, UTC); `timestamp` is when it ended
    # "graded" (the student's folder) and "harness" (this repository): their commits.
    commits: Mapping[str, Checkout] = field(default_factory=dict)
    # Where the wall time went: test processes started, and seconds per phase
    # ("shared": the untimed tests side by side, "sanitize": the sanitizer stage,
    # "gpu_wait": in a batch, the timed tests' wait for the other workers on their GPU,
    # "public": failed variants run again on the public data).
    processes_started: int = 0
    phase_s: Mapping[str, float] = field(default_factory=dict)

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


def score_lab(
    policy: LabPolicy,
    results: Sequence[tuple[LabTest, Outcome]],
    reference_figures: Mapping[str, float] | None = None,
    public: Mapping[str, Outcome] | None = None,
) -> LabScore:
    """Give each test its share of its group's points; a stand-in (a lab that did
    not build or that the static check rejected) carries what the lab's tests that
    ran do not: the lab's full mark when none ran. `reference_figures` (test name ->
    the calibration grading's figure, same GPU, same job) put passed timing tests on the lab's
    credit curve. `public`: on hidden data, the outcomes on the public data of the
    correctness tests run again there (session.py)."""
    notes = list(policy.notes)
    sizes = Counter(test.kind for test, _ in results if policy.scored(test.kind))
    voided = _voided(policy, results, public or {})
    scores = []
    for test, outcome in results:
        worth = policy.groups[test.kind] / sizes[test.kind] if policy.scored(test.kind) else 0.0
        why = voided.get(test.name)
        if why is not None:
            reason = f"{why}\n{outcome.reason}" if outcome.reason else why
            outcome = replace(outcome, status=Status.FAILED, reason=reason)
        if test.kind == OTHER_KIND:
            notes.append(
                f"{test.name} has no {policy.lab}.correctness/timing/reference label: "
                "reported, worth 0."
            )
        gained = worth if outcome.status is Status.PASSED else 0
        credit = _credit(policy, test, outcome, reference_figures)
        if credit is not None:
            gained = worth * credit.fraction
        scores.append(ScoredTest(test, outcome, gained, worth, credit))
    stand_ins = [i for i, s in enumerate(scores) if s.test.kind in STAND_IN_KINDS]
    if stand_ins:
        first = stand_ins[0]
        missing = max(0.0, policy.max_score - sum(s.max_points for s in scores))
        scores[first] = ScoredTest(scores[first].test, scores[first].outcome, 0, missing)
    return LabScore(policy, tuple(scores), tuple(notes))


def failed_needs(policy: LabPolicy, results: Iterable[tuple[LabTest, Outcome]]) -> list[LabTest]:
    """The correctness tests `timing_needs` names that failed, in the order given."""
    needs = policy.timing_needs
    return [
        test
        for test, outcome in results
        if needs is not None
        and test.kind == "correctness"
        and outcome.status in (Status.FAILED, Status.ERROR)
        and needs.search(test.name)
    ]


def unmet_timing_need(failed: str) -> str:
    """Why a timing test counts for nothing (and does not run: session.py)."""
    return (
        f"{failed} failed, one of the correctness tests this lab's timing tests need "
        "(lab.json timing_needs): the time of a wrong answer measures nothing"
    )


def _voided(
    policy: LabPolicy, results: Sequence[tuple[LabTest, Outcome]], public: Mapping[str, Outcome]
) -> dict[str, str]:
    """Why a test scores 0 whatever its own verdict, by name: every test of a variant
    whose failed cases all passed on the public data, and each passed timing test
    while a correctness test `timing_needs` names failed (flagged where that test's
    variant is such a one)."""
    failed: dict[str, list[LabTest]] = {}  # variant -> its failed correctness tests
    for test, outcome in results:
        if test.kind == "correctness" and outcome.status in (Status.FAILED, Status.ERROR):
            failed.setdefault(variant_of(test.name), []).append(test)
    flags = {
        variant: f"{NOT_COMPUTED} (variant {variant}: {len(tests)} case(s) failed on the "
        f"hidden data and passed on the public data of the same sizes, e.g. {tests[0].name})"
        for variant, tests in failed.items()
        if all(t.name in public and public[t.name].status is Status.PASSED for t in tests)
    }
    needed = failed_needs(policy, results)
    flagged = [flags[variant_of(t.name)] for t in needed if variant_of(t.name) in flags]
    timing = flagged[0] if flagged else ""
    if needed and not timing:
        timing = f"not counted: {unmet_timing_need(needed[0].name)}"
    voided = {}
    for test, outcome in results:
        if test.kind == "correctness" and variant_of(test.name) in flags:
            voided[test.name] = flags[variant_of(test.name)]
        elif test.kind == "timing" and timing and outcome.status is Status.PASSED:
            voided[test.name] = timing
    return voided


def _credit(
    policy: LabPolicy,
    test: LabTest,
    outcome: Outcome,
    reference_figures: Mapping[str, float] | None,
) -> Credit | None:
    """The curve's verdict on a passed timing test whose reference figure is known."""
    if policy.credit is None or reference_figures is None or test.kind != "timing":
        return None
    reference = reference_figures.get(test.name)
    if outcome.status is not Status.PASSED or outcome.figure is None or reference is None:
        return None
    value = outcome.figure.value
    return Credit(policy.credit.fraction(value, reference), value, reference, policy.credit)


def number(value: float) -> int | float:
    """3.0 -> 3, 59.99999999 -> 60, 1/3 -> 0.3333: points as people write them."""
    rounded = round(float(value), 4)
    return int(rounded) if rounded.is_integer() else rounded


def points_cell(value: float) -> str:
    """Points in a table cell: 3.0 as "3", 2.5 as "2.50"."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"
