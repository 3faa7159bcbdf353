"""The instructor's command line: `python3 -m grader.classroom COMMAND ...`, or
`cuda-labs-classroom COMMAND ...`: the grading package's parser over the classroom registry."""

from __future__ import annotations

from collections.abc import Sequence

from grader import cli
from grader.classroom.commands import classroom_commands


def main(argv: Sequence[str] | None = None) -> int:
    """Parse and dispatch one classroom command, as `grader.cli.main` does."""
    return cli.main(argv, classroom_commands(), "grader.classroom")
