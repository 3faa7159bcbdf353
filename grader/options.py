"""Command-line options that several commands share: one definition each.

Every command that takes `--jobs`, `--impl` or `--secret-file` must accept and check
it the same way, so the `add_..._argument` functions and the readers of their values
(`read_secret`, `resolve_impl`, `writable_dir`, ...) live here, not in one command's
module that the others would then depend on. The modules that decide from a value
(grader/core/sandbox.py) read it from the parsed arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from grader.core.build import IMPL_WORDS
from grader.core.ctest_run import SECRET_ENV
from grader.core.discovery import lab_dirs, lab_folders
from grader.core.errors import GraderUsageError
from grader.core.model import lab_number
from grader.core.sandbox import MODE_ENV, MODES


def add_build_argument(parser: argparse.ArgumentParser, help: str, required: bool = True) -> None:
    """--build: the built tree a command runs, required where it is the only source."""
    parser.add_argument("--build", type=Path, required=required, metavar="BUILD", help=help)


def add_build_dir_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """--build-dir: where the tree of --impl is configured and built."""
    parser.add_argument("--build-dir", type=Path, metavar="B", help=help)


def add_secret_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """--secret-file: the instructor's secret for hidden data, read by `read_secret`."""
    parser.add_argument("--secret-file", type=Path, metavar="PATH", help=help)


def add_build_jobs_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """--build-jobs: builds run on the CPUs at once, ahead of grading."""
    parser.add_argument("--build-jobs", type=int, default=2, metavar="J", help=help)


def add_labs_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """--labs: which labs, as `parse_lab_list` reads them (checked in grader/cli.py);
    `default` says what the command takes without it."""
    parser.add_argument(
        "--labs",
        metavar="LABS",
        help=f"comma-separated labs, e.g. lab1,lab3 (default: {default})",
    )


def add_repo_argument(
    parser: argparse.ArgumentParser, what: str = "holding CMakeLists.txt and labs/"
) -> None:
    """--repo: the repository the command works on; `what` says which part it needs."""
    parser.add_argument(
        "--repo", type=Path, metavar="REPO", help=f"repository {what} (default: this one)"
    )


def add_cmake_arg_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """--cmake-arg: repeatable, handed to every configure the command runs."""
    parser.add_argument("--cmake-arg", action="append", default=[], metavar="ARG", help=help)


def add_submissions_argument(parser: argparse.ArgumentParser) -> None:
    """SUBMISSIONS_DIR: a class, as grader/classroom/batch.py's find_submissions reads it."""
    parser.add_argument(
        "submissions",
        type=Path,
        metavar="SUBMISSIONS_DIR",
        help="folder with one subfolder per student, each laid out like skeletons/",
    )


def add_class_report_argument(parser: argparse.ArgumentParser) -> None:
    """--class-report: what `batch --report` wrote, read by the class commands."""
    parser.add_argument(
        "--class-report", type=Path, required=True, metavar="REPORT", help="a batch report folder"
    )


def add_report_dir_argument(
    parser: argparse.ArgumentParser, help: str, default: Path | None = None
) -> None:
    """--report OUT: the folder a command writes its reports to, required without a default."""
    parser.add_argument(
        "--report", type=Path, required=default is None, default=default, metavar="OUT", help=help
    )


def add_report_file_argument(parser: argparse.ArgumentParser) -> None:
    """--report FILE: the table a command prints, also kept as a Markdown file."""
    parser.add_argument(
        "--report", type=Path, metavar="FILE", help="also write the table to FILE (Markdown)"
    )


def add_timeout_scale_argument(parser: argparse.ArgumentParser) -> None:
    """--timeout-scale: for a slower GPU, or tools that slow every test down."""
    parser.add_argument(
        "--timeout-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every test's TIMEOUT by X (default: 1)",
    )


def add_calibration_argument(parser: argparse.ArgumentParser) -> None:
    """--calibration: the performance credit's yardstick, a grading of this GPU model
    (grader/core/calibration.py, grader/core/credit.py)."""
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="RESULTS",
        help="results.json (or report folder) of submissions/typical graded on this GPU "
        "model: a passed timing test's credit follows its figure there (default: whole "
        "credit)",
    )


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    """--jobs: how many untimed tests share the GPU; timed tests always run alone."""
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="untimed tests run N at a time on the GPU; timed tests always run "
        "alone (default: up to 8, fewer on a small GPU or few CPUs)",
    )


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    """--sandbox require|auto|off, for every command that runs student code."""
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        default=None,
        help="run student code in bubblewrap: require (refuse to grade "
        "without it), auto (grade unsandboxed, saying so, when it cannot "
        f"start), off (default: ${MODE_ENV}, else auto)",
    )


