#!/usr/bin/env python3
"""A lab program over launch configurations, as the course's tables do:

    python3 scripts/sweep.py LAB VARIANT --param NAME=V1,V2,... [--param ...]
                             [--build BUILD] [--data FILE] [--out DIR]

Runs LAB's program in BUILD/bin once per combination of the --param values, each run
with `--format csv`, and writes its rows to OUT/sweep.csv (the parameters, the program's
own columns, `error`) and, with matplotlib (the `plot` extra), OUT/sweep.png. VARIANT
is a value of the program's --variant, or another program of the lab (`lab2
sum_matrix`). The programs check their own options; `--help --format json` says which
they take, so bad input is refused before the first run.

Exit status: 0 every run gave its row; 1 a run failed or printed WRONG (its row says
why); 2 bad input, one line; 3 no GPU.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXIT_NO_GPU = 4  # the lab programs' kExitNoGpu (labs/common/include/labs/program.hpp)
RUN_TIMEOUT_S = 300
# Options the sweep sets itself, or that describe no launch.
RESERVED = {"help", "data", "format", "variant"}
RATES = ("gbps", "gflops")  # the rate columns of the programs' rows
WHOLE_NUMBER = re.compile(r"-?[0-9]+")

Params = list[tuple[str, list[str]]]
Options = dict[str, dict[str, Any]]


class BadInput(Exception):
    """What the sweep refuses, in one line."""


def parse_params(specs: Sequence[str]) -> Params:
    """`NAME=V1,V2` -> (NAME, [V1, V2]), in the order given."""
    params: Params = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip().lstrip("-")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name or not items:
            raise BadInput(f"--param takes NAME=V1,V2,...; got {spec!r}")
        if any(name == n for n, _ in params):
            raise BadInput(f"--param {name} given twice")
        params.append((name, items))
    if not params:
        raise BadInput("give at least one --param NAME=V1,V2,...")
    return params


def options_of(program: Path) -> Options:
    """The program's options by name, from `--help --format json`."""
    proc = subprocess.run(
        [str(program), "--help", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = (proc.stderr or proc.stdout).strip().splitlines()
    try:
        return {str(o["name"]): o for o in json.loads(proc.stdout)["options"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise BadInput(
            f"{program} --help --format json printed no options (exit {proc.returncode}"
            + (f": {said[0]}" if said else f", {exc}")
            + "): it prints no rows to sweep"
        ) from None


def find_program(build: Path, lab: str, variant: str) -> tuple[Path, str | None, Options]:
    """The program to run, the --variant to give it (None: the program is the variant)
    and its options."""
    folders = [p.name for p in sorted((REPO / "labs").glob(f"{lab}_*")) if p.is_dir()]
    if not re.fullmatch(r"lab[0-9]+", lab) or not folders:
        known = sorted({p.name.split("_")[0] for p in (REPO / "labs").glob("lab[0-9]*_*")})
        raise BadInput(f"unknown lab {lab!r}: the labs are {', '.join(known)}")
    bin_dir = build / "bin"
    programs = {
        p.name: p for p in bin_dir.glob(f"{lab}_*") if p.is_file() and not p.name.endswith("_test")
    }
    if not programs:
        raise BadInput(
            f"{bin_dir} has no {lab} program: build the lab first (cmake --build {build})"
        )
    main = programs.get(folders[0])
    options = options_of(main) if main else {}
    variants = [str(c) for c in options.get("variant", {}).get("choices") or [] if c != "all"]
    if main and variant in variants:
        return main, variant, options
    other = programs.get(f"{lab}_{variant}")
    if other is not None and other != main:
        return other, None, options_of(other)
    others = sorted(name[len(lab) + 1 :] for name in programs if name != folders[0])
    raise BadInput(
        f"unknown variant {variant!r} of {lab}: variants are {', '.join(variants) or 'none'}"
        + (f"; other programs: {', '.join(others)}" if others else "")
    )


def check_params(program: Path, options: Options, params: Params) -> None:
    launch = ", ".join(sorted(o for o in options if o not in RESERVED))
    for name, values in params:
        if name in RESERVED:
            raise BadInput(f"--param {name}: set by the sweep itself; parameters: {launch}")
        if name not in options:
            raise BadInput(f"{program.name} has no option --{name}; its parameters: {launch}")
        # As the programs read them (labs/common/src/cli.cpp), refused before any run.
        wrong = [v for v in values if not WHOLE_NUMBER.fullmatch(v)]
        if wrong and options[name].get("value") == "N":
            raise BadInput(f"--param {name} takes whole numbers, not {wrong[0]!r}")


def dataset(build: Path, lab: str, given: Path | None) -> Path:
    """--data, else the largest public case of the lab's manifest in BUILD/datasets/LAB/."""
    what = "the dataset" if given is None else "--data"
    if given is None:
        try:
            cases = json.loads((REPO / "datasets" / f"{lab}.json").read_text())["cases"]
            biggest = max(cases, key=lambda c: int(c.get("n", 0)))
            given = build / "datasets" / lab / f"{biggest['name']}.bin"
        except (OSError, ValueError, KeyError, TypeError):
            raise BadInput(f"{lab} has no public case to read: give --data FILE") from None
    if given.is_dir():
        raise BadInput(f"{what} {given} is a folder: give a dataset file")
    if not given.is_file():
        raise BadInput(
            f"{what} {given} does not exist: generate the lab's cases "
            f"(ctest --test-dir {build} -R '^{lab}\\.datasets$') or give --data FILE"
        )
    return given


def run(argv: list[str]) -> tuple[int, list[dict[str, str]], str]:
    """One run's exit status, CSV rows and the last line of stderr (the program's reason
    for its exit status; the lines before it describe the device and the input)."""
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return 124, [], f"timed out after {RUN_TIMEOUT_S} s"
    said = proc.stderr.strip().splitlines()
    return proc.returncode, list(csv.DictReader(proc.stdout.splitlines())), said[-1] if said else ""


def write_plot(path: Path, title: str, names: Sequence[str], rows: Sequence[dict[str, str]]) -> str:
    """Time and rate against the configuration (its varying parameters); why not, if not."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib): no sweep.png"
    varying = [n for n in names if len({r[n] for r in rows}) > 1] or list(names)
    labels = [",".join(f"{n}={r[n]}" for n in varying) for r in rows]
    fixed = ", ".join(f"{n}={rows[0][n]}" for n in names if n not in varying)
    rate = next((c for c in RATES if any(r.get(c) for r in rows)), None)
    panels = ["time_ms"] + ([rate] if rate else [])
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False, figsize=(8, 6))
    for ax, column in zip(axes[:, 0], panels):
        ax.plot(range(len(rows)), [float(r.get(column) or "nan") for r in rows], "o-")
        ax.set_ylabel(column)
    axes[0, 0].set_title(title + (f" ({fixed})" if fixed else ""))
    axes[-1, 0].set_xticks(range(len(rows)), labels, rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return ""


def sweep(args: argparse.Namespace) -> int:
    params = parse_params(args.param)
    program, variant, options = find_program(args.build, args.lab, args.variant)
    check_params(program, options, params)
    fixed = ["--variant", variant] if variant else []
    if args.data is not None and "data" not in options:
        raise BadInput(f"{program.name} takes no dataset (it makes its inputs): drop --data")
    # lab3's --random makes its input in the program instead of reading --data.
    if "data" in options and not any(name == "random" for name, _ in params):
        fixed += ["--data", str(dataset(args.build, args.lab, args.data))]
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"--out {args.out}: {exc.strerror or exc}") from None
    names = [name for name, _ in params]
    rows, columns, failed = [], [*names], False
    shown = [*names, "time_ms", *RATES, "check", "error"]
    for config in itertools.product(*(values for _, values in params)):
        launch = [arg for name, value in zip(names, config) for arg in (f"--{name}", value)]
        code, printed, said = run([str(program), *launch, *fixed, "--format", "csv"])
        if code == EXIT_NO_GPU:
            print(f"sweep: no GPU: {said or program.name}; nothing measured", file=sys.stderr)
            return 3
        mine = [r for r in printed if variant is None or r.get("variant") == variant][:1]
        # Exit 1: a wrong result, or a time that cannot be trusted; its row says which.
        error = f"exit {code}: {said or 'no reason printed'}" if code else ""
        if not mine and not code:
            error = f"no {variant or 'result'} row in its --format csv output"
        row = {**(mine[0] if mine else {}), **dict(zip(names, config)), "error": error}
        columns += [c for c in row if c not in columns]
        failed |= bool(error)
        rows.append(row)
        print(", ".join(f"{c}={row[c]}" for c in shown if row.get(c)), flush=True)
    columns = [c for c in columns if c != "error"] + ["error"]
    with (args.out / "sweep.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, restval="")
        writer.writeheader()
        writer.writerows(rows)
    why = write_plot(args.out / "sweep.png", f"{args.lab} {args.variant}", names, rows)
    print(
        f"sweep: {len(rows)} configurations in {args.out / 'sweep.csv'}"
        + (f"; {why}" if why else "")
    )
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/sweep.py", description="Run a lab program over launch configurations."
    )
    parser.add_argument("lab", metavar="LAB", help="lab id, e.g. lab1")
    parser.add_argument(
        "variant", metavar="VARIANT", help="a --variant of the lab's program, or another program"
    )
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=V1,V2,...",
        help="a program option and its values (repeatable: every combination runs)",
    )  # fmt: skip
    parser.add_argument("--build", type=Path, default=Path("build/student"), metavar="BUILD")
    parser.add_argument("--data", type=Path, metavar="FILE", help="default: the largest case")
    parser.add_argument("--out", type=Path, default=Path("sweep"), metavar="DIR")
    try:
        return sweep(parser.parse_args(argv))
    except BadInput as exc:
        print(f"sweep: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # nothing written: sweep.csv is written once every run ended
        print("sweep: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
