"""The reports, parsed back and checked for content."""

from __future__ import annotations

import json
from pathlib import Path

from grader.core.gpu import GpuInfo
from grader.core.model import Figure, LabTest, Outcome, Status
from grader.core.reports import leaderboard, tally, verdict_line, write_all
from grader.core.scoring import Grade, LabPolicy, score_lab

H100 = GpuInfo(
    "present", {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132}
)
NO_GPU = GpuInfo("absent", reason="no CUDA device (cudaErrorNoDevice)")
POLICY = LabPolicy("lab1", "Histogram", {"correctness": 2, "timing": 4})


def sample_grade(gpu: GpuInfo, outcomes: dict[str, Outcome]) -> Grade:
    """lab1 with the given outcomes (by test name) and a one-test lab2: test_sandbox.py
    writes its reports too."""
    kinds = {"Hist.Uniform": "correctness", "Hist.Skewed": "correctness", "Hist.Fast": "timing"}
    results = [
        (LabTest(name=f"lab1.{n}", lab="lab1", kind=kinds[n]), o) for n, o in outcomes.items()
    ]
    lab2 = score_lab(
        LabPolicy("lab2", "Divergence", {"correctness": 1, "timing": 2}),
        [
            (
                LabTest(name="lab2.Div.Even", lab="lab2", kind="correctness"),
                outcomes.get("Hist.Uniform", Outcome(Status.PASSED)),
            )
        ],
    )
    return Grade((score_lab(POLICY, results), lab2), gpu, "2025-01-01T00:00:00+00:00")


def _graded_with_a_failure() -> Grade:
    return sample_grade(
        H100,
        {
            "Hist.Uniform": Outcome(Status.PASSED, output="ok", duration_s=0.5),
            "Hist.Skewed": Outcome(
                Status.FAILED,
                "bin 17: expected 1024, got 0\nbin 18: expected 3",
                output="ansi \x1b[31m nul \x00 | pipe",
            ),
            "Hist.Fast": Outcome(Status.FAILED, "timed out after 10 s: possible deadlock (...)"),
        },
    )


def test_results_json_is_gradescope_shaped(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _graded_with_a_failure())
    doc = json.loads(paths["results.json"].read_text())
    extra = doc["extra_data"]
    assert (doc["score"], extra["max_score"]) == (2, 7)
    assert extra["timestamp"] == "2025-01-01T00:00:00+00:00"
    assert extra["gpu"]["name"] == "NVIDIA H100 80GB HBM3" and extra["gpu"]["state"] == "present"
    tests = {t["name"]: t for t in doc["tests"]}
    skewed = tests["lab1.Hist.Skewed (correctness)"]
    assert (skewed["score"], skewed["max_score"], skewed["status"]) == (0, 1, "failed")
    assert skewed["output"].startswith("FAILED: bin 17: expected 1024, got 0")
    fast = tests["lab1.Hist.Fast (timing)"]
    assert (fast["score"], fast["max_score"]) == (0, 4)
    assert tests["lab1.Hist.Uniform (correctness)"]["status"] == "passed"
    assert {t["status"] for t in doc["tests"]} <= {"passed", "failed"}
    assert [lab["lab"] for lab in extra["labs"]] == ["lab1", "lab2"]


def test_summary_has_the_table_the_failures_and_the_gpu(tmp_path: Path) -> None:
    text = write_all(tmp_path, _graded_with_a_failure())["summary.md"].read_text()
    assert "| lab | score | max | passed | failed | skipped |" in text
    assert "| lab1 Histogram | 1 | 6 | 1 | 2 | 0 |" in text
    assert "| **total** | **2** | **7** | 2 | 2 | 0 |" in text
    assert "- **lab1.Hist.Skewed** (correctness, -1): bin 17: expected 1024, got 0" in text
    assert "  bin 18: expected 3" in text
    assert "timed out after 10 s: possible deadlock" in text
    assert "GPU: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs" in text


def test_skipped_tests_are_never_shown_as_passed(tmp_path: Path) -> None:
    skip = Outcome(Status.SKIPPED, "no CUDA device (cudaErrorNoDevice)")
    grade = sample_grade(NO_GPU, {"Hist.Uniform": skip, "Hist.Fast": skip})
    paths = write_all(tmp_path, grade)
    text = paths["summary.md"].read_text()
    assert "| lab1 Histogram | 0 | 6 | 0 | 0 | 2 |" in text
    assert "3 tests were skipped because no GPU was available" in text
    assert "Skipped tests score 0; they did not pass." in text
    doc = json.loads(paths["results.json"].read_text())
    assert doc["score"] == 0
    assert all(t["status"] == "failed" and t["output"].startswith("SKIPPED") for t in doc["tests"])


