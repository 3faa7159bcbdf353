"""Whether a student answered the questions of their lab's REPORT.md.

The skeleton's REPORT.md (one per lab) asks each question as a `## ` heading. An
answer is any text under a heading that is not in the template: a heading left
empty, or holding only the template's own lines, is unanswered.
"""

from __future__ import annotations

from pathlib import Path

REPORT_NAME = "REPORT.md"


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


def answered(template: Path, report: Path) -> tuple[int, int]:
    """(questions answered, questions asked); a missing report answers none."""
    asked = _sections(template.read_text(encoding="utf-8"))
    try:
        given = _sections(report.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        given = {}
    done = sum(
        1
        for heading, lines in asked.items()
        if any(line not in lines for line in given.get(heading, []))
    )
    return done, len(asked)


def summary(skeleton: Path, folder: Path) -> str:
    """`lab1 3/7, lab3 0/3` over the labs the student handed in that have a template."""
    parts = []
    for lab_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        template = skeleton / lab_dir.name / REPORT_NAME
        if template.is_file():
            done, asked = answered(template, lab_dir / REPORT_NAME)
            parts.append(f"{lab_dir.name.split('_', 1)[0]} {done}/{asked}")
    return ", ".join(parts)
