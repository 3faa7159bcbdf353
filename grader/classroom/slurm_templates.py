"""The Slurm job scripts of a class's grading: templates/slurm/, filled in.

`write_jobs` claims the output folder for the class, writes each template into
OUT/slurm/ with its `{name}` placeholders filled in, one OUT/slurm/chunk-N.txt per
array task (its student folders, one a line), and OUT/logs/ for the jobs' output.
Submitting them (calibrate, then the array after it, then collect) is the caller's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "slurm"
JOBS = ("calibrate.sbatch", "grade-class.sbatch", "collect.sbatch")
# `${name}` is the shell's own.
PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z_]+)\}")
# A value lands in an #SBATCH line (where % and spaces mean something) or in single quotes.
SAFE_VALUE = re.compile(r"[A-Za-z0-9._/:+=,@-]+")
# In OUT: the class folder whose results it holds.
OWNER_FILE = "slurm-class.txt"


@dataclass(frozen=True)
class ClassJobs:
    """One class's grading on a cluster: where, on what, in which chunks."""

    students: Path  # the class folder: one subfolder per student
    chunks: Sequence[Sequence[Path]]  # the student folders of each array task
    out: Path
    partition: str
    time: str  # sbatch's --time, of each job
    gpus: int  # per job; 0: none asked for
    parallel: int  # array tasks running at once
    python: str  # the Python that has the grader, as the nodes see it
    repo: Path  # the checkout the jobs run in, as the nodes see it

    def values(self) -> dict[str, str]:
        return {
            "out": str(self.out.resolve()),
            "repo": str(self.repo.resolve()),
            "python": self.python,
            "partition": self.partition,
            "time": self.time,
            "gres": f"gpu:{self.gpus}" if self.gpus > 0 else "none",
            "last": str(len(self.chunks) - 1),
            "parallel": str(self.parallel),
        }


def fill(text: str, values: Mapping[str, str], where: str) -> str:
    """`text` with each placeholder replaced by its value; one line naming `where` and
    the placeholder when it has none or a value is unsafe to put in a job script."""
    for name in PLACEHOLDER.findall(text):
        if name not in values:
            raise GraderUsageError(f"{where}: unknown placeholder {{{name}}}")
        if not values[name]:
            raise GraderUsageError(f"{where}: no value for {{{name}}}")
        if not SAFE_VALUE.fullmatch(values[name]):
            raise GraderUsageError(
                f"{where}: {{{name}}} = {values[name]!r}: only letters, digits and ._/:+=,@- "
                "(no spaces, quotes or %)"
            )
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def claim(out: Path, students: Path) -> None:
    """Make `out` this class's: new, empty, or already holding this class's results."""
    owner_file = out / OWNER_FILE
    owner = owner_file.read_text(encoding="utf-8").strip() if owner_file.is_file() else None
    if out.is_dir() and any(out.iterdir()) and owner != str(students.resolve()):
        held = f"the results of {owner}" if owner else "files this grading did not write"
        raise GraderUsageError(f"{out} holds {held}: give a new or empty folder")
    if out.exists() and not out.is_dir():
        raise GraderUsageError(f"{out} is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    _write(owner_file, f"{students.resolve()}\n")


def write_jobs(jobs: ClassJobs) -> dict[str, Path]:
    """Fill every template into OUT/slurm/; returns each job's script by template name."""
    if not jobs.chunks or not all(jobs.chunks):
        raise GraderUsageError("a Slurm grading needs at least one chunk, none of them empty")
    if jobs.parallel < 1:
        raise GraderUsageError(f"tasks at once: {jobs.parallel}: give at least 1")
    for folder in (f for chunk in jobs.chunks for f in chunk):
        if not folder.is_dir() or "\n" in str(folder):
            raise GraderUsageError(f"{folder}: not a student folder")
    names = [f.name for chunk in jobs.chunks for f in chunk]
    for name in {n for n in names if names.count(n) > 1}:
        raise GraderUsageError(f"two student folders of the chunks are named {name}")
    values = jobs.values()
    # Checked before OUT is touched: a bad value leaves nothing behind.
    texts = {
        n: fill((TEMPLATES / n).read_text(encoding="utf-8"), values, f"templates/slurm/{n}")
        for n in JOBS
    }
    claim(jobs.out, jobs.students)
    (jobs.out / "logs").mkdir(exist_ok=True)
    scripts = jobs.out / "slurm"
    scripts.mkdir(exist_ok=True)
    for task, chunk in enumerate(jobs.chunks):
        _write(scripts / f"chunk-{task}.txt", "".join(f"{f.resolve()}\n" for f in chunk))
    for name, text in texts.items():
        _write(scripts / name, text)
    return {name: scripts / name for name in JOBS}


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a temporary file beside it, then renamed over it."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
