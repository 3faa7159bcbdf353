"""The dataset generator: deterministic bytes, the distributions it promises,
and clear errors for bad manifests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datasets import generate

Capture = pytest.CaptureFixture[str]

MANIFEST = {
    "lab": "labX",
    "dtype": "int32",
    "defaults": {"low": 0, "high": 1024},
    "cases": [
        {"name": "u", "distribution": "uniform", "n": 10007, "seed": 1},
        {"name": "hot", "distribution": "contention", "n": 20000, "seed": 2, "hot_fraction": 0.9},
        {"name": "same", "distribution": "constant", "n": 50, "seed": 3, "value": 777},
    ],
}


@pytest.fixture()
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "labX.json"
    path.write_text(json.dumps(MANIFEST))
    return path


def read(path: Path) -> np.ndarray:
    return np.fromfile(path, dtype="<i4")


def test_same_seed_gives_same_bytes(manifest: Path, tmp_path: Path) -> None:
    assert generate.main(["--manifest", str(manifest), "--out", str(tmp_path / "a")]) == 0
    assert generate.main(["--manifest", str(manifest), "--out", str(tmp_path / "b")]) == 0
    for case in ("u", "hot", "same"):
        a, b = (tmp_path / d / f"{case}.bin" for d in ("a", "b"))
        assert a.read_bytes() == b.read_bytes()


def test_distributions_have_the_promised_shape(manifest: Path, tmp_path: Path) -> None:
    generate.main(["--manifest", str(manifest), "--out", str(tmp_path)])
    uniform = read(tmp_path / "u.bin")
    assert uniform.size == 10007 and uniform.min() >= 0 and uniform.max() <= 1023
    assert len(np.unique(uniform)) > 900  # random, not constant
    hot = read(tmp_path / "hot.bin")
    assert np.bincount(hot).max() / hot.size > 0.88
    assert set(read(tmp_path / "same.bin")) == {777}


def test_a_corrupted_image_holds_its_pixels_in_order_among_garbage(tmp_path: Path) -> None:
    image = {
        "lab": "labX",
        "dtype": "int32",
        "defaults": {"low": 40, "high": 220},
        "cases": [
            {
                "name": "img",
                "distribution": "corrupted_image",
                "n": 5003,
                "pixels": 4001,
                "seed": 9,
            },
            {"name": "one", "distribution": "corrupted_image", "n": 1, "pixels": 1, "seed": 9},
        ],
    }
    path = tmp_path / "image.json"
    path.write_text(json.dumps(image))
    assert generate.main(["--manifest", str(path), "--out", str(tmp_path)]) == 0
    buffer = read(tmp_path / "img.bin")
    pixels = buffer[buffer != -27]
    assert buffer.size == 5003 and pixels.size == 4001
    # The map the pipeline applies gives back grey levels drawn from [low, high).
    fixed = pixels + np.array([1, -5, 3, -8])[np.arange(pixels.size) & 3]
    assert fixed.min() >= 40 and fixed.max() < 220 and len(np.unique(fixed)) > 150
    assert read(tmp_path / "one.bin").size == 1 and read(tmp_path / "one.bin")[0] != -27


def test_an_rgba_image_packs_its_channels_with_greys_ties_and_a_hot_colour(
    tmp_path: Path,
) -> None:
    image = {
        "lab": "labX",
        "dtype": "int32",
        "cases": [
            {"name": "img", "distribution": "rgba_image", "n": 40000, "seed": 3},
            {
                "name": "grey",
                "distribution": "rgba_image",
                "n": 40000,
                "seed": 4,
                "grey_fraction": 0.1,
            },
            {
                "name": "hot",
                "distribution": "rgba_image",
                "n": 40000,
                "seed": 5,
                "hot_fraction": 0.9,
            },
        ],
    }
    path = tmp_path / "image.json"
    path.write_text(json.dumps(image))
    assert generate.main(["--manifest", str(path), "--out", str(tmp_path)]) == 0
    # Bytes R, G, B, A in memory order: every channel spans 0..255, independently.
    rgba = read(tmp_path / "img.bin").view(np.uint8).reshape(-1, 4)
    assert all(len(np.unique(rgba[:, c])) == 256 for c in range(4))
    assert not np.array_equal(rgba[:, 0], rgba[:, 1])
    rgba = read(tmp_path / "grey.bin").view(np.uint8).reshape(-1, 4)
    equal = [rgba[:, c] == rgba[:, (c + 1) % 3] for c in range(3)]
    greys = equal[0] & equal[1]
    ties = (equal[0] | equal[1] | equal[2]) & ~greys
    assert 0.09 < greys.mean() < 0.11 and 0.09 < ties.mean() < 0.12
    rgba = read(tmp_path / "hot.bin").view(np.uint8).reshape(-1, 4)
    _, counts = np.unique(rgba[:, :3], axis=0, return_counts=True)
    assert counts.max() / len(rgba) > 0.88
    assert len(np.unique(rgba[:, 3])) == 256  # alpha stays any byte


def test_up_to_date_files_are_kept_and_changed_entries_rewritten(
    manifest: Path, tmp_path: Path, capsys: Capture
) -> None:
    generate.main(["--manifest", str(manifest), "--out", str(tmp_path)])
    generate.main(["--manifest", str(manifest), "--out", str(tmp_path)])
    assert capsys.readouterr().out.count("up to date") == 3
    changed = json.loads(manifest.read_text())
    changed["cases"][0]["seed"] = 99
    manifest.write_text(json.dumps(changed))
    generate.main(["--manifest", str(manifest), "--out", str(tmp_path)])
    assert "u.bin (10007 values): written" in capsys.readouterr().out


def test_a_single_case_to_a_file(manifest: Path, tmp_path: Path) -> None:
    out = tmp_path / "data.bin"
    assert generate.main(["--manifest", str(manifest), "--case", "u", "--out", str(out)]) == 0
    assert read(out).size == 10007


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda m: m["cases"][0].update(distribution="zipf"),
            (
                "case 'u': field 'distribution': must be one of uniform, contention, constant, "
                "signed_magnitude, corrupted_image, rgba_image, not 'zipf'"
            ),
        ),
        (lambda m: m.pop("dtype"), "manifest: field 'dtype': is required"),
    ],
)
def test_bad_manifests_are_named(
    tmp_path: Path, capsys: Capture, change: Callable[[dict[str, Any]], object], message: str
) -> None:
    bad = json.loads(json.dumps(MANIFEST))
    change(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert generate.main(["--manifest", str(path), "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_unknown_case_and_missing_manifest(manifest: Path, tmp_path: Path, capsys: Capture) -> None:
    args = ["--manifest", str(manifest), "--case", "nope", "--out", str(tmp_path)]
    assert generate.main(args) == 2
    assert "unknown case 'nope'; known: u, hot, same" in capsys.readouterr().err
    assert generate.main(["--manifest", str(tmp_path / "none.json"), "--out", str(tmp_path)]) == 2
    assert "no such manifest" in capsys.readouterr().err


def test_every_lab_manifest_is_valid() -> None:
    for path in sorted(Path(__file__).parents[1].glob("lab*.json")):
        manifest = generate.load_manifest(path)
        names = [c["name"] for c in manifest["cases"]]
        assert len(names) == len(set(names)), f"{path}: duplicate case names"


def test_the_seed_size_is_generated_in_under_two_seconds(tmp_path: Path) -> None:
    import time

    big = {
        **MANIFEST,
        "cases": [
            {
                "name": "big",
                "distribution": "contention",
                "n": 2**25,
                "seed": 5,
                "hot_fraction": 0.9,
            }
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(big))
    # CPU time of this process, so a busy machine (parallel compiles) does not count.
    start = time.process_time()
    assert generate.main(["--manifest", str(path), "--out", str(tmp_path / "out")]) == 0
    assert time.process_time() - start < 2.0
    assert (tmp_path / "out" / "big.bin").stat().st_size == 4 * 2**25
