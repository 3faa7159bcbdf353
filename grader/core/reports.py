"""The three reports of a grading run, in formats graders already read.

- `junit.xml`: one testsuite per lab, the reason as each failure's message;
- `results.json`: Gradescope's autograder results, to its specification;
- `summary.md`: a table for a GitHub Actions job summary;

and the console's account of a run, which every command that grades prints alike.

`ctest --output-junit` writes JUnit from exit statuses; this one carries the
grader's verdict, its reason and each test's points, and holds hidden-data results
back until their release.

A skipped test scores 0 and is never shown as passed. A run whose student code
ran outside the sandbox says so first in each report.

On hidden data, results wait for their release (grader/core/release.py): until then
the reports students and exports see hold every hidden-data test back (listed,
with no score, reason or figure), and `instructor/` holds the same reports whole.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.core.commits import Checkout
from grader.core.model import (
    BUILD_KIND,
    OTHER_KIND,
    STATIC_KIND,
    Figure,
    LabTest,
    Outcome,
    Status,
    lab_number,
)
from grader.core.release import NOT_RELEASED, Release
from grader.core.scoring import Grade, LabScore, ScoredTest, number, on_hidden_data

JUNIT_NAME = "junit.xml"
RESULTS_NAME = "results.json"
SUMMARY_NAME = "summary.md"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
# The reports whole, hidden-data results included: the instructor's, never handed out.
INSTRUCTOR_DIR = "instructor"
_OUTPUT_IN_RESULTS = 4000
_CONSOLE_REASON = 300  # characters of a reason on the console; the reports hold it whole
# Characters XML 1.0 cannot carry; student output may contain any byte.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_all(out_dir: Path, grade: Grade, release: Release = NOT_RELEASED) -> dict[str, Path]:
    """Write the three reports into `out_dir`; returns their paths by name.

    On hidden data they hold its results back unless `release` released them, and
    `out_dir/instructor/` gets them whole, so nothing is lost.
    """
    held = grade.hidden_data and not release.released
    paths = _write(out_dir, replace(grade, held_until=release.until()) if held else grade)
    if grade.hidden_data:
        _write(out_dir / INSTRUCTOR_DIR, grade)
    return paths


def _write(out_dir: Path, grade: Grade) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in (JUNIT_NAME, RESULTS_NAME, SUMMARY_NAME)}
    junit_tree(grade).write(paths[JUNIT_NAME], encoding="utf-8", xml_declaration=True)
    paths[RESULTS_NAME].write_text(
        json.dumps(results_json(grade), indent=2) + "\n", encoding="utf-8"
    )
    paths[SUMMARY_NAME].write_text(summary_markdown(grade), encoding="utf-8")
    return paths


# --- hidden-data results held back (Grade.held_until, Grade.shown, Grade.held) ---------


def _count(tests: Sequence[ScoredTest], status: Status) -> int:
    return sum(1 for t in tests if t.outcome.status is status)


def _failed_count(tests: Sequence[ScoredTest]) -> int:
    return _count(tests, Status.FAILED) + _count(tests, Status.ERROR)


def _points(tests: Sequence[ScoredTest]) -> tuple[float, float]:
    return sum(t.points for t in tests), sum(t.max_points for t in tests)


def _notes(grade: Grade) -> list[str]:
    run_notes = [] if grade.held_until else list(grade.run_notes)
    return list(grade.notes) + run_notes + [n for lab in grade.labs for n in lab.notes]


def _held_sentence(grade: Grade, held: Sequence[ScoredTest]) -> str:
    worth = number(sum(t.max_points for t in held))
    plural = "tests" if len(held) != 1 else "test"
    return (
        f"Hidden-data results are held {grade.held_until}: {len(held)} {plural} worth {worth} "
        "points, whose scores and reasons are not shown; the scores here count the other "
        "tests only."
    )


# --- JUnit XML -------------------------------------------------------------------------


def junit_tree(grade: Grade) -> ET.ElementTree:
    """JUnit XML with one testsuite per lab; held tests are left out, and a lab
    with some says how many in its `held` property."""
    name = f"cuda-labs ({grade.unsandboxed})" if grade.unsandboxed else "cuda-labs"
    root = ET.Element(
        "testsuites",
        {
            "name": _xml(name),
            "timestamp": grade.timestamp,
            **_junit_counts(grade.shown(grade.all_tests())),
        },
    )
    for lab in grade.labs:
        shown, held = grade.shown(lab.tests), grade.held(lab.tests)
        suite = ET.SubElement(
            root,
            "testsuite",
            {"name": lab.lab, "timestamp": grade.timestamp, **_junit_counts(shown)},
        )
        props = ET.SubElement(suite, "properties")
        score, max_score = _points(shown)
        for key, value in (
            ("title", lab.policy.title),
            ("score", number(score)),
            ("max_score", number(max_score)),
            ("gpu", grade.gpu.describe()),
            *([("held", f"{len(held)} hidden-data tests held {grade.held_until}")] if held else []),
        ):
            ET.SubElement(props, "property", name=key, value=_xml(str(value)))
        for test in shown:
            _junit_case(suite, test)
    ET.indent(root)
    return ET.ElementTree(root)


def _junit_counts(tests: Sequence[ScoredTest]) -> dict[str, str]:
    return {
        "tests": str(len(tests)),
        "failures": str(_count(tests, Status.FAILED)),
        "errors": str(_count(tests, Status.ERROR)),
        "skipped": str(_count(tests, Status.SKIPPED)),
        "time": f"{sum(t.outcome.duration_s for t in tests):.3f}",
    }


def _junit_case(suite: ET.Element, test: ScoredTest) -> None:
    outcome = test.outcome
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{test.test.lab}.{test.test.kind}",
        name=test.test.name,
        time=f"{outcome.duration_s:.3f}",
    )
    tag = {Status.FAILED: "failure", Status.ERROR: "error", Status.SKIPPED: "skipped"}.get(
        outcome.status
    )
    if tag is not None:
        reason = _xml(outcome.reason)
        element = ET.SubElement(case, tag, message=reason)
        if tag != "skipped":
            element.text = reason
    if outcome.output:
        ET.SubElement(case, "system-out").text = _xml(outcome.output)


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


# --- Gradescope results.json -----------------------------------------------------------
# Field by field as the Gradescope autograder specification has it (top level: score,
# execution_time, output, output_format, test_output_format, test_name_format,
# visibility, stdout_visibility, extra_data, tests, leaderboard); everything else of
# ours goes into extra_data, which the spec stores untouched.

# Student output is shown as plain text: no Markdown, HTML or ANSI it could forge.
TEXT_FORMAT = "text"
VISIBLE = "visible"
AFTER_DUE_DATE = "after_due_date"
# Tests are numbered lab.kind.index; the kind's place is fixed so a number means the
# same in every report. 0: the stand-in for a lab that did not build or was rejected.
KIND_NUMBERS = {
    BUILD_KIND: 0,
    STATIC_KIND: 0,
    "correctness": 1,
    "timing": 2,
    "reference": 3,
    OTHER_KIND: 4,
}


def result_name(test: LabTest) -> str:
    """A test's name in results.json: its ctest name, then its kind."""
    return f"{test.name} ({test.kind})"


