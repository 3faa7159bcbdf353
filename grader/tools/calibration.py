"""Each lab's `calibration.json` from the reference's measured figures (`repeat --calibrate`).

Every timing and reference test names, in its XML report, the lab.json bar its
threshold comes from (`harness::Bar`, property `timing_bar`). A bar's figure in
one grading is the lowest of its tests' figures, in the bar's own units (value x
bar / needed: a test that scaled its threshold, as lab5's MQDB does, is unscaled);
over the gradings it is the median, with the spread beside it. The file keeps what
the bars were set from, for a maintainer moving a bar and for the README's table
(scripts/readme_bars.py); it never changes a bar.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.core.model import Figure

CALIBRATION_FILE = "calibration.json"
ABOUT = (
    "What the bars in lab.json were set from: the reference solution measured on this "
    "device, same-run ratios (python3 -m grader repeat --calibrate)."
)


def run_figures(
    figures: Iterable[tuple[str, Figure]], bars: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """One grading's figure per lab and bar: (lab, figure) pairs in, the lowest per bar out."""
    out: dict[str, dict[str, float]] = {}
    for lab, figure in figures:
        bar = bars.get(lab, {}).get(figure.bar)
        if bar is None:
            continue  # a bar lab.json no longer has, or none named
        value = figure.value * bar / figure.needed if figure.needed else figure.value
        seen = out.setdefault(lab, {})
        seen[figure.bar] = min(value, seen.get(figure.bar, value))
    return out


def summarise(
    runs: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, dict[str, Any]]]:
    """lab -> bar -> {"measured": median, "note": the spread}, over the gradings."""
    values: dict[str, dict[str, list[float]]] = {}
    for run in runs:
        for lab, bars in run.items():
            for bar, value in bars.items():
                values.setdefault(lab, {}).setdefault(bar, []).append(value)
    return {
        lab: {
            bar: {
                "measured": float(f"{statistics.median(seen):.3g}"),
                "note": f"median of {len(seen)} gradings, {min(seen):.3g} to {max(seen):.3g}",
            }
            for bar, seen in sorted(bars.items())
        }
        for lab, bars in values.items()
    }


def write(
    lab_dir: Path, device: str, measured: Mapping[str, Mapping[str, Any]], order: Sequence[str]
) -> list[str]:
    """Rewrite lab_dir's calibration.json with `measured` (bars in lab.json's `order`);
    a bar not measured keeps its earlier entry, a measured one the typical solution's
    figure (`typical`, set by hand). Returns the bars kept unmeasured."""
    path = lab_dir / CALIBRATION_FILE
    try:
        earlier = json.loads(path.read_text(encoding="utf-8")).get("bars", {})
    except (OSError, ValueError, AttributeError):
        earlier = {}
    bars = {
        name: {**(earlier.get(name) or {}), **measured[name]}
        if name in measured
        else earlier.get(name)
        for name in order
    }
    doc = {"about": ABOUT, "device": device, "bars": {k: v for k, v in bars.items() if v}}
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return [name for name in order if name not in measured]
