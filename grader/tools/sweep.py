"""Sweeping a lab variant over launch configurations, as the course's tables do.

The lab programs are the source of truth: `--help --format json` lists their
options and the variants they take, and each run's `--format json` document
holds its rows, by column name (`time_ms`, `gbps` or `gflops`, `check`).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.captured import run_captured
from grader.core.errors import GraderUsageError
from grader.core.sandbox import Sandbox, start_failure
from grader.core.sandbox import exit_status as sandbox_exit_status

VARIANT_OPTION = "variant"
# The rate columns of the programs' rows, and how a table heads them.
RATE_LABELS = {"gbps": "GB/s", "gflops": "GFLOP/s"}
# Options a sweep sets itself, or that do not describe a launch.
_RESERVED = {"help", "data", "format", VARIANT_OPTION}
_RUN_TIMEOUT_S = 300.0
# The lab programs' status for no NVIDIA driver or GPU (labs/common/include/labs/program.hpp).
EXIT_NO_DEVICE = 4
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class ProgramHelp:
    """What a lab program accepts: its options, each with the values it lists (if any),
    and those that take a whole number (placeholder N)."""

    path: Path
    options: Mapping[str, tuple[str, ...]]
    integers: frozenset[str] = frozenset()

    @property
    def variant_option(self) -> str | None:
        return VARIANT_OPTION if VARIANT_OPTION in self.options else None

    @property
    def variants(self) -> list[str]:
        """The values the variant option lists, without `all`."""
        return [name for name in self.options.get(VARIANT_OPTION, ()) if name != "all"]


def parse_help(path: Path, text: str) -> ProgramHelp:
    """Read `--help --format json`: {"program": ..., "options": [{"name", "choices", ...}]}."""
    try:
        doc = json.loads(text)
        options = {
            str(option["name"]): tuple(str(c) for c in option.get("choices") or ())
            for option in doc["options"]
        }
        integers = frozenset(str(o["name"]) for o in doc["options"] if o.get("value") == "N")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GraderUsageError(
            f"{path.name} --help --format json printed no list of options ({exc})"
        ) from exc
    options.pop("help", None)
    return ProgramHelp(path, options, integers)


@dataclass(frozen=True)
class Row:
    """One run's figures; `error` is set when the run gave none. `rate_unit` is the
    rate's column (gbps, gflops)."""

    time_ms: float | None = None
    rate: float | None = None
    rate_unit: str = ""
    check: str = ""
    error: str = ""


