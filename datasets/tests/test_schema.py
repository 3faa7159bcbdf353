"""Malformed manifests: one line naming the case, the field and the rule; exit 2; no
traceback, and nothing written."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from datasets import generate, schema

REPO = Path(__file__).resolve().parents[2]
MANIFEST: dict[str, Any] = {
    "lab": "labX",
    "dtype": "int32",
    "defaults": {"low": 0, "high": 1024},
    "cases": [
        {"name": "u", "distribution": "uniform", "n": 100, "seed": 1},
        {"name": "hot", "distribution": "contention", "n": 200, "seed": 2, "hot_fraction": 0.9},
        {"name": "same", "distribution": "constant", "n": 50, "seed": 3, "value": 777},
    ],
}
Change = Callable[[dict[str, Any]], object]


def _case(index: int, **fields: Any) -> Change:
    return lambda m: m["cases"][index].update(fields)


def _drop(index: int, key: str) -> Change:
    return lambda m: m["cases"][index].pop(key)


BAD: list[tuple[str, Change, str]] = [
    (
        "negative n",
        _case(0, n=-5),
        (f"case 'u': field 'n': must be an integer from 1 to {schema.MAX_N}, not -5"),
    ),
    ("zero n", _case(0, n=0), "case 'u': field 'n': must be an integer from 1"),
    ("huge n", _case(0, n=2**40), f"field 'n': must be an integer from 1 to {schema.MAX_N}"),
    ("fractional n", _case(0, n=10.5), "case 'u': field 'n': must be an integer"),
    (
        "string n",
        _case(0, n="100"),
        (f"case 'u': field 'n': must be an integer from 1 to {schema.MAX_N}, not '100'"),
    ),
    ("boolean n", _case(0, n=True), "case 'u': field 'n': must be an integer"),
    ("negative seed", _case(1, seed=-1), "case 'hot': field 'seed': must be an integer from 0"),
    ("missing seed", _drop(0, "seed"), "case 'u': field 'seed': is required"),
    ("missing n", _drop(2, "n"), "case 'same': field 'n': is required"),
    ("missing name", _drop(1, "name"), "case #2: field 'name': is required"),
    (
        "missing value",
        _drop(2, "value"),
        "case 'same': field 'value': is required by distribution constant",
    ),
    ("missing dtype", lambda m: m.pop("dtype"), "manifest: field 'dtype': is required"),
    ("missing cases", lambda m: m.pop("cases"), "manifest: field 'cases': is required"),
    ("low == high", _case(0, low=5, high=5), "case 'u': field 'low': must be below high (5 >= 5)"),
    (
        "low > high from defaults",
        lambda m: m["defaults"].update(low=2000),
        "case 'u': field 'low': must be below high (2000 >= 1024)",
    ),
    (
        "unknown dtype",
        lambda m: m.update(dtype="int64"),
        "manifest: field 'dtype': must be one of int32, float32, not 'int64'",
    ),
    (
        "unknown distribution",
        _case(1, distribution="zipf"),
        "case 'hot': field 'distribution': must be one of uniform, contention",
    ),
    (
        "unknown field",
        _case(1, hot_fracton=0.5),
        ("case 'hot': field 'hot_fracton': is not a known field"),
    ),
    (
        "unknown top-level field",
        lambda m: m.update(seed=3),
        ("manifest: field 'seed': is not a known field"),
    ),
    (
        "fraction above 1",
        _case(1, hot_fraction=1.5),
        "case 'hot': field 'hot_fraction': must be a number from 0 to 1, not 1.5",
    ),
    (
        "value outside int32",
        _case(2, value=2**31),
        ("case 'same': field 'value': must be an integer from -2147483648 to 2147483647"),
    ),
    ("float low for int32", _case(0, low=0.5), "case 'u': field 'low': must be an integer"),
    (
        "defaults not an object",
        lambda m: m.update(defaults=[1]),
        "manifest: field 'defaults': must be an object",
    ),
    ("empty cases", lambda m: m.update(cases=[]), "manifest: field 'cases': must be a non-empty"),
    ("case not an object", lambda m: m["cases"].append(7), "case #4: must be an object, not 7"),
    ("duplicate name", _case(1, name="u"), "case 'u': field 'name': must be unique"),
    ("path in name", _case(0, name="../../x"), "case #1: field 'name': must be a name"),
    ("absolute name", _case(0, name="/tmp/x"), "case #1: field 'name': must be a name"),
    ("lab a path", lambda m: m.update(lab="../lab"), "manifest: field 'lab': must be a name"),
    (
        "more pixels than values",
        _case(0, distribution="corrupted_image", pixels=101, low=0, high=256),
        "case 'u': field 'pixels': must be at most n (101 > 100)",
    ),
    (
        "grey levels past 255",
        _case(0, distribution="corrupted_image", pixels=10, low=0, high=257),
        "case 'u': field 'low': grey levels must lie in 0 <= low < high <= 256, not [0, 257)",
    ),
    (
        "an image without pixels",
        _case(0, distribution="corrupted_image", low=0, high=256),
        "case 'u': field 'pixels': is required by distribution corrupted_image",
    ),
    (
        "greys leaving no room for ties",
        _case(0, distribution="rgba_image", grey_fraction=0.6),
        "case 'u': field 'grey_fraction': must be at most 0.5",
    ),
]


def _sandbox(tmp_path: Path, text: str | bytes) -> tuple[Path, Path]:
    """A manifest file and an empty output folder beside a sibling file."""
    (tmp_path / "sibling.txt").write_text("keep")
    path = tmp_path / "m.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    (tmp_path / "out").mkdir()
    return path, tmp_path / "out"


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("what, change, message", BAD, ids=[b[0] for b in BAD])
def test_a_broken_rule_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, change: Change, message: str
) -> None:
    bad = copy.deepcopy(MANIFEST)
    change(bad)
    path, out = _sandbox(tmp_path, json.dumps(bad))
    assert generate.main(["--manifest", str(path), "--out", str(out)]) == 2, what
    assert message in _one_line_error(capsys)
    assert list(out.iterdir()) == [] and (tmp_path / "sibling.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "out", "sibling.txt"]


@pytest.mark.parametrize(
    "text, message",
    [
        (b"\xff\xfe{\x00", "not UTF-8 text"),
        ("{", "not valid JSON"),
        ('{"lab": "x", "dtype": "int32", "cases": [{"n": NaN}]}', "NaN is not a JSON number"),
        ("[1, 2]", "manifest: must be a JSON object, not list"),
        ('"text"', "manifest: must be a JSON object, not str"),
        ("[" * 100000, "not valid JSON"),
    ],
)
def test_a_file_that_is_not_a_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | bytes, message: str
) -> None:
    path, out = _sandbox(tmp_path, text)
    assert generate.main(["--manifest", str(path), "--out", str(out)]) == 2
    assert message in _one_line_error(capsys)
    assert list(out.iterdir()) == []


def test_the_command_line_shows_no_traceback(tmp_path: Path) -> None:
    path, out = _sandbox(tmp_path, json.dumps({**MANIFEST, "dtype": "int64"}))
    result = subprocess.run(
        [sys.executable, "-m", "datasets.generate", "--manifest", str(path), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith(
        "manifest: field 'dtype': must be one of int32, float32, not 'int64'"
    )


def test_every_shipped_manifest_follows_the_schema() -> None:
    for path in sorted((REPO / "datasets").glob("lab*.json")):
        generate.load_manifest(path)


def test_the_schema_knows_every_distribution() -> None:
    schema.check_distributions()


def test_the_limits_are_accepted() -> None:
    ok = copy.deepcopy(MANIFEST)
    ok["cases"][0].update(n=schema.MAX_N, seed=schema.MAX_SEED, low=-(2**31), high=2**31)
    assert schema.validate_manifest(ok) is ok
