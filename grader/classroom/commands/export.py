"""`export OUTDIR`: write the student repository (no solutions, no submissions, no secrets).

What goes out is the repository's HEAD commit: a tracked file edited since is exported as
committed, with a warning naming it (the edit is not shipped until it is committed).

Export never deletes or overwrites what it did not write: every export holds a marker
(`.cuda-labs-export`) listing its files and their digests, and --force removes those
files only, refusing when one was edited since or a file it did not write is in the way.

Exit status: 0 written; 2 usage error (non-empty OUTDIR without --force, a non-empty
OUTDIR that no export marked, a file edited since the last export or not written by
it, unwritable OUTDIR, OUTDIR inside or holding the repository, `/` or a top-level
folder, the temporary folder itself, $HOME or a parent, a --repo that is no instructor's
repository, a student export among them).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from grader.classroom.export import (
    DEFAULT_INSTRUCTOR_REPO,
    DEFAULT_REF,
    STUDENT_CHECK,
    export_tree,
)
from grader.command import Command
from grader.core.discovery import repo_root
from grader.core.errors import EXIT_OK
from grader.options import add_repo_argument


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "outdir",
        type=Path,
        metavar="OUTDIR",
        help="folder for the student repository (must be empty or new)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a previous export in OUTDIR (only the files that "
        "export wrote and listed in OUTDIR/.cuda-labs-export, none edited since)",
    )
    parser.add_argument(
        "--instructor-repo",
        default=DEFAULT_INSTRUCTOR_REPO,
        metavar="OWNER/NAME",
        help="the repository whose grading workflow the students' workflow "
        "calls (default: %(default)s)",
    )
    parser.add_argument(
        "--ref",
        default=DEFAULT_REF,
        metavar="REF",
        help="the tag, branch or commit of that workflow (default: %(default)s)",
    )
    add_repo_argument(parser, "to export")


def _run(args: argparse.Namespace) -> int:
    result = export_tree(
        args.repo or repo_root(),
        args.outdir,
        force=args.force,
        instructor_repo=args.instructor_repo,
        ref=args.ref,
    )
    source = f"commit {result.commit[:12]}" if result.commit else "a folder without git, as it is"
    print(
        f"grader: student repository written to {result.out} from {source}: {result.copied} "
        f"files copied, {len(result.generated)} written for students "
        f"({', '.join(result.generated)})"
    )
    if result.uncommitted:
        more = f" (and {len(result.uncommitted) - 1} more)" if len(result.uncommitted) > 1 else ""
        print(
            f"grader: warning: {result.uncommitted[0]}{more} has uncommitted changes, not "
            "exported: commit them and export again to ship them",
            file=sys.stderr,
        )
    if result.kept:
        print(
            f"grader: kept {len(result.kept)} path(s) of the previous export that are no "
            f"longer files export wrote: {', '.join(result.kept[:5])}"
        )
    # `cmake --build --preset` and `--workflow` read the presets of the current folder
    # (CMake 3.25 has no -S for them): a subshell builds the export from anywhere. A new
    # export has no .venv: the setup first, as its README tells a newcomer.
    print(
        f"grader: check it builds (the students' CI): (cd {shlex.quote(str(result.out))} && "
        f"{STUDENT_CHECK})"
    )
    return EXIT_OK


COMMAND = Command(
    "export",
    "write the student repository: no solutions, submissions or secrets",
    _add_arguments,
    _run,
)
