"""The Python project: the `cuda-labs` console script is `python3 -m grader`, and the lock
files pin everything pyproject.toml asks for."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from grader import cli
from grader.classroom import cli as classroom_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
# A pinned line of a uv lock: `name==version ; marker \`, its hashes on the next lines.
_PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+?)(?: ; (.+?))? \\$")


@pytest.mark.parametrize(
    ("name", "main"), [("cuda-labs", cli.main), ("cuda-labs-classroom", classroom_cli.main)]
)
def test_the_console_scripts_are_the_modules_mains(name: str, main: Callable[..., int]) -> None:
    scripts = importlib.metadata.entry_points(group="console_scripts", name=name)
    if not scripts:
        pytest.skip("the cuda-labs project is not installed (scripts/setup.sh installs it)")
    (script,) = scripts
    assert script.load() is main


@pytest.mark.parametrize(
    ("argv0", "main", "prog"),
    [
        ("/repo/.venv/bin/cuda-labs", cli.main, "cuda-labs"),
        ("/repo/grader/__main__.py", cli.main, "python3 -m grader"),
        ("/repo/.venv/bin/cuda-labs-classroom", classroom_cli.main, "cuda-labs-classroom"),
        ("/repo/grader/classroom/__main__.py", classroom_cli.main, "python3 -m grader.classroom"),
    ],
)
def test_usage_names_the_command_as_typed(
    argv0: str,
    main: Callable[[list[str]], int],
    prog: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "argv", [argv0])
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: {prog} ")


def _name(requirement: str) -> str:
    """A requirement's project name, normalized as PyPI compares them."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _pins(lock: str) -> dict[tuple[str, str], str]:
    """(name, marker) -> version of every package the lock pins, each checked to have hashes."""
    lines = (REPO / lock).read_text(encoding="utf-8").splitlines()
    pins: dict[tuple[str, str], str] = {}
    for i, line in enumerate(lines):
        match = _PIN.match(line)
        if match:
            name, version, marker = match.groups()
            assert lines[i + 1].strip().startswith("--hash=sha256:"), f"{lock}: {name} has no hash"
            pins[(_name(name), marker or "")] = version
    return pins


def _wanted() -> tuple[set[str], set[str]]:
    """What pyproject.toml asks for: (dependencies and build requirements, plus the extras)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    base = {_name(r) for r in project["project"]["dependencies"]}
    base |= {_name(r) for r in project["build-system"]["requires"]}
    extras = {
        _name(r) for group in project["project"]["optional-dependencies"].values() for r in group
    }
    return base, base | extras


def test_the_locks_pin_what_pyproject_asks_for() -> None:
    base, everything = _wanted()
    dev = _pins("requirements-dev.lock")
    runtime = _pins("requirements.lock")
    # A pyproject.toml edited without `bash scripts/lock.sh` leaves a name unpinned.
    assert everything <= {name for name, _ in dev}
    assert base <= {name for name, _ in runtime}
    # The students' lock is the dev lock's subset: the same versions where both pin a package.
    dev_versions = {(name, version) for (name, _), version in dev.items()}
    assert {(name, version) for (name, _), version in runtime.items()} <= dev_versions
