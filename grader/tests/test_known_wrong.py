"""Known-wrong submissions: the manifest, the matching of verdicts, the table. No GPU."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader.classroom.cli import main
from grader.classroom.commands.known_wrong import exit_status
from grader.classroom.known_wrong import (
    HOSTILE,
    Expectation,
    Judgement,
    judge_grade,
    judge_static,
    load_entries,
    load_manifest,
    table,
    write_trees,
)
from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.core.model import Outcome, Status
from grader.core.sandbox import MODE_ENV, decide
from grader.trust.static_check import Finding

REPO = Path(__file__).resolve().parents[2]
RACE = Expectation(
    name="lab1_race", lab="lab1", kind="grade", reason="bins? differ", tests=r"/shared__"
)
SLOW = Expectation(
    name="lab1_slow",
    lab="lab1",
    kind="grade",
    reason="speedup",
    tests=r"Timing\.Shared",
    must_pass=r"/shared__",
)
CUB = Expectation(name="lab1_cub", lab="lab1", kind="static", reason="library-(include|call)")
PASSED = Outcome(Status.PASSED, "")
WRONG = Outcome(Status.FAILED, "variant shared ...:\n3 of 1024 bins differ; first:\n  bin 7: ...")
HUNG = Outcome(Status.FAILED, "timed out after 10 s: possible deadlock")


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_trees(REPO, tmp_path_factory.mktemp("trees"))


@pytest.fixture(scope="module")
def static_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """`known-wrong --static-only` once over the static entries (those the checks
    before any test must refuse; the others are judged on a GPU, checks first): each
    tree's objects are compiled (the slow part), so the tests share one run. In the
    sandbox where it starts, as graders compile: the canary entry is judged only there."""
    root = tmp_path_factory.mktemp("known-wrong")
    root.chmod(0o755)  # entered by the sandbox's user
    report = root / "table.md"
    static = [e.name for e in load_entries(REPO) if e.kind == "static"]
    with pytest.MonkeyPatch.context() as env:
        env.setenv(MODE_ENV, "auto")
        status = main(
            [
                "known-wrong",
                "--static-only",
                *(f"--only={name}" for name in static),
                "--build-root",
                str(root / "build"),
                "--report",
                str(report),
            ]
        )
    return status, report.read_text(encoding="utf-8"), root / "build"


def test_the_manifests_name_every_folder_and_every_defect(trees: Path) -> None:
    entries = load_entries(REPO)
    names = {e.name for e in entries}
    assert {
        "lab1_race",
        "lab1_tail",
        "lab1_oob_write",
        "lab1_hang",
        "lab1_slow",
        "lab1_cub",
        "lab1_hardcoded",
        "lab1_host_answer",
        "lab1_race.racecheck",
        "lab1_banks4_one_counter",
        "lab1_multiply_no_cas",
        "lab1_memo_relabelled",
        "lab2_tail",
        "lab2_no_guard",
        "lab3_race",
        "lab3_tail",
        "lab3_cub",
        "lab3_nested_no_wait",
        "lab4_oob_write",
        "lab4_race",
        "lab4_slow",
        "lab4_occupancy_neighbour",
        "lab5_tail",
        "lab5_cublas",
        "lab5_host_answer",
        "lab6_unstable_pass",
    } <= names
    hostile = {e.name for e in load_manifest(REPO / HOSTILE)}
    assert {
        "lab5_interpose_runtime",
        "lab1_constructor",
        "lab1_priority_constructor",
        "lab3_ctors_pointer",
        "lab4_init_code",
        "lab3_raw_syscall",
        "lab3_split_syscall",
        "lab2_gtest_instance",
        "lab4_libstdcxx_copy",
        "lab1_read_environment",
        "lab3_other_stream",
        "lab1_macro_include",
        "lab1_include_outside",
        "lab3_library_alias",
        "lab5_numeric_copy_kind",
        "lab1_allocation",
        "lab3_record_property",
        "lab6_strong_cub",
        "lab6_inline_cub",
        "lab6_thrust_elsewhere",
        "lab3_one_file_broken",
        "lab4_alias_moves_call",
        "lab5_alias_hides_copy",
    } <= hostile
    for entry in entries:
        folder = trees / entry.folder_name
        marker = "HOSTILE" if entry.name in hostile else "DEFECT"
        # One file holds the defect; the lab's other student files are the solution's.
        marked = [p for p in folder.glob(f"{entry.lab}_*/*.cu") if marker in p.read_text()]
        assert len(marked) == 1, entry.name
    assert {e.lab for e in entries} == {"lab1", "lab2", "lab3", "lab4", "lab5", "lab6"}
    assert {e.sanitizer for e in entries} >= {"memcheck", "racecheck"}


@pytest.mark.corpus
def test_static_entries_are_rejected_for_their_reason(
    static_run: tuple[int, str, Path],
) -> None:
    status, text, _ = static_run
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| lab")]
    assert len(rows) == len([e for e in load_entries(REPO) if e.kind == "static"])
    unsandboxed = decide("auto").sandbox is None
    for name, expected, verdict, mark in rows:
        assert expected.startswith("static check"), name
        if name == "| lab1_include_outside" and unsandboxed:
            assert verdict == "not judged: compiled without the sandbox", verdict
        else:
            assert mark == "yes |", (name, verdict)
    assert status == (EXIT_NO_GPU if unsandboxed else EXIT_OK)


@pytest.mark.corpus
def test_every_test_program_links_googletest_before_the_student_library(
    static_run: tuple[int, str, Path],
) -> None:
    """The linker keeps the first copy of a template instance (a COMDAT group): with
    GoogleTest's objects pulled in first, a student's copy of one that GoogleTest uses
    (a vector's growth, say) is dropped. The object check compares the student's copies
    with the harness's objects, not GoogleTest's, so this order is what keeps them out."""
    builds = sorted(static_run[2].glob("check/lab*/build/build.ninja"))
    checked = set()
    for ninja in builds:
        for line in ninja.read_text(encoding="utf-8").splitlines():
            libraries = line.split()
            student = [i for i, lib in enumerate(libraries) if re.search(r"lib\w+_impl\.a$", lib)]
            gtest = [i for i, lib in enumerate(libraries) if "libgtest" in lib]
            if line.lstrip().startswith("LINK_LIBRARIES") and student and gtest:
                assert min(gtest) < min(student), (ninja, line)
                checked.add(ninja)
    assert len(builds) == len(list((REPO / "labs").glob("lab*_*"))) and checked == set(builds)


def test_a_sanitizer_entry_needs_a_known_tool(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "submissions": [
                    {
                        "name": "x",
                        "lab": "lab1",
                        "kind": "grade",
                        "tests": "t",
                        "reason": "r",
                        "sanitizer": "leakcheck",
                    }
                ]
            }
        )
    )
    with pytest.raises(GraderUsageError, match="sanitizer must be one of"):
        load_manifest(manifest)


def test_a_sanitizer_entry_says_so_in_the_table() -> None:
    entry = Expectation(
        "lab3_race", "lab3", "grade", "Race reported", tests="sanitize", sanitizer="racecheck"
    )
    assert entry.expected.startswith("under racecheck, a test /sanitize/")
    assert Expectation("a.b", "lab1", "static", "r", folder="a").folder_name == "a"


def test_a_grade_entry_is_rejected_for_its_own_reason() -> None:
    outcomes = {"lab1.x/shared__a": PASSED, "lab1.x/shared__b": WRONG, "lab1.x/global__a": PASSED}
    judgement = judge_grade(RACE, [], outcomes, True)
    assert judgement.as_expected is True
    assert judgement.verdict.startswith("1 of 2 failed: variant shared")


def test_another_reason_or_no_failure_is_not_as_expected() -> None:
    assert judge_grade(RACE, [], {"lab1.x/shared__a": HUNG}, True).verdict.startswith(
        "failed for another reason"
    )
    assert judge_grade(RACE, [], {"lab1.x/shared__a": PASSED}, True).as_expected is False
    assert "no test matches" in judge_grade(RACE, [], {"lab1.y": WRONG}, True).verdict
    finding = Finding("f.cu", 3, "timer", "uses a timer")
    assert judge_grade(RACE, [finding], None, False).as_expected is False


def test_must_pass_tests_have_to_pass() -> None:
    slow = Outcome(Status.FAILED, "shared variant speedup over the baseline: 1.1x, 5x needed")
    good = {"lab1.Timing.SharedX": slow, "lab1.C/shared__a": PASSED}
    assert judge_grade(SLOW, [], good, True).as_expected is True
    bad = {"lab1.Timing.SharedX": slow, "lab1.C/shared__a": WRONG}
    judgement = judge_grade(SLOW, [], bad, True)
    assert judgement.as_expected is False and "should pass" in judgement.verdict


def test_without_a_gpu_nothing_is_passed() -> None:
    judgement = judge_grade(RACE, [], None, False)
    assert judgement == Judgement("not judged: needs a GPU", None)
    assert judge_grade(RACE, [], {"lab1.x/shared__b": WRONG}, False).as_expected is None
    assert exit_status([judgement, Judgement("ok", True)]) == EXIT_NO_GPU
    assert exit_status([judgement, Judgement("bad", False)]) == EXIT_FAILED
    assert exit_status([Judgement("ok", True)]) == EXIT_OK


def test_static_judgement() -> None:
    assert judge_static(CUB, []).verdict == "static check passes it"
    canary = Expectation("lab1_x", "lab1", "static", "does-not-compile", canary="c.txt")
    missing = [Finding("lab1_histogram", 0, "does-not-compile", "c.txt: No such file")]
    assert judge_static(canary, missing).as_expected is True
    leaked = judge_static(canary, missing, ["build.log"])
    assert leaked == Judgement("c.txt leaked into build.log", False)
    other = [Finding("f.cu", 2, "timer", "uses a timer")]
    assert judge_static(CUB, other).as_expected is False
    hit = [Finding("f.cu", 4, "library-call", "calls CUB")]
    assert judge_static(CUB, other + hit).verdict == "static check: f.cu:4: library-call"


def test_the_table() -> None:
    text = table(
        [
            (CUB, Judgement("static check: f.cu:4: library-call", True)),
            (RACE, Judgement("all 2 matching tests passed", False)),
            (SLOW, Judgement("not judged: needs a GPU", None)),
        ]
    )
    lines = text.splitlines()
    assert lines[0] == "| submission | expected reason | verdict | as expected |"
    assert lines[2] == (
        "| lab1_cub | static check rejects with /library-(include\\|call)/ "
        "| static check: f.cu:4: library-call | yes |"
    )
    assert lines[3].endswith("| NO |") and lines[4].endswith("| not judged |")


def test_the_command_takes_only_known_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = ["--build-root", str(tmp_path)]
    assert (
        main(["known-wrong", *root, "--only", "lab1_cub", "--only", "lab5_host_answer"]) == EXIT_OK
    )
    assert "| lab5_host_answer |" in capsys.readouterr().out
    assert main(["known-wrong", *root, "--only", "nope"]) == 2
