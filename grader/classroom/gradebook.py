"""The gradebook an LMS imports: one row per rostered student, with the class
table's per-lab scores, the days late from `collect` and the late penalty applied.

The roster is a CSV with the columns `folder` (the student's folder or repository
name), `student_id` and, optionally, `name`.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.errors import GraderUsageError
from grader.core.scoring import points_cell

GRADEBOOK_NAME = "gradebook.csv"


@dataclass(frozen=True)
class RosterEntry:
    folder: str
    student_id: str
    name: str = ""


def read_roster(path: Path) -> list[RosterEntry]:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderUsageError(f"--roster {path}: {exc}") from exc
    if not rows or not {"folder", "student_id"} <= set(rows[0]):
        raise GraderUsageError(f"--roster {path}: needs the columns folder and student_id")
    # A pair (or any group) hands in one folder: its line per member gives each the grade.
    entries, seen = [], set()
    for line, row in enumerate(rows, 2):
        folder, sid = (row.get("folder") or "").strip(), (row.get("student_id") or "").strip()
        if not folder or not sid:
            raise GraderUsageError(f"--roster {path}: line {line}: folder or student_id is empty")
        if sid in seen:
            raise GraderUsageError(f"--roster {path}: line {line}: student {sid} listed twice")
        seen.add(sid)
        entries.append(RosterEntry(folder, sid, (row.get("name") or "").strip()))
    return entries


def read_class_table(path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The labs of `batch`'s class.csv and its rows by student folder."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            rows = {row["student"]: row for row in reader}
            fields = list(reader.fieldnames or [])
    except (OSError, KeyError, csv.Error) as exc:
        raise GraderUsageError(f"{path}: not a class table written by batch ({exc})") from exc
    if "status" not in fields or "total" not in fields:
        raise GraderUsageError(f"{path}: not a class table written by batch")
    return fields[fields.index("status") + 1 : fields.index("total")], rows


def read_collected(path: Path | None) -> tuple[dict[str, dict[str, Any]], float]:
    """`collect`'s students by folder, and the late penalty per day it applied."""
    if path is None:
        return {}, 0.0
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return {str(s["student"]): s for s in doc["students"]}, float(doc["penalty_per_day"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GraderUsageError(f"--collected {path}: not written by collect ({exc})") from exc


def gradebook_rows(
    roster: Sequence[RosterEntry],
    labs: Sequence[str],
    table: Mapping[str, Mapping[str, str]],
    collected: Mapping[str, Mapping[str, Any]],
    penalty_per_day: float,
    written: Mapping[str, float] | None = None,
) -> list[list[str]]:
    """One row per roster line; with `written` (folder -> points, written_answers.read_marks)
    a `written` column of its own after `final`."""
    marked = ["written"] if written is not None else []
    header = ["student_id", "name", "folder", *labs, "total", "max", "days_late", "final"]
    header += [*marked, "note"]
    rows = [header]
    for entry in roster:
        row = table.get(entry.folder)
        got = collected.get(entry.folder, {})
        days = int(got.get("days_late", 0) or 0)
        if row is None:
            scores, total, most, final = ["0" for _ in labs], "0", "", "0"
            note = got.get("problem") or "no graded submission"
        else:
            points = float(row.get("total") or 0)
            scores = [row.get(lab) or "0" for lab in labs]
            total, most = points_cell(points), row.get("max", "")
            final = points_cell(points * max(0.0, 1.0 - penalty_per_day * days))
            note = "" if row.get("status") == "graded" else row.get("status", "")
        rows.append(
            [entry.student_id, entry.name, entry.folder, *scores, total, most, str(days), final]
            + ([points_cell(written.get(entry.folder, 0.0))] if written is not None else [])
            + [note]
        )
    return rows


def unrostered(roster: Sequence[RosterEntry], table: Mapping[str, Any]) -> list[str]:
    """Graded folders that no roster line names."""
    known = {e.folder for e in roster}
    return sorted(f for f in table if f not in known)
