"""The reports of a grading run, in formats graders already read.

- `results.json`: Gradescope's autograder results, to its specification;
- `summary.md`: a table for a GitHub Actions job summary;

and the console's account of a run, which every command that grades prints alike.
JUnit XML is ctest's own (`ctest --output-junit FILE`).

A skipped test scores 0 and is never shown as passed. A run whose student code
ran outside the sandbox says so first in each report.

A grading on hidden data (with the instructor's secret) is the instructor's: its
reports go to the instructor's folder only, and results.json marks each test that
ran on hidden data `after_due_date`, Gradescope's own way to hold a result back.
"""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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
from grader.core.scoring import Grade, LabScore, ScoredTest, number, on_hidden_data

RESULTS_NAME = "results.json"
SUMMARY_NAME = "summary.md"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
_OUTPUT_IN_RESULTS = 4000
_CONSOLE_REASON = 300  # characters of a reason on the console; the reports hold it whole


def write_all(out_dir: Path, grade: Grade) -> dict[str, Path]:
    """Write the reports into `out_dir`; returns their paths by name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in (RESULTS_NAME, SUMMARY_NAME)}
    paths[RESULTS_NAME].write_text(
        json.dumps(results_json(grade), indent=2) + "\n", encoding="utf-8"
    )
    paths[SUMMARY_NAME].write_text(summary_markdown(grade), encoding="utf-8")
    return paths


def _count(tests: Sequence[ScoredTest], status: Status) -> int:
    return sum(1 for t in tests if t.outcome.status is status)


def _failed_count(tests: Sequence[ScoredTest]) -> int:
    return _count(tests, Status.FAILED) + _count(tests, Status.ERROR)


def _points(tests: Sequence[ScoredTest]) -> tuple[float, float]:
    return sum(t.points for t in tests), sum(t.max_points for t in tests)


def _notes(grade: Grade) -> list[str]:
    return list(grade.notes) + [n for lab in grade.labs for n in lab.notes]


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
    """Gradescope's results format; a test's `status` is only ever passed or failed,
    and a test that ran on hidden data is shown only after the due date."""
    doc: dict[str, Any] = {
        "score": number(grade.score),
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
    """What the spec has no field for: stored with the result, shown to no one."""
    return {
        "max_score": number(grade.max_score),
        "gpu": grade.gpu.as_json(),
        "host": socket.gethostname(),  # a class graded on a cluster says where
        "started": grade.started or None,
        "timestamp": grade.timestamp,
        "execution_time_s": round(grade.execution_s, 3),
        "processes_started": grade.processes_started,
        "phase_s": {name: round(seconds, 3) for name, seconds in grade.phase_s.items()},
        "graded_commit": _commit(grade, "graded"),
        "harness_commit": _commit(grade, "harness"),
        "hidden_data": grade.hidden_data,
        "sandboxed": not grade.unsandboxed,
        "labs": [_result_lab(lab) for lab in grade.labs],
        "notes": _notes(grade),
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
    """A timing test's measured ratio as data, for the calibration (calibration.py) and the
    bars' (scripts/calibrate.py, which reads the lab.json bar it was derived from)."""
    data = {"name": figure.name, "value": figure.value, "needed": figure.needed}
    return {**data, "bar": figure.bar} if figure.bar else data


# Every figure is a ratio its test needs at least (harness::ratio_at_least): higher is
# better, which Gradescope ranks first with "desc".
LEADERBOARD_ORDER = "desc"


def leaderboard(grade: Grade) -> list[dict[str, Any]]:
    """Each lab's measured performance: one entry per figure of a passed test, named
    `<lab> <figure>` ("lab3 fastest variant / copy ceiling"), lab by lab.

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
    """(lab, test, figure) of each passed test that recorded one, lab by lab: only
    what the grade accepted is ranked."""
    return [
        (lab.lab, test, test.outcome.figure)
        for lab in _by_number(grade.labs)
        for test in lab.tests
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
    lines += [
        f"{lab.policy.label}: {number(lab.score)}/{number(lab.max_score)}" for lab in grade.labs
    ]
    skipped = _skip_sentence(grade, grade.all_tests())
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
    """A job summary: the score table, what failed and why, then the GPU."""
    heading = "## cuda-labs grading" + (
        f" ({_inline(grade.unsandboxed)})" if grade.unsandboxed else ""
    )
    out = [
        heading,
        "",
        "| lab | score | max | passed | failed | skipped |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for lab in grade.labs:
        out.append(_summary_row(_cell(lab.policy.label), lab.tests))
    out.append(_summary_row("**total**", grade.all_tests(), bold=True))
    out.append("")
    tests = grade.all_tests()
    skipped = _skip_sentence(grade, tests)
    if skipped:
        out += [f"**{skipped}**", ""]
    failed = [t for t in tests if t.outcome.status in (Status.FAILED, Status.ERROR)]
    if failed:
        out += ["### Failed tests", ""]
        for test in failed:
            out += _failed_item(test)
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


def _summary_row(label: str, tests: Sequence[ScoredTest], *, bold: bool = False) -> str:
    score, max_score = (number(v) for v in _points(tests))
    mark = "**" if bold else ""
    return (
        f"| {label} | {mark}{score}{mark} | {mark}{max_score}{mark} | "
        f"{_count(tests, Status.PASSED)} | {_failed_count(tests)} | "
        f"{_count(tests, Status.SKIPPED)} |"
    )


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
