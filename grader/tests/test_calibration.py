"""`repeat --calibrate`'s arithmetic and file (grader/tools/calibration.py): a bar's
figure is the lowest of its tests', unscaled, the median over gradings; a bar
not measured keeps its entry."""

from __future__ import annotations

import json
from pathlib import Path

from grader.core.model import Figure
from grader.tools import calibration

BARS = {"lab5": {"kTiled": 1.5, "kMqdb": 0.5}}


def test_a_bar_takes_its_lowest_figure_in_its_own_units() -> None:
    run = calibration.run_figures(
        [
            ("lab5", Figure("tiled / naive at 1024", 2.0, 1.5, "kTiled")),
            ("lab5", Figure("tiled / naive at 4096", 1.8, 1.5, "kTiled")),
            # A threshold the test scaled (0.5 x a flop ratio of 4): 1.0 is 0.25 of the bar's.
            ("lab5", Figure("mqdb / dense", 1.0, 2.0, "kMqdb")),
            ("lab5", Figure("unnamed / x", 9.0, 1.0, "")),
            ("lab5", Figure("gone / x", 9.0, 1.0, "kRemoved")),
            ("lab9", Figure("other / x", 9.0, 1.0, "kTiled")),
        ],
        BARS,
    )
    assert run == {"lab5": {"kTiled": 1.8, "kMqdb": 0.25}}


def test_the_median_over_gradings_with_the_spread() -> None:
    runs = [{"lab5": {"kTiled": v}} for v in (1.9, 1.7, 1.8)]
    assert calibration.summarise(runs) == {
        "lab5": {"kTiled": {"measured": 1.8, "note": "median of 3 gradings, 1.7 to 1.9"}}
    }


def test_the_file_keeps_an_unmeasured_bar_and_follows_lab_json(tmp_path: Path) -> None:
    old = {"kMqdb": {"measured": 0.3, "note": "earlier"}, "kGone": {"measured": 1}}
    (tmp_path / "calibration.json").write_text(json.dumps({"device": "X", "bars": old}))
    new = {"kTiled": {"measured": 1.8, "note": "median of 3 gradings, 1.7 to 1.9"}}
    kept = calibration.write(tmp_path, "NVIDIA H100", new, ["kTiled", "kMqdb"])
    doc = json.loads((tmp_path / "calibration.json").read_text())
    assert kept == ["kMqdb"]
    assert doc["device"] == "NVIDIA H100"
    assert list(doc["bars"]) == ["kTiled", "kMqdb"]
    assert doc["bars"]["kMqdb"] == old["kMqdb"]
