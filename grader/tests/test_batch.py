"""`grader.classroom batch`: finding submissions, scheduling over GPUs, the class table.

The scheduler is driven with fake build and grade functions (no compiler, no
GPU); the real grade step is run on a fake build tree through its child process.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.classroom.batch import (
    LabResult,
    StudentResult,
    Submission,
    choose_gpus,
    find_submissions,
    list_gpus,
    run_batch,
)
from grader.classroom.batch_steps import (
    BatchConfig,
    BuiltTree,
    grade_submission,
    require_compute_sanitizer,
    worker_command,
)
from grader.classroom.class_table import result_from_report, write_class_table
from grader.core.errors import GraderUsageError
from grader.core.gpu_lock import LOCK_FOLDER
from grader.core.gpu_slots import GpuSlots, worker_gpus
from grader.core.worker_request import WorkerRequest
from grader.tests.helpers import (
    gtest_spec,
    histogram_lab,
    make_build,
    make_repo,
    needs_ctest,
    run_grader,
)


def _student(root: Path, name: str, *labs: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for lab in labs:
        (folder / lab).mkdir()
        (folder / lab / "kernels.cu").write_text("// work\n")
    return folder


# --- finding submissions ----------------------------------------------------------------


def test_find_submissions_flags_folders_without_labs(tmp_path: Path) -> None:
    _student(tmp_path, "bob", "lab1_histogram", "lab3_reduction")
    _student(tmp_path, "alice", "lab1_histogram")
    _student(tmp_path, "notes", "drafts")
    (tmp_path / "README.txt").write_text("not a folder")
    subs = find_submissions(tmp_path)
    assert [s.name for s in subs] == ["alice", "bob", "notes"]
    assert subs[1].labs == ("lab1", "lab3") and subs[1].problem is None
    assert subs[2].problem is not None and "not a submission" in subs[2].problem


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "missing", "no such folder"),
        (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "not a folder"),
        (lambda p: p, "holds no submission folders"),
    ],
)
def test_find_submissions_bad_input(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    with pytest.raises(GraderUsageError, match=message):
        find_submissions(make(tmp_path))


# --- GPUs ---------------------------------------------------------------------------------


def _fake_smi(stdout: str, returncode: int = 0) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(argv: list[str], **_kwargs: object) -> subprocess.CompletedProcess[str]:
        assert argv == ["nvidia-smi", "-L"]
        return subprocess.CompletedProcess(argv, returncode, stdout, "")

    return run


def test_list_gpus_reads_nvidia_smi() -> None:
    out = (
        "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\nGPU 1: NVIDIA H200 (UUID: GPU-bbbb)\n"
        "  MIG 1g.18gb Device 0: (UUID: MIG-cccc)\n"
    )
    assert list_gpus(_fake_smi(out)) == ["0", "1"]
    assert list_gpus(_fake_smi("", returncode=9)) == []


def test_list_gpus_survives_a_missing_nvidia_smi() -> None:
    def run(argv: list[str], **_kwargs: object) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError("nvidia-smi")

    assert list_gpus(run) == []


def test_choose_gpus() -> None:
    assert choose_gpus("auto", ["0", "1"]) == ["0", "1"]
    assert choose_gpus("1", ["0", "1"]) == ["0"]
    assert choose_gpus("2", []) == ["0", "1"]
    assert choose_gpus("auto", []) == []
    for bad, message in (("0", "at least 1"), ("x", "number or auto"), ("3", "only 2")):
        with pytest.raises(GraderUsageError, match=message):
            choose_gpus(bad, ["0", "1"])


# --- scheduling ----------------------------------------------------------------------------


class _Recorder:
    """A fake grade step that records when each GPU was busy and checks no overlap."""

    def __init__(self, seconds: float = 0.03, crash: tuple[str, ...] = ()) -> None:
        self.seconds = seconds
        self.crash = crash
        self.lock = threading.Lock()
        self.busy: dict[str, int] = defaultdict(int)
        self.running = 0
        self.max_running = 0
        self.max_per_gpu = 0
        self.intervals: dict[str, list[tuple[float, float]]] = defaultdict(list)

    def grade(self, sub: Submission, built: str, gpu: str) -> StudentResult:
        assert built == f"built-{sub.name}"
        with self.lock:
            self.busy[gpu] += 1
            self.running += 1
            self.max_per_gpu = max(self.max_per_gpu, self.busy[gpu])
            self.max_running = max(self.max_running, self.running)
        start = time.monotonic()
        try:
            time.sleep(self.seconds)
            if sub.name in self.crash:
                raise RuntimeError("segmentation fault in the grader")
            return StudentResult(sub.name, "graded", (LabResult("lab1", 5, 10),), gpu=gpu)
        finally:
            with self.lock:
                self.busy[gpu] -= 1
                self.running -= 1
                self.intervals[gpu].append((start, time.monotonic()))


def _subs(count: int) -> list[Submission]:
    return [Submission(f"s{i:02d}", Path(f"/nowhere/s{i:02d}"), ("lab1",)) for i in range(count)]


def test_two_workers_never_share_a_gpu_and_both_are_used(tmp_path: Path) -> None:
    recorder = _Recorder()
    results = run_batch(
        _subs(12),
        ["0", "1"],
        lambda s: f"built-{s.name}",
        recorder.grade,
        build_jobs=3,
        progress=open(os.devnull, "w"),
    )
    assert [r.name for r in results] == [f"s{i:02d}" for i in range(12)]
    assert all(r.status == "graded" for r in results)
    assert recorder.max_per_gpu == 1
    assert recorder.max_running <= 2
    assert set(recorder.intervals) == {"0", "1"}
    for spans in recorder.intervals.values():
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    assert {r.gpu for r in results} == {"0", "1"}


def test_a_crash_in_one_grade_does_not_stop_the_others() -> None:
    recorder = _Recorder(crash=("s03",))
    results = run_batch(
        _subs(6),
        ["0", "1"],
        lambda s: f"built-{s.name}",
        recorder.grade,
        progress=open(os.devnull, "w"),
    )
    by_name = {r.name: r for r in results}
    assert by_name["s03"].status == "broken"
    assert "grader crashed: RuntimeError: segmentation fault" in by_name["s03"].reason
    assert sum(r.status == "graded" for r in results) == 5


def test_a_build_step_that_raises_is_reported_not_fatal() -> None:
    def build(sub: Submission) -> str:
        if sub.name == "s01":
            raise OSError("disk full")
        return f"built-{sub.name}"

    results = run_batch(_subs(3), ["0"], build, _Recorder().grade, progress=open(os.devnull, "w"))
    assert [r.status for r in results] == ["graded", "broken", "graded"]
    assert "build step crashed: OSError: disk full" in results[1].reason


def test_not_a_submission_is_listed_and_never_built(tmp_path: Path) -> None:
    subs = [*_subs(2), Submission("notes", tmp_path, (), "not a submission: no labN_* folder")]
    built: list[str] = []

    def build(sub: Submission) -> str:
        built.append(sub.name)
        return f"built-{sub.name}"

    import io

    stream = io.StringIO()
    results = run_batch(subs, ["0"], build, _Recorder().grade, progress=stream)
    assert sorted(built) == ["s00", "s01"]
    assert results[2].status == "not a submission"
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and lines[-1].count("/3") == 1


def test_the_progress_line_shows_the_whole_reason_on_one_line() -> None:
    """It cut the reason at 100 characters: the compute-sanitizer advice was lost."""
    import io

    reason = "grader exited 2 without a report: " + "x" * 200 + "\nsecond line, the advice"

    def grade(sub: Submission, built: str, gpu: str) -> StudentResult:
        return StudentResult(sub.name, "broken", gpu=gpu, reason=reason)

    stream = io.StringIO()
    run_batch(_subs(1), ["0"], lambda s: f"built-{s.name}", grade, progress=stream)
    (line,) = stream.getvalue().splitlines()
    assert reason.replace("\n", " / ") in line


def test_one_gpu_grades_one_at_a_time() -> None:
    recorder = _Recorder(seconds=0.01)
    run_batch(
        _subs(5),
        ["0"],
        lambda s: f"built-{s.name}",
        recorder.grade,
        build_jobs=4,
        progress=open(os.devnull, "w"),
    )
    assert recorder.max_running == 1


def _built(sub: Submission) -> str:
    return f"built-{sub.name}"


def test_a_gpu_of_two_slots_grades_two_students_at_once() -> None:
    """The two workers of GPU 0 meet at a barrier: one worker alone would time out there."""
    recorder = _Recorder()
    barrier = threading.Barrier(2, timeout=10)
    met: set[str] = set()

    def grade(sub: Submission, built: str, gpu: str) -> StudentResult:
        if gpu == "0" and threading.current_thread().name not in met:
            met.add(threading.current_thread().name)
            barrier.wait()
        return recorder.grade(sub, built, gpu)

    workers = worker_gpus([GpuSlots("0", 2), GpuSlots("1")])
    assert sorted(workers) == ["0", "0", "1"]
    results = run_batch(_subs(9), workers, _built, grade, progress=open(os.devnull, "w"))
    assert all(r.status == "graded" for r in results), [r.reason for r in results]
    assert len(met) == 2  # both of GPU 0's workers were grading at once
    assert {r.gpu for r in results} == {"0", "1"}


def test_no_gpu_is_a_usage_error() -> None:
    with pytest.raises(GraderUsageError, match="no GPU"):
        run_batch(_subs(1), [], _built, _Recorder().grade)


# --- class table -------------------------------------------------------------------------


def _results_json(
    report: Path,
    labs: list[tuple[str, float, float]],
    failed: list[tuple[str, str]],
    *,
    old_layout: bool = False,
) -> None:
    report.mkdir(parents=True, exist_ok=True)
    scores = [{"lab": lab, "score": s, "max_score": m} for lab, s, m in labs]
    doc = {
        **(
            {"labs": scores}
            if old_layout
            else {
                "extra_data": {
                    "labs": scores,
                    "execution_time_s": 21.5,
                    "phase_s": {"shared": 4.8, "sanitize": 8.1},
                    "gpu": {"name": "NVIDIA H200"},
                    "host": "gpu-node-7",
                }
            }
        ),
        "tests": [
            {
                "name": f"{name} (correctness)",
                "status": "failed",
                "output": f"FAILED: {why}\n\n--- last output ---\nnoise",
            }
            for name, why in failed
        ]
        + [{"name": "lab1.ok (timing)", "status": "passed", "output": "passed"}],
    }
    (report / "results.json").write_text(json.dumps(doc))


def test_result_from_report_and_missing_labs(tmp_path: Path) -> None:
    _results_json(
        tmp_path,
        [("lab1", 100, 120)],
        [
            ("lab1.Correctness/x", "3 bins differ"),
            (
                "lab1.Correctness/Histogram.MatchesTheCpuHistogramExactly/shared__prime__odd_launch",
                "cudaErrorIllegalAddress (an illegal memory access was encountered)\nhint: ...",
            ),
        ],
    )
    result = result_from_report(
        "ann", tmp_path, gpu="1", expected_labs=["lab1", "lab3"], missing_max={"lab3": 50}
    )
    assert result is not None
    assert [(lab.lab, lab.score, lab.max_score) for lab in result.labs] == [
        ("lab1", 100, 120),
        ("lab3", 0, 50),
    ]
    assert result.failures == (
        "lab1.Correctness/x: 3 bins differ",
        "lab1.Correctness/.../shared__prime__odd_launch: cudaErrorIllegalAddress (an illegal "
        "memory access was encountered)",
        "lab3: not submitted",
    )
    assert result.phase_s == {"grading": 21.5, "shared": 4.8, "sanitize": 8.1}
    assert result.graded_on == "NVIDIA H200 on gpu-node-7"  # nodes of a cluster may differ
    assert (
        result_from_report("x", tmp_path / "none", gpu="0", expected_labs=[], missing_max={})
        is None
    )


def test_result_from_report_reads_reports_written_before_extra_data(tmp_path: Path) -> None:
    _results_json(tmp_path, [("lab1", 100, 120)], [], old_layout=True)
    result = result_from_report("ann", tmp_path, gpu="1", expected_labs=["lab1"], missing_max={})
    assert result is not None and [(lab.lab, lab.score) for lab in result.labs] == [("lab1", 100)]


def test_write_class_table(tmp_path: Path) -> None:
    results = [
        StudentResult("ann", "graded", (LabResult("lab1", 120, 120), LabResult("lab3", 20, 50))),
        StudentResult(
            "bob",
            "graded",
            (LabResult("lab1", 0, 120), LabResult("lab3", 0, 50)),
            ("lab1.build: lab1 did not build | error: x",),
        ),
        StudentResult("cat", "broken", reason="grading did not finish in 10 s"),
        StudentResult("notes", "not a submission", reason="not a submission: no labN_* folder"),
    ]
    csv_path, md_path = write_class_table(results, tmp_path, {"ann": "lab1 7/7, lab3 1/3"})
    rows = list(csv.reader(csv_path.open()))
    assert rows[0] == [
        "student",
        "status",
        "lab1",
        "lab3",
        "total",
        "max",
        "written",
        "failures",
        "gpu",
        "graded on",
        "seconds",
    ]
    assert rows[1] == [
        "ann",
        "graded",
        "120",
        "20",
        "140",
        "170",
        "lab1 7/7, lab3 1/3",
        "",
        "",
        "",
        "0",
    ]
    assert rows[3][:2] == ["cat", "broken"] and "did not finish" in rows[3][-4]
    md = md_path.read_text()
    head = "| student | status | lab1 (/120) | lab3 (/50) | total | written answers | failures |"
    assert head in md
    assert "| ann | graded | 120 | 20 | 140/170 | lab1 7/7, lab3 1/3 | none |" in md
    assert "| bob | graded | 0 | 0 | 0/170 | - |" in md
    assert "did not build \\| error" in md
    assert "2 graded, 1 broken, 1 not a submission" in md


# --- the real grade step, on a fake build tree ------------------------------------------------


def _config(
    tmp_path: Path,
    labs: tuple[str, ...] = ("lab1",),
    *,
    repo: Path | None = None,
    lab_max: dict[str, float] | None = None,
    **fields: Any,
) -> BatchConfig:
    """A BatchConfig of `labs` reporting to tmp_path/out and building in tmp_path/b."""
    return BatchConfig(
        repo=tmp_path if repo is None else repo,
        labs=labs,
        report_root=tmp_path / "out",
        build_root=tmp_path / "b",
        lab_max={} if lab_max is None else lab_max,
        **fields,
    )


@needs_ctest
def test_grade_submission_runs_a_pinned_child(tmp_path: Path) -> None:
    build = make_build(
        tmp_path,
        [
            gtest_spec("lab1", "correctness", "pass", "Suite.A"),
            gtest_spec("lab1", "timing", "fail", "Suite.B"),
        ],
    )
    repo = make_repo(tmp_path, histogram_lab(correctness=1, timing=4))
    config = _config(
        tmp_path,
        ("lab1", "lab3"),
        repo=repo,
        lab_max={"lab1": 5, "lab3": 7},
        sanitize=False,  # the fake build has no sanitize tests (test_sanitize_stage.py)
        shared_gpus=("1",),
    )
    sub = Submission("ann", tmp_path, ("lab1",))
    (build / "datasets" / "lab1").mkdir(parents=True)
    (build / "datasets" / "lab1" / "case.bin").write_bytes(b"\0" * 64)
    result = grade_submission(config, sub, BuiltTree(build, ("lab1",)), "1")
    assert result.status == "graded", result.reason
    assert not (build / "datasets").exists(), "a graded student's datasets are left on disk"
    assert [(lab.lab, lab.score, lab.max_score) for lab in result.labs] == [
        ("lab1", 1, 5),
        ("lab3", 0, 7),
    ]
    assert any(f.startswith("lab1.Suite.B") for f in result.failures)
    assert "lab3: not submitted" in result.failures
    assert (tmp_path / "out" / "ann" / "grade.log").is_file()
    assert result.gpu == "1"
    # The child took GPU 1's lock, which the batch's other workers on GPU 1 share.
    assert (tmp_path / "b" / LOCK_FOLDER / "gpu-1.lock").is_file()


@needs_ctest
def test_a_batch_on_hidden_data_writes_the_whole_reports_in_the_students_folder(
    tmp_path: Path,
) -> None:
    """A batch with a secret is the instructor's: the student's folder of its report has
    every result and the log, which quotes every failure."""
    build = make_build(tmp_path, [gtest_spec("lab1", "correctness", "fail", "Hist.Uniform")])
    repo = make_repo(tmp_path, histogram_lab(correctness=1, timing=0))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "secret").write_text("s3cret\n")
    config = _config(
        tmp_path, ("lab1",), repo=repo, secret_file=tmp_path / "keys" / "secret", sanitize=False
    )
    sub = Submission("ann", tmp_path, ("lab1",))
    result = grade_submission(config, sub, BuiltTree(build, ("lab1",)), "0")
    assert result.status == "graded", result.reason
    report = tmp_path / "out" / "ann"
    assert sorted(p.name for p in report.iterdir()) == ["grade.log", "results.json", "summary.md"]
    doc = json.loads((report / "results.json").read_text())
    assert doc["score"] == 0 and [t["visibility"] for t in doc["tests"]] == ["after_due_date"]
    assert "bin 17: expected 1024, got 0" in (report / "summary.md").read_text()
    assert "bin 17: expected 1024, got 0" in (report / "grade.log").read_text()


def test_a_workers_request_carries_what_only_the_batch_knows(tmp_path: Path) -> None:
    config = _config(tmp_path, data_root=tmp_path / "data")
    built = BuiltTree(tmp_path / "b" / "ann", ("lab1",), "compile", tmp_path / "fail.log")
    argv = worker_command(config, built, tmp_path / "r")
    request = WorkerRequest.read(Path(argv[argv.index("--request") + 1]))
    assert request == WorkerRequest("compile", str(tmp_path / "fail.log"), str(tmp_path / "data"))
    (tmp_path / "old.json").write_text('{"released": true}')  # a field it does not have
    with pytest.raises(GraderUsageError, match="not a batch's request"):
        WorkerRequest.read(tmp_path / "old.json")


@needs_ctest
def test_grade_submission_without_a_gpu_is_broken_not_passed(tmp_path: Path) -> None:
    build = make_build(
        tmp_path, [gtest_spec("lab1", "correctness", "no_gpu", "Suite.A")], probe="absent"
    )
    repo = make_repo(tmp_path, {"lab1_histogram": None})
    config = _config(tmp_path, repo=repo, sanitize=False)
    result = grade_submission(
        config, Submission("ann", tmp_path, ("lab1",)), BuiltTree(build, ("lab1",)), "0"
    )
    assert result.status == "broken" and "no GPU" in result.reason
    assert not (tmp_path / "b" / LOCK_FOLDER).exists()  # GPU 0 has one worker: no lock


def _grader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_grader(*args, cwd=cwd, env={"PATH": "/usr/bin:/bin"})


def test_cli_bad_input(tmp_path: Path) -> None:
    _student(tmp_path / "subs", "ann", "lab1_histogram")
    (tmp_path / "plain").write_text("x")
    cases = [
        (("batch", str(tmp_path / "plain"), "--report", str(tmp_path / "r")), 2, "is not a folder"),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"), "--labs", "lab42"),
            2,
            "unknown lab 'lab42'",
        ),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"), "--gpus", "0"),
            2,
            "at least 1",
        ),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "plain" / "r"))
            + ("--gpus", "1", "--no-sanitize"),  # the report is made once a GPU is found
            2,
            "cannot write reports",
        ),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"))
            + ("--resource-spec", str(tmp_path / "spec.json")),
            2,
            "spec.json: no such file",
        ),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"))
            + ("--resource-spec", str(tmp_path / "plain")),
            2,
            "plain: not JSON",
        ),
        (
            ("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"))
            + ("--gpus", "1", "--resource-spec", str(tmp_path / "plain")),
            2,
            "argument --resource-spec: not allowed with argument --gpus",
        ),
    ]
    for argv, status, message in cases:
        result = _grader(*argv, cwd=tmp_path)
        assert result.returncode == status, (argv, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr


def test_cli_without_a_gpu_exits_3(tmp_path: Path) -> None:
    _student(tmp_path / "subs", "ann", "lab1_histogram")
    result = _grader("batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"), cwd=tmp_path)
    if result.returncode == 0:
        pytest.skip("a GPU is visible here")
    assert result.returncode == 3
    assert "no GPU" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_cli_unwritable_report(tmp_path: Path) -> None:
    _student(tmp_path / "subs", "ann", "lab1_histogram")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = _grader(
            "batch",
            str(tmp_path / "subs"),
            "--report",
            str(locked / "r"),
            *("--gpus", "1", "--no-sanitize"),
            cwd=tmp_path,
        )
    finally:
        locked.chmod(0o700)
    assert result.returncode == 2 and "cannot write reports" in result.stderr


def test_a_usage_error_leaves_no_report_folder(tmp_path: Path) -> None:
    """The report folder was made before --resource-spec was read."""
    _student(tmp_path / "subs", "ann", "lab1_histogram")
    report = tmp_path / "new" / "r"
    for bad in (("--resource-spec", str(tmp_path / "spec.json")), ("--gpus", "x")):
        result = _grader(
            "batch", str(tmp_path / "subs"), "--report", str(report), *bad, cwd=tmp_path
        )
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert not (tmp_path / "new").exists()


def _toolkit(root: Path, sanitizer: str | None) -> Path:
    """A fake CUDA toolkit: bin/nvcc, and compute-sanitizer at `sanitizer` (relative)."""
    for rel in ("bin/nvcc", *([sanitizer] if sanitizer else [])):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("#!/bin/sh\n")
        (root / rel).chmod(0o755)
    return root / "bin" / "nvcc"


@pytest.mark.parametrize(
    "sanitizer", ["bin/compute-sanitizer", "compute-sanitizer/compute-sanitizer"]
)
def test_compute_sanitizer_is_found_where_the_configure_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sanitizer: str
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    nvcc = _toolkit(tmp_path / "cuda", sanitizer)
    found = require_compute_sanitizer([f"-DCMAKE_CUDA_COMPILER={nvcc}"])
    assert found == str(tmp_path / "cuda" / sanitizer)
    monkeypatch.setenv("CUDACXX", str(nvcc))
    assert require_compute_sanitizer([]) == found
    own = _toolkit(tmp_path / "own", "bin/compute-sanitizer").parent / "compute-sanitizer"
    assert require_compute_sanitizer([f"-DLAB_COMPUTE_SANITIZER:FILEPATH={own}"]) == str(own)


def test_a_missing_compute_sanitizer_is_refused_before_any_build(tmp_path: Path) -> None:
    """batch built the whole class, then every student's grade refused the sanitizer stage."""
    _student(tmp_path / "subs", "ann", "lab1_histogram")
    nvcc = _toolkit(tmp_path / "cuda", None)
    (tmp_path / "empty").mkdir()
    argv = ["batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r"), "--gpus", "1"]
    argv += ["--build-root", str(tmp_path / "b"), f"--cmake-arg=-DCMAKE_CUDA_COMPILER={nvcc}"]
    result = run_grader(*argv, cwd=tmp_path, env={"PATH": str(tmp_path / "empty")})
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "needs compute-sanitizer" in line and "--no-sanitize" in line
    assert str(tmp_path / "cuda" / "bin") in line
    assert not (tmp_path / "b").exists() and not (tmp_path / "r").exists()
    with pytest.raises(GraderUsageError, match="not an executable file"):
        require_compute_sanitizer([f"-DLAB_COMPUTE_SANITIZER={tmp_path / 'none'}"])


