"""REPORT.md answers counted against the skeleton's template: a heading with text
of the student's own is answered; an empty one, or one with only the template's
lines, is not; a missing report answers nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grader.classroom.written_answers import (
    REPORT_NAME,
    answered,
    markdown_sections,
    marks_sheet,
    read_marks,
    rubric_view,
    summary,
    written_policy,
)
from grader.core.errors import GraderUsageError
from grader.tests.helpers import run_grader

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


def test_the_marks_sheet_becomes_each_students_written_points(tmp_path: Path) -> None:
    template = tmp_path / "template.md"
    template.write_text(TEMPLATE)
    sheet = marks_sheet("lab9", template, ["ann", "pair7"])
    assert sheet[0] == ["folder", "lab", "question", "mark"]
    assert [r[:3] for r in sheet[1:]] == [
        ["ann", "lab9", "1"],
        ["ann", "lab9", "2"],
        ["pair7", "lab9", "1"],
        ["pair7", "lab9", "2"],
    ]
    marks = tmp_path / "marks.csv"
    rows = ["folder,lab,question,mark", "ann,lab9,1,full", "ann,lab9,2,half"]
    marks.write_text("\n".join([*rows, "pair7,lab9,1,none", "pair7,lab9,2,full"]) + "\n")
    points, asked = {"lab9": 20.0}, {"lab9": ["1", "2"]}
    assert read_marks(marks, points, asked) == {"ann": 15.0, "pair7": 10.0}
    marks.write_text("\n".join(rows[:2]) + "\n")
    with pytest.raises(GraderUsageError, match="ann lab9: question.s. 2 not marked"):
        read_marks(marks, points, asked)
    marks.write_text("\n".join([*rows[:2], "ann,lab9,2,great"]) + "\n")
    with pytest.raises(GraderUsageError, match="line 3: question '2' of lab9 marked 'great'"):
        read_marks(marks, points, asked)


def test_every_lab_has_written_points_and_numbered_questions() -> None:
    points, asked = written_policy(REPO)
    assert set(points) == set(asked) == {f"lab{i}" for i in range(1, 7)}
    assert all(ids == [str(i) for i in range(1, len(ids) + 1)] for ids in asked.values()), asked


def _written(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "class" / "ann" / "lab1_histogram").mkdir(parents=True, exist_ok=True)
    return run_grader("written", "lab1", str(tmp_path / "class"), *extra, cwd=tmp_path)


def _one_line(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("grader: error: ") and message in line, line


def test_an_output_that_cannot_be_written_is_one_line_and_writes_neither(tmp_path: Path) -> None:
    """--out or --marks into a missing folder was a traceback, after --marks was written."""
    marks, nowhere = tmp_path / "marks.csv", tmp_path / "no" / "view.md"
    _one_line(
        _written(tmp_path, "--marks", str(marks), "--out", str(nowhere)),
        f"--out {nowhere}: cannot write it: No such file or directory",
    )
    assert not marks.exists()
    _one_line(_written(tmp_path, "--marks", str(nowhere)), f"--marks {nowhere}: cannot write")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        _one_line(
            _written(tmp_path, "--out", str(locked / "view.md")),
            f"--out {locked / 'view.md'}: cannot write it: Permission denied",
        )
    marks.write_text("mine")
    _one_line(
        _written(tmp_path, "--out", str(tmp_path / "view.md"), "--marks", str(marks)),
        f"--marks {marks} exists: give another name",
    )
    assert marks.read_text() == "mine" and not (tmp_path / "view.md").exists()
    done = _written(tmp_path, "--out", str(tmp_path / "view.md"), "--marks", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr
    assert "**ann** (no answer)" in (tmp_path / "view.md").read_text()
    assert (tmp_path / "m").read_text().startswith("folder,lab,question,mark")
