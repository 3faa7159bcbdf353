"""Hidden-data results wait for their release: the rule (grader/core/release.py) on an
injected clock, then every output, held and released, on small made-up grades."""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.classroom.batch import LabResult, StudentResult, Submission
from grader.classroom.batch_steps import (
    BatchConfig,
    BuiltTree,
    apply_static,
    grade_submission,
    worker_command,
)
from grader.classroom.class_table import result_from_report, write_class_table
from grader.core.deadline import LatePolicy
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.model import BUILD_KIND, Figure, LabTest, Outcome, Status
from grader.core.release import (
    HOLD,
    RELEASE,
    Release,
    decide,
    release_from_args,
    release_time,
)
from grader.core.reports import write_all
from grader.core.scoring import Grade, LabPolicy, score_lab
from grader.core.worker_request import WorkerRequest
from grader.options import add_release_arguments
from grader.tests.helpers import (
    figure_build,
    grade_hidden,
    gtest_spec,
    make_build,
    make_repo,
    needs_ctest,
    run_grader,
    setup_spec,
)

UTC = dt.timezone.utc
DUE = dt.datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
# bob's 3 days of extension and the 2 late days: nobody hands in after 6 December.
POLICY = LatePolicy(DUE, late_days=2, penalty_per_day=0.1, extensions={"ann": 1, "bob": 3})
LAST = dt.datetime(2026, 12, 6, 23, 59, tzinfo=UTC)
MINUTE = dt.timedelta(minutes=1)
HELD = decide(POLICY, DUE - MINUTE)
RELEASED = decide(POLICY, LAST + MINUTE)
UNTIL = "until after the deadline (2026-12-06T23:59:00+00:00)"
SECRET_REASON = "bin 7: expected 9, got 8"


# --- the rule ------------------------------------------------------------------------------


def test_release_waits_for_the_last_student_who_may_still_hand_in() -> None:
    assert release_time(POLICY) == LAST
    for now in (DUE - MINUTE, DUE + MINUTE, DUE + dt.timedelta(days=3, minutes=1), LAST):
        release = decide(POLICY, now)
        assert not release.released and release.at == LAST, now
    assert decide(POLICY, LAST + MINUTE).released
    assert HELD.until() == UNTIL and "held until 2026-12-06T23:59:00+00:00" in HELD.why


def test_without_extensions_or_late_days_the_due_time_releases() -> None:
    policy = LatePolicy(DUE)
    assert release_time(policy) == DUE
    assert not decide(policy, DUE).released and decide(policy, DUE + MINUTE).released


def test_the_flags_override_the_clock() -> None:
    early = decide(POLICY, DUE - MINUTE, RELEASE)
    late = decide(POLICY, LAST + dt.timedelta(days=30), HOLD)
    assert early.released and "--release-hidden" in early.why
    assert not late.released and "--hold-hidden" in late.why and late.at == LAST


def test_without_a_policy_results_are_held_until_released_by_hand() -> None:
    held = decide(None, LAST + dt.timedelta(days=365))
    assert not held.released and held.at is None and "no --deadline-policy" in held.why
    assert held.until() == "until after the deadline"
    assert decide(None, DUE, RELEASE).released


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_release_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_line_reads_the_policy_and_the_flags(tmp_path: Path) -> None:
    policy = tmp_path / "deadline.json"
    policy.write_text(json.dumps({"due": DUE.isoformat(), "late_days": 2, "extensions": {"b": 3}}))
    args = _parse("--deadline-policy", str(policy))
    assert not release_from_args(args, now=lambda: LAST).released
    assert release_from_args(args, now=lambda: LAST + MINUTE).released
    forced = _parse("--deadline-policy", str(policy), "--hold-hidden")
    assert not release_from_args(forced, now=lambda: LAST + MINUTE).released
    assert release_from_args(_parse("--release-hidden"), now=lambda: DUE).released
    assert not release_from_args(_parse(), now=lambda: LAST + MINUTE).released
    with pytest.raises(SystemExit):
        _parse("--release-hidden", "--hold-hidden")
    policy.write_text(json.dumps({"due": "2026-12-01T23:59:00"}))
    with pytest.raises(GraderUsageError, match="needs a UTC offset"):
        release_from_args(_parse("--deadline-policy", str(policy)))


