"""scripts/readme_bars.py: each lab README's table of bars comes from its data files."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_bars", REPO / "scripts" / "readme_bars.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


readme_bars = _load()


def _lab(tmp_path: Path) -> Path:
    lab = tmp_path / "labs" / "lab9_demo"
    lab.mkdir(parents=True)
    bars = {"kSpeedup": {"value": 1.5, "for": "students", "what": "a / b | c"}}
    (lab / "lab.json").write_text(json.dumps({"bars": bars}), encoding="utf-8")
    measured = {"kSpeedup": {"measured": 2.1, "note": "0.2 ms vs 0.42 ms"}}
    (lab / "calibration.json").write_text(
        json.dumps({"device": "NVIDIA H100 80GB HBM3", "bars": measured}), encoding="utf-8"
    )
    (lab / "README.md").write_text(
        f"# demo\n\nBars:\n\n{readme_bars.BEGIN}\nold\n{readme_bars.END}\n\nAfter.\n",
        encoding="utf-8",
    )
    return lab


def test_the_table_says_each_bar_and_what_set_it(tmp_path: Path) -> None:
    lab = _lab(tmp_path)
    text = readme_bars.updated(lab / "README.md", lab)
    assert text is not None
    assert "| `kSpeedup` | your code | a / b \\| c | 1.5 | 2.1 | 0.2 ms vs 0.42 ms |  |" in text
    assert "measured on NVIDIA H100 80GB HBM3" in text
    assert text.startswith("# demo\n\nBars:\n\n") and text.endswith("\n\nAfter.\n")
    assert "old" not in text


def test_check_names_a_stale_readme_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = _lab(tmp_path)
    monkeypatch.setattr(readme_bars, "ROOT", tmp_path)
    before = (lab / "README.md").read_text(encoding="utf-8")
    assert readme_bars.main(["--check"]) == 1
    assert "labs/lab9_demo/README.md is stale" in capsys.readouterr().out
    assert (lab / "README.md").read_text(encoding="utf-8") == before
    assert readme_bars.main([]) == 0
    assert readme_bars.main(["--check"]) == 0


def test_the_repositorys_readmes_are_current() -> None:
    assert readme_bars.main(["--check"]) == 0


def test_every_student_bar_passes_both_typical_solutions_with_room() -> None:
    """Both typical solutions (submissions/typical, submissions/typical2), measured on
    one GPU, pass each student bar by TYPICAL_MARGIN: a bar only a tuned design
    passes measures whether a student rewrote the reference, not the course."""
    short = []
    for lab in sorted((readme_bars.ROOT / "labs").glob("lab*_*")):
        bars = json.loads((lab / "lab.json").read_text(encoding="utf-8"))["bars"]
        seen = json.loads((lab / "calibration.json").read_text(encoding="utf-8"))["bars"]
        for name, bar in bars.items():
            if bar["for"] != "students":
                continue
            for key in readme_bars.TYPICALS:
                typical = seen.get(name, {}).get(key)
                if typical is None or typical < readme_bars.TYPICAL_MARGIN * bar["value"]:
                    short.append(f"{lab.name} {name}: {bar['value']} against {key} {typical}")
    assert not short, short
