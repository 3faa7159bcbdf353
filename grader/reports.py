"""The three reports of a grading run, in formats graders already read.

- `junit.xml`: one testsuite per lab, the reason as each failure's message;
- `results.json`: Gradescope's layout plus the GPU and a timestamp;
- `summary.md`: a table for a GitHub Actions job summary.

A skipped test scores 0 and is never shown as passed. A run whose student code
ran outside the sandbox says so first in each report.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Sequence

from grader.model import Status
from grader.scoring import Grade, LabScore, ScoredTest, number

JUNIT_NAME = "junit.xml"
RESULTS_NAME = "results.json"
SUMMARY_NAME = "summary.md"
_OUTPUT_IN_RESULTS = 4000
# Characters XML 1.0 cannot carry; student output may contain any byte.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_all(out_dir: Path, grade: Grade) -> dict[str, Path]:
    """Write the three reports into `out_dir`; returns their paths by name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / name for name in (JUNIT_NAME, RESULTS_NAME, SUMMARY_NAME)}
    junit_tree(grade).write(paths[JUNIT_NAME], encoding="utf-8", xml_declaration=True)
    paths[RESULTS_NAME].write_text(json.dumps(results_json(grade), indent=2) + "\n",
                                   encoding="utf-8")
    paths[SUMMARY_NAME].write_text(summary_markdown(grade), encoding="utf-8")
    return paths


# --- JUnit XML -------------------------------------------------------------------------

def junit_tree(grade: Grade) -> ET.ElementTree:
    """JUnit XML with one testsuite per lab."""
    name = f"cuda-labs ({grade.unsandboxed})" if grade.unsandboxed else "cuda-labs"
    root = ET.Element("testsuites", {"name": _xml(name), "timestamp": grade.timestamp,
                                     **_junit_counts(grade.all_tests())})
    for lab in grade.labs:
        suite = ET.SubElement(root, "testsuite", {"name": lab.lab, "timestamp": grade.timestamp,
                                                  **_junit_counts(lab.tests)})
        props = ET.SubElement(suite, "properties")
        for key, value in (("title", lab.policy.title), ("score", number(lab.score)),
                           ("max_score", number(lab.max_score)), ("gpu", grade.gpu.describe())):
            ET.SubElement(props, "property", name=key, value=_xml(str(value)))
        for test in lab.tests:
            _junit_case(suite, test)
    ET.indent(root)
    return ET.ElementTree(root)


def _junit_counts(tests: Sequence[ScoredTest]) -> dict[str, str]:
    count = {status: sum(1 for t in tests if t.outcome.status is status) for status in Status}
    return {"tests": str(len(tests)), "failures": str(count[Status.FAILED]),
            "errors": str(count[Status.ERROR]), "skipped": str(count[Status.SKIPPED]),
            "time": f"{sum(t.outcome.duration_s for t in tests):.3f}"}


def _junit_case(suite: ET.Element, test: ScoredTest) -> None:
    outcome = test.outcome
    case = ET.SubElement(suite, "testcase", classname=f"{test.test.lab}.{test.test.kind}",
                         name=test.test.name, time=f"{outcome.duration_s:.3f}")
    tag = {Status.FAILED: "failure", Status.ERROR: "error", Status.SKIPPED: "skipped"}.get(
        outcome.status)
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

def results_json(grade: Grade) -> dict[str, Any]:
    """Gradescope's results layout; `status` is only ever passed or failed."""
    return {
        "score": number(grade.score),
        "max_score": number(grade.max_score),
        "output": _overview(grade),
        "tests": [_result_test(t) for t in grade.all_tests()],
        "gpu": grade.gpu.as_json(),
        "timestamp": grade.timestamp,
        "labs": [_result_lab(lab) for lab in grade.labs],
        "notes": list(grade.notes) + [n for lab in grade.labs for n in lab.notes],
        "sandboxed": not grade.unsandboxed,
    }


