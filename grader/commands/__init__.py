"""The registry of subcommands: one module per command, each exposing COMMAND.

To add a command (`batch`, `export`, `sweep`, `check`, ...), write
`grader/commands/<name>.py` with a `COMMAND = Command(...)` and add its name here.
"""

from __future__ import annotations

import importlib

from grader.command import Command

COMMAND_MODULES = (
    "grade",
    "probe",
    "check",
    "sanitize",
    "repeat",
    "known_wrong",
    "batch",
    "export",
    "sweep",
    "similarity",
    "collect",
    "gradebook",
    "leaderboard",
    "written",
)
# Left out of the student repository by `export` (grader/instructor/export.py reads this):
# absent there, and not an error.
INSTRUCTOR_ONLY = (
    "known_wrong",
    "batch",
    "export",
    "similarity",
    "collect",
    "gradebook",
    "leaderboard",
    "written",
)


def load_commands() -> list[Command]:
    """Import every registered command module, in the order listed."""
    commands = []
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if name in INSTRUCTOR_ONLY and exc.name == f"{__name__}.{name}":
                continue
            raise
        commands.append(module.COMMAND)
    return commands