def test_static_findings_zero_the_lab(tmp_path: Path) -> None:
    from grader.classroom.batch_steps import apply_static, static_findings

    sub = _student(tmp_path / "subs", "cheat", "lab1_histogram")
    (sub / "lab1_histogram" / "kernels.cu").write_text("#include <cub/cub.cuh>\n")
    report = tmp_path / "r"
    report.mkdir()
    found = static_findings(sub, ["lab1"], report)
    assert list(found) == ["lab1"] and "library-include" in found["lab1"][0]
    assert "library-include" in (report / "static-check.txt").read_text()
    graded = StudentResult(
        "cheat", "graded", (LabResult("lab3", 20, 50),), ("lab3.Suite.A: wrong",)
    )
    zeroed = apply_static(graded, found, {"lab1": 120, "lab3": 50}, ("lab1", "lab3"))
    assert [(lab.lab, lab.score, lab.max_score) for lab in zeroed.labs] == [
        ("lab1", 0, 120),
        ("lab3", 20, 50),
    ]
    assert zeroed.failures[0].startswith("lab1: rejected by the static check: ")
    assert zeroed.failures[1:] == ("lab3.Suite.A: wrong",)


def test_a_rejected_lab_is_neither_built_nor_graded(tmp_path: Path) -> None:
    from grader.classroom.batch_steps import build_submission

    sub_dir = _student(tmp_path / "subs", "cheat", "lab1_histogram")
    (sub_dir / "lab1_histogram" / "kernels.cu").write_text("#include <cub/cub.cuh>\n")
    config = _config(tmp_path, ("lab1", "lab3"), lab_max={"lab1": 120, "lab3": 50})
    sub = Submission("cheat", sub_dir, ("lab1",))
    built = build_submission(config, sub)
    assert built.labs == () and list(built.static) == ["lab1"]
    assert not (tmp_path / "b").exists(), "nothing may be configured for a rejected lab"
    result = grade_submission(config, sub, built, "0")
    assert [(lab.lab, lab.score, lab.max_score) for lab in result.labs] == [
        ("lab1", 0, 120),
        ("lab3", 0, 50),
    ]
    assert result.failures[0].startswith("lab1: rejected by the static check: ")
    assert "lab1: not submitted" not in result.failures
    assert "lab3: not submitted" in result.failures


