"""ctest runs the tests: the grader writes the test file, and judges what ran.

The build tree's own CTestTestfile.cmake was written while the student's code ran
(gtest_discover_tests lists a program's cases by running it), so it is read only
in the sandbox, for the listing (discovery.py). What runs is that listing written
again, by the grader, into a test file of its own, in a folder the sandbox never
shows:
- one ctest test per test program and kind: its untimed cases in a few processes
  (`--gtest_filter=A.x:A.y:...`, at least `jobs` of them so the GPU is kept busy),
  its timed cases in one;
- every command through the launcher (launch.py), already wrapped in the sandbox,
  with the end marker's nonce and a timeout from the tests' TIMEOUT (lab.json);
- the GPU as a ctest resource of `jobs` slots: an untimed test takes one, a timed
  test every one, so that it has the GPU to itself.
- the dataset setups as ctest fixtures, each run once: a failed one keeps its tests
  from starting, and fails them.
`ctest -j` and `--resource-spec-file` schedule them.

A verdict comes from the vouched XML report and the end marker (provenance.py,
verdict.py), never from ctest's. A process settles every case it reported, passed
or failed with GoogleTest's message: its neighbours are the student's own cases,
each on its own buffers, and the harness waits for every kernel. One re-run rule:
what a process could not vouch for (`settled`: it crashed, timed out, broke its
context, claimed a skip) runs again once, each case in a process of its own, in a
second ctest pass, and that run's verdict counts; a failure a busy GPU could explain (a
timeout, out of memory) runs once more with the GPU to itself.

The secret never reaches a test program: only the dataset setup gets it, and
writes the hidden data next to the public folder (`--out DIR-hidden`); every other
test is pointed there with LAB_DATA_DIR.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.discovery import SANITIZE_KIND
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.gpu_lock import LOCK_ENV
from grader.core.gtest_xml import GtestCase, read_cases
from grader.core.launch import OUTPUT_KEEP_BYTES, ProcessResult
from grader.core.model import LabTest, Outcome, Status, variant_of
from grader.core.provenance import Provenance, RunFiles
from grader.core.sandbox import STARTED_NAME, Sandbox
from grader.core.verdict import classify, cuda_error, hung, recorded_figure, search_pattern

DEFAULT_TIMEOUT_S = 60.0
MAX_JOBS = 8
GPU_GB_PER_JOB = 3.0  # a correctness test holds a CUDA context and at most ~1.5 GB of data
SECRET_ENV = "LAB_SECRET_SEED"
DATA_DIR_ENV = "LAB_DATA_DIR"
HIDDEN_SUFFIX = "-hidden"
# A process runs a serial chain of cases: bounded, so that a hang wastes a bounded
# time before the re-runs (the harness's kernel watchdog stops most hangs sooner).
# Large, because CUDA creates one context at a time for the whole machine: each
# process costs the machine about 0.2 s (docs/measurements/process-start.csv).
MAX_CASES = 96
GROUP_TIMEOUT_CAP_S = 120.0
# ctest's own TIMEOUT is a backstop behind the launcher's, which reports the timeout.
BACKSTOP_S = 60.0
# Under a batch's GPU lock (gpu_lock.py) a launcher may wait for its GPU that long.
LOCK_WAIT_S = 3600.0
_EXACT_NAME = re.compile(r"[^*?:\-\s]+")  # one GoogleTest name: no wildcard, no list
_RUN_LINE = "[ RUN      ] "
_END_LINES = ("[       OK ]", "[  FAILED  ]")
_CROWDED_WORDS = ("timed out", "out of memory", "cudaErrorMemoryAllocation")
NO_RESULT = "its launcher left no result (stopped from outside?)"
ROOT = Path(__file__).resolve().parents[2]  # the folder holding the grader package


@dataclass(frozen=True)
class Unit:
    """One process: `command` (a test, or one program over several cases) covering `tests`."""

    command: LabTest
    tests: tuple[LabTest, ...]
    alone: bool = False  # the GPU to itself, whatever its kind (a crowded failure again)

    @property
    def grouped(self) -> bool:
        return len(self.tests) > 1

    @property
    def exclusive(self) -> bool:
        return self.alone or self.command.is_timed


@dataclass(frozen=True)
class Ran:
    """How one unit's process ended, its report's cases and their provenance."""

    result: ProcessResult
    cases: list[GtestCase] | None = None
    provenance: Provenance | None = None
    clocks: Mapping[str, str] = field(default_factory=dict)


def default_jobs(gpu: GpuInfo) -> int:
    """How many untimed tests share the GPU: bounded by CPUs and GPU memory."""
    jobs = min(MAX_JOBS, os.cpu_count() or 1)
    memory = gpu.details.get("memory_gb") if gpu.present else None
    if isinstance(memory, (int, float)) and memory > 0:
        jobs = min(jobs, int(memory // GPU_GB_PER_JOB))
    return max(1, jobs)


def check_jobs(jobs: int | None) -> int | None:
    """None (automatic) or a positive count; anything else is the caller's mistake."""
    if jobs is not None and jobs < 1:
        raise GraderUsageError(f"--jobs must be at least 1, got {jobs}")
    return jobs


