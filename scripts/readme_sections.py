"""Checks that every lab README has the same sections, and that its questions are its
REPORT.md's.

Every lab README (`labs/labN_topic/README.md`, and the template's,
`templates/lab/labs/labN_TOPIC/README.md`) has exactly the `## ` headings of SECTIONS,
in that order; lab-specific parts go under `### ` headings inside them. Its
"Questions" section numbers the questions of the skeleton's REPORT.md, each in bold,
word for word as REPORT.md's `## ` headings ask them (`1. **Why?**` for `## 1. Why?`),
so the class report counts answers to the questions the README asks. And no README
holds a placeholder for a figure or a text still to come ("to be filled", TBD, TODO).

    python3 scripts/readme_sections.py   # exit 1 naming each README that drifted
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The one list of a lab README's sections (CONTRIBUTING.md, "The README").
SECTIONS = (
    "What you write",
    "Build and run",
    "The course's tables",
    "Questions",
    "How it is graded",
)
QUESTIONS = "Questions"
TEMPLATE = Path("templates") / "lab"

_ITEM = re.compile(r"(\d+)\. ")
_PLACEHOLDER = re.compile(
    r"\bto\s+be\s+filled|\bTBD\b|\bTODO\b", re.IGNORECASE
)  # across a line break
_BOLD = re.compile(r"(\d+)\. \*\*(.+?)\*\*")


def sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, its lines) for each `## ` heading outside fenced code blocks."""
    found: list[tuple[str, list[str]]] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            found.append((line[3:].strip(), []))
        elif found:
            found[-1][1].append(line)
    return found


def questions(lines: list[str]) -> list[str]:
    """`N. question` for each numbered item of the section whose text opens in bold."""
    items: list[list[str]] = []
    for line in lines:
        if _ITEM.match(line):
            items.append([line.strip()])
        elif items and line.strip():
            items[-1].append(line.strip())
        elif items and not line.strip():
            items.append([])  # a blank line ends the item
    asked = []
    for item in items:
        match = _BOLD.match(" ".join(item))
        if match:
            asked.append(f"{match.group(1)}. {match.group(2)}")
    return asked


def problems(readme: Path, report: Path) -> list[str]:
    """What is wrong with the README's sections and questions, one line each."""
    text = readme.read_text(encoding="utf-8")
    found = sections(text)
    headings = [heading for heading, _ in found]
    wrong = [
        f"line {text.count(chr(10), 0, m.start()) + 1} holds a placeholder: "
        + " ".join(m.group(0).split())
        for m in _PLACEHOLDER.finditer(text)
    ]
    if headings != list(SECTIONS):
        wrong.append(f"its sections are {headings}, not {list(SECTIONS)}")
    asked = next((lines for heading, lines in found if heading == QUESTIONS), [])
    if not report.is_file():
        return [*wrong, f"its skeleton's {report.parent.name}/{report.name} is missing"]
    report_questions = [h for h, _ in sections(report.read_text(encoding="utf-8"))]
    readme_questions = questions(asked)
    if readme_questions != report_questions:
        wrong.append(
            f'its "{QUESTIONS}" ask {readme_questions}, '
            f"where {report.parent.name}/{report.name} has the headings {report_questions}"
        )
    return wrong


def lab_readmes(root: Path) -> list[tuple[Path, Path]]:
    """(README.md, the skeleton's REPORT.md) of every lab and of the template."""
    pairs = []
    for base in (root, root / TEMPLATE):
        for lab_dir in sorted((base / "labs").glob("lab*_*")):
            if (lab_dir / "README.md").is_file():
                report = base / "skeletons" / lab_dir.name / "REPORT.md"
                pairs.append((lab_dir / "README.md", report))
    return pairs


def main(root: Path = ROOT) -> int:
    status = 0
    for readme, report in lab_readmes(root):
        for problem in problems(readme, report):
            print(f"readme_sections: {readme.relative_to(root)}: {problem}")
            status = 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("readme_sections: interrupted", file=sys.stderr)
        sys.exit(130)
