"""Running one lab test in its own process, under its timeout, after its fixtures.

Each test gets a new session (process group), so a hung kernel and anything it
spawned are killed together. Output goes to a file, not a pipe, so a leftover
child holding it open cannot stall the grader.

Why not `ctest`, which already runs each test under its TIMEOUT after its
FIXTURES_SETUP: ctest judges by exit status and takes a test's word for a skip,
while a verdict here comes from GoogleTest's XML report vouched for by the end
marker (provenance.py), a skip counts only without a GPU, student code runs in the
sandbox, timeouts follow a calibration (watchdog.py), and a run may share a process
with its program's other tests (process_groups.py). What ctest decides is still
taken from it: the commands, TIMEOUT, fixtures and labels (discovery.py).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from grader.core import clocks, process_groups
from grader.core.gtest_xml import GtestCase, read_cases
from grader.core.model import LabTest, Outcome, Status
from grader.core.provenance import Provenance, RunFiles
from grader.core.sandbox import Sandbox, exit_status, start_failure
from grader.core.verdict import ProcessResult, classify, recorded_figure
from grader.core.watchdog import KERNEL_TIMEOUT_ENV, Calibration, flat_kernel_timeout

DEFAULT_TIMEOUT_S = 60.0
OUTPUT_KEEP_BYTES = 20_000
OUTPUT_LIMIT_BYTES = 64 << 20
_POLL_S = 0.05
SECRET_ENV = "LAB_SECRET_SEED"
DATA_DIR_ENV = "LAB_DATA_DIR"
HIDDEN_SUFFIX = "-hidden"


def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout_s: float,
    keep_bytes: int = OUTPUT_KEEP_BYTES,
    user: Mapping[str, Any] | None = None,
) -> ProcessResult:
    """Run `argv` in a new process group; kill the whole group when it ends or hangs.

    `user`: Popen's user, group and umask arguments (the sandbox's user when the
    grader is root).
    """
    if not argv:
        return ProcessResult(None, not_built=True)
    if cwd is not None and not Path(cwd).is_dir():
        return ProcessResult(None, launch_error=f"working directory {cwd} does not exist")
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **(user or {}),
            )
        except FileNotFoundError as exc:
            if exc.filename in (argv[0], None):
                return ProcessResult(None, not_built=True)
            return ProcessResult(None, launch_error=str(exc))
        except OSError as exc:
            return ProcessResult(None, launch_error=str(exc))
        timed_out = overflow = False
        try:
            timed_out, overflow = _wait(proc, out, start + timeout_s)
        finally:
            _kill_group(proc.pid)
            proc.wait()
        return ProcessResult(
            returncode=proc.returncode,
            output=_head_and_tail(out, keep_bytes),
            duration_s=time.monotonic() - start,
            timeout_s=timeout_s,
            timed_out=timed_out,
            output_overflow=overflow,
        )


def _wait(proc: subprocess.Popen[bytes], out: IO[bytes], deadline: float) -> tuple[bool, bool]:
    """Wait for the process; (timed_out, output_overflow) say why we stopped early."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True, False
        try:
            proc.wait(timeout=min(_POLL_S, remaining))
            return False, False
        except subprocess.TimeoutExpired:
            if os.fstat(out.fileno()).st_size > OUTPUT_LIMIT_BYTES:
                return False, True


def _program_exists(program: str) -> bool:
    """Whether the command's program is there to start (a lab that did not build is not)."""
    if os.sep in program:
        return os.path.isfile(program)
    return shutil.which(program) is not None


