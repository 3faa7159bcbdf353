"""REPORT.md answers counted against the skeleton's template: a heading with text
of the student's own is answered; an empty one, or one with only the template's
lines, is not; a missing report answers nothing."""

from __future__ import annotations

from pathlib import Path

from grader.instructor.written_answers import (
    REPORT_NAME,
    answered,
    markdown_sections,
    rubric_view,
    summary,
)

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = "# lab9 report\n\nKeep the headings.\n\n## 1. Why?\n\n## 2. How fast?\n\n(hint)\n"


def test_answers_are_counted_per_heading(tmp_path: Path) -> None:
    template = tmp_path / "template.md"
    template.write_text(TEMPLATE)
    report = tmp_path / "REPORT.md"
    assert answered(template, report) == (0, 0, 2)
    report.write_text(TEMPLATE)
    assert answered(template, report) == (0, 0, 2)
    report.write_text(TEMPLATE.replace("## 1. Why?\n", "## 1. Why?\nBecause of the L2.\n"))
    assert answered(template, report) == (1, 1, 2)  # four words: too short to be an answer
    long = "The atomics on one bin serialise in the L2, so the time grows with the samples of "
    report.write_text(TEMPLATE.replace("(hint)", f"(hint)\n<!-- todo -->\n{long}the hot bin."))
    assert answered(template, report) == (1, 0, 2)


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


def test_every_question_has_a_model_answer_and_a_rubric() -> None:
    """solutions/labN_topic/REPORT.md (the instructors' tree, never exported) answers
    every question of the skeleton's, under the same headings, with a rubric."""
    skeletons = sorted((REPO / "skeletons").glob(f"lab*_*/{REPORT_NAME}"))
    assert len(skeletons) == 6
    for asked in skeletons:
        model = REPO / "solutions" / asked.parent.name / REPORT_NAME
        questions = [h for h, _ in markdown_sections(asked.read_text(encoding="utf-8"))[1:]]
        sections = markdown_sections(model.read_text(encoding="utf-8"))[1:]
        assert [h for h, _ in sections] == questions, model
        for heading, lines in sections:
            text = " ".join(lines[1:])
            answer = text.partition("**Model answer.**")[2].partition("**Rubric.**")[0]
            rubric = text.partition("**Rubric.**")[2]
            assert len(answer.split()) >= 15, f"{model}: {heading}: no model answer"
            assert all(w in rubric for w in ("Full:", "Half:", "None:")), f"{model}: {heading}"


def test_the_written_view_puts_every_answer_under_its_question_and_rubric(tmp_path: Path) -> None:
    template = tmp_path / "template.md"
    template.write_text(TEMPLATE)
    model = tmp_path / "model.md"
    model.write_text(
        "# model\n\n## 1. Why?\n\n**Model answer.** x\n\n**Rubric.** Full: a. Half: b. None: c.\n"
        "\n## 2. How fast?\n\n**Model answer.** y\n\n**Rubric.** Full: d. Half: e. None: f.\n"
    )
    ann, bob = tmp_path / "ann.md", tmp_path / "bob.md"
    ann.write_text(TEMPLATE.replace("## 1. Why?\n", "## 1. Why?\nBecause of the L2.\n"))
    view = rubric_view(template, model, {"ann": ann, "bob": bob})
    assert view.index("## 1. Why?") < view.index("Full: a.") < view.index("**ann** (too short")
    assert "Because of the L2." in view and "**bob** (no answer)" in view
    assert view.index("## 2. How fast?") < view.index("Full: d.")