def lab_test_name(row: Mapping[str, Any]) -> str | None:
    """The ctest name of a results.json test (result_name read back), if it is one."""
    kind = (row.get("extra_data") or {}).get("kind")
    name, suffix = str(row.get("name", "")), f" ({kind})"
    return name[: -len(suffix)] if kind and name.endswith(suffix) else None


def results_json(grade: Grade) -> dict[str, Any]:
    """Gradescope's results format; a test's `status` is only ever passed or failed.

    Held, every test stays in (Gradescope needs their scores for the final total,
    and shows hidden-data ones only after the due date), but the top-level `score`
    is left out: the spec makes it optional when every test has a score, and
    Gradescope then totals the tests itself. The other fields students see before
    the due date (`output`, `leaderboard`) cover public-data tests only;
    `extra_data`, which Gradescope shows no one, stays whole.
    """
    held = grade.held(grade.all_tests())
    doc: dict[str, Any] = {
        **({} if held else {"score": number(grade.score)}),
        "execution_time": round(grade.execution_s),
        "output": _overview(grade),
        "output_format": TEXT_FORMAT,
        "test_output_format": TEXT_FORMAT,
        "test_name_format": TEXT_FORMAT,
        "visibility": VISIBLE,
        # The grader's stdout quotes failures on hidden data: instructors only.
        "stdout_visibility": "hidden",
        "extra_data": _extra_data(grade),
        "tests": [
            result_test(t, number_, grade.hidden_data) for number_, t in numbered_tests(grade)
        ],
    }
    board = leaderboard(grade)
    if board:
        doc["leaderboard"] = board
    return doc