def add_grading_arguments(
    parser: argparse.ArgumentParser, *, secret: str, sanitize: str, calibration: bool
) -> None:
    """What `grade` and `batch` both take, in the order their --help lists it: the
    secret, the repository, how tests share the GPU (and, with `calibration`, the
    calibration), the sandbox and the sanitizer stage."""
    add_secret_argument(parser, secret)
    add_repo_argument(parser)
    add_jobs_argument(parser)
    if calibration:
        add_calibration_argument(parser)
    add_sandbox_argument(parser)
    # --sanitize / --no-sanitize: the sanitizer stage (grader/core/sanitize_stage.py).
    parser.add_argument(
        "--sanitize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run the small correctness cases under compute-sanitizer (memcheck, "
        "racecheck, synccheck); a variant a tool faults fails its correctness tests "
        f"({sanitize})",
    )


def add_request_argument(parser: argparse.ArgumentParser) -> None:
    """--request: what `batch` adds for one student (core/worker_request.py)."""
    parser.add_argument(
        "--request",
        type=Path,
        metavar="FILE",
        help="a batch worker's request (written by `batch`: why a lab did not build, the "
        "class's shared datasets)",
    )


def read_secret(path: Path | None) -> str | None:
    """The instructor's secret: the file's content, else $LAB_SECRET_SEED, else None."""
    if path is None:
        secret = os.environ.get(SECRET_ENV)
        if secret is not None and not secret.strip():  # as an empty file: never public data
            raise GraderUsageError(
                f"${SECRET_ENV} is empty: unset it for public data, or give the secret"
            )
        return secret
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise GraderUsageError(f"--secret-file {path}: {exc.strerror or exc}") from exc
    if not secret:
        raise GraderUsageError(f"--secret-file {path} is empty")
    return secret


def impl_folder(impl: str, repo: Path) -> Path:
    """`skeletons`/`solutions` name the repository's trees; anything else is a folder."""
    return repo / impl if impl in IMPL_WORDS else Path(impl).expanduser()


def resolve_impl(impl: str, repo: Path) -> Path:
    """impl_folder(), which must exist."""
    path = impl_folder(impl, repo)
    if not path.is_dir():
        where = f" in {repo}" if impl in IMPL_WORDS else ""
        raise GraderUsageError(f"--impl {impl}: no such folder{where}")
    return path.resolve()


def impl_labs(folder: Path, impl: str, labs: list[str] | None, repo: Path) -> list[str]:
    """The labs asked for, which `folder` must hold, or every lab it holds, which must
    be labs of `repo` (checked here, not as CMake's LAB_ONLY error after configuring)."""
    found = lab_folders(folder)
    held = sorted(found, key=lab_number)
    if labs is None:
        if not held:
            raise GraderUsageError(f"--impl {impl} holds no lab folder (labN_topic/)")
        known = sorted(lab_dirs(repo), key=lab_number)
        for lab in held:
            if lab not in known:
                raise GraderUsageError(
                    f"--impl {impl} holds {found[lab].name}/, an unknown lab: known labs are "
                    f"{', '.join(known)} (--labs picks some)"
                )
        return held
    missing = [lab for lab in labs if lab not in held]
    if missing:
        raise GraderUsageError(
            f"--impl {impl} has no folder for {', '.join(missing)} "
            f"(it holds {', '.join(held) or 'none'})"
        )
    return labs


@contextlib.contextmanager
def removed_if_left_empty(path: Path) -> Iterator[None]:
    """On failure, remove `path` and the parents of it that did not exist before, each
    only while empty: a command that fails leaves no empty folder that it made."""
    made = [p for p in (path, *path.parents) if not os.path.lexists(p)]  # deepest first
    try:
        yield
    except BaseException:
        for folder in made:
            try:
                folder.rmdir()
            except OSError:  # not empty (someone wrote into it), or gone: keep the rest
                break
        raise


def writable_dir(path: Path, what: str = "reports") -> Path:
    """Create the folder and prove it is writable before anything is built or run."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise GraderUsageError(f"cannot write {what} to {path}: {exc.strerror or exc}") from exc
    return path
