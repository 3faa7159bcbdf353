"""scripts/calibrate.py: a bar's figure is the lowest of its tests', unscaled, the median
over gradings of the reference; a bar not measured keeps its entry; gradings that are not
the reference's, or of several GPUs, are refused."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calibrate", REPO / "scripts" / "calibrate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


calibrate = _load()
Figure = calibrate.Figure
BARS = {"lab5": {"kTiled": 1.5, "kMqdb": 0.5}}


def test_a_bar_takes_its_lowest_figure_in_its_own_units() -> None:
    run = calibrate.run_figures(
        [
            ("lab5", Figure(2.0, 1.5, "kTiled")),
            ("lab5", Figure(1.8, 1.5, "kTiled")),
            # A threshold the test scaled (0.5 x a flop ratio of 4): 1.0 is 0.25 of the bar's.
            ("lab5", Figure(1.0, 2.0, "kMqdb")),
            ("lab5", Figure(9.0, 1.0, "")),
            ("lab5", Figure(9.0, 1.0, "kRemoved")),
            ("lab9", Figure(9.0, 1.0, "kTiled")),
        ],
        BARS,
    )
    assert run == {"lab5": {"kTiled": 1.8, "kMqdb": 0.25}}


def test_the_median_over_gradings_with_the_spread() -> None:
    runs = [{"lab5": {"kTiled": v}} for v in (1.9, 1.7, 1.8)]
    assert calibrate.summarise(runs) == {
        "lab5": {"kTiled": {"measured": 1.8, "note": "median of 3 gradings, 1.7 to 1.9"}}
    }


def test_the_file_keeps_an_unmeasured_bar_and_follows_lab_json(tmp_path: Path) -> None:
    old = {"kMqdb": {"measured": 0.3, "note": "earlier"}, "kGone": {"measured": 1}}
    (tmp_path / "calibration.json").write_text(json.dumps({"device": "X", "bars": old}))
    new = {"kTiled": {"measured": 1.8, "note": "median of 3 gradings, 1.7 to 1.9"}}
    kept = calibrate.write(tmp_path, "NVIDIA H100", new, ["kTiled", "kMqdb"])
    doc = json.loads((tmp_path / "calibration.json").read_text())
    assert kept == ["kMqdb"]
    assert doc["device"] == "NVIDIA H100"
    assert list(doc["bars"]) == ["kTiled", "kMqdb"]
    assert doc["bars"]["kMqdb"] == old["kMqdb"]


# --- the command line, on results.json files as `grade` writes them ----------------------


def _repo(tmp_path: Path) -> Path:
    """A repository whose lab5 has the two bars of BARS, one of them calibrated before."""
    lab = tmp_path / "repo" / "labs" / "lab5_matmul"
    lab.mkdir(parents=True)
    bars = {name: {"value": value} for name, value in BARS["lab5"].items()}
    (lab / "lab.json").write_text(json.dumps({"bars": bars}))
    typical = {"kTiled": {"measured": 1.0, "typical": 1.4}}
    (lab / "calibration.json").write_text(json.dumps({"device": "old", "bars": typical}))
    return tmp_path / "repo"


def _grading(
    path: Path, tiled: float, gpu: str = "NVIDIA H100", reference: bool = True, bar: bool = True
) -> Path:
    def test(kind: str, figure: dict[str, Any] | None) -> dict[str, Any]:
        extra = {"lab": "lab5", "kind": kind, **({"figure": figure} if figure else {})}
        return {"name": f"lab5_{kind}_test ({kind})", "status": "passed", "extra_data": extra}

    figure = {"name": "tiled / naive", "value": tiled, "needed": 1.5}
    tests = [
        test("correctness", None),
        test("timing", {**figure, **({"bar": "kTiled"} if bar else {})}),
    ]
    tests += [test("reference", None)] if reference else []
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"extra_data": {"gpu": {"name": gpu}}, "tests": tests}))
    return path


def test_calibration_json_from_gradings_of_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    monkeypatch.setattr(calibrate, "REPO", repo)
    gradings = [
        _grading(tmp_path / f"cal/{n}/results.json", v) for n, v in enumerate((2.1, 1.9, 2.0))
    ]
    assert calibrate.main([str(path) for path in gradings]) == 0
    doc = json.loads((repo / "labs" / "lab5_matmul" / "calibration.json").read_text())
    assert doc["device"] == "NVIDIA H100" and "scripts/calibrate.py" in doc["about"]
    assert doc["bars"] == {
        "kTiled": {"measured": 2.0, "typical": 1.4, "note": "median of 3 gradings, 1.9 to 2.1"}
    }
    assert capsys.readouterr().out.endswith(
        "calibration.json: 1 bar(s) measured; not measured, kept as they were: kMqdb\n"
    )


def test_a_typical_solutions_gradings_set_its_figures_and_the_reference_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--typical: a grading of submissions/typical2 (no reference test) sets each bar's
    typical2 and where the typicals were measured; a later reference calibration keeps both."""
    repo = _repo(tmp_path)
    monkeypatch.setattr(calibrate, "REPO", repo)
    typical2 = _grading(tmp_path / "t2/results.json", 1.7, reference=False)
    assert calibrate.main(["--typical", "typical2", str(typical2)]) == 0
    assert calibrate.main([str(_grading(tmp_path / "cal/results.json", 2.0))]) == 0
    doc = json.loads((repo / "labs" / "lab5_matmul" / "calibration.json").read_text())
    assert doc["typicals_measured"].startswith("NVIDIA H100, ")
    assert doc["bars"]["kTiled"] == {
        "measured": 2.0,
        "typical": 1.4,
        "typical2": 1.7,
        "note": "one grading",
    }


@pytest.mark.parametrize(
    "gradings, message",
    [
        ([{"reference": False}], "not a grading of the reference solutions (it has no reference"),
        ([{}, {"gpu": "NVIDIA A100"}], "the gradings ran on NVIDIA A100, NVIDIA H100: give one"),
        ([{"bar": False}], "its figures name no lab.json bar, so none can be calibrated"),
        ([{"folder": True}], "is a folder: give the results.json a grading wrote into it"),
        ([{"text": "{}"}], "not the results.json of a grading ('extra_data')"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    gradings: list[dict[str, Any]],
    message: str,
) -> None:
    repo = _repo(tmp_path)
    monkeypatch.setattr(calibrate, "REPO", repo)
    before = (repo / "labs" / "lab5_matmul" / "calibration.json").read_text()
    paths = []
    for n, how in enumerate(gradings):
        path = tmp_path / f"cal/{n}/results.json"
        if how.get("folder"):
            path.mkdir(parents=True)
        elif "text" in how:
            path.parent.mkdir(parents=True)
            path.write_text(how["text"])
        else:
            _grading(path, 2.0, **how)
        paths.append(str(path))
    assert calibrate.main(paths) == 2
    err = capsys.readouterr().err
    assert err.startswith("calibrate: error: ") and message in err and err.count("\n") == 1, err
    assert (repo / "labs" / "lab5_matmul" / "calibration.json").read_text() == before
