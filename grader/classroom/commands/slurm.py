"""`slurm CLASS --out OUT --partition P [--labs LABS] [--batch-options '...']`: a class on Slurm.

Writes the class's job scripts into OUT/slurm/ (templates/slurm/, filled in by
slurm_templates.py): the calibration grading, one array task per chunk of `--chunk`
students (each graded by `batch` on the GPUs Slurm gives the task), and the collect
job that merges the tasks' tables into OUT/class.csv. Then submits them with
`sbatch --parsable`, the array after the calibration (afterok) and the collect job
after the array (afterany), and prints the job ids and the command that shows their
progress. `--dry-run` prints the three sbatch commands instead (the scripts are
written all the same, to read). `--batch-options` go to every task's `batch`
(`--secret-file S --sanitize`, ...); `--labs` to the calibration too.

Exit status: 0 submitted (or printed); 2 usage error (no sbatch, a partition or
option Slurm refuses, a missing or empty class folder, OUT holding another class's
results).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.classroom.slurm_templates import ClassJobs, write_jobs
from grader.command import Command
from grader.core.discovery import repo_root
from grader.core.errors import EXIT_OK, GraderUsageError

# About a minute and a half per student and lab graded: eight students make a task of
# minutes (sites ask for no more than about ten job starts a minute).
DEFAULT_CHUNK = 8
_SBATCH_TIMEOUT_S = 60


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("class_dir", type=Path, metavar="CLASS", help="one folder per student")
    parser.add_argument("--out", type=Path, required=True, help="the class's results folder")
    parser.add_argument("--partition", required=True, help="the Slurm partition to grade on")
    parser.add_argument("--labs", metavar="LABS", help="lab1,lab3,... (default: every lab)")
    parser.add_argument(
        "--chunk",
        type=int,
        default=DEFAULT_CHUNK,
        metavar="N",
        help="students per array task (default: %(default)s)",
    )
    parser.add_argument(
        "--parallel", type=int, default=10, metavar="N", help="tasks at once (default: 10)"
    )
    parser.add_argument(
        "--gpus", type=int, default=1, metavar="N", help="GPUs per task (default: 1)"
    )
    parser.add_argument(
        "--time", default="02:00:00", help="each job's time limit (default: %(default)s)"
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the Python with the grader, as the nodes see it (default: this one)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the sbatch commands")
    parser.add_argument(
        "--batch-options",
        default="",
        metavar="'OPTIONS'",
        help="batch's options for every task, one string: --batch-options='--secret-file S'",
    )


def _students(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise GraderUsageError(f"{folder}: no such class folder")
    found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not found:
        raise GraderUsageError(f"{folder}: no student folders in it")
    return found


def _sbatch(argv: Sequence[str]) -> str:
    """Submit one job; its id. Slurm's own error, in one line, when it refuses."""
    try:
        done = subprocess.run(
            ["sbatch", "--parsable", *argv],
            capture_output=True,
            text=True,
            timeout=_SBATCH_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GraderUsageError(f"sbatch could not submit {_script(argv)}: {exc}") from None
    if done.returncode != 0:
        said = (
            done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}"
        ).splitlines()
        raise GraderUsageError(f"sbatch refused {_script(argv)}: {said[0]}")
    return done.stdout.strip().split(";")[0]  # --parsable: "id" or "id;cluster"


def _script(argv: Sequence[str]) -> str:
    """The job script's name among sbatch's arguments."""
    return next(Path(a).name for a in argv if a.endswith(".sbatch"))


def _run(args: argparse.Namespace) -> int:
    try:
        options = shlex.split(args.batch_options)
    except ValueError as exc:
        raise GraderUsageError(f"--batch-options: {exc}") from None
    if args.chunk < 1:
        raise GraderUsageError(f"--chunk must be at least 1, got {args.chunk}")
    if args.gpus < 0:
        raise GraderUsageError(f"--gpus must be 0 or more, got {args.gpus}")
    if not args.dry_run and shutil.which("sbatch") is None:
        raise GraderUsageError("sbatch not found on PATH: run this on a Slurm login node")
    students = _students(args.class_dir)
    chunks = [students[i : i + args.chunk] for i in range(0, len(students), args.chunk)]
    jobs = ClassJobs(
        students=args.class_dir,
        chunks=chunks,
        out=args.out,
        partition=args.partition,
        time=args.time,
        gpus=args.gpus,
        parallel=args.parallel,
        python=args.python,
        repo=repo_root(),
    )
    _same_chunks(args.out, chunks)
    scripts = write_jobs(jobs)
    # Submitted again into the same OUT: a task with its table is not graded again.
    todo = [str(n) for n in range(len(chunks)) if not (args.out / f"task-{n}").is_dir()]
    if not todo:
        print(f"grader: nothing to grade: every task has its table ({args.out / 'class.csv'})")
        return EXIT_OK
    labs = ["--labs", ",".join(args.labs)] if args.labs else []  # cli.py made it a list
    calibrate = [str(scripts["calibrate.sbatch"]), *labs]
    grade = [f"--array={','.join(todo)}%{args.parallel}", str(scripts["grade-class.sbatch"])]
    steps = [
        ("calibration", "", calibrate if not (args.out / "calibration").is_dir() else []),
        ("grading array", "afterok", [*grade, *labs, *options]),
        ("collect", "afterany", [str(scripts["collect.sbatch"])]),
    ]
    ids: dict[str, str] = {}
    try:
        for what, after, argv in steps:
            if not argv:
                continue  # the calibration of an earlier submission stands
            wait = [f"--dependency={after}:{list(ids.values())[-1]}"] if after and ids else []
            if args.dry_run:
                print(shlex.join(["sbatch", "--parsable", *wait, *argv]))
                ids[what] = f"<{what} job id>"
            else:
                ids[what] = _sbatch([*wait, *argv])
    except GraderUsageError:
        if ids:  # the jobs already queued would wait for one that never comes
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run(["scancel", *ids.values()], capture_output=True, timeout=60)
        raise
    where = f"{len(todo)} of {len(chunks)} tasks, {len(students)} students in all"
    if args.dry_run:
        print(f"grader: not submitted ({where}); the scripts are in {args.out / 'slurm'}")
        return EXIT_OK
    print("grader: " + ", ".join(f"{what} {job}" for what, job in ids.items()) + f" ({where})")
    print(
        f"grader: progress: sacct -j {','.join(ids.values())} --format=JobID,JobName,State,Elapsed"
    )
    print(f"grader: the class table will be {args.out.resolve() / 'class.csv'}")
    return EXIT_OK


def _same_chunks(out: Path, chunks: Sequence[Sequence[Path]]) -> None:
    """An OUT submitted before holds its chunks: the class must split the same way, or
    a task's table would hold other students than its chunk file says."""
    for n, chunk in enumerate([*chunks, []]):  # and no chunk more than now
        before = out / "slurm" / f"chunk-{n}.txt"
        now = [str(p.resolve()) for p in chunk]
        if before.is_file() and before.read_text(encoding="utf-8").splitlines() != now:
            raise GraderUsageError(
                f"{out} was submitted with other chunks of students ({before}): the class "
                "or --chunk changed; grade into a new folder"
            )


COMMAND = Command(
    "slurm",
    "grade a collected class as Slurm jobs: calibration, an array of chunks, collect",
    _add_arguments,
    _run,
)
