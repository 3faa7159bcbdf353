"""Shared helpers: fake tests, fake build trees and fake repositories.

Everything here runs without a GPU or a compiler: test programs are Python
scripts in `fakes/`, and a build tree is a hand-written CTestTestfile.cmake
that ctest reads like one CMake generated.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grader.classroom import commands as classroom
from grader.core.ctest_run import Runs
from grader.core.model import LabTest, Outcome

FAKES = Path(__file__).resolve().parent / "fakes"
DATA = Path(__file__).resolve().parent / "data"
FAKE_GTEST = FAKES / "fake_gtest.py"
FAKE_SETUP = FAKES / "fake_setup.py"
FAKE_PROBE = FAKES / "fake_probe.py"

needs_ctest = pytest.mark.skipif(shutil.which("ctest") is None, reason="ctest not installed")


def fake_command(mode: str, name: str = "Suite.Test") -> tuple[str, ...]:
    """The argv of a fake GoogleTest program behaving as `mode`."""
    return (sys.executable, str(FAKE_GTEST), mode, f"--gtest_filter={name}")


def fake_test(
    mode: str,
    name: str = "Suite.Test",
    *,
    lab: str = "lab1",
    kind: str = "correctness",
    **fields: Any,
) -> LabTest:
    """A LabTest running the fake program in `mode`."""
    return LabTest(
        name=f"{lab}.{name}",
        lab=lab,
        kind=kind,
        command=fake_command(mode, name),
        labels=(lab, f"{lab}.{kind}"),
        skip_return_codes=(77,),
        skip_patterns=("cuda-labs: skipped: no CUDA device",),
        **fields,
    )


@dataclass(frozen=True)
class FakeSpec:
    """One test of a fake build tree."""

    name: str
    labels: Sequence[str]
    command: Sequence[str]
    timeout: float = 10
    fixtures_setup: str = ""
    fixtures_required: str = ""


def gtest_spec(lab: str, kind: str, mode: str, test: str, timeout: float = 10) -> FakeSpec:
    """A lab test of a fake build, named as gtest_discover_tests names them."""
    return FakeSpec(
        f"{lab}.{test}",
        (lab, f"{lab}.{kind}"),
        fake_command(mode, test),
        timeout,
        fixtures_required=f"{lab}_data",
    )


def _cmake_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def make_build(root: Path, specs: Sequence[FakeSpec], probe: str | None = "present") -> Path:
    """A build tree ctest can list: CTestTestfile.cmake, the project's CMakeCache.txt
    and bin/lab_gpu_info."""
    build = root / "build"
    (build / "bin").mkdir(parents=True, exist_ok=True)
    lines = []
    for spec in specs:
        argv = " ".join(_cmake_quote(a) for a in spec.command)
        lines.append(f"add_test({spec.name} {argv})")
        props = [
            f"LABELS {_cmake_quote(';'.join(spec.labels))}",
            f"TIMEOUT {spec.timeout:g}",
            "SKIP_RETURN_CODE 77",
            f"WORKING_DIRECTORY {_cmake_quote(str(build))}",
        ]
        if spec.fixtures_setup:
            props.append(f"FIXTURES_SETUP {spec.fixtures_setup}")
        if spec.fixtures_required:
            props.append(f"FIXTURES_REQUIRED {spec.fixtures_required}")
        lines.append(f"set_tests_properties({spec.name} PROPERTIES {' '.join(props)})")
    (build / "CTestTestfile.cmake").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (build / "CMakeCache.txt").write_text("CMAKE_PROJECT_NAME:STATIC=cuda_labs\n", encoding="utf-8")
    if probe is not None:
        program = build / "bin" / "lab_gpu_info"
        program.write_text(
            f"#!/bin/sh\nexec {sys.executable!s} {FAKE_PROBE!s} {probe}\n", encoding="utf-8"
        )
        program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return build


def setup_spec(lab: str, mode: str, count_file: Path) -> FakeSpec:
    """The dataset setup step of a fake build."""
    return FakeSpec(
        f"{lab}.datasets",
        (lab, f"{lab}.data"),
        (sys.executable, str(FAKE_SETUP), mode, str(count_file)),
        fixtures_setup=f"{lab}_data",
    )


def histogram_lab(**score: int) -> dict[str, dict[str, Any] | None]:
    """The grading of a repository holding lab1_histogram alone, scored as `score`."""
    return {"lab1_histogram": {"lab": "lab1", "title": "Histogram", "score": score}}


def make_repo(root: Path, grading: dict[str, dict[str, Any] | None]) -> Path:
    """A repository with labs/<dir>/ folders; a dict value becomes its lab.json."""
    repo = root / "repo"
    for lab_dir, doc in grading.items():
        folder = repo / "labs" / lab_dir
        folder.mkdir(parents=True, exist_ok=True)
        if doc is not None:
            (folder / "lab.json").write_text(json.dumps(doc), encoding="utf-8")
    (repo / "labs" / "common").mkdir(parents=True, exist_ok=True)
    return repo


def process_alive(pid: int) -> bool:
    """True while `pid` runs; a zombie waiting for its reaper counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


