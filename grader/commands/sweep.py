"""`sweep LAB VARIANT --param NAME=V1,V2,...`: a variant over launch configurations.

Exit status: 0 every configuration ran; 1 one failed or gave a wrong answer
(its row says why); 2 usage error (unknown lab, variant or parameter, missing
build or dataset, unwritable folder); 3 no GPU.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from grader.command import Command
from grader.core.discovery import checked_repo, lab_dirs, repo_root, require_known_labs
from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.core.sandbox import Sandbox, decide, warn
from grader.options import add_repo_argument, add_sandbox_argument, writable_dir
from grader.tools.sweep import (
    NoDevice,
    ProgramHelp,
    default_data,
    lab_programs,
    parse_help,
    parse_params,
    plan_sweep,
    run_program,
    run_sweep,
)
from grader.tools.sweep_report import write_csv, write_markdown, write_plot


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lab", metavar="LAB", help="lab id, e.g. lab1")
    parser.add_argument(
        "variant",
        metavar="VARIANT",
        help="a variant the lab program's --help lists (e.g. shared), or "
        "another program of the lab (e.g. sum_matrix for lab2)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="a program option and its values (repeatable: the cartesian product is run)",
    )
    parser.add_argument(
        "--build",
        type=Path,
        default=Path("build/student"),
        metavar="BUILD",
        help="build directory holding bin/ (default: %(default)s)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        metavar="FILE",
        help="dataset file (default: the lab's largest public case in BUILD/datasets/LAB/)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("sweep"),
        metavar="DIR",
        help="folder for sweep.md, sweep.csv, sweep.png (default: %(default)s)",
    )
    add_repo_argument(parser, "holding labs/ and datasets/")
    add_sandbox_argument(parser)


def _help_of(path: Path, sandbox: Sandbox | None) -> ProgramHelp:
    proc = run_program([str(path), "--help", "--format", "json"], sandbox)
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip().splitlines()
        raise GraderUsageError(
            f"{path} --help --format json failed (exit {proc.returncode}"
            + (f": {said[0]}" if said else "")
            + "): it prints no rows to sweep"
        )
    return parse_help(path, proc.stdout)


def resolve_program(
    build: Path, repo: Path, lab: str, variant: str, sandbox: Sandbox | None = None
) -> tuple[ProgramHelp, str | None]:
    """The program to sweep and the variant to pass it (None: the program is the variant)."""
    dirs = lab_dirs(repo)
    require_known_labs([lab], dirs)
    bin_dir = build / "bin"
    programs = lab_programs(bin_dir, lab)
    if not programs:
        raise GraderUsageError(
            f"{bin_dir} has no {lab} program: build the lab first (cmake --build {build})"
        )
    main = bin_dir / dirs[lab].name
    others = {p.name[len(lab) + 1 :]: p for p in programs if p != main}
    helps = _help_of(main, sandbox) if main in programs else None
    if helps is not None and variant in helps.variants:
        return helps, variant
    if variant in others:
        return _help_of(others[variant], sandbox), None
    known = helps.variants if helps else []
    raise GraderUsageError(
        f"unknown variant {variant!r} of {lab}: variants are "
        f"{', '.join(known) or 'none'}"
        + (f"; other programs: {', '.join(sorted(others))}" if others else "")
    )


def _run(args: argparse.Namespace) -> int:
    repo = checked_repo(args.repo) if args.repo is not None else repo_root()
    params = parse_params(args.param)
    if not params:
        raise GraderUsageError("give at least one --param NAME=V1,V2,...")
    decision = decide(args.sandbox, probe_paths=[args.build / "bin"])
    warn(decision)
    program, variant = resolve_program(args.build, repo, args.lab, args.variant, decision.sandbox)
    data = args.data
    if data is None and "data" in program.options:
        data = default_data(args.build, repo, args.lab)
    plan = plan_sweep(program, variant, params, data)
    out = writable_dir(args.out)
    print(
        f"grader: {len(plan.configs)} configurations of {program.path.name} "
        f"{variant or ''}".rstrip(),
        flush=True,
    )
    try:
        result = run_sweep(plan, partial(run_program, sandbox=decision.sandbox))
    except NoDevice as exc:
        said = f" (it said: {exc})" if str(exc) else ""
        print(
            f"grader: no GPU: {program.path.name} found no CUDA device{said}; nothing "
            "measured. Run the sweep on a machine with an NVIDIA GPU and driver.",
            file=sys.stderr,
        )
        return EXIT_NO_GPU
    title = f"{args.lab} {args.variant}: " + ", ".join(plan.names)
    write_csv(result, out / "sweep.csv")
    write_markdown(result, out / "sweep.md", title)
    skipped = write_plot(result, out / "sweep.png", title)
    if skipped:
        print(f"grader: {skipped}", file=sys.stderr)
    print((out / "sweep.md").read_text(encoding="utf-8"))
    bad = [row for _, row in result.rows if row.error or row.check == "WRONG"]
    return EXIT_FAILED if bad else EXIT_OK


COMMAND = Command(
    "sweep", "run a lab variant over launch configurations: table and plot", _add_arguments, _run
)
