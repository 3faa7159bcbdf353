"""What a subcommand is: the `Command` record every module in `grader/commands/` exposes.

Its own module, so that the registry (`grader/commands/__init__.py`) and the parser
that dispatches to it (`grader/cli.py`) both depend on it without depending on each
other.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, one-line help, its arguments and what it does."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
