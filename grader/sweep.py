"""Sweeping a lab variant over launch configurations, as the seeds' tables do.

The lab programs are the source of truth: their `--help` says which options
and variants exist, and their table rows carry the times. Rows are read by
header name (`time_ms`, `GB/s`, `GFLOP/s`), matched by column position,
because cells such as lab1's `64 x 512 x 1024 = 33554432` hold spaces.
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

from grader.errors import GraderUsageError
from grader.sandbox import Sandbox, start_failure
from grader.sandbox import exit_status as sandbox_exit_status

TIME_HEADERS = ("time_ms",)
RATE_HEADERS = ("GB/s", "GFLOP/s")
VARIANT_OPTIONS = ("variant",)
# Options a sweep sets itself, or that do not describe a launch.
_RESERVED = {"help", "data", *VARIANT_OPTIONS}
# `  --name  help`, or `  --name VALUE  help` (the programs name the value in capitals).
_OPTION = re.compile(r"^\s+--([A-Za-z0-9_-]+)(?:\s[A-Z][A-Z0-9_]*)?\s+(.*)$")
_NUMBER = re.compile(r"^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$")
# lab2_sum_matrix prints one sentence per run instead of a table row.
_SENTENCE = re.compile(r"elapsed\s+(?P<ms>[\d.]+)\s*ms\s+(?P<rate>[\d.]+)\s*(?P<unit>GB/s)")
_RUN_TIMEOUT_S = 300.0
# The lab programs' status for no NVIDIA driver or GPU (labs/common/include/labs/program.hpp).
EXIT_NO_DEVICE = 4


@dataclass(frozen=True)
class ProgramHelp:
    """What a lab program accepts: its options and, if it has one, its variant option."""

    path: Path
    options: Mapping[str, str]

    @property
    def variant_option(self) -> str | None:
        return next((o for o in VARIANT_OPTIONS if o in self.options), None)

    @property
    def variants(self) -> list[str]:
        """The names listed in the variant option's help, without `all`."""
        option = self.variant_option
        if option is None:
            return []
        text = self.options[option].split("(default", 1)[0]
        names = re.split(r",\s*|\s+or\s+", text.replace(", or ", ", "))
        return [
            n.strip()
            for n in names
            if re.fullmatch(r"[A-Za-z0-9_]+", n.strip()) and n.strip() != "all"
        ]


def parse_help(path: Path, text: str) -> ProgramHelp:
    """Read `usage: ... [options]` then `  --name  help` lines."""
    options = {}
    for line in text.splitlines():
        match = _OPTION.match(line)
        if match:
            options[match.group(1)] = match.group(2).strip()
    return ProgramHelp(path, options)


@dataclass(frozen=True)
class Row:
    """One run's figures; `error` is set when the run gave none."""

    time_ms: float | None = None
    rate: float | None = None
    rate_unit: str = ""
    check: str = ""
    error: str = ""


def _spans(line: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]


def _column(header: str, names: Sequence[str]) -> tuple[str, int] | None:
    """The first of `names` present as a header token, with its end column."""
    for _start, end, token in _spans(header):
        if token in names:
            return token, end
    return None


def _nearest_number(
    spans: Sequence[tuple[int, int, str]], end: int, after: int = -1
) -> tuple[int, float] | None:
    """The numeric cell ending nearest `end` (numbers are right-aligned under their header)."""
    best = None
    for index, (_, token_end, token) in enumerate(spans):
        if index <= after or not _NUMBER.match(token):
            continue
        distance = abs(token_end - end)
        if best is None or distance < best[0]:
            best = (distance, index, float(token))
    return None if best is None else (best[1], best[2])


def parse_row(output: str, variant: str | None) -> Row:
    """The figures of `variant`'s row in a lab program's output.

    The header is the line holding `time_ms`; the row is the first later line
    whose first cell is the variant's name (lab2 adds ` (A)`), or the only row
    when there is no variant. lab2_sum_matrix's sentence form is read too.
    """
    lines = output.splitlines()
    header_at = next((i for i, line in enumerate(lines) if _column(line, TIME_HEADERS)), None)
    if header_at is None:
        for line in lines:
            match = _SENTENCE.search(line)
            if match:
                check = line.rsplit(None, 1)[-1] if line.rstrip().endswith(("ok", "WRONG")) else ""
                return Row(float(match["ms"]), float(match["rate"]), match["unit"], check)
        return Row(error="no table header (time_ms) in the program's output")
    header = lines[header_at]
    time_col = _column(header, TIME_HEADERS)
    rate_col = _column(header, RATE_HEADERS)
    assert time_col is not None
    for line in lines[header_at + 1 :]:
        first = line.split(None, 1)[0] if line.strip() else ""
        if variant is not None and first != variant:
            continue
        if not first or line.startswith((" ", "*")):
            continue
        spans = _spans(line)
        found = _nearest_number(spans, time_col[1])
        if found is None:
            continue
        index, time_ms = found
        rate = None
        if rate_col is not None:
            got = _nearest_number(spans, rate_col[1], after=index)
            rate = got[1] if got else None
        last = spans[-1][2]
        check = last if last in ("ok", "WRONG") else ""
        return Row(time_ms, rate, rate_col[0] if rate_col else "", check)
    return Row(error=f"no row for {variant or 'the run'} after the table header")


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
        return args + list(self.fixed)

    def row_name(self) -> str | None:
        """The first cell of the variant's row (lab2 appends ` (A)`, a separate cell)."""
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
        return subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=_RUN_TIMEOUT_S,
            check=False,
            env=env,
            **extra,
        )
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
        if proc.returncode == EXIT_NO_DEVICE:
            said = (proc.stderr or proc.stdout).strip().splitlines()
            raise NoDevice(said[-1].strip() if said else "")
        row = parse_row(proc.stdout, plan.row_name())
        if proc.returncode not in (0, 1):
            message = (proc.stderr or proc.stdout).strip().splitlines()
            row = Row(error=f"exit {proc.returncode}: {message[0] if message else 'no output'}")
        result.rows.append((config, row))
    return result


def lab_programs(bin_dir: Path, lab: str) -> list[Path]:
    """The lab's programs in BUILD/bin (its tests excluded), main program first."""
    found = sorted(
        p for p in bin_dir.glob(f"{lab}_*") if p.is_file() and not p.name.endswith("_test")
    )
    return found


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
    for name, _ in params:
        if name in _RESERVED:
            raise GraderUsageError(
                f"--param {name}: set by the sweep itself; "
                f"parameters of {program.path.name}: {', '.join(launch)}"
            )
        if name not in program.options:
            raise GraderUsageError(
                f"{program.path.name} has no option --{name}; its parameters: {', '.join(launch)}"
            )
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