def check_timeout_scale(scale: float) -> float:
    """A positive, finite factor; anything else (nan and inf too) is the caller's mistake."""
    if not 0 < scale < math.inf:
        raise GraderUsageError(f"--timeout-scale must be a positive finite number, got {scale:g}")
    return scale


def crowded_out(outcome: Outcome) -> bool:
    """A failure that a busy GPU could explain: a timeout, the harness's kernel watchdog
    or running out of GPU memory."""
    if outcome.status is not Status.FAILED:
        return False
    text = outcome.reason + "\n" + outcome.output
    return hung(outcome) or any(w in text for w in _CROWDED_WORDS)


def _exact(test: LabTest) -> bool:
    name = test.gtest_filter
    return name is not None and _EXACT_NAME.fullmatch(name) is not None


def groupable(test: LabTest) -> bool:
    """A case selected by its exact GoogleTest name: it may share its program's process."""
    return _exact(test) and not test.is_setup and test.kind != SANITIZE_KIND


def program_key(test: LabTest) -> tuple[object, ...]:
    """Tests with one key differ only in their filter: one process can run them all."""
    command = tuple(a for a in test.command if not a.startswith("--gtest_filter="))
    return (
        test.lab,
        test.kind,
        test.is_timed,
        command,
        test.cwd,
        tuple(sorted(test.env.items())),
        test.fixtures_required,
        test.skip_return_codes,
        test.skip_patterns,
    )


def plan(tests: Sequence[LabTest], jobs: int, max_cases: int = MAX_CASES) -> list[Unit]:
    """`tests` as processes, in their order: a program's timed cases in one, its
    untimed ones in balanced chunks of at most `max_cases` and, together, at least
    `jobs` chunks where there are enough; every other test alone."""
    by_key: dict[tuple[object, ...], list[LabTest]] = {}
    for test in tests:
        if groupable(test):
            by_key.setdefault(program_key(test), []).append(test)
    untimed = sum(len(g) for g in by_key.values() if not g[0].is_timed)
    chunks_of: dict[tuple[object, ...], list[list[LabTest]]] = {}
    for key, group in by_key.items():
        count = 1
        if not group[0].is_timed:
            count = max(math.ceil(len(group) / max_cases), math.ceil(len(group) * jobs / untimed))
        count = min(count, len(group))
        size, extra = divmod(len(group), count)
        starts = [i * size + min(i, extra) for i in range(count + 1)]
        chunks_of[key] = [group[a:b] for a, b in zip(starts, starts[1:])]
    units: list[Unit] = []
    for test in tests:
        if not groupable(test):
            units.append(Unit(test, (test,)))
            continue
        chunks = chunks_of[program_key(test)]
        if chunks and chunks[0][0] is test:
            chunk = chunks.pop(0)
            names = [t.gtest_filter or "" for t in chunk]
            label = chunk[0].name if len(chunk) == 1 else f"{test.name} and {len(chunk) - 1} more"
            units.append(Unit(test.with_filter(names, label), tuple(chunk)))
    return units


