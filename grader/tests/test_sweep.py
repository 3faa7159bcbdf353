"""`grader sweep`: reading the lab programs' `--format json` documents (recorded outputs),
planning, running with fake programs, and the written table."""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from grader.core.errors import GraderUsageError
from grader.tests.helpers import PACKAGE_PARENT, run_grader
from grader.tools.sweep import (
    EXIT_NO_DEVICE,
    NoDevice,
    ProgramHelp,
    Row,
    Runner,
    SweepResult,
    parse_help,
    parse_params,
    parse_row,
    plan_sweep,
    run_sweep,
)
from grader.tools.sweep_report import plot_labels

RECORDED = Path(__file__).resolve().parent / "data" / "sweep"
# What `lab1_histogram --help --format json` prints.
LAB1_HELP = (RECORDED / "lab1_help.json").read_text()


def _recorded(name: str) -> str:
    return (RECORDED / name).read_text()


@pytest.mark.parametrize(
    "name, variant, time_ms, rate, unit, check",
    [
        ("lab1_shared.json", "shared", 0.158, 849.5, "gbps", "ok"),
        # A wrong result is not timed: no time, no rate, its check.
        ("lab1_global_overflow.json", "global", None, None, "gbps", "WRONG"),
        ("lab2_even_odd.json", "even_odd", 0.358, None, "", "ok"),
        ("lab2_sum_matrix.json", None, 0.987, 3262, "gbps", "ok"),
        ("lab3_all.json", "interleaved", 0.1028, 652.9, "gbps", "ok"),
        ("lab3_all.json", "complete_unroll_template", 0.0361, 1857.5, "gbps", "ok"),
        ("lab4_shared.json", "shared", 0.0871, 1540.9, "gbps", "ok"),
        ("lab5_naive.json", "naive", 26.1, 5265.9, "gflops", "ok"),
    ],
)
def test_parse_row_from_recorded_outputs(
    name: str,
    variant: str | None,
    time_ms: float | None,
    rate: float | None,
    unit: str,
    check: str,
) -> None:
    row = parse_row(_recorded(name), variant)
    assert row.error == ""
    assert row.time_ms == (pytest.approx(time_ms) if time_ms is not None else None)
    assert row.rate == (pytest.approx(rate) if rate is not None else None)
    assert row.rate_unit == unit and row.check == check


def test_parse_row_without_the_row_or_document() -> None:
    assert parse_row(_recorded("lab1_shared.json"), "banks").error == "no row for banks"
    # The table (no --format json) is no document.
    table = "variant  time_ms  GB/s  check\nshared     0.158  849.5  ok\n"
    assert "no JSON document" in parse_row(table, "shared").error
    assert "no JSON document" in parse_row("[1, 2]", "shared").error
    # A run that failed says why in its document.
    failed = '{"program": "lab1_histogram", "rows": [], "error": "d.bin: cannot open"}'
    assert parse_row(failed, "shared").error == "d.bin: cannot open"
    simple = '{"rows": [{"index": 0, "value": 1}]}'
    assert parse_row(simple, None).error == "the row of the run has no time_ms"


def test_parse_help_lists_options_and_variants() -> None:
    helps = parse_help(Path("lab1_histogram"), LAB1_HELP)
    assert set(helps.options) >= {"blocks", "threads", "slice", "data", "variant", "format"}
    assert "help" not in helps.options
    assert helps.variant_option == "variant"
    assert helps.variants == [
        "global",
        "global_unroll",
        "global_ilp4",
        "one_per_thread",
        "shared",
        "inverse",
        "banks",
        "best",
    ]
    sum_matrix = parse_help(
        Path("lab2_sum_matrix"),
        '{"program": "lab2_sum_matrix", "options": [{"name": "block-x", "choices": []}]}',
    )
    assert sum_matrix.variant_option is None and sum_matrix.variants == []


def test_parse_help_refuses_what_is_no_option_list() -> None:
    for text in ("usage: lab2_barrier_demo [options]\n", "{}", '{"options": [{"help": "x"}]}'):
        with pytest.raises(GraderUsageError, match="printed no list of options"):
            parse_help(Path("lab2_barrier_demo"), text)


def test_parse_params() -> None:
    assert parse_params(["blocks=64,128", "--threads=256"]) == [
        ("blocks", ["64", "128"]),
        ("threads", ["256"]),
    ]
    for bad in ("blocks", "blocks=", "=4"):
        with pytest.raises(GraderUsageError, match="NAME=V1,V2"):
            parse_params([bad])
    with pytest.raises(GraderUsageError, match="twice"):
        parse_params(["a=1", "a=2"])