def _graded_with_figures() -> Grade:
    """Figures as the runner reads them: on passed and failed tests of three labs."""
    timing = {"correctness": 1, "timing": 2}
    lab3 = score_lab(
        LabPolicy("lab3", "Reduction", timing),
        [
            (
                LabTest("lab3.Timing.Fastest", "lab3", "timing"),
                Outcome(
                    Status.PASSED,
                    figure=Figure(
                        "fastest variant / copy ceiling", 0.91234, 0.85, "kStudentCopyShare"
                    ),
                ),
            ),
            (
                LabTest("lab3.Timing.Unrolled", "lab3", "timing"),
                Outcome(
                    Status.FAILED,
                    "1.8 (needed >= 2)",
                    figure=Figure("unrolling8 / interleaved", 1.8, 2),
                ),
            ),
            (
                LabTest("lab3.Reference.Cub", "lab3", "reference"),
                Outcome(
                    Status.PASSED, figure=Figure("reference shuffle / CUB, 2^24", 1.02149, 0.9)
                ),
            ),
            (LabTest("lab3.Correct.Small", "lab3", "correctness"), Outcome(Status.PASSED)),
        ],
    )
    lab10 = score_lab(
        LabPolicy("lab10", "", timing),
        [
            (
                LabTest("lab10.Timing.Tiled", "lab10", "timing"),
                Outcome(Status.PASSED, figure=Figure("tiled / seed naive", 6.5)),
            )
        ],
    )
    lab1 = score_lab(
        POLICY,
        [
            (
                LabTest("lab1.Timing.Shared", "lab1", "timing"),
                Outcome(Status.PASSED, figure=Figure("shared / seed global atomics", 9.87654, 5)),
            )
        ],
    )
    return Grade((lab10, lab3, lab1), H100, "2025-01-01T00:00:00+00:00")


def test_the_leaderboard_lists_the_figures_of_passed_tests_lab_by_lab() -> None:
    assert leaderboard(_graded_with_figures()) == [
        {"name": "lab1 shared / seed global atomics", "value": 9.877, "order": "desc"},
        {"name": "lab3 fastest variant / copy ceiling", "value": 0.912, "order": "desc"},
        {"name": "lab3 reference shuffle / CUB, 2^24", "value": 1.021, "order": "desc"},
        {"name": "lab10 tiled / seed naive", "value": 6.5, "order": "desc"},
    ]


def test_results_and_summary_carry_the_figures(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _graded_with_figures())
    doc = json.loads(paths["results.json"].read_text())
    assert doc["leaderboard"] == leaderboard(_graded_with_figures())
    text = paths["summary.md"].read_text()
    assert (
        "| lab | figure | value | needed | reference | credit |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n"
        "| lab1 | shared / seed global atomics | 9.88 | 5 |  |  |\n"
        "| lab3 | fastest variant / copy ceiling | 0.912 | 0.85 |  |  |\n"
        "| lab3 | reference shuffle / CUB, 2^24 | 1.02 | 0.9 |  |  |\n"
        "| lab10 | tiled / seed naive | 6.5 |  |  |  |\n"
    ) in text
    figures = [t["extra_data"]["figure"] for t in doc["tests"] if "figure" in t["extra_data"]]
    assert {"name": "shared / seed global atomics", "value": 9.87654, "needed": 5} in figures
    # The lab.json bar a figure came from, for scripts/calibrate.py.
    assert {
        "name": "fastest variant / copy ceiling",
        "value": 0.91234,
        "needed": 0.85,
        "bar": "kStudentCopyShare",
    } in figures
    assert "unrolling8" not in text.split("### Measured")[1]


def test_without_figures_there_is_no_leaderboard_and_no_measured_table(tmp_path: Path) -> None:
    paths = write_all(tmp_path, _graded_with_a_failure())
    assert "leaderboard" not in json.loads(paths["results.json"].read_text())
    assert "### Measured" not in paths["summary.md"].read_text()


def test_the_console_lines_count_every_status_and_cut_long_reasons() -> None:
    assert tally([Status.PASSED, Status.FAILED, Status.PASSED]) == "2 passed, 1 failed, 0 skipped"
    assert tally([Status.ERROR]) == "0 passed, 0 failed, 0 skipped, 1 error"
    line = verdict_line("lab1.T", Outcome(Status.FAILED, "first\n\n  second\n" + "x" * 400))
    assert line.startswith("lab1.T: failed: first / second / xxx") and line.endswith("...")
    assert len(line) == len("lab1.T: failed: ") + 300
    assert verdict_line("lab1.T", Outcome(Status.PASSED, "kept out")) == "lab1.T: passed"
