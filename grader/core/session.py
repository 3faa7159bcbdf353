"""One grading run: the chosen labs' tests, the GPU, the runs and the outcomes.

Every command that runs lab tests (grade, known-wrong) drives this object, so what
is graded and how it is scored does not depend on which of them started it. The
order: the untimed tests side by side, the sanitizer stage, the timed tests whose
correctness needs were met, each alone on the GPU (ctest_run.py runs them all).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.core.build import BuildFailure, configured_impl
from grader.core.calibration import Calibration
from grader.core.commits import Checkout, checkout_of
from grader.core.ctest_run import Runs, check_jobs, check_timeout_scale, default_jobs
from grader.core.discovery import (
    SANITIZE_KIND,
    lab_dirs,
    listing_view,
    parse_tests,
    read_ctest_json,
    repo_root,
    resolve_labs,
    select_tests,
    setups_by_fixture,
)
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo, probe
from grader.core.model import (
    BUILD_KIND,
    STAND_IN_KINDS,
    STATIC_KIND,
    LabTest,
    Outcome,
    Status,
    variant_of,
)
from grader.core.sandbox import Decision, decide, warn
from grader.core.sanitize import sanitize_tests
from grader.core.sanitize_stage import SanitizeStage
from grader.core.scoring import (
    Grade,
    LabPolicy,
    failed_needs,
    load_policy,
    score_lab,
    unmet_timing_need,
)
from grader.core.verdict import hung

NOT_RUN = "not run: the grading session stopped early"
STATIC_REJECTION = "rejected by the static check (python3 -m grader check), so not run:"


class GradingSession:
    """The tests to grade, in order, and what became of each one run so far."""

    def __init__(
        self,
        *,
        tests: Sequence[LabTest],
        policies: dict[str, LabPolicy],
        gpu: GpuInfo,
        runs: Runs,
        build_failure: BuildFailure | None = None,
        notes: Sequence[str] = (),
        rejected: Mapping[str, Sequence[str]] | None = None,
        sandbox: Decision | None = None,
        hidden_data: bool = False,
        commits: Mapping[str, Checkout] | None = None,
        sanitize_runs: Sequence[LabTest] | None = None,
        calibration: Calibration | None = None,
    ) -> None:
        self.started = _now()
        self._start = time.monotonic()
        self.hidden_data = hidden_data
        self.commits = dict(commits or {})
        self.rejected = dict(rejected or {})
        self.sandbox = sandbox
        self.listing: Mapping[str, Any] = {}  # ctest's json-v1 test list (open)
        # A rejected lab scores 0 of its full mark whatever its tests would say: one
        # stand-in per lab carries the findings (and, as a failed build does, the
        # lab's maximum), and none of its tests takes GPU time.
        # The sanitizer stage: None when off; a rejected lab's runs never start.
        stage = [r for r in sanitize_runs or () if r.lab not in self.rejected]
        self.sanitize = SanitizeStage(stage, tests) if sanitize_runs is not None else None
        self.tests = [t for t in [*tests, *stage] if t.lab not in self.rejected] + [
            LabTest(name=f"{lab}.static_check", lab=lab, kind=STATIC_KIND)
            for lab in sorted({t.lab for t in tests} & set(self.rejected))
        ]
        self.policies = policies
        self.gpu = gpu
        self.runs = runs
        self.calibration = calibration
        self.build_failure = build_failure
        self.notes = list(notes)
        self.outcomes: dict[str, Outcome] = {}
        self.public: dict[str, Outcome] = {}  # passes on the public data (_public_passes)
        self.phase_s: dict[str, float] = {}

    @classmethod
    def open(
        cls,
        build: Path,
        *,
        labs: Sequence[str] | None = None,
        repo: Path | None = None,
        timeout_scale: float = 1.0,
        build_failure: BuildFailure | None = None,
        gpu: GpuInfo | None = None,
        secret: str | None = None,
        extra_env: dict[str, str] | None = None,
        jobs: int | None = None,
        rejected: Mapping[str, Sequence[str]] | None = None,
        sandbox: str | Decision | None = None,
        hidden: Sequence[Path] = (),
        sanitize: bool = False,
        calibration: Path | None = None,
        data_root: Path | None = None,
    ) -> GradingSession:
        """Discover, select and check everything before the first test runs.

        `jobs`: how many untimed tests share the GPU (None: as many as its memory
        and the CPUs allow). `rejected`: lab -> the static check's findings; such
        a lab fails with them and its tests do not run. `sandbox`: require, auto,
        off (None: $LAB_SANDBOX, else auto) or a decision already taken; `hidden`:
        folders the sandbox never shows (the secret's, the reports'). `sanitize`:
        add the sanitizer stage (sanitize_stage.py), which needs a build configured
        with -DLAB_SANITIZE=ON. `calibration`: the calibration grading's
        results.json (or report folder) from this GPU model, the performance
        credit's yardstick (calibration.py). `data_root`: the batch's one folder of
        datasets, written once for the class (ctest_run.py). Raises GraderUsageError for what
        the caller got wrong (--sandbox require included).
        """
        check_jobs(jobs)
        check_timeout_scale(timeout_scale)
        repo = repo or repo_root()
        # Decided first: listing the tests runs the student's programs.
        warn_later = False
        if not isinstance(sandbox, Decision):
            sandbox = decide(sandbox, hidden=hidden, probe_paths=listing_view(build))
            warn_later = True
        try:
            doc = read_ctest_json(build, sandbox.sandbox)
        except GraderUsageError:
            if build_failure is None:
                raise
            doc = {}  # configure failed: there is nothing to list yet
        all_tests = parse_tests(doc)
        dirs = lab_dirs(repo)
        chosen = resolve_labs(labs, all_tests, dirs, build, build_failed=build_failure is not None)
        tests = select_tests(all_tests, chosen)
        if warn_later:  # once the request is known to be right
            warn(sandbox)
        with_tests = {t.lab for t in tests}
        tests += [
            LabTest(name=f"{lab}.build", lab=lab, kind=BUILD_KIND)
            for lab in chosen
            if lab not in with_tests
        ]
        policies = {lab: load_policy(lab, dirs.get(lab)) for lab in chosen}
        sanitize_runs = (
            _sanitize_runs(doc, chosen, tests, build, build_failure) if sanitize else None
        )
        sized = Calibration.read(calibration) if calibration is not None else None
        gpu = gpu or probe(build, sandbox.sandbox)
        if sized is not None and gpu.present:
            sized.check_gpu(str(gpu.details.get("name", "")) or None)
        notes = [sandbox.note]
        if any(p.credit is not None for p in policies.values()):
            notes.append(
                f"Performance credit: passed timing tests were scored on their lab's curve "
                f"against the calibration grading's figures in {sized.source}."
                if sized is not None and sized.figures
                else "Performance credit was not applied (no calibration grading of this GPU "
                "with figures, --calibration): a passed timing test earned its whole share."
            )
        if gpu.state == "unknown":
            notes.append(
                f"No GPU known ({gpu.reason}): tests reporting 'no CUDA device' were "
                "counted as skipped."
            )
        if sanitize_runs is not None:
            notes.append(SANITIZE_NOTE)
        if timeout_scale != 1:
            notes.append(f"Test timeouts were scaled by {timeout_scale:g}.")
        if secret is not None:
            notes.append(
                "Graded on hidden data drawn from the instructor's secret "
                "(the public cases' sizes and distributions, other values)."
            )
        runs = Runs(
            gpu_present=gpu.present,
            setups=setups_by_fixture(all_tests),
            jobs=jobs if jobs is not None else default_jobs(gpu),
            timeout_scale=timeout_scale,
            secret=secret,
            extra_env=extra_env,
            sandbox=sandbox.sandbox,
            data_root=data_root,
        )
        session = cls(
            tests=tests,
            policies=policies,
            gpu=gpu,
            runs=runs,
            build_failure=build_failure,
            notes=notes,
            rejected=rejected,
            sandbox=sandbox,
            hidden_data=secret is not None,
            commits={
                "graded": checkout_of(configured_impl(build, repo)),
                "harness": checkout_of(repo),
            },
            sanitize_runs=sanitize_runs,
            calibration=sized,
        )
        session.listing = doc
        return session

    def run_all(self, tests: Sequence[LabTest] | None = None) -> dict[str, Outcome]:
        """Run `tests` (default: all selected): the untimed ones side by side, the
        sanitizer stage, then the timed ones whose correctness needs were met."""
        tests = self.tests if tests is None else list(tests)
        runnable = [t for t in tests if t.kind not in (*STAND_IN_KINDS, SANITIZE_KIND)]
        start = time.monotonic()
        ran = self.runs.run([t for t in runnable if not t.is_timed])
        self.phase_s["shared"] = time.monotonic() - start
        if self.sanitize is not None:
            start = time.monotonic()
            self.sanitize.run_all(ran, self.runs.run)
            self.phase_s["sanitize"] = time.monotonic() - start
        for test in tests:
            if not test.is_timed or test.kind in STAND_IN_KINDS:
                self._record(test, ran.get(test.name))
        timed = [t for t in runnable if t.is_timed and self._unmet_timing_need(t) is None]
        ran.update(self.runs.run(timed))
        if self.runs.lock_wait_s:  # the timed tests' wait for a batch's GPU lock
            self.phase_s["gpu_wait"] = self.runs.lock_wait_s
        outcomes = {
            t.name: self.outcomes.get(t.name) or self._record(t, ran.get(t.name)) for t in tests
        }
        if self.hidden_data:
            start = time.monotonic()
            self.public.update(self._public_passes(outcomes))
            self.phase_s["public"] = time.monotonic() - start
        return outcomes

    def _public_passes(self, outcomes: Mapping[str, Outcome]) -> dict[str, Outcome]:
        """On hidden data, the failed correctness cases of each variant run again on
        the public data: those that pass there, by name. A variant whose every failure
        passes there answered the public data only (scoring.py). Each variant's first
        failure runs first: a variant whose first failure fails there too answered
        more than the public data, and its other cases do not run. One that hung or
        that the sanitizer charged is not run: neither is a wrong answer."""
        charged = self.sanitize.charges if self.sanitize is not None else {}
        variants: dict[tuple[str, str], list[LabTest]] = {}
        for test in self.tests:
            outcome = outcomes.get(test.name)
            failed = outcome is not None and outcome.status is Status.FAILED
            if test.kind == "correctness" and test.is_gtest and failed:
                variants.setdefault((test.lab, variant_of(test.name)), []).append(test)
        groups = [
            group
            for group in variants.values()
            if not any(hung(outcomes[t.name]) or t.name in charged for t in group)
        ]
        public = self.runs.public()

        def passed(tests: list[LabTest]) -> dict[str, Outcome]:
            ran = public.run(tests) if tests else {}
            return {name: o for name, o in ran.items() if o.status is Status.PASSED}

        passes = passed([group[0] for group in groups])
        passes |= passed([t for group in groups if group[0].name in passes for t in group[1:]])
        self.runs.processes_started += public.processes_started
        return passes

    def _record(self, test: LabTest, ran: Outcome | None) -> Outcome:
        """`test`'s outcome from its run (None: it did not run), remembered."""
        if test.kind == STATIC_KIND:
            findings = "\n".join(self.rejected[test.lab])
            outcome = Outcome(Status.FAILED, f"{STATIC_REJECTION}\n{findings}")
        elif test.kind == BUILD_KIND:
            outcome = Outcome(Status.FAILED, self._build_reason(test.lab))
        elif test.kind == SANITIZE_KIND and self.sanitize is not None:
            outcome = self.sanitize.outcomes.get(test.name) or Outcome(Status.FAILED, NOT_RUN)
        elif (unmet := self._unmet_timing_need(test)) is not None:
            outcome = Outcome(Status.FAILED, unmet)
        elif ran is None:
            outcome = Outcome(Status.FAILED, NOT_RUN)
        else:
            outcome = ran
            if self.sanitize is not None:
                outcome = self.sanitize.judge(test, outcome)
            if outcome.reason.startswith("the test program was not built"):
                reason = f"{outcome.reason}\n{self._build_reason(test.lab)}"
                outcome = Outcome(
                    outcome.status, reason, outcome.output, outcome.duration_s, outcome.returncode
                )
        self.outcomes[test.name] = outcome
        return outcome

    def _unmet_timing_need(self, test: LabTest) -> str | None:
        """Why a timing test does not run: a correctness test that lab.json's
        `timing_needs` names failed (they run first: discovery's order). It would
        score 0 whatever its figure (scoring.py), and timing a wrong or hung kernel
        costs the GPU to itself for nothing."""
        if test.kind != "timing" or test.lab not in self.policies:
            return None
        ran = [(t, self.outcomes[t.name]) for t in self.tests if t.name in self.outcomes]
        failed = failed_needs(self.policies[test.lab], (r for r in ran if r[0].lab == test.lab))
        return f"not run: {unmet_timing_need(failed[0].name)}" if failed else None

    def _build_reason(self, lab: str) -> str:
        """The compiler's first errors for `lab`, or a reminder to build."""
        if self.build_failure is None:
            return f"{lab} was not built: build the project first (cmake --build BUILD)"
        errors = self.build_failure.errors_for(lab)
        return f"{lab} did not build ({self.build_failure.stage} step failed):\n{errors}"

    def grade(self) -> Grade:
        """Score every selected test; one that never ran counts as failed."""
        by_lab: dict[str, list[tuple[LabTest, Outcome]]] = {lab: [] for lab in self.policies}
        for test in self.tests:
            outcome = self.outcomes.get(test.name) or Outcome(Status.FAILED, NOT_RUN)
            by_lab[test.lab].append((test, outcome))
        figures = self.calibration.figures if self.calibration is not None else None
        labs = tuple(
            score_lab(self.policies[lab], results, figures, self.public)
            for lab, results in by_lab.items()
        )
        run_notes = []
        reruns = list(dict.fromkeys(self.runs.reruns))
        if reruns:
            names = ", ".join(reruns[:5])
            more = len(reruns) - 5
            run_notes.append(
                "Ran again, each alone, because the process they shared could not vouch "
                "for them (it crashed, timed out, broke its CUDA context or claimed a skip), "
                "or with the GPU to themselves because they timed out or ran out of memory "
                f"beside others; the verdicts are the last run's: {names}"
                + (f" and {more} more" if more > 0 else "")
            )
        unsandboxed = self.sandbox.headline if self.sandbox is not None else ""
        return Grade(
            labs=labs,
            gpu=self.gpu,
            timestamp=_now(),
            notes=(*self.notes, *run_notes),
            unsandboxed=unsandboxed,
            hidden_data=self.hidden_data,
            execution_s=time.monotonic() - self._start,
            started=self.started,
            commits=self.commits,
            processes_started=self.runs.processes_started,
            phase_s=dict(self.phase_s),
        )


SANITIZE_NOTE = (
    "Sanitizer stage: the small correctness cases also ran under compute-sanitizer "
    "(memcheck, racecheck, synccheck); a variant in which a tool found an error fails "
    "its correctness tests, at every size, even where its answers were right."
)


def _sanitize_runs(
    doc: Mapping[str, object],
    labs: Sequence[str],
    tests: Sequence[LabTest],
    build: Path,
    build_failure: BuildFailure | None,
) -> list[LabTest]:
    """The sanitize runs of `labs`; none in a build that should have them is an error."""
    runs = sanitize_tests(doc, labs)
    if not runs and build_failure is None and any(t.kind == "correctness" for t in tests):
        raise GraderUsageError(
            f"{build} has no sanitize tests for the sanitizer stage: configure it with "
            "-DLAB_SANITIZE=ON (compute-sanitizer must be found in the CUDA toolkit; "
            "grade --impl does this itself), or grade with --no-sanitize"
        )
    return runs


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