def test_plan_checks_parameters_and_data(tmp_path: Path) -> None:
    helps = parse_help(tmp_path / "lab1_histogram", LAB1_HELP)
    data = tmp_path / "d.bin"
    data.write_bytes(b"\0" * 8)
    plan = plan_sweep(helps, "shared", [("blocks", ["64", "128"]), ("slice", ["32", "64"])], data)
    assert len(plan.configs) == 4
    assert plan.argv(plan.configs[1]) == [
        str(tmp_path / "lab1_histogram"),
        "--variant",
        "shared",
        "--blocks",
        "64",
        "--slice",
        "64",
        "--data",
        str(data),
        "--format",
        "json",
    ]
    with pytest.raises(GraderUsageError, match="no option --tile.*blocks, n, reps, slice"):
        plan_sweep(helps, "shared", [("tile", ["1"])], data)
    with pytest.raises(GraderUsageError, match="set by the sweep itself"):
        plan_sweep(helps, "shared", [("variant", ["global"])], data)
    with pytest.raises(GraderUsageError, match="--param blocks takes whole numbers, not 'abc'"):
        plan_sweep(helps, "shared", [("blocks", ["64", "abc"])], data)  # once run, as a row
    with pytest.raises(GraderUsageError, match="needs a dataset"):
        plan_sweep(helps, "shared", [("blocks", ["1"])], tmp_path / "missing.bin")
    no_data = ProgramHelp(tmp_path / "lab5_matmul", {"n": (), "variant": ("naive", "all")})
    with pytest.raises(GraderUsageError, match="takes no dataset"):
        plan_sweep(no_data, "naive", [("n", ["1"])], data)


def _fake_run(outputs: dict[str, tuple[int, str]]) -> Runner:
    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        key = argv[argv.index("--blocks") + 1]
        code, out = outputs[key]
        return subprocess.CompletedProcess(
            argv, code, out, "lab1_histogram: bad launch\n" if code == 2 else ""
        )

    return run


def test_run_sweep_records_errors_and_wrong_answers(tmp_path: Path) -> None:
    helps = parse_help(tmp_path / "lab1_histogram", LAB1_HELP)
    data = tmp_path / "d.bin"
    data.write_bytes(b"\0" * 8)
    plan = plan_sweep(helps, "shared", [("blocks", ["1", "2", "3"])], data)
    result = run_sweep(
        plan,
        _fake_run(
            {
                "1": (0, _recorded("lab1_shared.json")),
                "2": (2, ""),
                "3": (1, _recorded("lab1_global_overflow.json").replace('"global"', '"shared"')),
            }
        ),
    )
    rows = [row for _, row in result.rows]
    assert rows[0].time_ms == pytest.approx(0.158) and rows[0].check == "ok"
    assert rows[1].error == "exit 2: lab1_histogram: bad launch"
    assert rows[2].check == "WRONG"


def test_run_sweep_stops_without_a_gpu(tmp_path: Path) -> None:
    helps = parse_help(tmp_path / "lab1_histogram", LAB1_HELP)
    data = tmp_path / "d.bin"
    data.write_bytes(b"\0" * 8)
    plan = plan_sweep(helps, "shared", [("blocks", ["1"])], data)
    with pytest.raises(NoDevice) as info:
        run_sweep(
            plan,
            lambda argv: subprocess.CompletedProcess(argv, EXIT_NO_DEVICE, "", "no CUDA device"),
        )
    assert str(info.value) == "no CUDA device"


def test_plot_labels_leave_shared_parameters_to_the_title(tmp_path: Path) -> None:
    helps = ProgramHelp(
        tmp_path / "lab5_matmul",
        {"n": (), "block-x": (), "block-y": (), "variant": ("naive", "all")},
    )
    plan = plan_sweep(
        helps, "naive", [("block-x", ["8", "16"]), ("block-y", ["8"]), ("n", ["2048"])], None
    )
    result = SweepResult(plan, [(config, Row()) for config in plan.configs])
    assert plot_labels(result) == ("block-y=8, n=2048", ["block-x=8", "block-x=16"])
    single = plan_sweep(helps, "naive", [("n", ["2048"])], None)
    assert plot_labels(SweepResult(single, [(single.configs[0], Row())])) == ("", ["n=2048"])


# --- the command line on a fake program -------------------------------------------------------


def _fake_lab(tmp_path: Path, exit_code: int = 0) -> tuple[Path, Path]:
    """A repository with labs/lab1_histogram and a build whose lab1 programs are scripts:
    lab1_histogram prints its rows as JSON (and nothing without --format json),
    lab1_demo has no --format, as lab2_barrier_demo."""
    repo = tmp_path / "repo"
    (repo / "labs" / "lab1_histogram").mkdir(parents=True)
    (repo / "labs" / "lab2_divergence").mkdir(parents=True)
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    program = build / "bin" / "lab1_histogram"
    shared = RECORDED / "lab1_shared.json"
    program.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
