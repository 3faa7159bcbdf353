"""The registry of the grading package's subcommands: one module per command, each exposing
COMMAND. The instructor's commands have their own registry, `grader/classroom/commands/`.

To add a command, write `grader/commands/<name>.py` with a `COMMAND = Command(...)` and add
its name here.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from grader.command import Command

COMMAND_MODULES = ("grade", "probe", "check")


def load_commands(
    package: str = __name__, modules: Sequence[str] = COMMAND_MODULES
) -> list[Command]:
    """Import every registered command module of `package`, in the order listed."""
    return [importlib.import_module(f"{package}.{name}").COMMAND for name in modules]
