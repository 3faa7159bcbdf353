"""Configuring and building a lab tree for `grade --impl`, and explaining failures.

A student's compile error must come back as a failed lab with the compiler's
first error lines, not as a traceback, so this module never raises on a failed
build: it returns what went wrong.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.discovery import lab_dirs
from grader.core.errors import GraderUsageError
from grader.core.lab_file import library_files

IMPL_WORDS = ("skeletons", "solutions")
_BUILD_TIMEOUT_S = 3600
_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\]")
_ERROR_LINES = 8
_ERROR = re.compile(r"\berror\b|CMake Error|undefined reference", re.IGNORECASE)
# Lines that mention "error" but teach nothing: compiler command lines, build tool chatter.
_NOISE = re.compile(
    r"^(FAILED:|ninja:|\[\d+/\d+\]|make(\[\d+\])?:|gmake)"
    r"|\s-o\s.*\s-c\s|\s-c\s.*\s-o\s"
)


@dataclass(frozen=True)
class BuildFailure:
    """A failed configure or build step and its full log."""

    stage: str
    log: str

    def errors_for(self, lab: str | None = None) -> str:
        """The first error lines, those naming `lab`'s folders first."""
        lines = self.log.splitlines()
        hits = [
            i for i, line in enumerate(lines) if _ERROR.search(line) and not _NOISE.search(line)
        ]
        if lab is not None:
            own = re.compile(rf"\b{re.escape(lab)}_")
            hits = [i for i in hits if own.search(lines[i])] or hits
        if not hits:
            tail = [line for line in lines if line.strip()][-_ERROR_LINES:]
            return "\n".join(tail) or f"the {self.stage} step failed without output"
        picked = [line for line in lines[hits[0] :] if not _NOISE.search(line)][:_ERROR_LINES]
        return "\n".join(line[:300] for line in picked)


def impl_argument(impl: str) -> str:
    """`skeletons`/`solutions` pass through as words; a folder becomes absolute."""
    if impl in IMPL_WORDS:
        return impl
    path = Path(impl).expanduser().resolve()
    if not path.is_dir():
        raise GraderUsageError(
            f"--impl {impl}: no such folder (use skeletons, solutions, or a "
            "folder laid out like skeletons/)"
        )
    return str(path)


def _run_step(argv: Sequence[str], progress: Callable[[str], None] | None) -> tuple[int, str]:
    """Run one build step; Ninja's `[n/N]` lines go to `progress` as they come."""
    proc = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    timer = threading.Timer(_BUILD_TIMEOUT_S, proc.kill)
    timer.start()
    lines = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if progress is not None and _PROGRESS.match(line):
                progress(line.rstrip())
        proc.wait()
    finally:
        timer.cancel()
    if proc.returncode < 0:
        lines.append(f"killed after {_BUILD_TIMEOUT_S} s\n")
    return proc.returncode, "".join(lines)


def print_progress(line: str) -> None:
    """Every tenth of the build (and its end), one line: `grader: build 12/40 ...`."""
    match = _PROGRESS.match(line)
    if match:
        done, total = int(match.group(1)), int(match.group(2))
        if done == total or done % max(1, total // 10) == 0:
            print(f"grader: build {done}/{total}", flush=True)


def configure_and_build(
    repo: Path,
    impl: str,
    build_dir: Path,
    cmake_args: Sequence[str] = (),
    targets: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> tuple[str, BuildFailure | None]:
    """Configure with Ninja in Release and build everything that compiles (or
    only `targets`).

    `cmake_args` are extra configure arguments, e.g. `-DLAB_GTEST_SOURCE_DIR=...`.

    `-k 0` keeps Ninja going past a failing lab so the others still get graded.
    Returns the combined log and the failure, if any.
    """
    cmake = shutil.which("cmake")
    if cmake is None:
        raise GraderUsageError("cmake not found on PATH (CMake 3.25 or newer is needed)")
    steps = (
        (
            "configure",
            [
                cmake,
                "-S",
                str(repo),
                "-B",
                str(build_dir),
                "-G",
                "Ninja",
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DLAB_IMPL={impl_argument(impl)}",
                *cmake_args,
            ],
        ),
        (
            "build",
            [
                cmake,
                "--build",
                str(build_dir),
                *(["--target", *targets] if targets else []),
                "--",
                "-k",
                "0",
            ],
        ),
    )
    log: list[str] = []
    for stage, argv in steps:
        log.append(f"$ {' '.join(argv)}")
        try:
            returncode, output = _run_step(argv, progress)
        except OSError as exc:
            log.append(str(exc))
            return "\n".join(log), BuildFailure(stage, str(exc))
        log.append(output)
        if returncode != 0:
            return "\n".join(log), BuildFailure(stage, output)
    return "\n".join(log), None


# The host side of an object is the same for every GPU architecture, so the
# object check compiles for one (the grading build's own objects are checked too).
OBJECTS_ARCHITECTURE = "-DCMAKE_CUDA_ARCHITECTURES=86-real"


def build_objects(
    repo: Path, impl: str, build_dir: Path, labs: Sequence[str], cmake_args: Sequence[str] = ()
) -> tuple[str, BuildFailure | None]:
    """Compile only the student's objects (`labN_impl`) of `labs`: no GPU, no tests.
    A lab that lets a student file use a library (lab.json's objects.libraries) also
    gets its harness (`labN_harness`): the object check compares the two's symbols."""
    dirs = lab_dirs(repo)
    harness = [f"{lab}_harness" for lab in labs if lab in dirs and library_files(dirs[lab])]
    return configure_and_build(
        repo,
        impl,
        build_dir,
        [OBJECTS_ARCHITECTURE, f"-DLAB_ONLY={';'.join(labs)}", *cmake_args],
        targets=[*(f"{lab}_impl" for lab in labs), *harness],
    )


def prebuilt_argument(fixed_build: Path) -> str:
    """The configure argument that links a student's build against `fixed_build`'s
    harness, references and test programs, compiling only the student's files
    (cmake/LabPrebuilt.cmake)."""
    return f"-DLAB_PREBUILT={fixed_build}"


def configured_impl(build: Path, repo: Path) -> Path | None:
    """The student folder a build was configured with (its cache's LAB_IMPL,
    resolved as cmake/LabImpl.cmake does), or None when it cannot be read."""
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r"^LAB_IMPL:\w+=(.*)$", cache, re.M)
    if match is None:
        return None
    value = match.group(1).strip()
    return repo / value if value in IMPL_WORDS else (repo / value).resolve()
