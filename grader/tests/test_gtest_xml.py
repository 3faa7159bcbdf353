"""Reading GoogleTest's XML report and matching its filter."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.gtest_xml import filter_matches, matching, read_cases
from grader.core.model import Figure
from grader.tests.helpers import DATA

REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" name="AllTests">
  <testsuite name="Histogram" tests="3">
    <testcase name="Uniform" status="run" result="completed" classname="Histogram"/>
    <testcase name="Skewed" status="run" result="completed" classname="Histogram">
      <failure message="h.cu:9&#x0A;bin 0: expected 5, got 4" type=""><![CDATA[h.cu:9
bin 0: expected 5, got 4]]></failure>
    </testcase>
    <testcase name="DISABLED_Big" status="notrun" result="suppressed" classname="Histogram"/>
  </testsuite>
  <testsuite name="Sizes/Reduce">
    <testcase name="Sum/3" status="run" result="skipped" classname="Sizes/Reduce">
      <skipped message="no device"/>
    </testcase>
  </testsuite>
</testsuites>
"""


def test_cases_are_read_with_their_results(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text(REPORT)
    cases = {c.name: c for c in read_cases(path) or []}
    assert cases["Histogram.Uniform"].ran and not cases["Histogram.Uniform"].failures
    assert cases["Histogram.Skewed"].failures == ("h.cu:9\nbin 0: expected 5, got 4",)
    assert not cases["Histogram.DISABLED_Big"].ran
    assert cases["Sizes/Reduce.Sum/3"].skipped
    assert cases["Sizes/Reduce.Sum/3"].skip_message == "no device"
    assert [c.name for c in matching(list(cases.values()), "Histogram.Uniform")] == [
        "Histogram.Uniform"
    ]


def test_missing_or_broken_reports_read_as_none(tmp_path: Path) -> None:
    assert read_cases(tmp_path / "missing.xml") is None
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuites><testcase")
    assert read_cases(broken) is None


def test_filter_syntax() -> None:
    assert filter_matches("Histogram.Uniform", "Histogram.Uniform")
    assert not filter_matches("Histogram.Uniform2", "Histogram.Uniform")
    assert filter_matches("Sizes/Reduce.Sum/3", "Sizes/Reduce.Sum/3")
    assert filter_matches("A.B", "A.*:C.D")
    assert not filter_matches("A.B", "A.*-A.B")
    assert filter_matches("A.C", "-A.B")
    assert filter_matches("A.B", "A.?")
    assert not filter_matches("A[1].B", "A?1?.C")


def test_figures_are_read_from_a_recorded_report() -> None:
    """gtest_figures.xml is what GoogleTest 1.12 wrote for three tests that called
    harness::report_timing (one bar missed), with the source path shortened."""
    cases = {c.name: c for c in read_cases(DATA / "gtest_figures.xml") or []}
    assert {name: case.figure for name, case in cases.items()} == {
        "Timing.InterleavedIsAtLeast1p5xFasterThanNeighbored": Figure(
            "interleaved / neighbored", 1.7312, 1.5
        ),
        "Timing.Unrolling8IsAtLeast2xFasterThanInterleaved": Figure(
            "unrolling8 / interleaved", 1.8, 2.0
        ),
        "Timing.FastestVariantReachesItsShareOfTheCopyBandwidth": Figure(
            "fastest variant / copy ceiling", 0.9123, 0.85
        ),
    }
    missed = cases["Timing.Unrolling8IsAtLeast2xFasterThanInterleaved"]
    assert missed.failures and missed.failures[0].endswith("1.8 (needed >= 2)")


def _case_with(properties: str) -> str:
    return (
        '<testsuites><testsuite name="T"><testcase name="A" status="run" classname="T">'
        f"<properties>{properties}</properties></testcase></testsuite></testsuites>"
    )


def _property(name: str, value: str) -> str:
    return f'<property name="{name}" value="{value}"/>'


@pytest.mark.parametrize(
    "properties, figure",
    [
        ("", None),
        (_property("timing_value", "2"), None),  # no name
        (_property("timing_figure", "a / b"), None),  # no value
        (_property("timing_figure", "a / b") + _property("timing_value", "fast"), None),
        (_property("timing_figure", "a / b") + _property("timing_value", "nan"), None),
        (_property("timing_figure", "a / b") + _property("timing_value", "inf"), None),
        (_property("timing_figure", " ") + _property("timing_value", "2"), None),
        (_property("timing_figure", "a / b") + _property("timing_value", "2"), Figure("a / b", 2)),
        (
            _property("timing_figure", "a&#10; /   b")
            + _property("timing_value", "2")
            + _property("timing_needed", "x"),
            Figure("a / b", 2),
        ),
        (
            _property("timing_figure", "x" * 500) + _property("timing_value", "1e0"),
            Figure("x" * 120, 1),
        ),
        (  # the lab.json bar the threshold came from (harness::Bar)
            _property("timing_figure", "a / b")
            + _property("timing_value", "2")
            + _property("timing_needed", "1.5")
            + _property("timing_bar", "kSpeedup"),
            Figure("a / b", 2, 1.5, "kSpeedup"),
        ),
        (  # anything but an identifier is no bar's name
            _property("timing_figure", "a / b")
            + _property("timing_value", "2")
            + _property("timing_bar", "k x"),
            Figure("a / b", 2),
        ),
    ],
)
def test_a_figure_needs_a_name_and_a_finite_value(
    tmp_path: Path, properties: str, figure: Figure | None
) -> None:
    path = tmp_path / "r.xml"
    path.write_text(_case_with(properties))
    assert [c.figure for c in read_cases(path) or []] == [figure]
