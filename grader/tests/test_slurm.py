"""A class's grading as Slurm jobs (templates/slurm/), submitted to a real one-node Slurm.

scripts/slurm-node.sh starts munged, slurmctld and slurmd (as root, from Debian's munge
and slurm-wlm packages); the jobs run the grader through fakes/fake_grader_python.py,
which records what each job was asked and when. Without root or the packages the
Slurm test is skipped, except under CI (CI=true), where it must run.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.classroom.slurm_templates import (
    JOBS,
    PLACEHOLDER,
    TEMPLATES,
    ClassJobs,
    fill,
    write_jobs,
)
from grader.core.errors import GraderUsageError
from grader.tests.helpers import run_grader

REPO = Path(__file__).resolve().parents[2]
NODE = REPO / "scripts" / "slurm-node.sh"
FAKE = Path(__file__).resolve().parent / "fakes" / "fake_grader_python.py"
CHUNKS = (("ann", "bob"), ("cat", "dan"), ("eve", "fay"))
WAIT_S = 120


def _why_no_slurm() -> str | None:
    if os.geteuid() != 0:
        return "not root: slurmd runs each job as its user"
    path = f"{os.environ.get('PATH', '')}:/usr/sbin"
    lacking = [
        t for t in ("munged", "slurmctld", "slurmd", "sbatch") if not shutil.which(t, path=path)
    ]
    if lacking:
        return f"{', '.join(lacking)} not installed (munge, slurm-wlm: scripts/setup.sh)"
    return None


def _free_port_pair() -> int:
    """A port P with P + 1 free too: slurmctld's and slurmd's."""
    for _ in range(50):
        with socket.socket() as first, socket.socket() as second:
            first.bind(("127.0.0.1", 0))
            port = int(first.getsockname()[1])
            try:
                second.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise AssertionError("no two free ports in a row")


def _node(action: str, state: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", str(NODE), action, str(state)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"slurm-node.sh {action}: {done.stderr}"


@pytest.fixture(scope="module")
def slurm() -> Iterator[dict[str, str]]:
    """The environment for sbatch and squeue, pointed at a one-node Slurm of our own."""
    why = _why_no_slurm()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the Slurm test, but {why}")
        pytest.skip(why)
    # Not under pytest's tmp_path: munged serves its socket only from folders every user
    # can enter.
    state = Path(tempfile.mkdtemp(prefix="cuda-labs-slurm-"))
    state.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    try:
        _node("start", state, {**env, "PORT": str(_free_port_pair())})
        yield {**env, "SLURM_CONF": str(state / "slurm.conf")}
    finally:
        _node("stop", state, env)
        shutil.rmtree(state)


def _faked_class(tmp_path: Path) -> tuple[Path, ClassJobs, Path]:
    """The Python the jobs run (fake_grader_python.py), the class, and its log of runs."""
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    python.chmod(0o755)
    return python, _class(tmp_path, str(python)), tmp_path / "runs.jsonl"


def _class(tmp_path: Path, python: str = "python3") -> ClassJobs:
    students = tmp_path / "class"
    chunks = []
    for names in CHUNKS:
        chunks.append([students / n for n in names])
        for name in names:
            (students / name / "lab1_histogram").mkdir(parents=True)
    return ClassJobs(
        students=students,
        chunks=chunks,
        out=tmp_path / "out",
        partition="debug",
        time="5:00",
        gpus=0,
        parallel=2,
        python=python,
        repo=REPO,
    )


def _wait_for_queue_empty(env: dict[str, str], wait_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + wait_s
    while True:
        queue = subprocess.run(
            ["squeue", "-h", "-o", "%i %T %r"], env=env, capture_output=True, text=True, timeout=30
        ).stdout.strip()
        if not queue:
            return
        assert "DependencyNeverSatisfied" not in queue, queue
        assert time.monotonic() < deadline, f"still queued after {wait_s} s:\n{queue}"
        time.sleep(0.5)


def _ended_jobs(env: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each ended job's fields (JobState, StartTime, ...) from the job completion file,
    by job name, an array task's name followed by its index."""
    ended: dict[str, dict[str, str]] = {}
    log = Path(env["SLURM_CONF"]).parent / "log" / "jobcomp.txt"
    for line in log.read_text().splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        task = fields.get("ArrayTaskId")
        ended[fields["Name"] + (f"-{task}" if task else "")] = fields
    return ended