def settled(unit: Unit, ran: Ran) -> list[tuple[LabTest, GtestCase]]:
    """The tests of a grouped unit whose shared process settles their verdict, with
    their own case, in the order GoogleTest ran them. Nothing, when the process timed
    out, printed too much, ended without a vouched-for report, exited with neither 0
    nor 1, printed a CUDA error no case owns, or matched a skip pattern. Else every
    case up to the first that names a CUDA error (a sticky error fails every later
    call; the first case is kept as alone), that claims a skip (judged per test), or
    is missing (a crash, an early exit). Of timed cases, whose figure a failure does
    not give, only the passes before the first other case."""
    result, cases, provenance = ran.result, ran.cases, ran.provenance
    rc = result.returncode
    if (
        rc not in (0, 1)
        or result.timed_out
        or result.output_overflow
        or cases is None
        or provenance is None
        or provenance.problem(rc) is not None
        or any(search_pattern(p, result.output) for t in unit.tests for p in t.skip_patterns)
    ):
        return []
    broke = [
        cuda_error("\n".join([*c.failures, case_output(result.output, c.name)])) is not None
        for c in cases
    ]
    everything = "\n".join([result.output, *(f for c in cases for f in c.failures)])
    if not any(broke) and cuda_error(everything) is not None:
        return []
    waiting = {test.gtest_filter: test for test in unit.tests}
    kept: list[tuple[LabTest, GtestCase]] = []
    for index, case in enumerate(cases):
        test = waiting.pop(case.name, None)
        if test is None:
            break
        reported = case.ran and not case.skipped and bool(case.failures)
        if broke[index]:
            if index == 0 and reported and not test.is_timed:
                kept.append((test, case))
            break
        if not case.passed and (test.is_timed or not reported):
            break
        kept.append((test, case))
    if rc != 0 and not any(case.failures for _, case in kept) and len(kept) == len(unit.tests):
        return []  # a nonzero result with no failed case: nothing here explains it
    return kept


def case_output(output: str, name: str) -> str:
    """What the process printed between GoogleTest's RUN and OK (or FAILED) lines of `name`."""
    start = output.find(f"{_RUN_LINE}{name}\n")
    if start < 0:
        return ""
    for marker in _END_LINES:
        end_line = f"{marker} {name}"
        end = output.find(end_line, start)
        if end >= 0:
            return output[start : end + len(end_line)]
    return output[start:]


def hidden_dir(public: str) -> str:
    """Where the hidden data of a public dataset folder goes: `DIR-hidden`."""
    return public.rstrip("/") + HIDDEN_SUFFIX


def _out_argument(argv: Sequence[str]) -> int | None:
    """The index of the value of a `datasets.generate` command's `--out`, if any."""
    if "datasets.generate" not in argv:
        return None
    for i, arg in enumerate(argv[:-1]):
        if arg == "--out":
            return i + 1
    return None


def _program_exists(program: str) -> bool:
    if os.sep in program:
        return os.path.isfile(program)
    return shutil.which(program) is not None


def _bracket(text: str) -> str:
    """`text` as one CMake bracket argument, whatever it holds."""
    level = "="
    while f"]{level}]" in text:
        level += "="
    return f"[{level}[{text}]{level}]"


