"""The class table of a batch: one row per student, from each student's results.json.

The table is rebuilt from the per-student reports (not from memory) so that
what an instructor reads in `class.csv` is exactly what each student's own
report says.

On hidden data the table is written twice: whole in `instructor/`, and in the
report folder as the release decides (grader/core/release.py). Held, that one counts
public-data tests only, each row's `hidden_results` says so, and class.md says
it first; an export of it cannot carry a hidden-data result.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.classroom.batch import LabResult, StudentResult
from grader.core.model import lab_number
from grader.core.release import NOT_RELEASED, Release
from grader.core.reports import INSTRUCTOR_DIR, markdown_table
from grader.core.scoring import points_cell

CSV_NAME = "class.csv"
MARKDOWN_NAME = "class.md"
# The column that says whether a row's hidden-data results are in it; only in
# tables of a batch on hidden data.
HIDDEN_COLUMN = "hidden_results"
INCLUDED = "included"
_REASON_CHARS = 160
_PARAMETERIZED = re.compile(r"^([^/]+)/[^/]+/([^/]+)$")  # lab.Prefix/Suite.Test/case


def result_from_report(
    name: str,
    report: Path,
    *,
    gpu: str,
    expected_labs: Sequence[str],
    missing_max: Mapping[str, float],
    duration_s: float = 0.0,
) -> StudentResult | None:
    """Read `report/results.json`; None when there is none (the grader did not finish).

    Labs in `expected_labs` that the student did not hand in score 0 out of
    `missing_max[lab]` and are listed as failures.
    """
    path = report / "results.json"
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    tests = [t for t in doc.get("tests", []) if isinstance(t, dict)]
    by_lab = {
        str(lab["lab"]): LabResult(str(lab["lab"]), float(lab["score"]), float(lab["max_score"]))
        for lab in report_labs(doc)
    }
    extra = doc.get("extra_data") or {}
    phases = {"grading": float(extra.get("execution_time_s") or 0.0)}
    phases.update({k: float(v) for k, v in (extra.get("phase_s") or {}).items()})
    whole = graded_result(name, by_lab, tests, expected_labs, missing_max)
    whole = replace(whole, gpu=gpu, duration_s=duration_s, phase_s=phases)
    if not _on_hidden_data(doc):
        return whole
    shown = [t for t in tests if not _on_hidden_data(t)]
    public = {lab: _points(lab, shown) for lab in by_lab}
    held = len(tests) - len(shown)
    seen = graded_result(name, public, shown, expected_labs, missing_max, held_tests=held)
    return replace(whole, public=replace(seen, gpu=gpu, duration_s=duration_s))


def graded_result(
    name: str,
    by_lab: Mapping[str, LabResult],
    tests: Sequence[Mapping[str, Any]],
    expected_labs: Sequence[str],
    missing_max: Mapping[str, float],
    held_tests: int = 0,
) -> StudentResult:
    """A graded row: the labs the report scored, then those it lacks as not submitted."""
    remaining = dict(by_lab)
    failures = [_failure(test) for test in tests if test.get("status") != "passed"]
    labs = []
    for lab in expected_labs:
        if lab in remaining:
            labs.append(remaining.pop(lab))
        else:
            labs.append(LabResult(lab, 0.0, float(missing_max.get(lab, 0.0))))
            failures.append(f"{lab}: not submitted")
    labs.extend(remaining.values())
    return StudentResult(name, "graded", tuple(labs), tuple(failures), held_tests=held_tests)


def _on_hidden_data(item: Mapping[str, Any]) -> bool:
    """Whether a results.json, or one of its tests, says it ran on hidden data."""
    extra = item.get("extra_data")
    return isinstance(extra, dict) and extra.get("hidden_data") is True


def _points(lab: str, tests: Sequence[Mapping[str, Any]]) -> LabResult:
    """`lab`'s score and maximum over `tests` (each test's extra_data names its lab)."""
    mine = [
        t
        for t in tests
        if isinstance(t.get("extra_data"), dict) and t["extra_data"].get("lab") == lab
    ]
    return LabResult(
        lab,
        sum(float(t.get("score", 0)) for t in mine),
        sum(float(t.get("max_score", 0)) for t in mine),
    )


def report_labs(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The per-lab scores of a results.json: in `extra_data` (the Gradescope spec has no
    top-level field for them), or at the top level in reports written before."""
    extra = doc.get("extra_data")
    labs = extra.get("labs") if isinstance(extra, dict) and "labs" in extra else doc.get("labs")
    return labs if isinstance(labs, list) else []