def test_a_class_graded_as_an_array_job_after_its_calibration(
    slurm: dict[str, str], tmp_path: Path
) -> None:
    python, jobs, runs = _faked_class(tmp_path)
    env = {**slurm, "FAKE_GRADER_LOG": str(runs)}
    start = time.monotonic()
    submitted = run_grader(
        *("slurm", str(jobs.students), "--out", str(jobs.out), "--partition", "debug"),
        *("--labs", "lab1", "--chunk", "2", "--parallel", "2", "--gpus", "0", "--time", "5:00"),
        *("--python", str(python), "--batch-options", "--secret-file /s"),
        cwd=tmp_path,
        env=env,
    )
    assert submitted.returncode == 0, submitted.stderr
    ids = submitted.stdout.split("progress: sacct -j ")[1].split()[0].split(",")
    assert len(ids) == 3, submitted.stdout
    _wait_for_queue_empty(env)
    print(f"three jobs, an array of {len(CHUNKS)}, ended in {time.monotonic() - start:.1f} s")

    out = jobs.out.resolve()
    records = [json.loads(line) for line in runs.read_text().splitlines()]
    [calibrated] = [r for r in records if r["command"] == "grader grade"]
    assert calibrated["args"][:4] == [
        "--impl",
        "submissions/typical",
        "--report",
        f"{out}/.calibration.partial",
    ]
    assert calibrated["args"][4:] == ["--labs", "lab1"]
    tasks = sorted(
        (r for r in records if r["command"] == "grader.classroom batch"), key=lambda r: r["task"]
    )
    assert [t["task"] for t in tasks] == [str(n) for n in range(len(CHUNKS))], "each task once"
    for task, names in zip(tasks, CHUNKS):
        assert task["students"] == list(names)
        assert task["calibrated"], f"task {task['task']} started before the calibration was written"
        args = task["args"]
        assert args[args.index("--report") + 1] == f"{out}/.task-{task['task']}.partial"
        assert args[-4:] == ["--labs", "lab1", "--secret-file", "/s"]
    assert not list(out.glob(".*.partial"))

    ended = _ended_jobs(env)
    grading = [f"cuda-labs-grade-{n}" for n in range(len(CHUNKS))]
    jobs_ended = ["cuda-labs-calibrate", *grading, "cuda-labs-collect"]
    assert {j: ended[j]["JobState"] for j in jobs_ended} == dict.fromkeys(jobs_ended, "COMPLETED")
    calibration_end = ended["cuda-labs-calibrate"]["EndTime"]
    graded = [ended[j] for j in grading]
    assert all(t["StartTime"] >= calibration_end for t in graded), (calibration_end, graded)
    assert ended["cuda-labs-collect"]["StartTime"] >= max(t["EndTime"] for t in graded)

    rows = [f"{name},graded" for chunk in CHUNKS for name in chunk]
    assert (out / "class.csv").read_text().splitlines() == ["student,status", *rows]
    assert (out / "unmerged.txt").read_text() == ""


