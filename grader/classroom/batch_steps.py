"""The real build and grade steps of a batch (the scheduler in batch.py takes any).

Build: `build_checked` (the code behind `grade --impl`: compile, object check, link
what passed) on the labs the student handed in, with its log kept in the student's
report folder. With
`--build-once`, `build_fixed_parts` first builds the class's harness, references
and test programs once, and each student's build compiles only their own files
and links against those (cmake/LabPrebuilt.cmake).
Grade: `python3 -m grader grade --build` in a child process whose only visible
GPU is the worker's (CUDA_VISIBLE_DEVICES), under a whole-run time limit, given
the GPU's lock file (gpu_lock.py) where several workers share that GPU. Its static
check finds nothing: the labs it rejects are neither built nor handed to it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.classroom.batch import LabResult, StudentResult, Submission, safe_name
from grader.classroom.class_table import graded_result, result_from_report
from grader.core.build import build_checked, configure_and_build, prebuilt_argument
from grader.core.discovery import lab_dirs
from grader.core.errors import EXIT_NO_GPU, GraderUsageError
from grader.core.gpu_lock import LOCK_ENV, lock_file
from grader.core.reports import STEP_SUMMARY_ENV
from grader.core.sandbox import Decision
from grader.core.scoring import load_policy
from grader.core.worker_request import WorkerRequest
from grader.trust.static_check import rejections
from grader.trust.submission_check import object_findings

_PACKAGE_PARENT = Path(__file__).resolve().parents[2]
_TAIL_LINES = 6
DATASETS_DIR = "datasets"  # LAB_DATA_ROOT of a build (cmake/LabTesting.cmake)
# Under --build-root; safe_name strips a leading dot, so no student's build is named so.
FIXED_BUILD = ".fixed-parts"
REQUEST_SUFFIX = ".request.json"  # beside each student's build folder
SANITIZER = "compute-sanitizer"


@dataclass(frozen=True)
class BuiltTree:
    """A student's build folder, the labs it holds and why the build failed, if it did."""

    build_dir: Path
    labs: tuple[str, ...]
    failure_stage: str | None = None
    failure_log: Path | None = None
    static: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class BatchConfig:
    """What every student's build and grade share."""

    repo: Path
    labs: tuple[str, ...]
    report_root: Path
    build_root: Path
    lab_max: Mapping[str, float]
    cmake_args: tuple[str, ...] = ()
    timeout_scale: float = 1.0
    secret_file: Path | None = None
    student_timeout_s: float = 3 * 3600
    jobs: int | None = None  # untimed tests sharing a worker's GPU (None: automatic)
    sanitize: bool = True  # the sanitizer stage (sanitize_stage.py)
    prebuilt: Path | None = None  # the build whose fixed parts students link (build_fixed_parts)
    calibration: Path | None = None  # the performance credit's yardstick (calibration.py)
    shared_gpus: tuple[str, ...] = ()  # GPUs of several slots, whose workers take its lock
    data_root: Path | None = None  # the datasets, written once for the class (ctest_run.py)
    sandbox: Decision | None = None  # the builds' (None: each decides, build.py)

    def report_dir(self, sub: Submission) -> Path:
        return self.report_root / safe_name(sub.name)


def build_submission(config: BatchConfig, sub: Submission) -> BuiltTree:
    """Configure and build the labs `sub` handed in; a failure is recorded, not raised.

    A lab the static check rejects scores 0 whatever its tests say, so it is
    neither built nor graded: its GPU time goes to the next student.
    """
    handed_in = tuple(lab for lab in config.labs if lab in sub.labs)
    build_dir = config.build_root / safe_name(sub.name)
    report = config.report_dir(sub)
    report.mkdir(parents=True, exist_ok=True)
    static = static_findings(sub.path, handed_in, report, config.repo) if handed_in else {}
    labs = tuple(lab for lab in handed_in if lab not in static)
    if not labs:
        return BuiltTree(build_dir, (), static=static)
    args = (
        *config.cmake_args,
        f"-DLAB_ONLY={';'.join(labs)}",
        *(["-DLAB_SANITIZE=ON"] if config.sanitize else []),
        *([prebuilt_argument(config.prebuilt)] if config.prebuilt else []),
    )
    log, failure, found = build_checked(
        config.repo,
        str(sub.path),
        build_dir,
        labs,
        args,
        lambda chosen, log: object_rejections(
            config.repo, sub.path, build_dir, chosen, report, log
        ),
        sandbox=config.sandbox,
    )
    (report / "build.log").write_text(log, encoding="utf-8")
    static = {**static, **{lab: tuple(found[lab]) for lab in found}}
    labs = tuple(lab for lab in labs if lab not in found)
    if failure is None:
        return BuiltTree(build_dir, labs, static=static)
    failure_log = report / "build-failure.log"
    failure_log.write_text(failure.log, encoding="utf-8")
    return BuiltTree(build_dir, labs, failure.stage, failure_log, static)


