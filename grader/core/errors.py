"""Errors and exit statuses shared by the commands, and the reader of the JSON files a
user hands the grader, whose every problem is theirs.

A usage error is the caller's mistake (unknown lab, empty build directory, ...):
it is reported as one line and exit status 2, never as a traceback.
"""

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grader.core.model import Status

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_GPU = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped


def exit_status(statuses: Iterable[Status], allow_skips: bool = False) -> int:
    """A run's: 1 any test failed (or could not run), 3 any skipped for lack of a GPU
    (0 when `allow_skips`), else 0."""
    found = set(statuses)
    if found & {Status.FAILED, Status.ERROR}:
        return EXIT_FAILED
    return EXIT_NO_GPU if Status.SKIPPED in found and not allow_skips else EXIT_OK


class GraderUsageError(Exception):
    """A problem with what the grader was asked to do, explained in one line."""


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """The JSON object in `path`; a usage error naming the file and `what` it should be."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GraderUsageError(f"{path}: not a valid {what} ({exc})") from exc
    if not isinstance(doc, dict):
        raise GraderUsageError(f"{path}: not a valid {what} (not a JSON object)")
    return doc