def test_submitted_again_only_the_tasks_without_a_table_are_graded(
    slurm: dict[str, str], tmp_path: Path
) -> None:
    python, jobs, runs = _faked_class(tmp_path)
    argv = [
        *("slurm", str(jobs.students), "--out", str(jobs.out), "--partition", "debug"),
        *("--labs", "lab1", "--chunk", "2", "--gpus", "0", "--time", "5:00"),
        *("--python", str(python)),
    ]
    env = {**slurm, "FAKE_GRADER_LOG": str(runs), "FAKE_GRADER_FAIL": "dan"}
    assert run_grader(*argv, cwd=tmp_path, env=env).returncode == 0
    _wait_for_queue_empty(env)
    out = jobs.out.resolve()
    graded = [f"{n},graded" for n in ("ann", "bob", "eve", "fay")]
    assert (out / "class.csv").read_text().split() == ["student,status", *graded]
    [unmerged] = (out / "unmerged.txt").read_text().splitlines()
    assert unmerged.startswith("task-1: did not finish (students: cat dan;"), unmerged
    env["FAKE_GRADER_FAIL"] = ""
    again = run_grader(*argv, cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("grader: grading array "), again.stdout  # no calibration
    assert "(1 of 3 tasks, 6 students in all)" in again.stdout
    _wait_for_queue_empty(env)
    records = [json.loads(line) for line in runs.read_text().splitlines()]
    assert len([r for r in records if r["command"] == "grader grade"]) == 1  # calibrated once
    assert [r["task"] for r in records if r["command"] == "grader.classroom batch"][-1] == "1"
    rows = [f"{name},graded" for chunk in CHUNKS for name in chunk]
    assert (out / "class.csv").read_text().splitlines() == ["student,status", *rows]
    assert (out / "unmerged.txt").read_text() == ""
    done = run_grader(*argv, cwd=tmp_path, env=env)
    assert done.stdout.startswith("grader: nothing to grade: every task has its table")


def test_collect_merges_the_finished_tasks_and_names_the_others(tmp_path: Path) -> None:
    jobs = _class(tmp_path)
    scripts = write_jobs(jobs)
    out = jobs.out.resolve()
    for task in (0, 2):
        (out / f"task-{task}").mkdir()
        (out / f"task-{task}" / "class.csv").write_text(f"student,status\nx{task},graded\n")
    done = subprocess.run(["bash", str(scripts["collect.sbatch"])], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert (out / "class.csv").read_text() == "student,status\nx0,graded\nx2,graded\n"
    [line] = (out / "unmerged.txt").read_text().splitlines()
    assert line.startswith("task-1: did not finish")
    assert line in done.stderr
    # A task Slurm stopped at its time limit says so, with the students it held.
    (out / "logs" / "task-1.out").write_text(
        "slurmstepd: error: *** JOB 7 ON node1 CANCELLED AT 2026-12-02T07:00:00 DUE TO TIME "
        "LIMIT ***\n"
    )
    subprocess.run(["bash", str(scripts["collect.sbatch"])], capture_output=True, text=True)
    [line] = (out / "unmerged.txt").read_text().splitlines()
    assert line.startswith("task-1: TIMEOUT (students: cat dan; its log: "), line


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("#SBATCH --qos={qos}\n", "t.sbatch: unknown placeholder {qos}"),
        ("#SBATCH --partition={partition}\n", "t.sbatch: no value for {partition}"),
        ("out='{out}'\n", 't.sbatch: {out} = "/a b/it\'s": only letters'),
    ],
)
def test_a_template_is_filled_only_from_safe_values(text: str, error: str) -> None:
    with pytest.raises(GraderUsageError) as raised:
        fill(text, {"partition": "", "out": "/a b/it's"}, "t.sbatch")
    assert str(raised.value).startswith(error)


def test_filled_templates_hold_the_class_values_and_chunks(tmp_path: Path) -> None:
    scripts = write_jobs(_class(tmp_path))
    grade = scripts["grade-class.sbatch"].read_text()
    assert "#SBATCH --array=0-2%2\n" in grade and "#SBATCH --gres=none\n" in grade
    assert not PLACEHOLDER.search(grade)
    assert (tmp_path / "out" / "slurm" / "chunk-1.txt").read_text().splitlines() == [
        str((tmp_path / "class" / n).resolve()) for n in CHUNKS[1]
    ]


