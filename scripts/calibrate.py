#!/usr/bin/env python3
"""Each lab's `calibration.json` from gradings of the reference solutions, for a maintainer:

    python3 -m grader grade --impl solutions --report cal/1   # N times, on one GPU model
    python3 scripts/calibrate.py cal/*/results.json
    python3 scripts/calibrate.py --typical typical2 t2/*/results.json   # a typical's figures
    python3 scripts/readme_bars.py                            # then the READMEs' tables

Every timing and reference test names, in its XML report, the lab.json bar its
threshold comes from (`harness::Bar`, property `timing_bar`), which results.json keeps
with the figure. A bar's figure in one grading is the lowest of its tests' figures, in
the bar's own units (value x bar / needed: a test that scaled its threshold, as lab5's
MQDB does, is unscaled); over the gradings it is the median, with the spread beside it.
The file keeps what the bars were set from, for a maintainer moving a bar and for the
READMEs' tables; it never changes a bar. Exit 0 written; 2 bad input, one line.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
CALIBRATION_FILE = "calibration.json"
ABOUT = (
    "What the bars in lab.json were set from: the reference solution measured on this "
    "device, same-run ratios (python3 scripts/calibrate.py)."
)


class Figure(NamedTuple):
    """A timing test's measured ratio, the threshold it was judged against, and the
    lab.json bar that threshold came from ("" when the test named none)."""

    value: float
    needed: float | None
    bar: str


class BadInput(Exception):
    """What the script refuses, in one line."""


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
                "note": "one grading"
                if len(seen) == 1
                else f"median of {len(seen)} gradings, {min(seen):.3g} to {max(seen):.3g}",
            }
            for bar, seen in sorted(bars.items())
        }
        for lab, bars in values.items()
    }


def write(
    lab_dir: Path, device: str, measured: Mapping[str, Mapping[str, Any]], order: Sequence[str]
) -> list[str]:
    """Rewrite lab_dir's calibration.json with `measured` (bars in lab.json's `order`);
    a bar not measured keeps its earlier entry, a measured one the typical solutions'
    figures (`typical`, `typical2`: --typical writes them). Returns the bars kept
    unmeasured."""
    path = lab_dir / CALIBRATION_FILE
    try:
        before = json.loads(path.read_text(encoding="utf-8"))
        earlier = before.get("bars", {})
    except (OSError, ValueError, AttributeError):
        before, earlier = {}, {}
    bars = {
        name: {**(earlier.get(name) or {}), **measured[name]}
        if name in measured
        else earlier.get(name)
        for name in order
    }
    # Every other key (typicals_measured) as it was, in the file's order.
    bars = {k: v for k, v in bars.items() if v}
    _write(path, {**before, "about": ABOUT, "device": device, "bars": bars})
    return [name for name in order if name not in measured]


def _write(path: Path, doc: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def write_typical(lab_dir: Path, key: str, device: str, figures: Mapping[str, float]) -> None:
    """Set each bar's `key` figure (`typical` or `typical2`) in lab_dir's calibration.json,
    and where the typical solutions were measured; the rest as it was."""
    path = lab_dir / CALIBRATION_FILE
    doc = json.loads(path.read_text(encoding="utf-8"))
    for bar, value in figures.items():
        doc.setdefault("bars", {}).setdefault(bar, {})[key] = float(f"{value:.3g}")
    doc["typicals_measured"] = f"{device}, {datetime.date.today().isoformat()}"
    _write(path, doc)


def read_grading(path: Path, reference: bool = True) -> tuple[str, list[tuple[str, Figure]]]:
    """A grading's GPU and its tests' (lab, figure); refused, with `reference`, unless
    it graded the reference (only a build of the solutions has reference tests:
    cmake/LabTesting.cmake)."""
    if path.is_dir():
        raise BadInput(f"{path} is a folder: give the results.json a grading wrote into it")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        gpu = str(doc["extra_data"]["gpu"]["name"])
        extras = [test.get("extra_data") or {} for test in doc["tests"]]
        recorded = [(str(e["lab"]), e["figure"]) for e in extras if "figure" in e]
        figures = [
            (lab, Figure(float(f["value"]), f.get("needed"), str(f.get("bar") or "")))
            for lab, f in recorded
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadInput(f"{path}: not the results.json of a grading ({exc})") from None
    if reference and not any(extra.get("kind") == "reference" for extra in extras):
        raise BadInput(
            f"{path}: not a grading of the reference solutions (it has no reference test)"
        )
    if recorded and not any("bar" in figure for _, figure in recorded):
        raise BadInput(f"{path}: its figures name no lab.json bar, so none can be calibrated")
    return gpu, figures


def lab_bars(repo: Path) -> dict[str, tuple[Path, dict[str, float]]]:
    """Each lab's folder and its lab.json bars (name -> value)."""
    found = {}
    for lab_file in sorted(repo.glob("labs/lab*_*/lab.json")):
        bars = json.loads(lab_file.read_text(encoding="utf-8")).get("bars", {})
        values = {name: float(bar["value"]) for name, bar in bars.items()}
        found[lab_file.parent.name.split("_")[0]] = (lab_file.parent, values)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/calibrate.py",
        description="Write each lab's calibration.json from gradings of the reference.",
    )
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS_JSON")
    parser.add_argument(
        "--typical",
        choices=("typical", "typical2"),
        help="the gradings are of submissions/TYPICAL: write its figures (each bar's "
        "`typical` or `typical2`, the median over the gradings), not the reference's",
    )
    args = parser.parse_args(argv)
    bars = lab_bars(REPO)
    values = {lab: found for lab, (_, found) in bars.items()}
    try:
        gradings = [read_grading(path, args.typical is None) for path in args.results]
        devices = {gpu for gpu, _ in gradings}
        if len(devices) > 1:
            raise BadInput(f"the gradings ran on {', '.join(sorted(devices))}: give one GPU's")
    except BadInput as exc:
        print(f"calibrate: error: {exc}", file=sys.stderr)
        return 2
    runs = [run_figures(figures, values) for _, figures in gradings]
    if args.typical is not None:
        for lab, measured in summarise(runs).items():
            figures = {bar: float(seen["measured"]) for bar, seen in measured.items()}
            write_typical(bars[lab][0], args.typical, gradings[0][0], figures)
            print(
                f"calibrate: {bars[lab][0] / CALIBRATION_FILE}: "
                f"{args.typical} of {len(figures)} bar(s)"
            )
        return 0
    for lab, measured in summarise(runs).items():
        folder, order = bars[lab]
        kept = write(folder, gradings[0][0], measured, list(order))
        print(
            f"calibrate: {folder / CALIBRATION_FILE}: {len(measured)} bar(s) measured"
            + (f"; not measured, kept as they were: {', '.join(kept)}" if kept else "")
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("calibrate: interrupted", file=sys.stderr)
        sys.exit(130)