def _number(value: object) -> float | None:
    """A JSON number as a float; null (a time not measured) and anything else as None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def parse_row(output: str, variant: str | None) -> Row:
    """The figures of `variant`'s row in a lab program's `--format json` document: the
    row whose `variant` is its name, or the first row when there is no variant."""
    try:
        doc = json.loads(output)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        return Row(error="no JSON document (--format json) in the program's output")
    rows = [row for row in doc.get("rows") or [] if isinstance(row, dict)]
    found = next((r for r in rows if variant is None or r.get(VARIANT_OPTION) == variant), None)
    if found is None:
        said = doc.get("error")
        return Row(error=str(said) if said else f"no row for {variant or 'the run'}")
    if "time_ms" not in found:
        return Row(error=f"the row of {variant or 'the run'} has no time_ms")
    unit = next((key for key in RATE_LABELS if key in found), "")
    check = found.get("check")
    return Row(
        _number(found["time_ms"]),
        _number(found[unit]) if unit else None,
        unit,
        check if isinstance(check, str) else "",
    )


@dataclass(frozen=True)
class SweepPlan:
    """The program, the fixed arguments and every configuration to run."""

    program: ProgramHelp
    variant: str | None
    fixed: tuple[str, ...]
    names: tuple[str, ...]
    configs: tuple[tuple[str, ...], ...]

    def argv(self, config: Sequence[str]) -> list[str]:
        args = [str(self.program.path)]
        if self.variant is not None and self.program.variant_option:
            args += [f"--{self.program.variant_option}", self.variant]
        for name, value in zip(self.names, config):
            args += [f"--{name}", value]
        return args + list(self.fixed) + ["--format", "json"]

    def row_name(self) -> str | None:
        """The `variant` of the row to read (None: the program's first row)."""
        return self.variant if self.program.variant_option else None


def parse_params(specs: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`NAME=V1,V2` -> (NAME, [V1, V2]); a malformed or repeated one is a usage error."""
    params: list[tuple[str, list[str]]] = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip().lstrip("-")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name or not items:
            raise GraderUsageError(f"--param takes NAME=V1,V2,...; got {spec!r}")
        if any(name == n for n, _ in params):
            raise GraderUsageError(f"--param {name} given twice")
        params.append((name, items))
    return params


@dataclass
class SweepResult:
    """The plan's configurations with their rows, in order."""

    plan: SweepPlan
    rows: list[tuple[tuple[str, ...], Row]] = field(default_factory=list)


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def run_program(
    argv: Sequence[str], sandbox: Sandbox | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one configuration (in `sandbox`, when given); a timeout is a failed run
    with its reason."""
    if sandbox is None:
        return _run(argv, list(argv), None, {})
    # The sandbox starts in its scratch folder: paths relative to ours would miss.
    argv = [os.path.abspath(a) if os.sep in a and os.path.exists(a) else a for a in argv]
    with tempfile.TemporaryDirectory(prefix="grader-sweep-") as tmp:
        scratch = Path(tmp)
        sandbox.prepare(scratch)
        read_only = [os.path.dirname(a) for a in argv if os.path.isabs(a) and os.path.isfile(a)]
        wrapped = sandbox.command(
            argv, scratch=scratch, cwd=None, read_only=read_only, env=os.environ
        )
        proc = _run(
            argv,
            wrapped,
            sandbox.environment(os.environ, scratch),
            {"cwd": scratch, **sandbox.process_user()},
        )
        if not sandbox.started(scratch):
            return subprocess.CompletedProcess(list(argv), 2, "", start_failure(proc.stderr))
        return subprocess.CompletedProcess(
            list(argv), sandbox_exit_status(proc.returncode), proc.stdout, proc.stderr
        )


def _run(
    argv: Sequence[str], command: list[str], env: dict[str, str] | None, extra: dict[str, Any]
) -> subprocess.CompletedProcess[str]:
    try:
        return run_captured(command, _RUN_TIMEOUT_S, env=env, **extra)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(
            list(argv), 124, "", f"timed out after {_RUN_TIMEOUT_S:.0f} s"
        )


class NoDevice(Exception):
    """The program found no CUDA device: the sweep cannot measure anything."""


def run_sweep(plan: SweepPlan, run: Runner = run_program) -> SweepResult:
    """Run every configuration in order; a failing one is a row with its error."""
    result = SweepResult(plan)
    for config in plan.configs:
        proc = run(plan.argv(config))
        said = (proc.stderr or proc.stdout).strip().splitlines()
        if proc.returncode == EXIT_NO_DEVICE:
            raise NoDevice(said[-1].strip() if said else "")
        row = parse_row(proc.stdout, plan.row_name())
        if proc.returncode not in (0, 1):
            row = Row(error=f"exit {proc.returncode}: {said[0] if said else 'no output'}")
        result.rows.append((config, row))
    return result


def lab_programs(bin_dir: Path, lab: str) -> list[Path]:
    """The lab's programs in BUILD/bin (its tests excluded), main program first."""
    return sorted(
        p for p in bin_dir.glob(f"{lab}_*") if p.is_file() and not p.name.endswith("_test")
    )


def default_data(build: Path, repo: Path, lab: str) -> Path | None:
    """The largest public case of the lab's manifest, generated into BUILD/datasets/<lab>/."""
    manifest = repo / "datasets" / f"{lab}.json"
    try:
        cases = json.loads(manifest.read_text(encoding="utf-8")).get("cases", [])
    except (OSError, ValueError):
        return None
    if not cases:
        return None
    biggest = max(cases, key=lambda c: int(c.get("n", 0)))
    return build / "datasets" / lab / f"{biggest['name']}.bin"


def plan_sweep(
    program: ProgramHelp,
    variant: str | None,
    params: Sequence[tuple[str, list[str]]],
    data: Path | None,
) -> SweepPlan:
    """Check the variant and parameters against the program's help; build the plan."""
    launch = sorted(o for o in program.options if o not in _RESERVED)
    for name, values in params:
        if name in _RESERVED:
            raise GraderUsageError(
                f"--param {name}: set by the sweep itself; "
                f"parameters of {program.path.name}: {', '.join(launch)}"
            )
        if name not in program.options:
            raise GraderUsageError(
                f"{program.path.name} has no option --{name}; its parameters: {', '.join(launch)}"
            )
        # As the programs read them (labs/common/src/cli.cpp): refused before any run.
        wrong = [v for v in values if name in program.integers and not _INTEGER.fullmatch(v)]
        if wrong:
            raise GraderUsageError(f"--param {name} takes whole numbers, not {wrong[0]!r}")
    fixed: tuple[str, ...] = ()
    if data is not None and "data" not in program.options:
        raise GraderUsageError(
            f"{program.path.name} takes no dataset (it makes its inputs itself): drop --data"
        )
    # lab3's --random makes its input in-process instead of reading --data.
    in_process = any(name == "random" for name, _ in params)
    if "data" in program.options and not in_process:
        if data is None or not data.is_file():
            raise GraderUsageError(
                f"{program.path.name} needs a dataset: {data or 'none given'} does not exist; "
                "generate the lab's cases (ctest --test-dir BUILD -R '<lab>.datasets') "
                "or give --data FILE"
            )
        fixed = ("--data", str(data))
    configs = tuple(itertools.product(*(values for _, values in params)))
    return SweepPlan(program, variant, fixed, tuple(n for n, _ in params), configs)