def _failure(test: Mapping[str, Any]) -> str:
    """`test name: first line of its reason`, short enough for a table cell.

    A parameterized test's name loses its middle (`lab1.Correctness/.../case`):
    the student's own report has it whole, and the cell keeps room for the reason.
    """
    name = _PARAMETERIZED.sub(r"\1/.../\2", str(test.get("name", "?")).split(" (", 1)[0])
    text = str(test.get("output", ""))
    first = text.split(": ", 1)[-1].splitlines()[0] if text else ""
    return f"{name}: {first}"[:_REASON_CHARS]


def all_labs(results: Sequence[StudentResult]) -> list[str]:
    """Every lab any student was scored on, in lab order."""
    seen = {lab.lab for r in results for lab in r.labs}
    return sorted(seen, key=lab_number)


def _lab_cell(result: StudentResult, lab: str) -> str:
    return next((points_cell(s.score) for s in result.labs if s.lab == lab), "")


def _failures_cell(result: StudentResult) -> str:
    return result.why if result.status != "graded" else "; ".join(result.failures)


def write_class_table(
    results: Sequence[StudentResult],
    out: Path,
    written: Mapping[str, str] | None = None,
    *,
    release: Release = NOT_RELEASED,
    footer: Sequence[str] = (),
) -> tuple[Path, Path]:
    """Write class.csv and class.md into `out`; returns their paths. `written`:
    student -> the REPORT.md questions answered per lab (written_answers.summary);
    `footer`: paragraphs that end class.md.

    When a student was graded on hidden data, `out/instructor/` gets the whole
    table, and the one in `out` holds the hidden-data results back unless `release`
    released them.
    """
    written = written or {}
    on_hidden = frozenset(r.name for r in results if r.public is not None)
    if on_hidden:
        _write_table(results, out / INSTRUCTOR_DIR, written, footer, on_hidden, None)
    held = release.until() if on_hidden and not release.released else None
    shown = [r.public or r for r in results] if held else results
    return _write_table(shown, out, written, footer, on_hidden, held)


def _write_table(
    results: Sequence[StudentResult],
    out: Path,
    written: Mapping[str, str],
    footer: Sequence[str],
    on_hidden: frozenset[str],
    held: str | None,
) -> tuple[Path, Path]:
    """`on_hidden`: the students graded on hidden data, whose rows say in
    `hidden_results` whether those results are included or `held` ("until ...")."""
    out.mkdir(parents=True, exist_ok=True)
    hidden = (f"held {held}" if held else INCLUDED) if on_hidden else None
    labs = all_labs(results)
    maxima = {
        lab: max((s.max_score for r in results for s in r.labs if s.lab == lab), default=0.0)
        for lab in labs
    }
    csv_path, md_path = out / CSV_NAME, out / MARKDOWN_NAME
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "student",
                "status",
                *labs,
                "total",
                "max",
                "written",
                "failures",
                "gpu",
                "seconds",
                *([HIDDEN_COLUMN] if hidden else []),
            ]
        )
        for r in results:
            writer.writerow(
                [
                    r.name,
                    r.status,
                    *(_lab_cell(r, lab) for lab in labs),
                    points_cell(r.score) if r.status == "graded" else "",
                    points_cell(r.max_score) if r.status == "graded" else "",
                    written.get(r.name, ""),
                    _failures_cell(r),
                    r.gpu,
                    f"{r.duration_s:.0f}",
                    *([hidden if r.name in on_hidden else ""] if hidden else []),
                ]
            )
    head = [
        "student",
        "status",
        *(f"{lab} (/{points_cell(maxima[lab])})" for lab in labs),
        "total",
        "written answers",
        "failures",
        *(["held tests"] if held else []),
    ]
    lines = ["# Class results", ""]
    if hidden == INCLUDED:
        lines += ["Hidden-data results included.", ""]
    elif held:
        lines += [
            f"**Hidden-data results are held {held}: the scores count "
            "public-data tests only, and the failures name none of the held tests. The "
            f"whole table is {INSTRUCTOR_DIR}/{MARKDOWN_NAME}.**",
            "",
        ]
    lines += [
        f"{len(results)} folders: "
        + ", ".join(
            f"{sum(1 for r in results if r.status == s)} {s}"
            for s in ("graded", "broken", "not a submission")
        ),
        "",
    ]
    rows = []
    for r in results:
        failures = _failures_cell(r)
        shown = failures if len(failures) < 300 else failures[:297] + "..."
        graded = r.status == "graded"
        total = f"{points_cell(r.score)}/{points_cell(r.max_score)}" if graded else "-"
        cells = [
            r.name,
            r.status,
            *(_lab_cell(r, lab) or "-" for lab in labs),
            total,
            written.get(r.name) or "-",
            shown.replace("\n", " ") or "none",
            *([str(r.held_tests) if r.status == "graded" else "-"] if held else []),
        ]
        rows.append(cells)
    lines += markdown_table(head, rows)
    lines += [line for paragraph in footer for line in ("", paragraph)]
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return csv_path, md_path