def test_an_output_folder_of_another_class_or_other_files_is_refused(tmp_path: Path) -> None:
    jobs = _class(tmp_path)
    write_jobs(jobs)
    write_jobs(jobs)  # the same class again: its own files
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(GraderUsageError, match=f"holds the results of {jobs.students.resolve()}"):
        write_jobs(ClassJobs(**{**jobs.__dict__, "students": other}))
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine\n")
    with pytest.raises(GraderUsageError, match="holds files this grading did not write"):
        write_jobs(ClassJobs(**{**jobs.__dict__, "out": stranger}))
    assert sorted(p.name for p in stranger.iterdir()) == ["notes.txt"]


def test_the_node_script_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    for action, error in (("start", "is not empty"), ("stop", "was not made by")):
        done = subprocess.run(
            ["bash", str(NODE), action, str(tmp_path)], capture_output=True, text=True
        )
        assert done.returncode == 1 and error in done.stderr, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_templates_and_the_node_script_pass_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run ShellCheck on templates/slurm/, but it is not installed")
        pytest.skip("shellcheck is not installed (scripts/setup.sh installs it)")
    files = [str(TEMPLATES / n) for n in JOBS] + [str(NODE)]
    done = subprocess.run([shellcheck, "-x", *files], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout


def test_a_dry_run_prints_the_three_submissions_each_after_the_one_before(tmp_path: Path) -> None:
    jobs = _class(tmp_path)
    done = run_grader(
        *("slurm", str(jobs.students), "--out", str(jobs.out), "--partition", "gpu"),
        *("--labs", "lab1", "--chunk", "4", "--dry-run", "--batch-options=--sanitize"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    scripts = jobs.out / "slurm"
    assert done.stdout.splitlines() == [
        f"sbatch --parsable {scripts}/calibrate.sbatch --labs lab1",
        f"sbatch --parsable '--dependency=afterok:<calibration job id>' --array=0,1%10 "
        f"{scripts}/grade-class.sbatch --labs lab1 --sanitize",
        f"sbatch --parsable '--dependency=afterany:<grading array job id>' "
        f"{scripts}/collect.sbatch",
        f"grader: not submitted (2 of 2 tasks, 6 students in all); the scripts are in {scripts}",
    ]
    assert (scripts / "chunk-1.txt").read_text().split() == [
        str((jobs.students / n).resolve()) for n in ("eve", "fay")
    ]


def _fake_slurm(folder: Path, refuse_at: int) -> dict[str, str]:
    """An sbatch that gives ids 101, 102, ... and refuses its `refuse_at`-th call as
    Slurm refuses an unknown partition; an scancel that logs its arguments."""
    folder.mkdir()
    (folder / "sbatch").write_text(
        "#!/bin/sh\n"
        f'n=$(( $(cat "{folder}/n" 2>/dev/null || echo 0) + 1 )); echo $n > "{folder}/n"\n'
        f"if [ $n = {refuse_at} ]; then\n"
        '  echo "sbatch: error: Batch job submission failed: Invalid partition name specified"'
        " >&2\n"
        "  exit 1\n"
        "fi\n"
        'echo "$(( 100 + n ));cluster"\n'
    )
    (folder / "scancel").write_text(f'#!/bin/sh\necho "$@" >> "{folder}/cancelled"\n')
    for tool in ("sbatch", "scancel"):
        (folder / tool).chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_submission_slurm_refuses_is_its_one_line_and_cancels_what_was_queued(
    tmp_path: Path,
) -> None:
    jobs = _class(tmp_path)
    env = _fake_slurm(tmp_path / "bin", refuse_at=2)
    argv = ("slurm", str(jobs.students), "--out", str(jobs.out), "--partition", "nope")
    done = run_grader(*argv, cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "grader: error: sbatch refused grade-class.sbatch: sbatch: error: Batch job "
        "submission failed: Invalid partition name specified"
    ]
    assert (tmp_path / "bin" / "cancelled").read_text().split() == ["101"]
    env = _fake_slurm(tmp_path / "bin2", refuse_at=0)
    done = run_grader(*argv, cwd=tmp_path, env=env)  # the same class: its folder is its own
    assert done.returncode == 0, done.stderr
    assert "calibration 101, grading array 102, collect 103 (1 of 1 tasks," in done.stdout
    assert "progress: sacct -j 101,102,103 " in done.stdout


def test_without_sbatch_or_students_nothing_is_written(tmp_path: Path) -> None:
    jobs = _class(tmp_path)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "python3").symlink_to(sys.executable)
    argv = ("slurm", str(jobs.students), "--out", str(jobs.out), "--partition", "gpu")
    done = run_grader(*argv, cwd=tmp_path, env={"PATH": str(bare)})
    assert (done.returncode, done.stderr.strip()) == (
        2,
        "grader: error: sbatch not found on PATH: run this on a Slurm login node",
    )
    (tmp_path / "empty").mkdir()
    for folder, why in (
        (tmp_path / "empty", "no student folders in it"),
        (tmp_path / "none", "no such class folder"),
    ):
        done = run_grader(
            "slurm",
            str(folder),
            "--out",
            str(jobs.out),
            "--partition",
            "gpu",
            "--dry-run",
            cwd=tmp_path,
        )
        assert (done.returncode, done.stderr.strip()) == (2, f"grader: error: {folder}: {why}")
    assert not jobs.out.exists()


@pytest.mark.cluster
def test_a_real_class_on_slurm_gets_batchs_verdicts(slurm: dict[str, str], tmp_path: Path) -> None:
    """A small class graded by the real grader, once by `batch` and once through Slurm
    (calibration, array, collect), the class tables compared row by row. Without a GPU
    the GPU tests skip in both: what is compared is the build, the static check and
    each folder's status."""
    students = tmp_path / "class"
    students.mkdir()
    shutil.copytree(REPO / "solutions", students / "ref01")
    trees = tmp_path / "known-wrong"
    make_lab1 = REPO / "submissions" / "known_wrong" / "make_lab1.py"
    subprocess.run([sys.executable, str(make_lab1), str(trees)], check=True, cwd=REPO)
    shutil.copytree(trees / "lab1_cub", students / "cub01")
    shutil.copytree(REPO / "solutions", students / "broken01")
    with open(students / "broken01" / "lab1_histogram" / "histogram_kernels.cu", "a") as f:
        f.write("\nthis line is not C++\n")
    (students / "notes01").mkdir()
    (students / "notes01" / "README.md").write_text("notes, no lab folder\n")
    options = ["--gpus", "1", "--no-sanitize", "--build-once"]
    direct = run_grader(
        *("batch", str(students), "--labs", "lab1", "--report", str(tmp_path / "batch")),
        *("--build-root", str(tmp_path / "build"), *options),
        cwd=tmp_path,
    )
    assert (tmp_path / "batch" / "class.csv").is_file(), direct.stdout + direct.stderr
    out = tmp_path / "slurm"
    submitted = run_grader(
        *("slurm", str(students), "--out", str(out), "--partition", "debug", "--labs", "lab1"),
        *("--chunk", "2", "--gpus", "0", "--time", "30:00", "--batch-options", " ".join(options)),
        cwd=tmp_path,
        env=slurm,
    )
    assert submitted.returncode == 0, submitted.stderr
    _wait_for_queue_empty(slurm, wait_s=900)
    logs = "\n".join(p.read_text() for p in sorted((out / "logs").glob("*.out")))
    assert (out / "unmerged.txt").read_text() == "", logs

    def rows(table: Path) -> dict[str, dict[str, str]]:
        with table.open(encoding="utf-8") as f:
            return {
                r["student"]: {k: v for k, v in r.items() if k != "seconds"}
                for r in csv.DictReader(f)
            }

    expected, got = rows(tmp_path / "batch" / "class.csv"), rows(out / "class.csv")
    assert got == expected
    assert {r["status"] for r in got.values()} >= {"graded", "not a submission"}
    assert "static check" in got["cub01"]["failures"] and "build" in got["broken01"]["failures"]