def _extra_data(grade: Grade) -> dict[str, Any]:
    """What the spec has no field for: stored with the result, shown to no one.

    `hidden_results`: null on public data, else whether this copy holds them back
    ("held") or shows them ("shown").
    """
    state = None if not grade.hidden_data else "held" if grade.held_until else "shown"
    return {
        "max_score": number(grade.max_score),
        "gpu": grade.gpu.as_json(),
        "started": grade.started or None,
        "timestamp": grade.timestamp,
        "execution_time_s": round(grade.execution_s, 3),
        "processes_started": grade.processes_started,
        "phase_s": {name: round(seconds, 3) for name, seconds in grade.phase_s.items()},
        "graded_commit": _commit(grade, "graded"),
        "harness_commit": _commit(grade, "harness"),
        "hidden_data": grade.hidden_data,
        "hidden_results": state,
        "sandboxed": not grade.unsandboxed,
        "labs": [_result_lab(lab) for lab in grade.labs],
        "notes": _notes(replace(grade, held_until="")),
    }


def _commit(grade: Grade, which: str) -> dict[str, Any]:
    checkout = grade.commits.get(which)
    return dict(checkout) if checkout else {"commit": None, "clean": None}


def numbered_tests(grade: Grade) -> list[tuple[str, ScoredTest]]:
    """Every test with its `lab.kind.index` number, grouped by lab, then kind."""
    out: list[tuple[str, ScoredTest]] = []
    for lab in _by_number(grade.labs):
        by_kind: dict[int, list[ScoredTest]] = {}
        for test in lab.tests:
            by_kind.setdefault(
                KIND_NUMBERS.get(test.test.kind, KIND_NUMBERS[OTHER_KIND]), []
            ).append(test)
        for kind in sorted(by_kind):
            out += [
                (f"{lab_number(lab.lab)}.{kind}.{index}", test)
                for index, test in enumerate(by_kind[kind], start=1)
            ]
    return out


def result_test(test: ScoredTest, number_: str, hidden_data: bool) -> dict[str, Any]:
    """One entry of results.json's `tests`: score, verdict, output and extra data
    (the GPU clocks of a timed test among them, which grader/tests/test_clocks.py
    checks on this entry alone)."""
    outcome = test.outcome
    if outcome.status is Status.PASSED:
        text = "passed"
    elif outcome.status is Status.SKIPPED:
        text = f"SKIPPED (not graded, scores 0): {outcome.reason}"
    else:
        text = f"{outcome.status.value.upper()}: {outcome.reason}"
    if outcome.status is not Status.PASSED and outcome.output:
        text += "\n\n--- last output ---\n" + outcome.output[-_OUTPUT_IN_RESULTS:]
    on_hidden = on_hidden_data(hidden_data, test)
    return {
        "score": number(test.points),
        "max_score": number(test.max_points),
        "status": "passed" if outcome.status is Status.PASSED else "failed",
        "name": result_name(test.test),
        "name_format": TEXT_FORMAT,
        "number": number_,
        "output": text,
        "output_format": TEXT_FORMAT,
        "tags": [test.test.lab, test.test.kind],
        "visibility": AFTER_DUE_DATE if on_hidden else VISIBLE,
        "extra_data": {
            "lab": test.test.lab,
            "kind": test.test.kind,
            "outcome": outcome.status.value,
            "duration_s": round(outcome.duration_s, 3),
            "hidden_data": on_hidden,
            **({"gpu_clocks": dict(outcome.clocks)} if outcome.clocks else {}),
            **({"figure": _figure_data(outcome.figure)} if outcome.figure else {}),
            **({"credit": test.credit.as_data()} if test.credit is not None else {}),
        },
    }


def _figure_data(figure: Figure) -> dict[str, Any]:
    """A timing test's measured ratio as data, for the calibration (watchdog.py)."""
    return {"name": figure.name, "value": figure.value, "needed": figure.needed}


# Every figure is a ratio its test needs at least (harness::ratio_at_least): higher is
# better, which Gradescope ranks first with "desc".
LEADERBOARD_ORDER = "desc"


def leaderboard(grade: Grade) -> list[dict[str, Any]]:
    """Each lab's measured performance: one entry per figure of a passed test, named
    `<lab> <figure>` ("lab3 fastest variant / copy ceiling"), lab by lab; held, the
    figures of hidden-data tests are left out (Gradescope shows the board at once).

    The figures come from the XML report the harness's end marker vouches for, never
    from the output (verdict.recorded_figure). Student code runs in the same process,
    so a figure only ever shares out the points of a passed test, capped at full
    marks (credit.py): a forged high figure gains nothing.
    """
    return [
        {
            "name": f"{lab} {figure.name}",
            "value": round(figure.value, 3),
            "order": LEADERBOARD_ORDER,
        }
        for lab, _, figure in _measured(grade)
    ]