def test_a_batch_hands_its_one_decision_to_every_worker(tmp_path: Path) -> None:
    for release in (HELD, RELEASED, decide(None, DUE)):
        path = WorkerRequest.of(release).write(tmp_path / "request.json")
        again = WorkerRequest.read(path).release()
        assert (again.released, again.at) == (release.released, release.at)
    config = BatchConfig(tmp_path, ("lab1",), tmp_path, tmp_path, {}, release=RELEASED)
    argv = worker_command(config, BuiltTree(tmp_path / "b", ("lab1",)), tmp_path / "r")
    request = WorkerRequest.read(Path(argv[argv.index("--request") + 1]))
    assert (request.released, request.release_at) == (True, LAST.isoformat())
    (tmp_path / "bad.json").write_text('{"released": true, "colour": 1}')
    with pytest.raises(GraderUsageError, match="not a batch's request"):
        WorkerRequest.read(tmp_path / "bad.json")


# --- one student's reports ----------------------------------------------------------------


def _grade(*, hidden_data: bool) -> Grade:
    """lab1 ran on data (5 of 6 points, a figure); lab2 did not build (no data ran)."""
    lab1 = score_lab(
        LabPolicy("lab1", "Histogram", {"correctness": 2, "timing": 4}),
        [
            (LabTest("lab1.Hist.Uniform", "lab1", "correctness"), Outcome(Status.PASSED)),
            (
                LabTest("lab1.Hist.Skewed", "lab1", "correctness"),
                Outcome(Status.FAILED, SECRET_REASON),
            ),
            (
                LabTest("lab1.Hist.Fast", "lab1", "timing"),
                Outcome(Status.PASSED, figure=Figure("shared / seed global atomics", 6.25, 5)),
            ),
        ],
    )
    lab2 = score_lab(
        LabPolicy("lab2", "Divergence", {"correctness": 10}),
        [
            (
                LabTest("lab2.build", "lab2", BUILD_KIND),
                Outcome(Status.FAILED, "lab2 did not build: error: x"),
            )
        ],
    )
    return Grade(
        (lab1, lab2),
        GpuInfo("present", {"name": "H100"}),
        "2026-12-01T10:00:00+00:00",
        hidden_data=hidden_data,
        run_notes=("Timed out while sharing the GPU, so run again alone: lab1.Hist.Skewed",),
    )


def _text(folder: Path) -> str:
    return "".join(p.read_text() for p in sorted(folder.glob("*")) if p.is_file())


def test_held_reports_show_no_hidden_score_reason_or_figure(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _grade(hidden_data=True), HELD)
    summary = paths["summary.md"].read_text()
    assert (
        f"**Hidden-data results are held {UNTIL}: 3 tests worth 6 points, whose scores and "
        "reasons are not shown" in summary
    )
    assert "| lab | score | max | passed | failed | skipped | held |" in summary
    assert "| lab1 Histogram | 0 | 0 | 0 | 0 | 0 | 3 |" in summary
    assert "| **total** | **0** | **10** | 0 | 1 | 0 | 3 |" in summary
    assert f"### Held {UNTIL}" in summary
    assert "- **lab1.Hist.Skewed** (correctness): held" in summary
    assert "lab2 did not build: error: x" in summary  # no data ran: shown at once
    doc = json.loads(paths["results.json"].read_text())
    # What Gradescope shows before the due date: the top level and the leaderboard.
    for report in (summary, doc["output"], paths["junit.xml"].read_text()):
        assert SECRET_REASON not in report
        assert "run again alone" not in report and "shared / seed" not in report
    assert "score" not in doc and "leaderboard" not in doc
    suites = {s.get("name"): s for s in ET.parse(paths["junit.xml"]).getroot().iter("testsuite")}
    props = {p.get("name"): p.get("value") for p in suites["lab1"].iter("property")}
    assert suites["lab1"].get("tests") == "0" and props["score"] == "0"
    assert props["held"] == f"3 hidden-data tests held {UNTIL}"


def test_the_instructor_copy_keeps_everything(tmp_path: Path) -> None:
    write_all(tmp_path, _grade(hidden_data=True), HELD)
    whole = tmp_path / "instructor"
    summary = (whole / "summary.md").read_text()
    assert "| lab1 Histogram | 5 | 6 | 2 | 1 | 0 |" in summary and "held" not in summary
    assert SECRET_REASON in summary and "run again alone" in summary
    assert "| lab1 | shared / seed global atomics | 6.25 | 5 |" in summary
    doc = json.loads((whole / "results.json").read_text())
    assert doc["score"] == 5 and doc["leaderboard"][0]["value"] == 6.25
    assert SECRET_REASON in (whole / "junit.xml").read_text()


def test_released_reports_show_everything(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _grade(hidden_data=True), RELEASED)
    assert _text(tmp_path) == _text(tmp_path / "instructor")
    summary = paths["summary.md"].read_text()
    assert SECRET_REASON in summary and "held" not in summary