class Runs:
    """Runs tests through ctest, setups once each, and judges them."""

    def __init__(
        self,
        *,
        gpu_present: bool,
        setups: Mapping[str, Sequence[LabTest]] | None = None,
        jobs: int = 1,
        timeout_scale: float = 1.0,
        keep_bytes: int = OUTPUT_KEEP_BYTES,
        secret: str | None = None,
        extra_env: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
        data_root: Path | None = None,
    ) -> None:
        self.gpu_present = gpu_present
        self.setups = dict(setups or {})
        self.jobs = max(1, jobs)
        self.timeout_scale = timeout_scale
        self.keep_bytes = keep_bytes
        self.secret = secret
        self.extra_env = dict(extra_env or {})
        self.sandbox = sandbox
        self.data_root = data_root  # a batch's one folder of datasets (_data_folder)
        self.setup_outcomes: dict[str, Outcome] = {}  # each dataset setup, run once
        self.processes_started = 0
        self.lock_wait_s = 0.0  # timed runs waiting for a batch's GPU lock
        self.reruns: list[str] = []  # each run again: unsettled, or crowded out

    def public(self) -> Runs:
        """The same run without the secret: the public data, its setups run again."""
        return Runs(
            gpu_present=self.gpu_present,
            setups=self.setups,
            jobs=self.jobs,
            timeout_scale=self.timeout_scale,
            keep_bytes=self.keep_bytes,
            extra_env=self.extra_env,
            sandbox=self.sandbox,
            data_root=self.data_root,
        )

    def run(self, tests: Sequence[LabTest]) -> dict[str, Outcome]:
        """Each test's outcome, by name: a first pass of `plan`'s processes, then what
        they did not settle, each case alone."""
        outcomes: dict[str, Outcome] = {}
        again: list[LabTest] = []
        units = plan(tests, self.jobs)
        for unit, ran in zip(units, self._ctest(units)):
            if isinstance(ran, Outcome):
                outcomes.update((t.name, ran) for t in unit.tests)
            elif not unit.grouped:
                outcomes[unit.tests[0].name] = self._judged(unit.command, ran)
            else:
                kept: dict[str, Outcome] = {}
                for test, case in settled(unit, ran):
                    outcome = self._case(test, case, ran)
                    if outcome is None:
                        break
                    kept[test.name] = outcome
                outcomes.update(kept)
                again += [t for t in unit.tests if t.name not in kept]
        if again:
            self.reruns += [t.name for t in again]
            alone = [Unit(t, (t,)) for t in again]
            for unit, ran in zip(alone, self._ctest(alone)):
                test = unit.tests[0]
                outcomes[test.name] = ran if isinstance(ran, Outcome) else self._judged(test, ran)
        outcomes.update(self._confirmed_alone(tests, outcomes))
        return {t.name: outcomes[t.name] for t in tests}

    def _confirmed_alone(
        self, tests: Sequence[LabTest], outcomes: Mapping[str, Outcome]
    ) -> dict[str, Outcome]:
        """Each failure that a busy GPU could explain (a timeout, the kernel watchdog,
        out of memory) run again with the GPU to itself, that verdict counting; nothing
        when nothing ran beside it (one job and no batch's lock). Once a variant hung
        alone, its other cases keep their verdict: a hung variant costs one more
        timeout, not one per case."""
        if self.jobs == 1 and not os.environ.get(LOCK_ENV):
            return {}
        by_variant: dict[tuple[str, str], list[LabTest]] = {}
        for test in tests:
            if not test.is_timed and crowded_out(outcomes[test.name]):
                by_variant.setdefault((test.lab, variant_of(test.name)), []).append(test)
        again = self._alone([group[0] for group in by_variant.values()])
        rest = [t for g in by_variant.values() if not hung(again[g[0].name]) for t in g[1:]]
        again.update(self._alone(rest))
        self.reruns += list(again)
        return again

    def _alone(self, tests: Sequence[LabTest]) -> dict[str, Outcome]:
        units = [Unit(t, (t,), alone=True) for t in tests]
        return {
            unit.command.name: ran if isinstance(ran, Outcome) else self._judged(unit.command, ran)
            for unit, ran in zip(units, self._ctest(units))
        }

    def _judged(self, test: LabTest, ran: Ran) -> Outcome:
        status, reason = classify(test, ran.result, ran.cases, self.gpu_present, ran.provenance)
        figure = recorded_figure(test, ran.result, ran.cases, ran.provenance)
        result = ran.result
        return Outcome(
            status, reason, result.output, result.duration_s, result.returncode, ran.clocks, figure
        )

    def _case(self, test: LabTest, case: GtestCase, ran: Ran) -> Outcome | None:
        """A case its shared process settles, judged as a run of it alone would be;
        None when that reads otherwise than the case (a skip claim): run it again."""
        own = dataclasses.replace(
            ran.result,
            returncode=0 if case.passed else 1,
            output=case_output(ran.result.output, case.name),
        )
        status, reason = classify(test, own, [case], self.gpu_present)
        if status is not (Status.PASSED if case.passed else Status.FAILED):
            return None
        figure = recorded_figure(test, ran.result, [case], ran.provenance)
        return Outcome(status, reason, own.output, case.time_s, 0, ran.clocks, figure)

    def timeout_s(self, unit: Unit) -> float:
        """The tests' TIMEOUT (lab.json), summed over a process's cases, capped (the
        longest always allowed), times the scale."""
        each = [(t.timeout or DEFAULT_TIMEOUT_S) * self.timeout_scale for t in unit.tests]
        return min(sum(each), max(max(each), GROUP_TIMEOUT_CAP_S * self.timeout_scale))

    def _ctest(self, units: Sequence[Unit]) -> list[Ran | Outcome]:
        """Run `units`, and first the setups they need that have not run, in one ctest
        run (ctest's fixtures: a failed setup keeps its tests from starting): each
        unit's Ran, or the Outcome a failed setup gives it."""
        setups = [Unit(s, (s,)) for s in self._new_setups(units)]
        blocked = [self._blocked(unit.command) for unit in units]
        ran = self._ctest_pass([*setups, *(u for u, b in zip(units, blocked) if b is None)])
        for unit, done in zip(setups, ran):
            self.setup_outcomes[unit.command.name] = (
                self._judged(unit.command, done) if done else Outcome(Status.ERROR, NO_RESULT)
            )
        rest = iter(ran[len(setups) :])
        found: list[Ran | Outcome] = []
        for unit, outcome in zip(units, blocked):
            got: Ran | Outcome | None = outcome
            if outcome is None:
                ran_now = next(rest)
                # A setup of this run decides first: one that failed kept its tests from
                # starting; one the grader calls skipped or failed though it exited 0 voids them.
                got = self._blocked(unit.command) or ran_now
            found.append(got or Outcome(Status.ERROR, NO_RESULT))
        return found

    def _ctest_pass(self, units: Sequence[Unit]) -> list[Ran | None]:
        """One ctest run over `units`: how each ended (None: it did not start)."""
        if not units:
            return []
        with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
            folder = Path(tmp)
            folder.chmod(0o711)  # the sandbox's user reaches its scratch folder, lists nothing
            lines: list[str] = []
            jobs = [self._job(folder, f"u{i}", unit, lines) for i, unit in enumerate(units)]
            if lines:
                self._run_ctest(folder, lines)
            return [
                job if isinstance(job, Ran) else self._read(folder, f"u{index}", unit, *job)
                for index, (unit, job) in enumerate(zip(units, jobs))
            ]

    def _job(
        self, folder: Path, key: str, unit: Unit, lines: list[str]
    ) -> tuple[RunFiles | None, bool] | Ran:
        """Write `unit`'s job file and add its lines to the test file: its report's
        files and whether they were there first, or how it ended without starting."""
        test = unit.command
        argv, env = self.command_and_env(test)
        if not argv or not _program_exists(argv[0]):
            return Ran(ProcessResult(None, not_built=True))
        out = _out_argument(argv) if test.is_setup else None
        if out is not None and not Path(argv[out]).exists():
            # Made now, so that the sandbox of a test that reads it shows it; readable by
            # the sandbox's user (65534 when the grader is root) whatever the umask.
            Path(argv[out]).mkdir(parents=True)
            Path(argv[out]).chmod(0o755)
        if test.cwd is not None and not Path(test.cwd).is_dir():
            return Ran(
                ProcessResult(None, launch_error=f"working directory {test.cwd} does not exist")
            )
        scratch = folder / key
        scratch.mkdir()
        files = RunFiles.fresh(scratch) if test.is_gtest else None
        preexisting = False
        if files is not None:
            argv.append(f"--gtest_output=xml:{files.report}")
            env.update(files.env())
            preexisting = files.leftovers()
        timeout = self.timeout_s(unit)
        job: dict[str, Any] = {
            "argv": argv,
            "cwd": test.cwd,
            "env": env,
            # The setup's data is read by the sandbox's user (65534 when the grader is root).
            "user": {"umask": 0o022} if self.sandbox is not None else None,
            "timeout_s": timeout,
            "keep_bytes": self.keep_bytes,
            "clocks": test.is_timed and self.gpu_present,
            "alone": unit.exclusive,
            "result_file": str(folder / f"{key}.result.json"),
            "scratch": str(scratch),
            "keep": [files.report.name, files.marker.name] if files is not None else [],
            "started": None,
        }
        if self.sandbox is not None and not test.is_setup:
            self.sandbox.prepare(scratch)
            read_only = self.read_only_paths(test, argv, env)
            job.update(
                argv=self.sandbox.command(
                    argv, scratch=scratch, cwd=test.cwd, read_only=read_only, env=env
                ),
                cwd=str(scratch),
                env=self.sandbox.environment(env, scratch),
                user=self.sandbox.process_user(),
                started=str(scratch / STARTED_NAME),
            )
        job_file = folder / f"{key}.job.json"
        # The nonce, and a setup's secret: for the grader's own user only.
        job_file.touch(mode=0o600)
        job_file.write_text(json.dumps(job), encoding="utf-8")
        name = _bracket(f"{key} {test.name}")
        launcher = [sys.executable, "-m", "grader.core.launch", str(job_file)]
        backstop = timeout + BACKSTOP_S + (LOCK_WAIT_S if os.environ.get(LOCK_ENV) else 0)
        properties = [f"TIMEOUT {backstop:.0f}", f"ENVIRONMENT {_bracket(f'PYTHONPATH={ROOT}')}"]
        properties.append(f"COST {len(unit.tests)}")  # ctest starts the longest first
        if test.is_setup:
            properties.append(f"FIXTURES_SETUP {_bracket(test.name)}")
        else:
            properties.append(f'RESOURCE_GROUPS "gpus:{self.jobs if unit.exclusive else 1}"')
            setups = [s.name for f in test.fixtures_required for s in self.setups.get(f, ())]
            if setups:
                properties.append(f"FIXTURES_REQUIRED {_bracket(';'.join(setups))}")
        lines.append(f"add_test({name} {' '.join(_bracket(a) for a in launcher)})")
        lines.append(f"set_tests_properties({name} PROPERTIES {' '.join(properties)})")
        return files, preexisting

    def _run_ctest(self, folder: Path, lines: Sequence[str]) -> None:
        """ctest over the test file: `jobs` at a time, the GPU's `jobs` slots shared."""
        (folder / "CTestTestfile.cmake").write_text("\n".join(lines) + "\n", encoding="utf-8")
        gpus = [{"id": "0", "slots": self.jobs}]
        spec = {"version": {"major": 1, "minor": 0}, "local": [{"gpus": gpus}]}
        (folder / "resources.json").write_text(json.dumps(spec), encoding="utf-8")
        ctest = shutil.which("ctest")
        if ctest is None:
            raise GraderUsageError("ctest not found on PATH (CMake 3.25 or newer is needed)")
        argv = [ctest, "--test-dir", str(folder), "-j", str(self.jobs)]
        argv += ["--resource-spec-file", str(folder / "resources.json")]
        with open(folder / "ctest.log", "wb") as log:
            done = subprocess.run(
                argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        if done.returncode != 0 and not any(folder.glob("*.result.json")):
            said = (folder / "ctest.log").read_text(errors="replace").split("\n")
            last = next((line for line in reversed(said) if line.strip()), "")
            raise GraderUsageError(f"ctest ran none of the tests ({ctest}): {last.strip()}")

    def _read(
        self, folder: Path, key: str, unit: Unit, files: RunFiles | None, preexisting: bool
    ) -> Ran | None:
        """What the launcher left for a unit; None when it left nothing."""
        try:
            done = json.loads((folder / f"{key}.result.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        result = ProcessResult(**done["result"])
        if result.returncode is not None or result.timed_out:
            self.processes_started += 1
        if unit.command.is_timed:
            self.lock_wait_s += float(done.get("lock_wait_s", 0.0))
        cases = read_cases(files.report) if files is not None else None
        provenance = files.provenance(preexisting) if files is not None else None
        return Ran(result, cases, provenance, done.get("clocks") or {})

    def _new_setups(self, units: Iterable[Unit]) -> list[LabTest]:
        """The setups `units` need that have not run yet, each once."""
        needed: dict[str, LabTest] = {}
        for unit in units:
            for fixture in unit.command.fixtures_required:
                for setup in self.setups.get(fixture, ()):
                    if setup.name != unit.command.name and setup.name not in self.setup_outcomes:
                        needed.setdefault(setup.name, setup)
        return list(needed.values())

    def _blocked(self, test: LabTest) -> Outcome | None:
        """The outcome a failed (or skipped) setup gives `test`, or None."""
        for fixture in test.fixtures_required:
            for setup in self.setups.get(fixture, ()):
                outcome = self.setup_outcomes.get(setup.name)
                if setup.name == test.name or outcome is None:
                    continue
                if outcome.status is Status.SKIPPED:
                    return Outcome(Status.SKIPPED, f"dataset setup skipped: {outcome.reason}")
                if outcome.status is not Status.PASSED:
                    return Outcome(
                        Status.FAILED,
                        f"dataset setup failed: {setup.name}: {outcome.reason}",
                        outcome.output,
                    )
        return None

    def read_only_paths(
        self, test: LabTest, argv: Sequence[str], env: Mapping[str, str]
    ) -> list[str]:
        """What the sandbox shows a test: the folders of the files its command names
        (the program, a dataset) and its lab's dataset folder."""
        paths = [os.path.dirname(arg) for arg in argv if os.path.isabs(arg) and os.path.isfile(arg)]
        data = env.get(DATA_DIR_ENV) or self._data_dir(test, graded=False)
        return paths + ([data] if data else [])

    def command_and_env(self, test: LabTest) -> tuple[list[str], dict[str, str]]:
        """The argv and environment `test` runs with (the secret to its setup alone)."""
        env = {**os.environ, **test.env, **self.extra_env}
        env.pop(SECRET_ENV, None)
        argv = list(test.command)
        if self.secret is None and self.data_root is None:
            return argv, env
        if test.is_setup:
            out = _out_argument(argv)
            if out is not None:
                if self.secret is not None:
                    env[SECRET_ENV] = self.secret
                argv[out] = self._data_folder(argv[out])
        else:
            data = self._data_dir(test, graded=True)
            if data is not None:
                env[DATA_DIR_ENV] = data
        return argv, env

    def _data_folder(self, built: str) -> str:
        """Where the datasets of the build's folder `built` are written and read:
        `built-hidden` with a secret, and in a batch's data root, under the folder's
        name, when it has one (the same secret gives every student the same bytes;
        datasets.generate keeps a file already written for the same entry)."""
        folder = hidden_dir(built) if self.secret is not None else built
        return str(self.data_root / Path(folder).name) if self.data_root else folder

    def _data_dir(self, test: LabTest, *, graded: bool) -> str | None:
        """The folder the dataset setup of `test` writes: as built, or (`graded`) the
        one this grading writes and reads (_data_folder)."""
        for fixture in test.fixtures_required:
            for setup in self.setups.get(fixture, ()):
                out = _out_argument(list(setup.command))
                if out is not None:
                    folder = setup.command[out]
                    return self._data_folder(folder) if graded else folder
        return None