def build_fixed_parts(
    config: BatchConfig, progress: Callable[[str], None] | None = None
) -> BatchConfig:
    """Build the class's fixed parts once (the whole tree of `config.labs` against
    the skeletons, in `FIXED_BUILD`) and return `config` with every student's
    build linking them. Raises GraderUsageError when that build fails: the
    repository itself is broken, and no student could be graded."""
    build_dir = config.build_root / FIXED_BUILD
    build_dir.mkdir(parents=True, exist_ok=True)
    args = (*config.cmake_args, f"-DLAB_ONLY={';'.join(config.labs)}")
    log, failure = configure_and_build(
        config.repo, "skeletons", build_dir, args, progress=progress, sandbox=config.sandbox
    )
    (build_dir / "build.log").write_text(log, encoding="utf-8")
    if failure is not None:
        raise GraderUsageError(
            f"--build-once: the {failure.stage} of the fixed parts in {build_dir} failed:\n"
            f"{failure.errors_for()}"
        )
    return replace(config, prebuilt=build_dir)


def require_compute_sanitizer(cmake_args: Sequence[str]) -> str:
    """The compute-sanitizer the builds' configure will find (cmake/LabSanitize.cmake:
    `-DLAB_COMPUTE_SANITIZER=`, else beside the CUDA toolkit's nvcc, else on the PATH).
    Raises GraderUsageError without one: each build would lack the sanitize tests, and
    each student's grading with the sanitizer stage would be refused after the build."""
    given = _cmake_values(cmake_args, "LAB_COMPUTE_SANITIZER")
    if given:
        if not _executable(Path(given[-1])):
            raise GraderUsageError(f"-DLAB_COMPUTE_SANITIZER={given[-1]}: not an executable file")
        return given[-1]
    # The nvcc CMake takes (-DCMAKE_CUDA_COMPILER, $CUDACXX, the PATH's, the usual places),
    # and the toolkit named to FindCUDAToolkit.
    cuda_path = os.environ.get("CUDA_PATH")
    nvcc = _cmake_values(cmake_args, "CMAKE_CUDA_COMPILER") or [
        *(p for p in (os.environ.get("CUDACXX"), shutil.which("nvcc")) if p),
        *([f"{cuda_path}/bin/nvcc"] if cuda_path else []),
        "/usr/local/cuda/bin/nvcc",
    ]
    chosen = next((Path(p) for p in nvcc if _executable(Path(p))), None)
    roots = [*_cmake_values(cmake_args, "CUDAToolkit_ROOT"), os.environ.get("CUDAToolkit_ROOT")]
    named = [chosen.parent] if chosen else []
    named += [Path(r) / "bin" for r in roots if r]
    bins = list(dict.fromkeys(b for folder in named for b in (folder, folder.resolve())))
    for folder in bins:
        for found in (folder / SANITIZER, folder.parent / SANITIZER / SANITIZER):
            if _executable(found):
                return str(found)
    on_path = shutil.which(SANITIZER)
    if on_path is None:
        raise GraderUsageError(
            f"the sanitizer stage needs {SANITIZER}, found neither on the PATH nor beside "
            f"nvcc ({', '.join(map(str, bins)) or 'no nvcc found'}): install it with the CUDA "
            "toolkit, name it with --cmake-arg=-DLAB_COMPUTE_SANITIZER=PATH, or grade with "
            "--no-sanitize"
        )
    return on_path


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _cmake_values(cmake_args: Sequence[str], name: str) -> list[str]:
    """The values `-DNAME=V` (or `-DNAME:TYPE=V`) among the configure arguments."""
    pattern = re.compile(rf"-D{re.escape(name)}(?::[A-Z]+)?=(.+)")
    return [m.group(1) for arg in cmake_args if (m := pattern.fullmatch(arg))]


def static_findings(
    impl: Path, labs: Sequence[str], report: Path, repo: Path | None = None
) -> dict[str, tuple[str, ...]]:
    """The source rules on the student's lab folders, before anything is built.

    Written to `static-check.txt`; a lab with findings scores 0 (`apply_static`),
    since passing tests with CUB is no pass. The object check follows the build
    (`object_rejections`).
    """
    found = {lab: tuple(items) for lab, items in rejections(impl, labs, repo).items()}
    text = "\n".join(item for items in found.values() for item in items)
    (report / "static-check.txt").write_text((text or "no findings") + "\n", encoding="utf-8")
    return found


def object_rejections(
    repo: Path, impl: Path, build: Path, labs: Sequence[str], report: Path, log: str = ""
) -> dict[str, tuple[str, ...]]:
    """The object check of the labs just built (`object-check.txt`; `log`, the build's
    output, for the compiler's errors): a lab it rejects scores 0 like one the source
    rules reject, and is not graded."""
    found = {
        lab: tuple(f.describe() for f in items)
        for lab, items in object_findings(repo, impl, build, labs, log).items()
        if items
    }
    text = "\n".join(item for items in found.values() for item in items)
    (report / "object-check.txt").write_text((text or "no findings") + "\n", encoding="utf-8")
    return found


