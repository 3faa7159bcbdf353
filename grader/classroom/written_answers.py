"""Whether a student answered the questions of their lab's REPORT.md, and the
instructor's view of the answers beside the rubric (`grader.classroom written`).

The skeleton's REPORT.md (one per lab) asks each question as a `## ` heading. An
answer is any text under a heading that is not in the template: a heading left
empty, or holding only the template's own lines, is unanswered; one of fewer than
SHORT_WORDS words is too short to be an answer. The model answers and rubrics are
solutions/labN_topic/REPORT.md, under the same headings.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

from grader.core.discovery import lab_dirs
from grader.core.errors import GraderUsageError
from grader.core.lab_file import read_lab_file

REPORT_NAME = "REPORT.md"
SHORT_WORDS = 15  # fewer words than the shortest model answer's is no answer yet


def markdown_sections(text: str) -> list[tuple[str, list[str]]]:
    """Split Markdown at `## ` headings: (heading or '' for the intro, lines)."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), [line]))
        else:
            sections[-1][1].append(line)
    return sections


def _sections(text: str) -> dict[str, list[str]]:
    """Heading -> the non-empty lines under it (HTML comments dropped)."""
    return {
        heading: [s for s in map(str.strip, lines[1:]) if s and not s.startswith("<!--")]
        for heading, lines in markdown_sections(text)[1:]
    }


def answers(template: Path, report: Path) -> dict[str, str]:
    """Question -> the student's own text under it ('' when none); a missing report
    answers nothing."""
    asked = _sections(template.read_text(encoding="utf-8"))
    try:
        given = _sections(report.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        given = {}
    return {
        heading: " ".join(line for line in given.get(heading, []) if line not in template_lines)
        for heading, template_lines in asked.items()
    }


def answered(template: Path, report: Path) -> tuple[int, int, int]:
    """(questions answered, of them too short, questions asked)."""
    texts = answers(template, report)
    given = [text for text in texts.values() if text]
    short = sum(1 for text in given if len(text.split()) < SHORT_WORDS)
    return len(given), short, len(texts)


def summary(skeleton: Path, folder: Path) -> str:
    """`lab1 3/7, lab3 0/3` over the labs the student handed in that have a template."""
    parts = []
    for lab_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        template = skeleton / lab_dir.name / REPORT_NAME
        if template.is_file():
            done, short, asked = answered(template, lab_dir / REPORT_NAME)
            brief = f" ({short} too short)" if short else ""
            parts.append(f"{lab_dir.name.split('_', 1)[0]} {done}/{asked}{brief}")
    return ", ".join(parts)


def rubric_view(template: Path, model: Path | None, students: dict[str, Path]) -> str:
    """Markdown for grading one lab's written half by hand: each question, its rubric
    (from `model`, when the instructors' tree has it), then every student's answer."""
    rubrics = (
        {
            h: " ".join(lines).partition("**Rubric.**")[2].strip()
            for h, lines in _sections(model.read_text(encoding="utf-8")).items()
        }
        if model is not None and model.is_file()
        else {}
    )
    given = {name: answers(template, report) for name, report in students.items()}
    out = []
    for heading in _sections(template.read_text(encoding="utf-8")):
        out += [f"## {heading}", "", f"**Rubric.** {rubrics.get(heading) or '(none)'}", ""]
        for name, texts in given.items():
            text = texts[heading]
            words = len(text.split())
            tag = (
                "no answer"
                if not text
                else f"too short: {words} words"
                if words < SHORT_WORDS
                else ""
            )
            out += [
                f"- **{name}**" + (f" ({tag})" if tag else "") + (f": {text}" if text else ""),
                "",
            ]
    return "\n".join(out)


# The marks sheet an instructor fills from the view: one row per student and question.
MARKS_HEADER = ("folder", "lab", "question", "mark")
MARKS = {"full": 1.0, "half": 0.5, "none": 0.0}


def question_ids(template: Path) -> list[str]:
    """The questions' numbers, as their headings give them (`3. Why?` -> `3`)."""
    return [h.split(".", 1)[0].strip() for h in _sections(template.read_text(encoding="utf-8"))]


def marks_sheet(lab: str, template: Path, folders: list[str]) -> list[list[str]]:
    """The empty sheet for one lab: a row per folder and question, marks to fill."""
    return [list(MARKS_HEADER)] + [
        [folder, lab, q, ""] for folder in folders for q in question_ids(template)
    ]


def read_marks(
    path: Path, points: Mapping[str, float], asked: Mapping[str, list[str]]
) -> dict[str, float]:
    """folder -> the written half's points: per lab, its lab.json `written.points` times
    the mean mark (full 1, half 0.5, none 0) of its questions, every one marked."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderUsageError(f"--written {path}: {exc}") from exc
    marked: dict[tuple[str, str], dict[str, float]] = {}
    for line, row in enumerate(rows, 2):
        folder, lab, question, mark = (str(row.get(k) or "").strip() for k in MARKS_HEADER)
        if lab not in points:
            raise GraderUsageError(
                f"--written {path}: line {line}: {lab!r} has no written points (lab.json)"
            )
        if question not in asked.get(lab, []) or mark not in MARKS:
            raise GraderUsageError(
                f"--written {path}: line {line}: question {question!r} of {lab} marked "
                f"{mark!r} (marks: {', '.join(MARKS)})"
            )
        marked.setdefault((folder, lab), {})[question] = MARKS[mark]
    total: dict[str, float] = {}
    for (folder, lab), got in marked.items():
        missing = [q for q in asked[lab] if q not in got]
        if missing:
            raise GraderUsageError(
                f"--written {path}: {folder} {lab}: question(s) {', '.join(missing)} not marked"
            )
        total[folder] = total.get(folder, 0.0) + points[lab] * sum(got.values()) / len(asked[lab])
    return total


def written_policy(repo: Path) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Each lab's written points (lab.json `written.points`) and its questions' numbers."""
    points, asked = {}, {}
    for lab, folder in lab_dirs(repo).items():
        value = ((read_lab_file(folder) or {}).get("written") or {}).get("points")
        template = repo / "skeletons" / folder.name / REPORT_NAME
        if isinstance(value, (int, float)) and template.is_file():
            points[lab], asked[lab] = float(value), question_ids(template)
    return points, asked
