"""Whether a student answered the questions of their lab's REPORT.md, and the
instructor's view of the answers beside the rubric (`grader written`).

The skeleton's REPORT.md (one per lab) asks each question as a `## ` heading. An
answer is any text under a heading that is not in the template: a heading left
empty, or holding only the template's own lines, is unanswered; one of fewer than
SHORT_WORDS words is too short to be an answer. The model answers and rubrics are
solutions/labN_topic/REPORT.md, under the same headings.
"""

from __future__ import annotations

from pathlib import Path

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
    given = [text for text in answers(template, report).values() if text]
    short = sum(1 for text in given if len(text.split()) < SHORT_WORDS)
    return len(given), short, len(answers(template, template))


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
    for heading in answers(template, template):
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
