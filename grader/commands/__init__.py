"""The registry of subcommands: one module per command, each exposing COMMAND.

To add a command (`batch`, `export`, `sweep`, `check`, ...), write
`grader/commands/<name>.py` with a `COMMAND = Command(...)` and add its name here.
"""

from __future__ import annotations

import importlib

from grader.cli import Command

COMMAND_MODULES = ("grade", "probe", "check", "known_wrong")


def load_commands() -> list[Command]:
    """Import every registered command module, in the order listed."""
    return [importlib.import_module(f"{__name__}.{name}").COMMAND for name in COMMAND_MODULES]
