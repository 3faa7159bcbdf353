"""The sanitizer stage of instructor grading, end to end through `grade` on fake
builds whose compute-sanitizer is fakes/fake_sanitizer.py: what a tool finds in a
variant costs that variant's correctness tests, at every size, and nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.core.model import variant_of
from grader.tests.helpers import (
    FAKES,
    FakeSpec,
    gtest_spec,
    histogram_lab,
    make_build,
    make_repo,
    needs_ctest,
    run_grade,
)
from grader.tests.test_results_schema import assert_to_spec

pytestmark = needs_ctest
GRADING = histogram_lab(correctness=1)
SMALL = "*__single*"


def _sanitize_spec(tool: str, log: Path, faulty: str) -> FakeSpec:
    command = (
        sys.executable,
        str(FAKES / "fake_sanitizer.py"),
        "--tool",
        tool,
        "--error-exitcode",
        "86",
        "--log",
        str(log),
        "--faulty",
        faulty,
        sys.executable,
        str(FAKES / "fake_gtest.py"),
        "pass",
        f"--gtest_filter={SMALL}",
    )
    return FakeSpec(f"lab1.sanitize.{tool}", ("sanitize", "lab1.sanitize"), command, 60)


def _cases(modes: dict[str, str]) -> list[FakeSpec]:
    return [
        gtest_spec("lab1", "correctness", mode, f"Correctness/H.X/{case}")
        for case, mode in modes.items()
    ]


PASSING = {
    "good__single": "pass",
    "good__big": "pass",
    "racy__single": "pass",
    "racy__big": "pass",
    "wrong__single": "fail",
}


def _grade(tmp_path: Path, specs: list[FakeSpec], *extra: str) -> subprocess.CompletedProcess[str]:
    build = make_build(tmp_path, specs)
    repo = make_repo(tmp_path, GRADING)
    return run_grade(tmp_path, repo, "--build", str(build), "--sandbox", "off", *extra)


def _tests(tmp_path: Path) -> dict[str, dict[str, Any]]:
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert_to_spec(doc)
    return {t["name"].rsplit(" (", 1)[0]: t for t in doc["tests"]}


def _filters(log: Path) -> list[list[str]]:
    return [sorted(line.split(":")) for line in log.read_text().splitlines()]


def test_a_faulted_variant_fails_its_correctness_tests_at_every_size(tmp_path: Path) -> None:
    log = tmp_path / "sanitizer.log"
    specs = [*_cases(PASSING), _sanitize_spec("racecheck", log, "racy")]
    proc = _grade(tmp_path, specs, "--sanitize")
    assert proc.returncode == 1, proc.stderr
    tests = _tests(tmp_path)
    for case in ("racy__single", "racy__big"):
        test = tests[f"lab1.Correctness/H.X/{case}"]
        assert test["status"] == "failed" and test["score"] == 0
        assert "racecheck found undefined behaviour in variant 'racy'" in test["output"]
        assert "Race reported between Write access" in test["output"]
    for case in ("good__single", "good__big"):
        assert tests[f"lab1.Correctness/H.X/{case}"]["status"] == "passed"
    # The run over the small cases, then one per variant (side by side, in any order)
    # to find whose kernel it was. `wrong` passed no correctness test: a charge, which
    # fails only passed tests, could change nothing, so it does not run.
    first, *split = _filters(log)
    assert first == sorted(f"Correctness/H.X/{v}__single" for v in ("good", "racy"))
    assert sorted(split) == [[f"Correctness/H.X/{v}__single"] for v in ("good", "racy")]
    run = tests["lab1.sanitize.racecheck"]
    assert run["status"] == "failed" and run["max_score"] == 0
    assert "compute-sanitizer --tool racecheck reported 1 error" in run["output"]


def test_a_clean_run_costs_nothing_and_is_not_split(tmp_path: Path) -> None:
    log = tmp_path / "sanitizer.log"
    specs = [*_cases(PASSING), _sanitize_spec("memcheck", log, "nothing-is-faulty")]
    proc = _grade(tmp_path, specs, "--sanitize")
    tests = _tests(tmp_path)
    assert tests["lab1.sanitize.memcheck"]["status"] == "passed", proc.stderr
    assert [t["status"] for n, t in tests.items() if "good" in n or "racy" in n] == ["passed"] * 4
    assert len(_filters(log)) == 1


def test_a_failure_no_variant_reproduces_alone_is_charged_to_every_variant(
    tmp_path: Path,
) -> None:
    log = tmp_path / "sanitizer.log"
    specs = [*_cases(PASSING), _sanitize_spec("synccheck", log, "*together*")]
    _grade(tmp_path, specs, "--sanitize")
    tests = _tests(tmp_path)
    for case in ("good__single", "good__big", "racy__single", "racy__big"):
        test = tests[f"lab1.Correctness/H.X/{case}"]
        assert test["status"] == "failed"
        assert "synccheck found undefined behaviour" in test["output"]


def test_hung_variants_are_left_out_of_the_runs(tmp_path: Path) -> None:
    log = tmp_path / "sanitizer.log"
    modes = {"good__single": "pass", "stuck__single": "hang", "stuck__big": "pass"}
    specs = [*_cases(modes), _sanitize_spec("racecheck", log, "stuck")]
    specs = [
        FakeSpec(
            s.name,
            s.labels,
            s.command,
            2 if "stuck" in s.name else s.timeout,
            fixtures_required=s.fixtures_required,
        )
        for s in specs
    ]
    _grade(tmp_path, specs, "--sanitize")
    assert _filters(log) == [["Correctness/H.X/good__single"]]
    tests = _tests(tmp_path)
    assert tests["lab1.Correctness/H.X/stuck__big"]["status"] == "passed"


def test_every_variant_hung_leaves_the_run_failed_and_not_run(tmp_path: Path) -> None:
    log = tmp_path / "sanitizer.log"
    specs = [*_cases({"stuck__single": "hang"}), _sanitize_spec("racecheck", log, "x")]
    specs = [
        FakeSpec(s.name, s.labels, s.command, 2, fixtures_required=s.fixtures_required)
        if "stuck" in s.name
        else s
        for s in specs
    ]
    _grade(tmp_path, specs, "--sanitize")
    assert not log.exists()
    run = _tests(tmp_path)["lab1.sanitize.racecheck"]
    assert run["status"] == "failed" and "not run under compute-sanitizer" in run["output"]


def test_without_the_flag_no_secret_means_no_stage(tmp_path: Path) -> None:
    log = tmp_path / "sanitizer.log"
    specs = [*_cases(PASSING), _sanitize_spec("racecheck", log, "racy")]
    _grade(tmp_path, specs)
    tests = _tests(tmp_path)
    assert "lab1.sanitize.racecheck" not in tests
    assert tests["lab1.Correctness/H.X/racy__big"]["status"] == "passed"
    assert not log.exists()


def test_a_secret_turns_the_stage_on_and_a_build_without_it_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    proc = _grade(tmp_path, _cases(PASSING), "--secret-file", str(secret))
    assert proc.returncode == 2
    assert "no sanitize tests for the sanitizer stage" in proc.stderr
    assert "-DLAB_SANITIZE=ON" in proc.stderr and "--no-sanitize" in proc.stderr


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("Correctness/Reduction.GivesTheExactSum/shuffle__single__block512", "shuffle"),
        ("Correctness/SumMatrix.MatchesTheCpuExactly/block7x5__1000x997", "block7x5"),
        ("Timing.FastestVariant", "Timing.FastestVariant"),
    ],
)
def test_the_variant_is_the_first_part_of_the_case_name(name: str, variant: str) -> None:
    assert variant_of(name) == variant
