"""Test discovery from ctest's json-v1 output, and lab selection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.core.discovery import (
    lab_dirs,
    parse_lab_list,
    parse_tests,
    read_ctest_json,
    resolve_labs,
    select_tests,
    setups_by_fixture,
)
from grader.core.errors import GraderUsageError
from grader.core.model import LabTest
from grader.tests.helpers import DATA, gtest_spec, make_build, make_repo, needs_ctest

RECORDED = json.loads((DATA / "ctest_json_v1.json").read_text(encoding="utf-8"))


def _by_name() -> dict[str, LabTest]:
    return {t.name: t for t in parse_tests(RECORDED)}


def test_recorded_tests_are_parsed_with_their_properties() -> None:
    tests = _by_name()
    timing = tests["lab1.HistogramTiming.BeatsGlobalAtomics"]
    assert timing.lab == "lab1" and timing.kind == "timing"
    assert timing.timeout == 120
    assert timing.env == {"LAB_REPS": "30", "LAB_NOTE": "a=b"}
    assert timing.cwd == "/tmp/rec/build"
    assert timing.fixtures_required == ("lab1_data",)
    assert timing.skip_return_codes == (77,)
    assert timing.gtest_filter == "HistogramTiming.BeatsGlobalAtomics"
    assert timing.is_gtest and not timing.is_setup
    assert timing.run_serial
    correct = tests["lab1.Histogram.Uniform"]
    assert correct.kind == "correctness"
    assert not correct.run_serial
    assert correct.skip_patterns == ("cuda-labs: skipped: no CUDA device",)
    assert tests["lab1.HistogramReference.WithinCub"].kind == "reference"


def test_a_dataset_setup_is_a_fixture_not_a_graded_test() -> None:
    setup = _by_name()["lab1.datasets"]
    assert setup.kind == "data" and setup.is_setup and not setup.is_gtest
    assert setup.fixtures_setup == ("lab1_data",)
    assert [t.name for t in setups_by_fixture(parse_tests(RECORDED))["lab1_data"]] == [
        "lab1.datasets"
    ]


def test_a_program_that_was_not_built_has_no_command() -> None:
    tests = _by_name()
    assert tests["lab3.Reduce.Small"].command == ()
    not_built = tests["lab2_divergence_tests_NOT_BUILT"]
    assert not_built.lab == "lab2" and not_built.kind == "build"


def test_tests_of_no_lab_are_left_out() -> None:
    assert "grader_selftest" not in _by_name()


def test_lab1_does_not_select_lab10() -> None:
    tests = parse_tests(RECORDED)
    assert {t.name for t in select_tests(tests, ["lab1"])} == {
        "lab1.Histogram.Uniform",
        "lab1.HistogramTiming.BeatsGlobalAtomics",
        "lab1.HistogramReference.WithinCub",
    }
    assert [t.name for t in select_tests(tests, ["lab10"])] == ["lab10.Sum.Small"]


def test_labels_are_matched_exactly_not_by_prefix() -> None:
    entry = {
        "name": "lab10.X.Y",
        "command": ["x", "--gtest_filter=X.Y"],
        "properties": [{"name": "LABELS", "value": ["lab10", "lab10.timing", "lab1.timing"]}],
    }
    (test,) = parse_tests({"tests": [entry]})
    assert test.lab == "lab10" and test.kind == "timing"


def test_a_test_without_a_kind_label_is_other() -> None:
    entry = {
        "name": "lab4.X.Y",
        "command": ["x"],
        "properties": [{"name": "LABELS", "value": ["lab4", "lab4.correct"]}],
    }
    assert parse_tests({"tests": [entry]})[0].kind == "other"


def test_tests_run_by_lab_number_then_correctness_before_timing() -> None:
    names = [t.name for t in select_tests(parse_tests(RECORDED), ["lab10", "lab1", "lab3"])]
    assert names == [
        "lab1.Histogram.Uniform",
        "lab1.HistogramTiming.BeatsGlobalAtomics",
        "lab1.HistogramReference.WithinCub",
        "lab3.Reduce.Small",
        "lab10.Sum.Small",
    ]


def test_lab_dirs_map_ids_to_folders(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": None, "lab10_scan": None})
    (repo / "labs" / "lab2_notes.txt").write_text("not a lab folder")
    assert lab_dirs(repo) == {
        "lab1": repo / "labs" / "lab1_histogram",
        "lab10": repo / "labs" / "lab10_scan",
    }


def test_parse_lab_list() -> None:
    assert parse_lab_list("lab1, lab3,lab1") == ["lab1", "lab3"]
    with pytest.raises(GraderUsageError, match="lab ids such as lab1,lab3; got 'histogram'"):
        parse_lab_list("lab1,histogram")


def test_an_unknown_lab_is_an_error_listing_the_known_ones(tmp_path: Path) -> None:
    tests = parse_tests(RECORDED)
    with pytest.raises(GraderUsageError) as info:
        resolve_labs(["lab7"], tests, {}, tmp_path)
    assert str(info.value) == "unknown lab 'lab7': known labs are lab1, lab2, lab3, lab10"


def test_a_lab_with_a_folder_but_no_tests_is_an_error_unless_the_build_failed(
    tmp_path: Path,
) -> None:
    dirs = {"lab5": tmp_path / "labs" / "lab5_matmul"}
    tests = parse_tests(RECORDED)
    with pytest.raises(GraderUsageError, match="lab5 has no tests in"):
        resolve_labs(["lab5"], tests, dirs, tmp_path)
    assert resolve_labs(["lab5"], tests, dirs, tmp_path, build_failed=True) == ["lab5"]


def test_no_labs_requested_means_every_lab_with_tests(tmp_path: Path) -> None:
    assert resolve_labs(None, parse_tests(RECORDED), {}, tmp_path) == [
        "lab1",
        "lab2",
        "lab3",
        "lab10",
    ]
    with pytest.raises(GraderUsageError, match="has no lab tests"):
        resolve_labs(None, [], {}, tmp_path)


@needs_ctest
def test_ctest_lists_a_build_tree(tmp_path: Path) -> None:
    build = make_build(tmp_path, [gtest_spec("lab1", "correctness", "pass", "A.B", timeout=7)])
    (test,) = parse_tests(read_ctest_json(build))
    assert test.name == "lab1.A.B" and test.timeout == 7 and test.kind == "correctness"


@needs_ctest
def test_a_missing_build_directory_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(GraderUsageError, match="does not exist"):
        read_ctest_json(tmp_path / "nope")
