"""The sanitizer stage of instructor grading: undefined behaviour that happens to
give the right answer on this GPU still costs the points it would cost on another.

CMake registers one `labN.sanitize.<tool>` run per lab and tool (memcheck,
racecheck, synccheck) over the lab's small correctness cases (sanitize.py). After
the correctness tests, each run goes over the small cases of every variant that
passed a correctness test and did not hang (a hung kernel under racecheck would hold
the GPU for minutes; a charge fails only passed tests, so a variant that passed
none, such as an untouched skeleton's, needs no run). A run that compute-sanitizer
fails is split by variant, to find whose kernel it was; every correctness test of
that variant, at every size, then fails with the tool's report. A failure no single
variant reproduces is charged to every variant of the run. The runs themselves are worth no points.

A variant is the first `__`-separated part of a parametrized case's name
(`Correctness/Reduction.GivesTheExactSum/shuffle__single__block512` is `shuffle`),
the naming every lab's tests follow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from grader.core.gtest_xml import filter_matches
from grader.core.model import LabTest, Outcome, Status, variant_of
from grader.core.sanitize import SANITIZER_EXIT_CODE, tool_of
from grader.core.verdict import hung

NOTHING_TO_RUN = (
    "not run under compute-sanitizer: the variant of every small case it covers hung "
    "(timed out) or failed every correctness test, which the correctness tests already count"
)


def sanitizer_failed(outcome: Outcome) -> bool:
    """compute-sanitizer's tool reported an error (its exit status says so)."""
    return outcome.status is Status.FAILED and outcome.returncode == SANITIZER_EXIT_CODE


def _program(run: LabTest, tests: Iterable[LabTest]) -> str | None:
    """The test program a sanitize run starts: the argument that is some test's program."""
    programs = {t.command[0] for t in tests if t.command}
    return next((arg for arg in run.command if arg in programs), None)


@dataclass(frozen=True)
class Charge:
    """Why a variant's correctness tests fail: the run that found it and its report."""

    run: str
    tool: str
    variant: str
    reason: str


class SanitizeStage:
    """The sanitize runs of the labs graded and the correctness tests they judge."""

    def __init__(self, runs: Sequence[LabTest], correctness: Sequence[LabTest]) -> None:
        self.runs = tuple(runs)
        self._correctness = tuple(t for t in correctness if t.kind == "correctness")
        self.outcomes: dict[str, Outcome] = {}
        self.charges: dict[str, Charge] = {}  # correctness test name -> its charge

    def _program_tests(self, run: LabTest) -> list[LabTest]:
        program = _program(run, self._correctness)
        return [
            t
            for t in self._correctness
            if t.lab == run.lab and t.command and t.command[0] == program and t.gtest_filter
        ]

    def covered(self, run: LabTest) -> list[LabTest]:
        """The small cases `run` goes over: its program's correctness tests its filter matches."""
        run_filter = run.gtest_filter or "*"
        return [
            t for t in self._program_tests(run) if filter_matches(t.gtest_filter or "", run_filter)
        ]

    def run_all(
        self,
        outcome_of: Mapping[str, Outcome],
        run: Callable[[Sequence[LabTest]], Mapping[str, Outcome]],
    ) -> None:
        """Run the stage once the correctness tests' outcomes (`outcome_of`) are known;
        `run` runs tests side by side and gives their outcomes by name."""
        planned: list[tuple[LabTest, LabTest]] = []  # (run, the run over the cases kept)
        for sanitize_run in self.runs:
            cases = self.covered(sanitize_run)
            stalled = {variant_of(t.gtest_filter or "") for t in cases if _hung(outcome_of, t)}
            # A charge fails only passed tests: a variant that passed none needs no run.
            passed = {
                variant_of(t.gtest_filter or "")
                for t in self._program_tests(sanitize_run)
                if t.name in outcome_of and outcome_of[t.name].status is Status.PASSED
            }
            kept = [t for t in cases if variant_of(t.gtest_filter or "") in passed - stalled]
            if kept:
                job = sanitize_run.with_filter([t.gtest_filter or "" for t in kept])
                planned.append((sanitize_run, job))
            else:
                self.outcomes[sanitize_run.name] = Outcome(Status.FAILED, NOTHING_TO_RUN)
        results = run([job for _, job in planned]) if planned else {}
        splits: list[tuple[LabTest, list[tuple[str, LabTest]]]] = []
        for sanitize_run, job in planned:
            self.outcomes[sanitize_run.name] = results[job.name]
            if sanitizer_failed(results[job.name]):
                splits.append((sanitize_run, self._split(job)))
        jobs = [job for _, parts in splits for _, job in parts]
        results = run(jobs) if jobs else {}
        for sanitize_run, parts in splits:
            self._charge(sanitize_run, [(variant, results[job.name]) for variant, job in parts])

    def _split(self, job: LabTest) -> list[tuple[str, LabTest]]:
        """One job per variant of the cases `job` went over."""
        by_variant: dict[str, list[str]] = {}
        for test in self.covered(job):
            by_variant.setdefault(variant_of(test.gtest_filter or ""), []).append(
                test.gtest_filter or ""
            )
        return [(v, job.with_filter(names, f"{job.name}/{v}")) for v, names in by_variant.items()]

    def _charge(self, run: LabTest, results: Sequence[tuple[str, Outcome]]) -> None:
        """Fail the correctness tests of each variant the tool faulted alone, or of
        every variant of the run when none did."""
        faulted = [(v, o.reason) for v, o in results if sanitizer_failed(o)]
        if not faulted:
            whole = self.outcomes[run.name].reason
            faulted = [(v, whole) for v, _ in results]
        by_variant = dict(faulted)
        for test in self._program_tests(run):
            variant = variant_of(test.gtest_filter or "")
            if variant in by_variant and test.name not in self.charges:
                self.charges[test.name] = Charge(
                    run.name, tool_of(run), variant, by_variant[variant]
                )

    def judge(self, test: LabTest, outcome: Outcome) -> Outcome:
        """A passed correctness test whose variant the sanitizer faulted fails with
        the tool's report; any other outcome is returned as it is."""
        charge = self.charges.get(test.name)
        if charge is None or outcome.status is not Status.PASSED:
            return outcome
        reason = (
            f"the answer was right here, but {charge.tool} found undefined behaviour in "
            f"variant '{charge.variant}' on its small cases ({charge.run}), which another "
            f"GPU may turn into a wrong answer:\n{charge.reason}"
        )
        return replace(outcome, status=Status.FAILED, reason=reason)


def _hung(outcome_of: Mapping[str, Outcome], test: LabTest) -> bool:
    outcome = outcome_of.get(test.name)
    return outcome is not None and hung(outcome)