def test_batch_grades_with_the_sanitizer_stage_unless_told_not_to(tmp_path: Path) -> None:
    built = BuiltTree(tmp_path / "b" / "ann", ("lab1",))
    assert "--sanitize" in worker_command(_config(tmp_path), built, tmp_path / "r")
    assert "--sanitize" not in worker_command(
        _config(tmp_path, sanitize=False), built, tmp_path / "r"
    )


def test_batch_hands_its_calibration_to_each_worker(tmp_path: Path) -> None:
    def command(**fields: Any) -> list[str]:
        config = _config(tmp_path, **fields)
        return worker_command(config, BuiltTree(tmp_path / "b" / "ann", ("lab1",)), tmp_path)

    argv = command(calibration=tmp_path / "ref" / "results.json")
    assert argv[argv.index("--calibration") + 1] == str(tmp_path / "ref" / "results.json")
    assert "--calibration" not in command()


def test_a_table_without_a_graded_student_has_the_graded_labs_columns(tmp_path: Path) -> None:
    """A Slurm task's table is merged with the others' by its header."""
    results = [StudentResult("cat", "broken", reason="no GPU visible on GPU 0")]
    csv_path, _ = write_class_table(results, tmp_path, labs=("lab3", "lab1"))
    assert next(csv.reader(csv_path.open()))[:4] == ["student", "status", "lab1", "lab3"]
