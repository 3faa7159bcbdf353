"""Which commits a grading run graded and graded with, for the archived results.

A results.json outlives the checkouts it came from; the commit of the student's
folder and of the harness say exactly which code the score belongs to. Either
is None when its folder is not in a git checkout, and `clean` says whether the
folder's files are the commit's (an edited or untracked file makes it False).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TypedDict

from grader.core.captured import run_captured

_TIMEOUT_S = 10
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# A student's repository may carry its own git config: never let it start a
# file-system monitor (a program it names) while we read the checkout.
_SAFE = ("-c", "core.fsmonitor=false")


class Checkout(TypedDict):
    """One folder's commit and whether its files are that commit's."""

    commit: str | None
    clean: bool | None


def checkout_of(folder: Path | None) -> Checkout:
    """The commit checked out at `folder`, or nulls when it is not a git checkout."""
    if folder is None or not folder.is_dir():
        return Checkout(commit=None, clean=None)
    head = _git(folder, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if head is None or _COMMIT.fullmatch(head) is None:
        return Checkout(commit=None, clean=None)
    status = _git(folder, "status", "--porcelain", "--untracked-files=all", "--", ".")
    return Checkout(commit=head, clean=None if status is None else status == "")


def _git(folder: Path, *args: str) -> str | None:
    """git's trimmed stdout in `folder`, or None when git is missing or fails."""
    try:
        proc = run_captured(["git", *_SAFE, "-C", str(folder), *args], _TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None