def _measured(grade: Grade) -> list[tuple[str, ScoredTest, Figure]]:
    """(lab, test, figure) of each passed test that recorded one, lab by lab, less
    those of held tests: only what the grade accepted is ranked."""
    return [
        (lab.lab, test, test.outcome.figure)
        for lab in _by_number(grade.labs)
        for test in grade.shown(lab.tests)
        if test.outcome.status is Status.PASSED and test.outcome.figure is not None
    ]


def _by_number(labs: Sequence[LabScore]) -> list[LabScore]:
    return sorted(labs, key=lambda lab: lab_number(lab.lab))


def _result_lab(lab: LabScore) -> dict[str, Any]:
    return {
        "lab": lab.lab,
        "title": lab.policy.title,
        "score": number(lab.score),
        "max_score": number(lab.max_score),
        "passed": lab.count(Status.PASSED),
        "failed": _failed_count(lab.tests),
        "skipped": lab.count(Status.SKIPPED),
        "notes": list(lab.notes),
    }


def _overview(grade: Grade) -> str:
    lines = [grade.unsandboxed] if grade.unsandboxed else []
    for lab in grade.labs:
        score, max_score = _points(grade.shown(lab.tests))
        held = grade.held(lab.tests)
        line = f"{lab.policy.label}: {number(score)}/{number(max_score)}"
        lines.append(
            line + (f" on public data, {len(held)} hidden-data tests held" if held else "")
        )
    held = grade.held(grade.all_tests())
    if held:
        lines.append(_held_sentence(grade, held))
    skipped = _skip_sentence(grade, grade.shown(grade.all_tests()))
    if skipped:
        lines.append(skipped)
    lines.append(f"GPU: {grade.gpu.describe()}")
    return "\n".join(lines)


def _skip_sentence(grade: Grade, tests: Sequence[ScoredTest]) -> str:
    skipped = _count(tests, Status.SKIPPED)
    if not skipped:
        return ""
    why = "no GPU was available" if not grade.gpu.present else "their setup was skipped"
    plural = "tests were" if skipped > 1 else "test was"
    detail = grade.gpu.reason or grade.gpu.describe()
    return (
        f"Not graded: {skipped} {plural} skipped because {why} ({detail}). "
        "Skipped tests score 0; they did not pass."
    )


# --- Markdown summary ------------------------------------------------------------------


def summary_markdown(grade: Grade) -> str:
    """A job summary: the score table, what failed and why, then the GPU. Held, the
    table counts public-data tests, with a `held` column, and the held tests are
    listed by name only."""
    heading = "## cuda-labs grading" + (
        f" ({_inline(grade.unsandboxed)})" if grade.unsandboxed else ""
    )
    all_held = grade.held(grade.all_tests())
    out = [heading, ""]
    if all_held:
        out += [f"**{_held_sentence(grade, all_held)}**", ""]
    held_head = (" held |", " ---: |") if all_held else ("", "")
    out += [
        "| lab | score | max | passed | failed | skipped |" + held_head[0],
        "| --- | ---: | ---: | ---: | ---: | ---: |" + held_head[1],
    ]
    for lab in grade.labs:
        out.append(_summary_row(_cell(lab.policy.label), grade, lab.tests, all_held))
    out.append(_summary_row("**total**", grade, grade.all_tests(), all_held, bold=True))
    out.append("")
    shown = grade.shown(grade.all_tests())
    skipped = _skip_sentence(grade, shown)
    if skipped:
        out += [f"**{skipped}**", ""]
    failed = [t for t in shown if t.outcome.status in (Status.FAILED, Status.ERROR)]
    if failed:
        out += ["### Failed tests", ""]
        for test in failed:
            out += _failed_item(test)
        out.append("")
    if all_held:
        out += [f"### Held {_inline(grade.held_until)}", ""]
        out += [f"- **{_inline(t.test.name)}** ({t.test.kind}): held" for t in all_held]
        out.append("")
    out += _figures_table(grade)
    notes = _notes(grade)
    if notes:
        out += ["### Notes", ""] + [f"- {n}" for n in notes] + [""]
    out += [f"GPU: {grade.gpu.describe()}", "", f"Graded at {grade.timestamp}.", ""]
    commits = _commits_line(grade)
    if commits:
        out += [commits, ""]
    return "\n".join(out)


def _summary_row(
    label: str,
    grade: Grade,
    tests: Sequence[ScoredTest],
    all_held: Sequence[ScoredTest],
    *,
    bold: bool = False,
) -> str:
    shown = grade.shown(tests)
    score, max_score = (number(v) for v in _points(shown))
    mark = "**" if bold else ""
    row = (
        f"| {label} | {mark}{score}{mark} | {mark}{max_score}{mark} | "
        f"{_count(shown, Status.PASSED)} | {_failed_count(shown)} | "
        f"{_count(shown, Status.SKIPPED)} |"
    )
    return row + (f" {len(grade.held(tests))} |" if all_held else "")


