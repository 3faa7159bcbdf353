"""REPORT.md answers counted against the skeleton's template: a heading with text
of the student's own is answered; an empty one, or one with only the template's
lines, is not; a missing report answers nothing."""

from __future__ import annotations

from pathlib import Path

from grader.instructor.written_answers import answered, summary

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = "# lab9 report\n\nKeep the headings.\n\n## 1. Why?\n\n## 2. How fast?\n\n(hint)\n"


def test_answers_are_counted_per_heading(tmp_path: Path) -> None:
    template = tmp_path / "template.md"
    template.write_text(TEMPLATE)
    report = tmp_path / "REPORT.md"
    assert answered(template, report) == (0, 2)
    report.write_text(TEMPLATE)
    assert answered(template, report) == (0, 2)
    report.write_text(TEMPLATE.replace("## 1. Why?\n", "## 1. Why?\nBecause of the L2.\n"))
    assert answered(template, report) == (1, 2)
    report.write_text(TEMPLATE.replace("(hint)", "(hint)\n<!-- todo -->\n0.2 ms"))
    assert answered(template, report) == (1, 2)


def test_every_lab_of_the_skeletons_has_a_template_with_questions(tmp_path: Path) -> None:
    skeleton = REPO / "skeletons"
    labs = sorted(p.name for p in skeleton.iterdir() if p.is_dir())
    student = tmp_path / "ann"
    for lab in labs:
        (student / lab).mkdir(parents=True)
    text = summary(skeleton, student)
    parts = text.split(", ")
    assert len(parts) == len(labs)
    assert all(p.split()[1].startswith("0/") and not p.endswith("/0") for p in parts), text
