"""results.json against the Gradescope autograder specification, field by field.

The spec (gradescope-autograders.readthedocs.io, "Autograder Specifications") lists
every field results.json may carry; it is written out below as a small schema, so
this test needs no network. A field the spec does not list fails the test: what is
ours goes into `extra_data`, which the spec stores as given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from grader.core.commits import Checkout
from grader.core.gpu import GpuInfo
from grader.core.model import BUILD_KIND, Figure, LabTest, Outcome, Status
from grader.core.reports import write_all
from grader.core.scoring import Grade, LabPolicy, score_lab
from grader.tests.helpers import (
    figure_build,
    git,
    grade_hidden,
    histogram_lab,
    make_repo,
    needs_ctest,
)

Check = Callable[[Any], bool]
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
FORMATS = ("text", "simple_format", "html", "md", "ansi")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _string(value: Any) -> bool:
    return isinstance(value, str)


def _one_of(*allowed: str) -> Check:
    return lambda value: value in allowed


def _object(value: Any) -> bool:
    return isinstance(value, dict)


def _list_of(item: Check) -> Check:
    return lambda value: isinstance(value, list) and all(item(v) for v in value)


def _shaped(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    return lambda value: not _problems(value, fields, required)


TEST_FIELDS: dict[str, Check] = {
    "score": _number,
    "max_score": _number,
    "status": _one_of("passed", "failed"),
    "name": _string,
    "name_format": _one_of(*FORMATS),
    "number": _string,
    "output": _string,
    "output_format": _one_of(*FORMATS),
    "tags": _list_of(_string),
    "visibility": _one_of(*VISIBILITIES),
    "extra_data": _object,
}
LEADERBOARD_FIELDS: dict[str, Check] = {
    "name": _string,
    "value": lambda v: _number(v) or _string(v),
    "order": _one_of("asc", "desc"),
}
TOP_FIELDS: dict[str, Check] = {
    "score": _number,
    "execution_time": _number,
    "output": _string,
    "output_format": _one_of(*FORMATS),
    "test_output_format": _one_of(*FORMATS),
    "test_name_format": _one_of(*FORMATS),
    "visibility": _one_of(*VISIBILITIES),
    "stdout_visibility": _one_of(*VISIBILITIES),
    "extra_data": _object,
    "tests": _list_of(_shaped(TEST_FIELDS)),
    "leaderboard": _list_of(_shaped(LEADERBOARD_FIELDS, required=("name", "value"))),
}
# Not required by the spec, but what graders, the class table and the archive rely on.
OUR_TOP_FIELDS = ("score", "execution_time", "output", "visibility", "extra_data", "tests")
OUR_TEST_FIELDS = tuple(TEST_FIELDS)
# Ours always name the order, and every value is a measured ratio.
OUR_LEADERBOARD_FIELDS: dict[str, Check] = {**LEADERBOARD_FIELDS, "value": _number}
OUR_EXTRA_DATA: dict[str, Check] = {
    "max_score": _number,
    "gpu": _object,
    "host": _string,
    "started": lambda v: v is None or _string(v),
    "timestamp": _string,
    "execution_time_s": _number,
    "processes_started": lambda v: isinstance(v, int) and v >= 0,
    "phase_s": lambda v: isinstance(v, dict) and all(_number(x) for x in v.values()),
    "graded_commit": _object,
    "harness_commit": _object,
    "hidden_data": lambda v: isinstance(v, bool),
    "sandboxed": lambda v: isinstance(v, bool),
    "labs": _list_of(_object),
    "notes": _list_of(_string),
}


def _problems(doc: Any, fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> list[str]:
    """Every field outside `fields`, of the wrong type, or missing from `required`."""
    if not isinstance(doc, dict):
        return [f"not an object: {doc!r}"]
    found = [f"{key}: not in the spec" for key in doc if key not in fields]
    found += [
        f"{key}: bad value {doc[key]!r}"
        for key in doc
        if key in fields and not fields[key](doc[key])
    ]
    return found + [f"{key}: missing" for key in required if key not in doc]


def assert_to_spec(doc: dict[str, Any]) -> None:
    """The whole document, each test and our extra data, as the schema above says."""
    assert _problems(doc, TOP_FIELDS, OUR_TOP_FIELDS) == []
    for test in doc["tests"]:
        assert _problems(test, TEST_FIELDS, OUR_TEST_FIELDS) == [], test["name"]
    assert _problems(doc["extra_data"], OUR_EXTRA_DATA, tuple(OUR_EXTRA_DATA)) == []
    for which in ("graded_commit", "harness_commit"):
        checkout = doc["extra_data"][which]
        assert set(checkout) == {"commit", "clean"}
        assert checkout["commit"] is None or len(checkout["commit"]) in (40, 64)
    numbers = [t["number"] for t in doc["tests"]]
    assert len(set(numbers)) == len(numbers), "test numbers repeat"
    for entry in doc.get("leaderboard", []):
        assert _problems(entry, OUR_LEADERBOARD_FIELDS, tuple(OUR_LEADERBOARD_FIELDS)) == []
    names = [entry["name"] for entry in doc.get("leaderboard", [])]
    assert len(set(names)) == len(names), "leaderboard names repeat: Gradescope keys them by name"


def test_the_schema_refuses_what_the_spec_does_not_have() -> None:
    assert _problems({"score": 1, "max_score": 2}, TOP_FIELDS) == ["max_score: not in the spec"]
    assert _problems({"status": "error"}, TEST_FIELDS) == ["status: bad value 'error'"]
    assert _problems({"visibility": "later"}, TOP_FIELDS) == ["visibility: bad value 'later'"]
    assert not _shaped(LEADERBOARD_FIELDS, ("name", "value"))({"name": "x"})
    assert _problems({"name": "x", "value": 1, "order": "up"}, LEADERBOARD_FIELDS) == [
        "order: bad value 'up'"
    ]
    assert _problems({"name": "x", "value": "1.2"}, OUR_LEADERBOARD_FIELDS, ("order",)) == [
        "value: bad value '1.2'",
        "order: missing",
    ]


def _grade(*, hidden_data: bool) -> Grade:
    lab3 = score_lab(
        LabPolicy("lab3", "Reduction", {"correctness": 2, "timing": 2}),
        [
            (
                LabTest("lab3.T.Fast", "lab3", "timing"),
                Outcome(Status.FAILED, "0.7 (needed >= 0.8)", figure=Figure("fastest / x", 0.7)),
            ),
            (LabTest("lab3.C.Small", "lab3", "correctness"), Outcome(Status.PASSED)),
            (
                LabTest("lab3.R.Cub", "lab3", "reference"),
                Outcome(Status.PASSED, figure=Figure("shuffle / CUB", 1.0214, 0.9)),
            ),
            (LabTest("lab3.C.Big", "lab3", "correctness"), Outcome(Status.SKIPPED, "no GPU")),
        ],
    )
    lab12 = score_lab(
        LabPolicy("lab12", "", {"correctness": 10}),
        [(LabTest("lab12.build", "lab12", BUILD_KIND), Outcome(Status.FAILED, "did not build"))],
    )
    commit = Checkout(commit="a" * 40, clean=False)
    return Grade(
        (lab12, lab3),
        GpuInfo("present", {"name": "H100"}),
        "2025-01-01T00:01:00+00:00",
        hidden_data=hidden_data,
        execution_s=61.4,
        started="2025-01-01T00:00:00+00:00",
        commits={"graded": commit, "harness": Checkout(commit=None, clean=None)},
    )


def test_written_results_follow_the_spec_and_number_tests_lab_kind_index(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _grade(hidden_data=True))
    doc = json.loads(paths["results.json"].read_text())
    assert_to_spec(doc)
    assert [(t["number"], t["name"]) for t in doc["tests"]] == [
        ("3.1.1", "lab3.C.Small (correctness)"),
        ("3.1.2", "lab3.C.Big (correctness)"),
        ("3.2.1", "lab3.T.Fast (timing)"),
        ("3.3.1", "lab3.R.Cub (reference)"),
        ("12.0.1", "lab12.build (build)"),
    ]
    assert (doc["score"], doc["execution_time"], doc["extra_data"]["max_score"]) == (1, 61, 14)
    assert doc["leaderboard"] == [{"name": "lab3 shuffle / CUB", "value": 1.021, "order": "desc"}]
    assert doc["extra_data"]["graded_commit"] == {"commit": "a" * 40, "clean": False}
    summary = paths["summary.md"].read_text()
    assert f"Graded commit `{'a' * 12}` with uncommitted changes (harness not a git" in summary


def test_hidden_data_tests_are_shown_after_the_due_date(tmp_path: Path) -> None:
    """A grading with a secret is the instructor's: one set of reports with everything
    in it, in which Gradescope's own `visibility` holds each test that ran on hidden
    data until the due date. Whether a lab built ran on no data: shown at once."""
    paths = write_all(tmp_path, _grade(hidden_data=True))
    doc = json.loads(paths["results.json"].read_text())
    visibility = {t["number"]: t["visibility"] for t in doc["tests"]}
    assert visibility == {
        "3.1.1": "after_due_date",
        "3.1.2": "after_due_date",
        "3.2.1": "after_due_date",
        "3.3.1": "after_due_date",
        "12.0.1": "visible",
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "summary.md"]
    assert doc["output"].splitlines()[:2] == ["lab12: 0/10", "lab3 Reduction: 1/4"]
    assert doc["score"] == 1 and doc["leaderboard"]
    assert "**lab3.T.Fast** (timing, -2): 0.7 (needed \\>= 0.8)" in paths["summary.md"].read_text()


def test_public_data_results_are_visible(tmp_path: Path) -> None:
    doc = json.loads(write_all(tmp_path, _grade(hidden_data=False))["results.json"].read_text())
    assert {t["visibility"] for t in doc["tests"]} == {"visible"}
    assert doc["extra_data"]["hidden_data"] is False


@needs_ctest
def test_a_grading_run_writes_results_to_the_spec(tmp_path: Path) -> None:
    """A real `grade` on fake tests: hidden data, a harness in git, a job summary."""
    build = figure_build(tmp_path)
    repo = make_repo(tmp_path, histogram_lab(correctness=1, timing=4))
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "labs")
    job_summary = tmp_path / "step-summary.md"
    job_summary.write_text("before\n")
    proc = grade_hidden(tmp_path, repo, build, env={"GITHUB_STEP_SUMMARY": str(job_summary)})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert_to_spec(doc)
    assert [(t["number"], t["status"], t["visibility"]) for t in doc["tests"]] == [
        ("1.1.1", "failed", "after_due_date"),
        ("1.2.1", "passed", "after_due_date"),
    ]
    assert not (tmp_path / "out" / "instructor").exists()
    assert doc["leaderboard"] == [
        {"name": "lab1 fastest variant / copy ceiling", "value": 0.912, "order": "desc"}
    ]
    extra = doc["extra_data"]
    assert extra["harness_commit"] == {"commit": git(repo, "rev-parse", "HEAD"), "clean": True}
    assert extra["hidden_data"] is True and extra["max_score"] == 5
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "- **lab1.Hist.Uniform** (correctness, -1): " in summary
    assert job_summary.read_text() == "before\n" + summary