def default_sigint() -> None:
    """A Popen preexec_fn: Ctrl-C as a terminal delivers it, in a child of a test run that
    ignores SIGINT (a background job of a non-interactive shell does, and Python keeps an
    ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# The instructor's commands run as `python3 -m grader.classroom`.
CLASSROOM_COMMANDS = {name.replace("_", "-") for name in classroom.COMMAND_MODULES}


def run_grader(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python3 -m grader ARGS` (`grader.classroom` for its commands) in a child, with this
    checkout's grader importable."""
    package = "grader.classroom" if args and args[0] in CLASSROOM_COMMANDS else "grader"
    return subprocess.run(
        [sys.executable, "-m", package, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": PACKAGE_PARENT, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_grade(
    root: Path, repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`grade ARGS --repo REPO --report ROOT/out` in a child run in `root`."""
    return run_grader(
        "grade", *args, "--repo", str(repo), "--report", str(root / "out"), cwd=root, env=env
    )


def grade_hidden(
    root: Path, repo: Path, build: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`grade` of `build` on hidden data (a secret in ROOT/secret), its sanitizer stage off."""
    secret = root / "secret"
    secret.write_text("s3cret\n")
    # The fake builds have no sanitize tests; test_sanitize_stage.py checks their results.
    hidden = ["--secret-file", str(secret), "--no-sanitize"]
    return run_grade(root, repo, "--build", str(build), *hidden, *args, env=env)


def figure_build(root: Path) -> Path:
    """A fake lab1 build: its dataset setup, a timing test with a figure, a failing test."""
    return make_build(
        root,
        [
            setup_spec("lab1", "ok", root / "count"),
            gtest_spec("lab1", "timing", "pass_with_figure", "Hist.Fast"),
            gtest_spec("lab1", "correctness", "fail", "Hist.Uniform"),
        ],
    )


def git(repo: Path, *args: str) -> str:
    """`git ARGS` in `repo` as a throwaway committer; its stdout, stripped."""
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def fake_nvidia_smi(root: Path, listing: str, returncode: int = 0) -> Path:
    """A folder holding an `nvidia-smi` that prints `listing` (its `-L` output) and exits
    with `returncode`, needing nothing else on the PATH."""
    assert "'" not in listing
    folder = root / "fake-nvidia-smi"
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "nvidia-smi"
    program.write_text(f"#!/bin/sh\nprintf '%s' '{listing}'\nexit {returncode}\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return folder


class OneByOne:
    """Runs (ctest_run.py) asked for one test at a time: its outcome."""

    def __init__(self, **fields: Any) -> None:
        self.runs = Runs(**fields)

    def run(self, test: LabTest) -> Outcome:
        return self.runs.run([test])[test.name]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runs, name)
