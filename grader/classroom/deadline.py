"""Deadlines: each student's last commit before their due time, and how late it is.

The policy is a JSON file:

    {"due": "2026-12-01T23:59:00+01:00",   # ISO 8601 with a UTC offset
     "late_days": 3,                        # commits up to 3 days past due still count
     "penalty_per_day": 0.1,                # share of the score lost per started late day
     "extensions": {"alice": 2}}            # days added to one student's due time

A commit's date is the committer date, which the student's machine sets: collect
at the due time (or from a mirror fetched then), so that what was pushed later
is not there at all; the date then only orders what was.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import subprocess
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.errors import GraderUsageError, read_json_object

_DAY = dt.timedelta(days=1)


@dataclass(frozen=True)
class LatePolicy:
    due: dt.datetime
    late_days: int = 0
    penalty_per_day: float = 0.0
    extensions: Mapping[str, int] = field(default_factory=dict)

    def due_for(self, student: str) -> dt.datetime:
        return self.due + self.extensions.get(student, 0) * _DAY

    def accepts_until(self, student: str) -> dt.datetime:
        """The last moment a commit of `student` still counts (late ones included)."""
        return self.due_for(student) + self.late_days * _DAY

    def days_late(self, student: str, when: dt.datetime) -> int:
        """Started days past the student's due time (0 when on time)."""
        late = (when - self.due_for(student)) / _DAY
        return max(0, math.ceil(late))


def load_policy(path: Path) -> LatePolicy:
    """The policy file, checked field by field; a mistake names the field."""
    doc = read_json_object(path, "deadline policy")
    unknown = set(doc) - {"due", "late_days", "penalty_per_day", "extensions"}
    if unknown:
        raise GraderUsageError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        due = dt.datetime.fromisoformat(str(doc["due"]))
    except (KeyError, ValueError) as exc:
        raise GraderUsageError(f"{path}: 'due' must be an ISO 8601 date and time") from exc
    if due.tzinfo is None:
        raise GraderUsageError(f"{path}: 'due' needs a UTC offset, e.g. 2026-12-01T23:59+01:00")
    late_days = _number(path, doc, "late_days", int, 0)
    penalty = _number(path, doc, "penalty_per_day", float, 0.0)
    if not 0 <= penalty <= 1:
        raise GraderUsageError(f"{path}: 'penalty_per_day' must be between 0 and 1")
    extensions = doc.get("extensions", {})
    if not isinstance(extensions, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in extensions.values()
    ):
        raise GraderUsageError(f"{path}: 'extensions' maps students to whole days (0 or more)")
    return LatePolicy(due, late_days, penalty, {str(k): v for k, v in extensions.items()})


def _number(path: Path, doc: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise GraderUsageError(f"{path}: '{key}' must be a number, 0 or more")
    if kind is int and not float(value).is_integer():
        raise GraderUsageError(f"{path}: '{key}' must be a whole number of days")
    return kind(value)


@dataclass(frozen=True)
class Collected:
    """The commit graded for one student, or why there is none."""

    student: str
    commit: str = ""
    date: str = ""
    days_late: int = 0
    problem: str = ""


def last_commit(repo: Path, before: dt.datetime) -> tuple[str, dt.datetime] | None:
    """The newest commit reachable from HEAD dated at or before `before`."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%H %cI", f"--before={before.isoformat()}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    commit, date = proc.stdout.split()
    return commit, dt.datetime.fromisoformat(date)


def collect_one(student: str, repo: Path, policy: LatePolicy, out: Path, path: str) -> Collected:
    """Write `path` of the student's graded commit into `out/student`."""
    if not (repo / ".git").exists():
        return Collected(student, problem="not a git repository")
    limit = policy.accepts_until(student)
    found = last_commit(repo, limit)
    if found is None:
        return Collected(student, problem=f"no commit before {limit.isoformat()}")
    commit, date = found
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit, path],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        return Collected(student, commit, date.isoformat(), problem=f"no {path}/ in {commit[:12]}")
    refused = _extract(archive.stdout, path, out / student)
    if refused:
        return Collected(student, commit, date.isoformat(), problem=refused)
    return Collected(student, commit, date.isoformat(), policy.days_late(student, date))


def _extract(data: bytes, path: str, target: Path) -> str:
    """Regular files and folders of `path` into `target`; anything else (a link that
    could point the build at a secret, a device) refuses the whole submission."""
    strip = len(Path(path).parts)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = tar.getmembers()
        for member in members:
            if not (member.isfile() or member.isdir()):
                return f"{member.name} is not a regular file or folder: refused"
            if member.name.startswith("/") or ".." in Path(member.name).parts:
                return f"{member.name} points outside the tree: refused"
        target.mkdir(parents=True)
        for member in members:
            parts = Path(member.name).parts[strip:]
            if not parts:
                continue
            dest = target.joinpath(*parts)
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None  # a regular file
            dest.write_bytes(source.read())
    return ""