def test_public_data_is_never_held_and_gets_no_instructor_copy(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _grade(hidden_data=False))  # no decision: a student's own run
    summary = paths["summary.md"].read_text()
    assert SECRET_REASON in summary and "held" not in summary
    assert json.loads(paths["results.json"].read_text())["score"] == 5
    assert not (tmp_path / "instructor").exists()


# --- the class table, the gradebook and the leaderboard -------------------------------------


def _class_report(root: Path, release: Release) -> tuple[Path, list[StudentResult]]:
    """ann graded on hidden data, cid on public data, bob broken; the class table."""
    report = root / "report"
    write_all(report / "ann", _grade(hidden_data=True), release)
    write_all(report / "cid", _grade(hidden_data=False), release)
    results = [
        result_from_report(
            name, report / name, gpu="0", expected_labs=["lab1", "lab2"], missing_max={}
        )
        for name in ("ann", "cid")
    ]
    graded = [r for r in results if r is not None]
    graded.append(StudentResult("bob", "broken", reason="grading did not finish in 10 s"))
    write_class_table(graded, report, release=release, footer=("Batch done in 1 s.",))
    return report, graded


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_a_held_class_table_has_public_scores_and_says_so(tmp_path: Path) -> None:
    report, _ = _class_report(tmp_path, HELD)
    rows = _rows(report / "class.csv")
    ann = rows["ann"]
    assert (ann["lab1"], ann["lab2"], ann["total"], ann["max"]) == ("0", "0", "0", "10")
    assert "lab2.build" in ann["failures"] and "Hist.Skewed" not in ann["failures"]
    assert ann["hidden_results"] == f"held {UNTIL}"
    assert (rows["cid"]["lab1"], rows["cid"]["hidden_results"]) == ("5", "")
    assert rows["bob"]["hidden_results"] == ""
    md = (report / "class.md").read_text()
    assert f"**Hidden-data results are held {UNTIL}: the scores count public-data" in md
    assert "| ann | graded | 0 | 0 | 0/10 | - |" in md and md.endswith("Batch done in 1 s.\n")
    assert "| failures | held tests |" in md and "| 3 |" in md
    whole = _rows(report / "instructor" / "class.csv")["ann"]
    assert (whole["lab1"], whole["total"], whole["max"]) == ("5", "5", "16")
    assert SECRET_REASON in whole["failures"] and whole["hidden_results"] == "included"


def test_a_released_class_table_is_the_whole_one(tmp_path: Path) -> None:
    report, _ = _class_report(tmp_path, RELEASED)
    assert (report / "class.csv").read_text() == (report / "instructor" / "class.csv").read_text()
    assert _rows(report / "class.csv")["ann"]["lab1"] == "5"
    assert "Hidden-data results included." in (report / "class.md").read_text()


def test_a_static_rejection_is_shown_while_held() -> None:
    """A lab the static check rejected ran on no data: held or not, it scores 0."""
    whole = StudentResult("ann", "graded", (LabResult("lab1", 5, 6),), ("lab1.X: why",))
    held = StudentResult("ann", "graded", (LabResult("lab1", 0, 0),), (), held_tests=3)
    result = apply_static(
        StudentResult("ann", "graded", whole.labs, whole.failures, public=held),
        {"lab3": ("k.cu:1: library-include: cub",)},
        {"lab1": 6, "lab3": 50},
        ("lab1", "lab3"),
    )
    assert result.public is not None and result.public.held_tests == 3
    for view in (result, result.public):
        assert view.labs[-1] == LabResult("lab3", 0, 50)
        assert view.failures[0].startswith("lab3: rejected by the static check")


def _roster(root: Path) -> Path:
    roster = root / "roster.csv"
    roster.write_text("folder,student_id\nann,1001\nbob,1002\n")
    return roster


def test_the_gradebook_holds_what_the_class_table_holds(tmp_path: Path) -> None:
    report, _ = _class_report(tmp_path, HELD)
    base = ["gradebook", "--class-report", str(report), "--roster", str(_roster(tmp_path))]
    held = run_grader(*base, cwd=tmp_path)
    assert held.returncode == 0, held.stderr
    assert "without (public-data scores only) hidden-data results" in held.stdout
    lines = (report / "gradebook.csv").read_text().splitlines()
    assert lines[0].endswith(",note,hidden_results")
    assert lines[1] == f"1001,,ann,0,0,0,10,0,0,,held {UNTIL}"
    released = run_grader(*base, "--release-hidden", "--out", str(tmp_path / "g.csv"), cwd=tmp_path)
    assert released.returncode == 0, released.stderr
    assert (tmp_path / "g.csv").read_text().splitlines()[1] == "1001,,ann,5,0,5,16,0,5,,included"
    policy = tmp_path / "deadline.json"
    policy.write_text(json.dumps({"due": "2020-01-01T00:00:00+00:00"}))  # long past
    args = [*base, "--deadline-policy", str(policy), "--out", str(tmp_path / "p.csv")]
    assert run_grader(*args, cwd=tmp_path).returncode == 0
    assert (tmp_path / "p.csv").read_text() == (tmp_path / "g.csv").read_text()