def _result_test(test: ScoredTest) -> dict[str, Any]:
    outcome = test.outcome
    if outcome.status is Status.PASSED:
        text = "passed"
    elif outcome.status is Status.SKIPPED:
        text = f"SKIPPED (not graded, scores 0): {outcome.reason}"
    else:
        text = f"{outcome.status.value.upper()}: {outcome.reason}"
    if outcome.status is not Status.PASSED and outcome.output:
        text += "\n\n--- last output ---\n" + outcome.output[-_OUTPUT_IN_RESULTS:]
    return {
        "name": f"{test.test.name} ({test.test.kind})",
        "score": number(test.points),
        "max_score": number(test.max_points),
        "status": "passed" if outcome.status is Status.PASSED else "failed",
        "output": text,
        "tags": [test.test.lab, test.test.kind],
        "extra_data": {"lab": test.test.lab, "kind": test.test.kind,
                       "outcome": outcome.status.value,
                       "duration_s": round(outcome.duration_s, 3),
                       **({"gpu_clocks": dict(outcome.clocks)} if outcome.clocks else {})},
    }


def _result_lab(lab: LabScore) -> dict[str, Any]:
    return {"lab": lab.lab, "title": lab.policy.title, "score": number(lab.score),
            "max_score": number(lab.max_score), "passed": lab.count(Status.PASSED),
            "failed": _failed(lab), "skipped": lab.count(Status.SKIPPED),
            "notes": list(lab.notes)}


def _failed(lab: LabScore | Grade) -> int:
    return lab.count(Status.FAILED) + lab.count(Status.ERROR)


def _overview(grade: Grade) -> str:
    lines = [grade.unsandboxed] if grade.unsandboxed else []
    lines += [f"{lab.policy.label}: {number(lab.score)}/{number(lab.max_score)}"
              for lab in grade.labs]
    skipped = _skip_sentence(grade)
    if skipped:
        lines.append(skipped)
    lines.append(f"GPU: {grade.gpu.describe()}")
    return "\n".join(lines)


def _skip_sentence(grade: Grade) -> str:
    skipped = grade.count(Status.SKIPPED)
    if not skipped:
        return ""
    why = "no GPU was available" if not grade.gpu.present else "their setup was skipped"
    plural = "tests were" if skipped > 1 else "test was"
    detail = grade.gpu.reason or grade.gpu.describe()
    return (f"Not graded: {skipped} {plural} skipped because {why} ({detail}). "
            "Skipped tests score 0; they did not pass.")


# --- Markdown summary ------------------------------------------------------------------

def summary_markdown(grade: Grade) -> str:
    """A job summary: the score table, what failed and why, then the GPU."""
    heading = "## cuda-labs grading" + (f" ({_inline(grade.unsandboxed)})"
                                        if grade.unsandboxed else "")
    out = [heading, "",
           "| lab | score | max | passed | failed | skipped |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for lab in grade.labs:
        out.append(f"| {_cell(lab.policy.label)} | {number(lab.score)} | "
                   f"{number(lab.max_score)} | {lab.count(Status.PASSED)} | {_failed(lab)} | "
                   f"{lab.count(Status.SKIPPED)} |")
    out.append(f"| **total** | **{number(grade.score)}** | **{number(grade.max_score)}** | "
               f"{grade.count(Status.PASSED)} | {_failed(grade)} | {grade.count(Status.SKIPPED)} |")
    out.append("")
    skipped = _skip_sentence(grade)
    if skipped:
        out += [f"**{skipped}**", ""]
    failed = [t for t in grade.all_tests() if t.outcome.status in (Status.FAILED, Status.ERROR)]
    if failed:
        out += ["### Failed tests", ""]
        for test in failed:
            out += _failed_item(test)
        out.append("")
    notes = list(grade.notes) + [n for lab in grade.labs for n in lab.notes]
    if notes:
        out += ["### Notes", ""] + [f"- {n}" for n in notes] + [""]
    out += [f"GPU: {grade.gpu.describe()}", "", f"Graded at {grade.timestamp}.", ""]
    return "\n".join(out)


def _failed_item(test: ScoredTest) -> list[str]:
    first, _, rest = test.outcome.reason.partition("\n")
    lost = f", -{number(test.max_points)}" if test.max_points else ""
    item = [f"- **{_inline(test.test.name)}** ({test.test.kind}{lost}): {_inline(first)}"]
    if rest.strip():
        fence = "~~~~" if "```" in rest else "```"
        item += [f"  {fence}"] + [f"  {line}" for line in rest.splitlines()] + [f"  {fence}"]
    return item


def _inline(text: str) -> str:
    """Keep student text from turning into Markdown or HTML."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _cell(text: str) -> str:
    return _inline(text).replace("\n", " ")
