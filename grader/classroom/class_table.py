"""The class table of a batch: one row per student, from each student's results.json.

The table is rebuilt from the per-student reports (not from memory) so that
what an instructor reads in `class.csv` is exactly what each student's own
report says.
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
from grader.core.reports import markdown_table
from grader.core.scoring import points_cell

CSV_NAME = "class.csv"
MARKDOWN_NAME = "class.md"
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
    result = graded_result(name, by_lab, tests, expected_labs, missing_max)
    model = str((extra.get("gpu") or {}).get("name") or "")
    host = str(extra.get("host") or "")
    graded_on = " on ".join(part for part in (model, host) if part)
    return replace(result, gpu=gpu, graded_on=graded_on, duration_s=duration_s, phase_s=phases)


def graded_result(
    name: str,
    by_lab: Mapping[str, LabResult],
    tests: Sequence[Mapping[str, Any]],
    expected_labs: Sequence[str],
    missing_max: Mapping[str, float],
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
    return StudentResult(name, "graded", tuple(labs), tuple(failures))


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


def all_labs(results: Sequence[StudentResult], graded: Sequence[str] = ()) -> list[str]:
    """The labs `graded` and every lab any student was scored on, in lab order: the
    columns do not depend on which students the table holds (the tables of a Slurm
    array's tasks are merged, and a task may hold no graded student)."""
    seen = {lab.lab for r in results for lab in r.labs} | set(graded)
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
    labs: Sequence[str] = (),
    footer: Sequence[str] = (),
) -> tuple[Path, Path]:
    """Write class.csv and class.md into `out`; returns their paths. `written`:
    student -> the REPORT.md questions answered per lab (written_answers.summary);
    `labs`: the labs graded; `footer`: paragraphs that end class.md."""
    written = written or {}
    out.mkdir(parents=True, exist_ok=True)
    labs = all_labs(results, labs)
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
                "graded on",
                "seconds",
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
                    r.graded_on,
                    f"{r.duration_s:.0f}",
                ]
            )
    head = [
        "student",
        "status",
        *(f"{lab} (/{points_cell(maxima[lab])})" for lab in labs),
        "total",
        "written answers",
        "failures",
    ]
    lines = [
        "# Class results",
        "",
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
        ]
        rows.append(cells)
    lines += markdown_table(head, rows)
    lines += [line for paragraph in footer for line in ("", paragraph)]
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return csv_path, md_path
