"""The verdict GoogleTest writes with `--gtest_output=xml:PATH`.

The grader reads pass, fail and skip from this file (and the exit status),
never from the program's stdout, which student code can print anything into.
Timing tests also record the ratio they judged there (their figure), which the
leaderboard lists.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.model import Figure

# A real report for a handful of tests is a few kB; refuse to parse a flood.
MAX_XML_BYTES = 8 << 20
# The properties harness::report_timing records (labs/common/include/labs/timing_report.hpp).
FIGURE_PROPERTY = "timing_figure"
VALUE_PROPERTY = "timing_value"
NEEDED_PROPERTY = "timing_needed"
BAR_PROPERTY = "timing_bar"
_FIGURE_NAME_CHARS = 120


@dataclass(frozen=True)
class GtestCase:
    """One `<testcase>`: its full name `Suite.Test` and what became of it."""

    name: str
    ran: bool
    skipped: bool
    skip_message: str = ""
    failures: tuple[str, ...] = ()
    # RecordProperty's key-value pairs: the `<properties>` GoogleTest 1.10+ writes.
    properties: Mapping[str, str] = field(default_factory=dict)
    time_s: float = 0.0  # GoogleTest's own measure of the case

    @property
    def passed(self) -> bool:
        return self.ran and not self.skipped and not self.failures

    @property
    def figure(self) -> Figure | None:
        """The figure harness::report_timing recorded, or None when there is none
        whole: a name and a finite value."""
        name = " ".join(self.properties.get(FIGURE_PROPERTY, "").split())
        value = _finite(self.properties.get(VALUE_PROPERTY))
        if not name or value is None:
            return None
        needed = _finite(self.properties.get(NEEDED_PROPERTY))
        bar = self.properties.get(BAR_PROPERTY, "")
        return Figure(name[:_FIGURE_NAME_CHARS], value, needed, bar if bar.isidentifier() else "")


def read_cases(path: Path) -> list[GtestCase] | None:
    """The test cases of a report, or None when it is missing or unreadable."""
    try:
        if path.stat().st_size > MAX_XML_BYTES:
            return None
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    return [_case(element) for element in root.iter("testcase")]


def _case(element: ET.Element) -> GtestCase:
    suite = element.get("classname", "")
    name = element.get("name", "")
    skipped_el = element.find("skipped")
    failures = tuple(_message(f) for f in element.iter() if f.tag in ("failure", "error"))
    return GtestCase(
        name=f"{suite}.{name}" if suite else name,
        ran=element.get("status", "run") == "run",
        skipped=element.get("result") == "skipped" or skipped_el is not None,
        skip_message=_message(skipped_el) if skipped_el is not None else "",
        failures=failures,
        time_s=_finite(element.get("time")) or 0.0,
        properties={
            prop.get("name", ""): prop.get("value", "")
            for prop in element.findall("properties/property")
        },
    )


def _finite(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _message(element: ET.Element) -> str:
    return (element.get("message") or element.text or "").strip()


def matching(cases: list[GtestCase], gtest_filter: str) -> list[GtestCase]:
    """The cases a `--gtest_filter` value selects (normally exactly one)."""
    return [case for case in cases if filter_matches(case.name, gtest_filter)]


def filter_matches(name: str, gtest_filter: str) -> bool:
    """GoogleTest's filter syntax: `POS1:POS2-NEG1:NEG2` with `*` and `?` wildcards."""
    positive, _, negative = gtest_filter.partition("-")
    included = [p for p in positive.split(":") if p] or ["*"]
    excluded = [n for n in negative.split(":") if n]
    return any(_glob(p).fullmatch(name) for p in included) and not any(
        _glob(n).fullmatch(name) for n in excluded
    )


def _glob(pattern: str) -> re.Pattern[str]:
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL)
