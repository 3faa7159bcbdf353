"""The registry of the instructor's subcommands (`python3 -m grader.classroom COMMAND`): one
module per command, each exposing COMMAND, as in `grader/commands/`.
"""

from __future__ import annotations

from grader.command import Command
from grader.commands import load_commands

COMMAND_MODULES = (
    "known_wrong",
    "batch",
    "slurm",
    "export",
    "similarity",
    "collect",
    "gradebook",
    "leaderboard",
    "written",
)


def classroom_commands() -> list[Command]:
    """Import every registered classroom command module, in the order listed."""
    return load_commands(__name__, COMMAND_MODULES)
