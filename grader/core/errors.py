"""Errors and exit statuses shared by the commands, and the reader of the JSON files a
user hands the grader, whose every problem is theirs.

A usage error is the caller's mistake (unknown lab, empty build directory, ...):
it is reported as one line and exit status 2, never as a traceback.
"""

import json
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_GPU = 3


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