def _figures_table(grade: Grade) -> list[str]:
    """The leaderboard's figures with their bars, where students look."""
    rows = _measured(grade)
    if not rows:
        return []
    out = [
        "### Measured",
        "",
        "What the passed timing tests measured (higher is better); with a reference "
        "grading in the same job, the credit each earned on the lab's curve:",
        "",
        "| lab | figure | value | needed | reference | credit |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for lab, test, figure in rows:
        credit = test.credit
        needed = f"{figure.needed:.3g}" if figure.needed is not None else ""
        reference = f"{credit.reference:.3g}" if credit else ""
        share = f"{credit.fraction:.0%}" if credit else ""
        out.append(
            f"| {lab} | {_cell(figure.name)} | {figure.value:.3g} | {needed} | {reference} "
            f"| {share} |"
        )
    return out + [""]


def _commits_line(grade: Grade) -> str:
    """`Graded commit abc (harness def).`, so a job summary names the code it scored."""
    parts = {which: _short(grade.commits.get(which)) for which in ("graded", "harness")}
    if not any(parts.values()):
        return ""
    graded = parts["graded"] or "not a git checkout"
    harness = parts["harness"] or "not a git checkout"
    return f"Graded commit {graded} (harness {harness})."


def _short(checkout: Checkout | None) -> str:
    if not checkout or not checkout["commit"]:
        return ""
    text = f"`{checkout['commit'][:12]}`"
    return text + (" with uncommitted changes" if checkout["clean"] is False else "")


def append_step_summary(summary: Path, environ: Mapping[str, str]) -> str | None:
    """Append summary.md to GitHub Actions' job summary when `GITHUB_STEP_SUMMARY` names
    one: the score is where students look. Returns why it could not, else None."""
    target = environ.get(STEP_SUMMARY_ENV)
    if not target:
        return None
    try:
        text = summary.read_text(encoding="utf-8")
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        return f"{STEP_SUMMARY_ENV}: {exc.strerror or exc}"
    return None


def _failed_item(test: ScoredTest) -> list[str]:
    first, _, rest = test.outcome.reason.partition("\n")
    lost = f", -{number(test.max_points)}" if test.max_points else ""
    item = [f"- **{_inline(test.test.name)}** ({test.test.kind}{lost}): {_inline(first)}"]
    if rest.strip():
        fence = "~~~~" if "```" in rest else "```"
        item += [f"  {fence}"] + [f"  {line}" for line in rest.splitlines()] + [f"  {fence}"]
    return item


def console_summary(grade: Grade) -> list[str]:
    """Each test that did not pass with its reason, then each lab's count and score."""
    bad = (Status.FAILED, Status.ERROR)
    lines = [
        verdict_line(t.test.name, t.outcome) for t in grade.all_tests() if t.outcome.status in bad
    ]
    lines += [
        f"{lab.policy.label}: {tally(t.outcome.status for t in lab.tests)}; "
        f"score {number(lab.score)}/{number(lab.max_score)}"
        for lab in grade.labs
    ]
    return lines + [f"GPU: {grade.gpu.describe()}"]


def tally(statuses: Iterable[Status]) -> str:
    """'185 passed, 2 failed, 0 skipped', and the errors where there are any."""
    counts = Counter(statuses)
    shown = [Status.PASSED, Status.FAILED, Status.SKIPPED] + [Status.ERROR] * (
        Status.ERROR in counts
    )
    return ", ".join(f"{counts[s]} {s.value}" for s in shown)


def verdict_line(name: str, outcome: Outcome) -> str:
    """'NAME: STATUS', and the reason on one line (cut short) when the test did not pass."""
    reason = one_line(outcome.reason) if outcome.status is not Status.PASSED else ""
    if len(reason) > _CONSOLE_REASON:
        reason = reason[: _CONSOLE_REASON - 3] + "..."
    return f"{name}: {outcome.status.value}" + (f": {reason}" if reason else "")


def one_line(text: str) -> str:
    """A multi-line reason on one line, its lines joined by ' / '."""
    return " / ".join(filter(None, map(str.strip, text.splitlines())))


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table of plain text, each cell's `|` escaped."""
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    return lines + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def _inline(text: str) -> str:
    """Keep student text from turning into Markdown or HTML."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _cell(text: str) -> str:
    return _inline(text).replace("\n", " ")