def test_the_gradebook_refuses_to_hold_from_a_table_that_includes_them(tmp_path: Path) -> None:
    report, _ = _class_report(tmp_path, RELEASED)
    args = ["gradebook", "--class-report", str(report), "--roster", str(_roster(tmp_path))]
    proc = run_grader(*args, "--hold-hidden", cwd=tmp_path)
    assert proc.returncode == 2 and "includes hidden-data results" in proc.stderr
    assert not (report / "gradebook.csv").exists()


def test_the_leaderboard_ranks_hidden_data_figures_only_once_released(tmp_path: Path) -> None:
    report, _ = _class_report(tmp_path, HELD)
    figure = "lab1 shared / seed global atomics"
    held = run_grader("leaderboard", "--class-report", str(report), cwd=tmp_path)
    assert held.returncode == 0, held.stderr
    board = json.loads((report / "leaderboard.json").read_text())
    assert [r["student"] for r in board[figure]] == ["cid"]  # public data only
    # No policy given: held, with no date to name.
    assert (
        "held until after the deadline: only public-data" in (report / "leaderboard.md").read_text()
    )
    args = ["leaderboard", "--class-report", str(report), "--release-hidden"]
    assert run_grader(*args, cwd=tmp_path).returncode == 0
    board = json.loads((report / "leaderboard.json").read_text())
    assert sorted(r["student"] for r in board[figure]) == ["ann", "cid"]
    assert "held" not in (report / "leaderboard.md").read_text()


# --- the commands -----------------------------------------------------------------------


def test_batch_reads_its_deadline_policy_before_anything_else(tmp_path: Path) -> None:
    (tmp_path / "subs" / "ann" / "lab1_histogram").mkdir(parents=True)
    args = ["batch", str(tmp_path / "subs"), "--report", str(tmp_path / "r")]
    proc = run_grader(*args, "--deadline-policy", str(tmp_path / "none.json"), cwd=tmp_path)
    assert proc.returncode == 2 and "none.json: not a valid deadline policy" in proc.stderr


@needs_ctest
def test_grade_with_a_secret_releases_after_the_last_due_time(tmp_path: Path) -> None:
    build = figure_build(tmp_path)
    repo = make_repo(tmp_path, {"lab1_histogram": {"lab": "lab1", "score": {"timing": 4}}})
    policy = tmp_path / "deadline.json"
    policy.write_text(json.dumps({"due": "2020-01-01T00:00:00+00:00", "extensions": {"a": 2}}))
    proc = grade_hidden(tmp_path, repo, build, "--deadline-policy", str(policy))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "hidden-data results released: the class's last due time, 2020-01-03" in proc.stdout
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert (
        doc["score"] == 4 and doc["leaderboard"] and doc["extra_data"]["hidden_results"] == "shown"
    )
    assert (tmp_path / "out" / "instructor" / "results.json").is_file()


@needs_ctest
@pytest.mark.parametrize("release", [HELD, RELEASED], ids=["held", "released"])
def test_a_batch_worker_writes_what_the_batch_decided(tmp_path: Path, release: Release) -> None:
    """The worker's reports follow the batch's one decision; its output, which quotes
    every failure, is the instructor's either way."""
    build = make_build(
        tmp_path,
        [
            setup_spec("lab1", "ok", tmp_path / "count"),
            gtest_spec("lab1", "correctness", "fail", "Hist.Uniform"),
        ],
    )
    repo = make_repo(tmp_path, {"lab1_histogram": {"lab": "lab1", "score": {"correctness": 1}}})
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "secret").write_text("s3cret\n")
    config = BatchConfig(
        repo=repo,
        labs=("lab1",),
        report_root=tmp_path / "out",
        build_root=tmp_path / "b",
        lab_max={"lab1": 1},
        secret_file=tmp_path / "keys" / "secret",
        sanitize=False,
        release=release,
    )
    result = grade_submission(
        config, Submission("ann", tmp_path, ("lab1",)), BuiltTree(build, ("lab1",)), "0"
    )
    assert result.status == "graded", result.reason
    assert result.public is not None and result.public.held_tests == 1
    report = tmp_path / "out" / "ann"
    assert (report / "instructor" / "grade.log").is_file() and not (report / "grade.log").exists()
    summary = (report / "summary.md").read_text()
    assert ("Hist.Uniform** (correctness): held" in summary) is not release.released
    assert ("score" in json.loads((report / "results.json").read_text())) is release.released