def apply_static(
    result: StudentResult,
    static: Mapping[str, Sequence[str]],
    lab_max: Mapping[str, float],
    order: Sequence[str],
) -> StudentResult:
    """Score 0 of its full mark each lab the static check rejected, and say why first.

    Such a lab was not graded, so `result` either lacks it or (for a student
    with nothing else to grade) lists it as not submitted: both are replaced.
    """
    if not static:
        return result
    graded = {lab.lab: lab for lab in result.labs if lab.lab not in static}
    rejected = {lab: LabResult(lab, 0.0, float(lab_max.get(lab, 0.0))) for lab in static}
    merged = {**graded, **rejected}
    labs = tuple(merged[lab] for lab in order if lab in merged) + tuple(
        lab for name, lab in merged.items() if name not in order
    )
    failures = tuple(
        f"{lab}: rejected by the static check: {items[0].splitlines()[0]}"
        for lab, items in static.items()
    ) + tuple(f for f in result.failures if f.split(":", 1)[0] not in static)
    return replace(result, labs=labs, failures=failures)


def worker_command(config: BatchConfig, built: BuiltTree, report: Path) -> list[str]:
    """The child's argv: grade the built tree into `report`, with the batch's request
    written beside the build (worker_request.py)."""
    argv = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        "--build",
        str(built.build_dir),
        "--report",
        str(report),
        "--repo",
        str(config.repo),
        "--labs",
        ",".join(built.labs),
        "--timeout-scale",
        str(config.timeout_scale),
    ]
    if config.secret_file is not None:
        argv += ["--secret-file", str(config.secret_file)]
    if config.jobs is not None:
        argv += ["--jobs", str(config.jobs)]
    argv.append("--sanitize" if config.sanitize else "--no-sanitize")
    if config.calibration is not None:
        argv += ["--calibration", str(config.calibration)]
    request = WorkerRequest(
        build_stage=built.failure_stage,
        build_log=str(built.failure_log) if built.failure_log else None,
        data_root=str(config.data_root) if config.data_root is not None else None,
    )
    # Beside the build, not in the report: the report folder is the student's.
    path = built.build_dir.with_name(built.build_dir.name + REQUEST_SUFFIX)
    return argv + ["--request", str(request.write(path))]


def grade_submission(
    config: BatchConfig, sub: Submission, built: BuiltTree, gpu: str
) -> StudentResult:
    """Grade in a child pinned to `gpu`; read its results.json into the class row."""
    report = config.report_dir(sub)
    start = time.monotonic()
    if not built.labs:
        missing = replace(graded_result(sub.name, {}, (), config.labs, config.lab_max), gpu=gpu)
        return apply_static(missing, built.static, config.lab_max, config.labs)
    # PCI order makes CUDA's device numbers nvidia-smi's, so `gpu` (an index from
    # `nvidia-smi -L`) is the GPU the child gets and the one its clocks are read on.
    env = {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": gpu,
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(_PACKAGE_PARENT), os.environ.get("PYTHONPATH")])
        ),
    }
    env.pop(LOCK_ENV, None)  # a GPU of one slot: nobody to share it with, no lock
    env.pop(STEP_SUMMARY_ENV, None)  # the job's summary is the class's, not each student's
    if gpu in config.shared_gpus:
        env[LOCK_ENV] = str(lock_file(config.build_root, gpu))

    def broken(reason: str) -> StudentResult:
        return StudentResult(
            sub.name,
            "broken",
            gpu=gpu,
            duration_s=time.monotonic() - start,
            reason=reason,
        )

    try:
        proc = subprocess.run(
            worker_command(config, built, report),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=config.student_timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return broken(f"grading did not finish in {config.student_timeout_s:.0f} s")
    report.mkdir(parents=True, exist_ok=True)
    (report / "grade.log").write_text(proc.stdout, encoding="utf-8")
    # The generated cases (about 390 MB per student for lab1, hidden ones with a
    # secret) are the same for every student and made again on demand: kept, a
    # class of 200 would fill the disk.
    shutil.rmtree(built.build_dir / DATASETS_DIR, ignore_errors=True)
    duration = time.monotonic() - start
    if proc.returncode == EXIT_NO_GPU:
        return broken(f"no GPU visible on GPU {gpu}: tests were skipped")
    expected = [lab for lab in config.labs if lab not in built.static]
    result = result_from_report(
        sub.name,
        report,
        gpu=gpu,
        expected_labs=expected,
        missing_max=config.lab_max,
        duration_s=duration,
    )
    if result is None:
        tail = " | ".join(proc.stdout.strip().splitlines()[-_TAIL_LINES:])
        return broken(f"grader exited {proc.returncode} without a report: {tail}")
    return apply_static(result, built.static, config.lab_max, config.labs)


def lab_maxima(repo: Path, labs: Sequence[str]) -> dict[str, float]:
    """Each lab's full mark: the points of its lab.json's groups."""
    dirs = lab_dirs(repo)
    return {lab: load_policy(lab, dirs.get(lab)).max_score for lab in labs}
