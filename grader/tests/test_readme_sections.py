"""scripts/readme_sections.py: every lab README, and the template's, has the sections of
SECTIONS in order, asks REPORT.md's questions word for word, and holds its table of
bars in "How it is graded"."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


readme_sections = _load("readme_sections")
readme_bars = _load("readme_bars")
TEMPLATE_LAB = REPO / "templates" / "lab" / "labs" / "labN_TOPIC"


def _readme(questions: str = "1. **Why?**\n2. **How fast?** (a hint)\n") -> str:
    parts = ["# lab9: demo\n\nIntro.\n"]
    for heading in readme_sections.SECTIONS:
        body = questions if heading == readme_sections.QUESTIONS else "Text.\n"
        parts.append(f"## {heading}\n\n{body}")
    return "\n".join(parts)


def _lab(tmp_path: Path, readme: str) -> tuple[Path, Path]:
    (tmp_path / "labs" / "lab9_demo").mkdir(parents=True)
    (tmp_path / "skeletons" / "lab9_demo").mkdir(parents=True)
    report = tmp_path / "skeletons" / "lab9_demo" / "REPORT.md"
    report.write_text("# lab9 report\n\n## 1. Why?\n\n## 2. How fast?\n", encoding="utf-8")
    path = tmp_path / "labs" / "lab9_demo" / "README.md"
    path.write_text(readme, encoding="utf-8")
    return path, report


def test_every_lab_readme_and_the_templates_follow_the_skeleton() -> None:
    pairs = readme_sections.lab_readmes(REPO)
    labs = sorted(p.name for p in (REPO / "labs").glob("lab*_*") if (p / "README.md").is_file())
    assert len(pairs) == len(labs) + 1  # and the template's
    for readme, report in pairs:
        assert readme_sections.problems(readme, report) == [], readme
    assert readme_sections.main() == 0


@pytest.mark.parametrize("lab", [*sorted((REPO / "labs").glob("lab*_*")), TEMPLATE_LAB])
def test_the_table_of_bars_is_in_how_it_is_graded(lab: Path) -> None:
    if not (lab / "lab.json").is_file():
        pytest.skip(f"{lab.name} has no lab.json")
    found = dict(readme_sections.sections((lab / "README.md").read_text(encoding="utf-8")))
    graded = "\n".join(found["How it is graded"])
    assert readme_bars.BEGIN in graded and readme_bars.END in graded
    if lab == TEMPLATE_LAB:  # readme_bars.py checks the labs; a new lab starts current
        assert readme_bars.table(lab) in graded


def test_a_readme_that_follows_the_skeleton_passes(tmp_path: Path) -> None:
    readme, report = _lab(tmp_path, _readme())
    assert readme_sections.problems(readme, report) == []
    assert readme_sections.main(tmp_path) == 0


@pytest.mark.parametrize(
    "drift",
    [
        lambda text: text.replace("## Build and run", "## Building and running"),
        lambda text: text.replace("## Questions", "### Questions"),
        lambda text: text + "\n## Measured on an H100\n\nMore.\n",
        lambda text: text.replace("## Questions\n\n", "").replace(
            "## How it is graded\n\n", "## How it is graded\n\n## Questions\n\n"
        ),
    ],
    ids=["renamed", "demoted", "one-more", "reordered"],
)
def test_a_section_renamed_added_or_moved_fails(
    tmp_path: Path, drift: Callable[[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    readme, report = _lab(tmp_path, drift(_readme()))
    assert any("its sections are" in p for p in readme_sections.problems(readme, report))
    assert readme_sections.main(tmp_path) == 1
    assert "labs/lab9_demo/README.md: its sections are" in capsys.readouterr().out


@pytest.mark.parametrize(
    "questions",
    [
        "1. **Why?**\n",  # one missing
        "1. **Why?**\n2. **How slow?**\n",  # reworded
        "2. **How fast?**\n1. **Why?**\n",  # reordered
        "1. Why?\n2. How fast?\n",  # not in bold
    ],
)
def test_questions_that_are_not_reports_headings_fail(tmp_path: Path, questions: str) -> None:
    readme, report = _lab(tmp_path, _readme(questions))
    assert any("where" in p and "REPORT.md" in p for p in readme_sections.problems(readme, report))


def test_a_question_may_wrap_and_have_its_hint_on_the_next_lines(tmp_path: Path) -> None:
    questions = "1. **Why?**\n   Look at the SASS.\n2. **How\n   fast?**\n   Measure it.\n"
    readme, report = _lab(tmp_path, _readme(questions))
    assert readme_sections.problems(readme, report) == []


def test_headings_in_code_and_a_missing_report(tmp_path: Path) -> None:
    text = _readme().replace("Intro.\n", "Intro.\n\n```sh\n## not a section\n```\n")
    readme, report = _lab(tmp_path, text)
    assert readme_sections.problems(readme, report) == []
    shutil.rmtree(report.parent)
    missing = ["its skeleton's lab9_demo/REPORT.md is missing"]
    assert readme_sections.problems(readme, report) == missing


def test_a_placeholder_for_a_figure_fails(tmp_path: Path) -> None:
    figure = "The rgb time: to be\nfilled from the H100 run.\n"  # the words across a line break
    readme, report = _lab(tmp_path, _readme().replace("Intro.\n", f"Intro.\n\n{figure}"))
    assert readme_sections.problems(readme, report) == ["line 5 holds a placeholder: to be filled"]
