"""The grader's command line: `python3 -m grader COMMAND ...`, or `cuda-labs COMMAND ...`
(the console script pyproject.toml declares; the same `main`). The instructor's commands
(`python3 -m grader.classroom`) go through the same `main` with their own registry.

Commands live in `grader/commands/`, one module each exposing `COMMAND`; the
list in `grader/commands/__init__.py` is the registry, so adding a command
means adding a module and its name, nothing here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from grader.command import Command
from grader.commands import load_commands
from grader.core.ctest_run import check_timeout_scale
from grader.core.discovery import parse_lab_list
from grader.core.errors import EXIT_INTERRUPTED, EXIT_USAGE, GraderUsageError


def build_parser(
    commands: Sequence[Command], prog: str = "python3 -m grader"
) -> argparse.ArgumentParser:
    """One subparser per registered command."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Grade cuda-labs builds: run their tests, score them, write reports.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        sub_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(sub_parser)
        sub_parser.set_defaults(handler=command.run)
    return parser


def main(
    argv: Sequence[str] | None = None,
    commands: Sequence[Command] | None = None,
    package: str = "grader",
) -> int:
    """Parse, dispatch, and turn usage errors into one line and exit status 2, Ctrl-C
    into one line and exit status 130 (every command's, here once)."""
    # Usage lines name the command as it was typed: the console script or `-m`.
    script = "cuda-labs" + package.removeprefix("grader").replace(".", "-")
    typed = os.path.basename(sys.argv[0]) == script
    prog = script if typed else f"python3 -m {package}"
    try:
        parser = build_parser(load_commands() if commands is None else commands, prog)
        args = parser.parse_args(argv)
        check_common_arguments(args)
        status: int = args.handler(args)
        return status
    except GraderUsageError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def check_common_arguments(args: argparse.Namespace) -> None:
    """Options several commands share, checked before any of them starts work.

    `--labs` is read here once for all, before a command spends minutes building:
    commands find `args.labs` a list of lab ids, or None for every lab (`--labs ''`
    is an error, never "every lab"); `--timeout-scale` is checked here for the same reason.
    """
    labs = getattr(args, "labs", None)
    if isinstance(labs, str):
        args.labs = parse_lab_list(labs)
    scale = getattr(args, "timeout_scale", None)
    if scale is not None:
        check_timeout_scale(scale)
