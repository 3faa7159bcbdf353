"""scripts/sweep.py: a lab program over launch configurations, on fake lab programs that
print what the real ones do (`--help --format json`, rows in `--format csv`)."""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "sweep.py"
RECORDED = Path(__file__).resolve().parent / "data" / "sweep"
# What `lab1_histogram --help --format json` prints, and one run's rows (as JSON).
LAB1_HELP = (RECORDED / "lab1_help.json").read_text()
LAB1_SHARED = json.loads((RECORDED / "lab1_shared.json").read_text())
NO_DATA_HELP = json.dumps({"options": [{"name": "n", "value": "N", "choices": []}]})


def _program(path: Path, body: str) -> None:
    path.write_text(f"#!{sys.executable}\nimport csv, sys\nargs = sys.argv[1:]\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _fake_build(tmp_path: Path, no_gpu: bool = False) -> Path:
    """A build whose lab1 programs are scripts: lab1_histogram prints the recorded row,
    its blocks the launch's (blocks 2: a launch it refuses; 3: a wrong result);
    lab1_sizes takes no dataset; lab1_demo has no --format, as lab2_barrier_demo."""
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    row = LAB1_SHARED["rows"][0]
    _program(
        build / "bin" / "lab1_histogram",
        f"""if "--help" in args:
    print({LAB1_HELP!r}); sys.exit(0)
if {no_gpu}:
    sys.stderr.write("lab1_histogram: needs an NVIDIA GPU: no CUDA device\\n"); sys.exit(4)
assert args[args.index("--format") + 1] == "csv"
row = dict({row!r}, blocks=args[args.index("--blocks") + 1])
if row["blocks"] == "2":
    sys.stderr.write("lab1_histogram: --blocks 2 is too few for this slice\\n"); sys.exit(2)
if row["blocks"] == "3":
    row.update(time_ms="", gbps="", check="WRONG")
out = csv.DictWriter(sys.stdout, {LAB1_SHARED["columns"]!r})
out.writeheader()
out.writerow(dict(row, variant="global*"))  # a yardstick row, not the variant's
out.writerow(row)
sys.exit(1 if row["check"] == "WRONG" else 0)
""",
    )
    _program(build / "bin" / "lab1_sizes", f"print({NO_DATA_HELP!r})\n")
    _program(
        build / "bin" / "lab1_demo",
        'sys.stderr.write("lab1_demo: unknown option --format\\n"); sys.exit(2)\n',
    )
    (build / "bin" / "lab1_correctness_test").write_text("")
    return build


def _sweep(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _data(tmp_path: Path) -> str:
    data = tmp_path / "d.bin"
    data.write_bytes(b"\0" * 8)
    return str(data)


def test_every_configuration_is_one_row_of_the_programs_own_columns(tmp_path: Path) -> None:
    build = _fake_build(tmp_path)
    out = tmp_path / "out"
    result = _sweep(
        tmp_path,
        *("lab1", "shared", "--param", "blocks=2048,2,3", "--param", "threads=256,512"),
        *("--build", str(build), "--data", _data(tmp_path), "--out", str(out)),
    )
    assert result.returncode == 1, result.stderr
    rows = list(csv.DictReader((out / "sweep.csv").open()))
    assert list(rows[0]) == ["blocks", "threads", *LAB1_SHARED["columns"][:1]] + [
        c for c in LAB1_SHARED["columns"] if c not in ("variant", "blocks", "threads")
    ] + ["error"]
    assert [(r["blocks"], r["threads"]) for r in rows] == [
        ("2048", "256"), ("2048", "512"), ("2", "256"), ("2", "512"), ("3", "256"), ("3", "512"),
    ]  # fmt: skip
    first = rows[0]
    assert (first["variant"], first["time_ms"], first["gbps"], first["check"]) == (
        "shared", "0.158", "849.5", "ok",
    )  # fmt: skip
    assert first["error"] == ""
    assert rows[2]["error"] == "exit 2: lab1_histogram: --blocks 2 is too few for this slice"
    assert rows[4]["check"] == "WRONG" and rows[4]["time_ms"] == ""
    try:
        import matplotlib  # noqa: F401

        assert (out / "sweep.png").stat().st_size > 0
    except ImportError:
        assert "matplotlib is not installed" in result.stdout


def test_a_sweep_whose_every_run_gave_its_row_exits_0(tmp_path: Path) -> None:
    build = _fake_build(tmp_path)
    result = _sweep(
        tmp_path,
        *("lab1", "shared", "--param", "blocks=64", "--build", str(build)),
        *("--data", _data(tmp_path), "--out", str(tmp_path / "o")),
    )
    assert result.returncode == 0, result.stderr
    assert "sweep: 1 configurations in" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("lab9", "shared", "--param", "blocks=1"), "unknown lab 'lab9': the labs are lab1, lab2"),
        (
            ("lab1", "fastest", "--param", "blocks=1"),
            "unknown variant 'fastest' of lab1: variants are global, global_unroll,",
        ),
        (("lab1", "shared", "--param", "tile=16"), "lab1_histogram has no option --tile"),
        (("lab1", "shared", "--param", "variant=global"), "set by the sweep itself"),
        (("lab1", "shared", "--param", "blocks=abc"), "--param blocks takes whole numbers"),
        (("lab1", "shared"), "give at least one --param"),
        (("lab1", "shared", "--param", "blocks"), "--param takes NAME=V1,V2,...; got 'blocks'"),
        (("lab1", "shared", "--param", "a=1", "--param", "a=2"), "--param a given twice"),
        (("lab2", "even_odd", "--param", "threads=1"), "has no lab2 program: build the lab"),
        (("lab1", "shared", "--param", "blocks=1"), "uniform_2p25.bin does not exist: generate"),
        (("lab1", "shared", "--param", "blocks=1", "--data", "."), "--data . is a folder"),
        (("lab1", "shared", "--param", "blocks=1", "--data", "none.bin"), "--data none.bin does"),
        (("lab1", "sizes", "--param", "n=1", "--data", "."), "lab1_sizes takes no dataset"),
        (
            ("lab1", "demo", "--param", "n=1"),
            "lab1_demo --help --format json printed no options (exit 2: lab1_demo: unknown "
            "option --format): it prints no rows to sweep",
        ),
    ],
)
def test_bad_input_is_one_line_before_any_run(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    build = _fake_build(tmp_path)
    result = _sweep(tmp_path, *args, "--build", str(build), "--out", str(tmp_path / "o"))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("sweep: error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and not (tmp_path / "o").exists()


def test_without_a_gpu_it_exits_3_quoting_the_program(tmp_path: Path) -> None:
    build = _fake_build(tmp_path, no_gpu=True)
    result = _sweep(
        tmp_path,
        *("lab1", "shared", "--param", "blocks=1,2", "--build", str(build)),
        *("--data", _data(tmp_path), "--out", str(tmp_path / "o")),
    )
    assert result.returncode == 3
    assert result.stderr == (
        "sweep: no GPU: lab1_histogram: needs an NVIDIA GPU: no CUDA device; nothing measured\n"
    )
    assert not (tmp_path / "o" / "sweep.csv").exists()