def _kill_group(pgid: int) -> None:
    """SIGKILL the test's process group: the test itself and whatever it left behind."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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


def _head_and_tail(out: IO[bytes], keep_bytes: int) -> str:
    """The output, or its first and last keep_bytes / 2 when longer: the start holds
    the first error (compute-sanitizer's first report), the end the verdict."""
    size = out.seek(0, os.SEEK_END)
    out.seek(0)
    if size <= keep_bytes:
        return out.read().decode("utf-8", errors="replace")
    half = keep_bytes // 2
    head = out.read(half).decode("utf-8", errors="replace")
    out.seek(size - half)
    tail = out.read().decode("utf-8", errors="replace")
    return f"{head}\n[... {size - 2 * half} bytes of output cut ...]\n{tail}"


class _ThreadSetups(threading.local):
    """The setups the current thread is running: a setup does not wait for itself."""

    def __init__(self) -> None:
        self.names: set[str] = set()


class Runner:
    """Runs one test in its own process; which tests overlap is schedule.py's business.

    Fixture setup tests run once, the first time a test needs them; their
    outcome is remembered so a failed dataset fails its dependents, once each.
    Threads may call run() together: a setup runs in one of them while the
    others wait for it.
    """

    def __init__(
        self,
        *,
        gpu_present: bool,
        setups: Mapping[str, Sequence[LabTest]] | None = None,
        timeout_scale: float = 1.0,
        keep_bytes: int = OUTPUT_KEEP_BYTES,
        secret: str | None = None,
        extra_env: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
        calibration: Calibration | None = None,
        data_root: Path | None = None,
    ) -> None:
        self.gpu_present = gpu_present
        # A batch's one folder of datasets, written once for every student (see _data_folder).
        self.data_root = data_root
        self.calibration = calibration
        self.sandbox = sandbox
        self.secret = secret
        self.extra_env = dict(extra_env or {})
        self.setups = dict(setups or {})
        self.timeout_scale = timeout_scale
        self.keep_bytes = keep_bytes
        self.read_clocks: Callable[[], dict[str, str]] = clocks.read  # replaceable in tests
        self.setup_outcomes: dict[str, Outcome] = {}  # each dataset setup, run once
        self._setup_lock = threading.RLock()
        self._running = _ThreadSetups()
        self.processes_started = 0  # test processes, setups included
        self._count_lock = threading.Lock()

    def flat_timeout(self, test: LabTest) -> float:
        """The test's TIMEOUT (or the default), times the scale."""
        return (test.timeout or DEFAULT_TIMEOUT_S) * self.timeout_scale

    def timeout_for(self, test: LabTest) -> float:
        """The flat timeout, or less where a calibration sizes it (watchdog.py)."""
        return self._sized_timeout([test], self.flat_timeout(test))

    def _sized_timeout(self, tests: Sequence[LabTest], flat_s: float) -> float:
        """A process running `tests`: `flat_s`, or less where a calibration sizes it."""
        if self.calibration is None:
            return flat_s
        return self.calibration.process_timeout(tests, flat_s)

    def size_kernel_watchdog(self, env: dict[str, str], tests: Sequence[LabTest]) -> None:
        """Lower LAB_KERNEL_TIMEOUT_S in `env`, the environment of a process running
        `tests`, where a calibration sizes it."""
        if self.calibration is None:
            return
        flat = flat_kernel_timeout(env)
        seconds = self.calibration.kernel_timeout(tests, flat)
        if seconds < flat:
            env[KERNEL_TIMEOUT_ENV] = f"{seconds:.3g}"

    def run(self, test: LabTest) -> Outcome:
        """Run `test` after the setup tests it needs; a failed setup fails it."""
        blocked = self._ensure_fixtures(test)
        if blocked is not None:
            return blocked
        return self.execute(test)

    def run_group(self, tests: Sequence[LabTest]) -> process_groups.GroupRun:
        """Run `tests`, one program's untimed cases (process_groups.plan) or its timed
        ones (process_groups.timed_groups), in one process after their fixtures: the
        outcomes of those the process settles, by name (process_groups.settled), and
        the one it started and never finished. The caller runs the others again."""
        blocked = self._ensure_fixtures(tests[0])  # one program key: the same fixtures
        if blocked is not None:
            return process_groups.GroupRun({test.name: blocked for test in tests})
        first = tests[0]
        group = first.with_filter(
            [t.gtest_filter or "" for t in tests], f"{first.name} and {len(tests) - 1} more"
        )
        timeout_s = self._sized_timeout(
            tests,
            process_groups.group_timeout([self.flat_timeout(t) for t in tests], self.timeout_scale),
        )
        result, cases, provenance, around = self._execute(group, timeout_s, tests)
        outcomes: dict[str, Outcome] = {}
        for test, case in process_groups.settled(tests, result, cases, provenance):
            outcome = self._settled(test, case, result, provenance, around)
            if outcome.status is not (Status.PASSED if case.passed else Status.FAILED):
                break  # judged otherwise than its case reads (a skip claim): run again
            outcomes[test.name] = outcome
        return process_groups.GroupRun(outcomes, process_groups.unfinished(result.output, tests))

    def _settled(
        self,
        test: LabTest,
        case: GtestCase,
        group: ProcessResult,
        provenance: Provenance | None,
        around: dict[str, str],
    ) -> Outcome:
        """A test the group's process settles, judged as a run of its case alone: the
        process's provenance was checked, and its case passed (or ran first and failed)."""
        own = dataclasses.replace(
            group,
            returncode=0 if case.passed else 1,
            output=process_groups.case_output(group.output, case.name),
        )
        status, reason = classify(test, own, [case], self.gpu_present)
        figure = recorded_figure(test, group, [case], provenance)
        return Outcome(status, reason, own.output, case.time_s, 0, around, figure)

    def execute(self, test: LabTest) -> Outcome:
        """Run `test` alone, ignoring fixtures, and judge it."""
        result, cases, provenance, around = self._execute(test, self.timeout_for(test), [test])
        status, reason = classify(test, result, cases, self.gpu_present, provenance)
        return Outcome(
            status,
            reason,
            result.output,
            result.duration_s,
            result.returncode,
            around,
            recorded_figure(test, result, cases, provenance),
        )

    def _execute(
        self, test: LabTest, timeout_s: float, covers: Sequence[LabTest]
    ) -> tuple[ProcessResult, list[GtestCase] | None, Provenance | None, dict[str, str]]:
        """Run `test`'s command: how it ended, its report's cases, their provenance and
        (a timed test) the clocks around it.

        Each run gets a fresh folder for its report and end marker (provenance.py);
        it is also the sandbox's scratch folder.
        """
        argv, env = self.command_and_env(test)
        self.size_kernel_watchdog(env, covers)  # `covers`: the tests this process runs
        with tempfile.TemporaryDirectory(prefix="grader-") as tmp:
            files = RunFiles.fresh(Path(tmp))
            preexisting = False
            if test.is_gtest:
                argv.append(f"--gtest_output=xml:{files.report}")
                env.update(files.env())
                preexisting = files.leftovers()
            timed = test.is_timed and self.gpu_present
            before = self.read_clocks() if timed else {}
            result = self._run(test, argv, env, files.folder, timeout_s)
            if not (result.not_built or result.launch_error):
                with self._count_lock:
                    self.processes_started += 1
            after = self.read_clocks() if timed else {}
            cases = read_cases(files.report) if test.is_gtest else None
            provenance = files.provenance(preexisting) if test.is_gtest else None
        return result, cases, provenance, clocks.around(before, after)

    def _run(
        self, test: LabTest, argv: list[str], env: dict[str, str], scratch: Path, timeout_s: float
    ) -> ProcessResult:
        """Run the command, in the sandbox unless it is the harness's dataset setup."""
        sandbox = None if test.is_setup else self.sandbox
        if sandbox is None or not argv:
            # The setup's data is read by the sandbox's user (65534 when the grader is root).
            readable = {"umask": 0o022} if self.sandbox is not None else None
            return run_process(
                argv,
                cwd=test.cwd,
                env=env,
                timeout_s=timeout_s,
                keep_bytes=self.keep_bytes,
                user=readable,
            )
        if test.cwd is not None and not Path(test.cwd).is_dir():
            return ProcessResult(None, launch_error=f"working directory {test.cwd} does not exist")
        if not _program_exists(argv[0]):
            return ProcessResult(None, not_built=True)
        sandbox.prepare(scratch)
        wrapped = sandbox.command(
            argv,
            scratch=scratch,
            cwd=test.cwd,
            read_only=self.read_only_paths(test, argv, env),
            env=env,
        )
        result = run_process(
            wrapped,
            cwd=str(scratch),
            env=sandbox.environment(env, scratch),
            timeout_s=timeout_s,
            keep_bytes=self.keep_bytes,
            user=sandbox.process_user(),
        )
        if not sandbox.started(scratch) and not result.timed_out:
            return ProcessResult(
                None,
                result.output,
                result.duration_s,
                timeout_s,
                launch_error=start_failure(result.output),
            )
        if result.returncode is None:
            return result
        return dataclasses.replace(result, returncode=exit_status(result.returncode))

    def read_only_paths(
        self, test: LabTest, argv: Sequence[str], env: Mapping[str, str]
    ) -> list[str]:
        """What the sandbox shows a test: the folders of the files its command names
        (the program, a dataset) and its lab's dataset folder."""
        paths = [os.path.dirname(arg) for arg in argv if os.path.isabs(arg) and os.path.isfile(arg)]
        data = env.get(DATA_DIR_ENV) or self._data_dir(test, graded=False)
        return paths + ([data] if data else [])

    def command_and_env(self, test: LabTest) -> tuple[list[str], dict[str, str]]:
        """The argv and environment `test` runs with.

        The secret never reaches a test program: only the dataset setup gets it,
        and writes the hidden data next to the public folder (`--out DIR-hidden`);
        every other test is pointed there with LAB_DATA_DIR.
        """
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

    def _ensure_fixtures(self, test: LabTest) -> Outcome | None:
        """None when every fixture is ready, else the outcome its failure gives `test`."""
        for fixture in test.fixtures_required:
            for setup in self.setups.get(fixture, ()):
                if setup.name == test.name or setup.name in self._running.names:
                    continue  # a setup does not wait for itself (or a cycle)
                outcome = self._setup_outcome(setup)
                if outcome.status is Status.SKIPPED:
                    return Outcome(Status.SKIPPED, f"dataset setup skipped: {outcome.reason}")
                if outcome.status is not Status.PASSED:
                    return Outcome(
                        Status.FAILED,
                        f"dataset setup failed: {setup.name}: {outcome.reason}",
                        outcome.output,
                    )
        return None

    def _setup_outcome(self, setup: LabTest) -> Outcome:
        done = self.setup_outcomes.get(setup.name)
        if done is not None:
            return done
        with self._setup_lock:
            if setup.name not in self.setup_outcomes:
                self._running.names.add(setup.name)
                try:
                    self.setup_outcomes[setup.name] = self.run(setup)
                finally:
                    self._running.names.discard(setup.name)
            return self.setup_outcomes[setup.name]
