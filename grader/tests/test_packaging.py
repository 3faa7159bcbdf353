"""The Python project: the `cuda-labs` console script is `python3 -m grader`."""

from __future__ import annotations

import importlib.metadata
import sys

import pytest

from grader import cli


def test_the_console_script_is_the_modules_main() -> None:
    scripts = importlib.metadata.entry_points(group="console_scripts", name="cuda-labs")
    if not scripts:
        pytest.skip("the cuda-labs project is not installed (scripts/setup.sh installs it)")
    (script,) = scripts
    assert script.value == "grader.cli:main"
    assert script.load() is cli.main


@pytest.mark.parametrize(
    ("argv0", "prog"),
    [("/repo/.venv/bin/cuda-labs", "cuda-labs"), ("/repo/grader/__main__.py", "python3 -m grader")],
)
def test_usage_names_the_command_as_typed(
    argv0: str, prog: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [argv0])
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: {prog} ")