if "--format" not in args or args[args.index("--format") + 1 :][:1] != ["json"]:
    sys.stderr.write("lab1_histogram: not asked for --format json\\n"); sys.exit(2)
if "--help" in sys.argv:
    sys.stdout.write({LAB1_HELP!r}); sys.exit(0)
if {exit_code} == {EXIT_NO_DEVICE}:
    sys.stderr.write("lab1_histogram: no NVIDIA driver or GPU found\\n"); sys.exit({EXIT_NO_DEVICE})
doc = json.load(open({str(shared)!r}))
doc["rows"][0]["blocks"] = int(sys.argv[sys.argv.index("--blocks") + 1])
json.dump(doc, sys.stdout)
""")
    demo = build / "bin" / "lab1_demo"
    demo.write_text(f"""#!{sys.executable}
import sys
if "--format" in sys.argv:
    sys.stderr.write("lab1_demo: unknown option --format\\n"); sys.exit(2)
""")
    for script in (program, demo):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (build / "bin" / "lab1_correctness_test").write_text("")
    return repo, build


def _sweep(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Keep the caller's PYTHONPATH: matplotlib may be installed through it.
    path = os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))
    return run_grader("sweep", *args, cwd=tmp_path, env={"PYTHONPATH": path, "MPLBACKEND": "Agg"})


def _sweep_with_data(
    tmp_path: Path, repo: Path, build: Path, out: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """`sweep ARGS` of the fake lab on an 8-byte dataset, writing its tables to `out`."""
    data = tmp_path / "d.bin"
    data.write_bytes(b"\0" * 8)
    return _sweep(
        tmp_path,
        *args,
        "--build",
        str(build),
        "--repo",
        str(repo),
        "--data",
        str(data),
        "--out",
        str(out),
    )


def test_cli_writes_the_table(tmp_path: Path) -> None:
    repo, build = _fake_lab(tmp_path)
    result = _sweep_with_data(
        tmp_path,
        repo,
        build,
        tmp_path / "out",
        "lab1",
        "shared",
        "--param",
        "blocks=2048,4096",
        "--param",
        "threads=256",
    )
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader((tmp_path / "out" / "sweep.csv").open()))
    assert rows[0] == ["blocks", "threads", "time_ms", "gbps", "check", "error"]
    assert rows[1] == ["2048", "256", "0.158", "849.5", "ok", ""]
    md = (tmp_path / "out" / "sweep.md").read_text()
    assert md.startswith("# lab1 shared: blocks, threads\n")
    assert "| blocks | threads | time_ms | GB/s | check |" in md
    try:
        import matplotlib  # noqa: F401

        assert (tmp_path / "out" / "sweep.png").is_file()
    except ImportError:
        assert "matplotlib is not installed" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (("lab9", "shared", "--param", "blocks=1"), "unknown lab 'lab9'"),
        (
            ("lab1", "fastest", "--param", "blocks=1"),
            "unknown variant 'fastest' of lab1: variants are global,",
        ),
        (("lab1", "shared", "--param", "tile=16"), "no option --tile"),
        (("lab1", "shared", "--param", "blocks=abc"), "--param blocks takes whole numbers"),
        (("lab1", "shared"), "at least one --param"),
        (("lab2", "even_odd", "--param", "threads=1"), "has no lab2 program"),
        (("lab1", "shared", "--param", "blocks=1"), "needs a dataset"),
        (
            ("lab1", "demo", "--param", "n=1"),
            "lab1_demo --help --format json failed (exit 2: lab1_demo: unknown option --format): "
            "it prints no rows to sweep",
        ),
    ],
)
def test_cli_bad_input(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    repo, build = _fake_lab(tmp_path)
    result = _sweep(tmp_path, *args, "--build", str(build), "--repo", str(repo))
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_cli_without_a_gpu_exits_3(tmp_path: Path) -> None:
    repo, build = _fake_lab(tmp_path, exit_code=EXIT_NO_DEVICE)
    result = _sweep_with_data(
        tmp_path, repo, build, tmp_path / "o", "lab1", "shared", "--param", "blocks=1"
    )
    assert result.returncode == 3 and "Traceback" not in result.stderr
    # One plain line quoting the program, never a Python list repr.
    assert result.stderr.strip().splitlines()[-1] == (
        "grader: no GPU: lab1_histogram found no CUDA device (it said: lab1_histogram: no NVIDIA "
        "driver or GPU found); nothing measured. Run the sweep on a machine with an NVIDIA GPU and "
        "driver."
    )
