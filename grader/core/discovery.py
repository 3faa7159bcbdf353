"""Which tests a build has, for which labs, and where each lab's folder is.

Tests come from `ctest --show-only=json-v1`, so the grader runs exactly what
CMake registered. Labs are matched by exact label (`lab1` never matches
`lab10`, unlike `ctest -L`, a regular expression).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.core.captured import run_captured
from grader.core.errors import GraderUsageError
from grader.core.model import BUILD_KIND, KINDS, OTHER_KIND, LabTest, is_lab_id, lab_number
from grader.core.sandbox import Sandbox, installation, start_failure

# gtest_discover_tests registers `<target>_NOT_BUILT` when the program is missing.
_NOT_BUILT = re.compile(r"(lab\d+)(?![0-9]).*_NOT_BUILT")
_LAB_DIR = re.compile(r"(lab\d+)_.+")
_KIND_ORDER = {
    kind: rank
    for rank, kind in enumerate(
        ("correctness", "timing", "reference", OTHER_KIND, BUILD_KIND, "data")
    )
}
_CTEST_TIMEOUT_S = 300
_PROJECT = "cuda_labs"  # project() in CMakeLists.txt, named in every build's cache
# compute-sanitizer's runs (sanitize.py), labelled `sanitize` and `labN.sanitize` (never
# `labN`): a kind of their own, never graded.
SANITIZE_LABEL = "sanitize"
SANITIZE_KIND = "sanitize"


def repo_root() -> Path:
    """The repository this grader belongs to: the parent of the package folder."""
    return Path(__file__).resolve().parents[2]


def check_build_dir(build: Path) -> None:
    """Refuse a folder that is not a CMake build of this project before anything runs
    in it: ctest writes Testing/ into any folder it is given."""
    if not build.is_dir():
        problem = "is not a folder" if build.exists() else "does not exist"
        raise GraderUsageError(f"build directory {build} {problem}")
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cache = ""
    if not re.search(rf"^CMAKE_PROJECT_NAME:STATIC={_PROJECT}$", cache, re.M):
        raise GraderUsageError(
            f"build directory {build} is not a build of cuda-labs (no CMakeCache.txt of "
            f"project {_PROJECT}): give the folder CMake configured, e.g. build/student"
        )


def read_ctest_json(build: Path, sandbox: Sandbox | None = None) -> dict[str, Any]:
    """Ask ctest for the build's test list; every failure is a usage error.

    ctest executes the tree's CTestTestfile.cmake files and the lists that
    gtest_discover_tests wrote from the programs' output: with `sandbox`, it runs
    there, the tree read-only."""
    check_build_dir(build)
    build = build.resolve()  # the sandbox starts elsewhere
    ctest = shutil.which("ctest")
    if ctest is None:
        raise GraderUsageError("ctest not found on PATH (CMake 3.25 or newer is needed)")
    argv = [ctest, "--test-dir", str(build), "--show-only=json-v1"]
    try:
        if sandbox is None:
            proc = run_captured(argv, _CTEST_TIMEOUT_S)
        else:
            # ctest logs into an existing Testing/Temporary: an empty stand-in instead.
            view = dataclasses.replace(sandbox, hidden=(*sandbox.hidden, str(build / "Testing")))
            proc, started = view.captured(
                argv, read_only=listing_view(build), timeout_s=_CTEST_TIMEOUT_S, cwd=str(build)
            )
            if not started:
                said = proc.stderr + proc.stdout
                raise GraderUsageError(f"ctest could not list {build}: {start_failure(said)}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GraderUsageError(f"ctest could not list the tests of {build}: {exc}") from exc
    if proc.returncode != 0:
        first = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[0]
        raise GraderUsageError(f"ctest could not list the tests of {build}: {first}")
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise GraderUsageError(f"ctest printed an unreadable list for {build}: {exc}") from exc
    if not isinstance(doc, dict):
        raise GraderUsageError(f"ctest printed an unreadable list for {build}")
    return doc


def listing_view(build: Path) -> list[str]:
    """What listing is shown read-only: the build, ctest's installation and the
    Python the build found (ctest lists a command only if its program exists; the
    dataset and no-GPU summary tests run Python)."""
    ctest = shutil.which("ctest")
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cache = ""  # not a build: read_ctest_json says so
    python = re.findall(r"^_?Python3_EXECUTABLE:\w+=(/.+)$", cache, re.M)
    tools = [installation(p) for p in (ctest, os.path.realpath(ctest))] if ctest else []
    return [str(build), *tools, *python]


def parse_tests(doc: Mapping[str, Any]) -> list[LabTest]:
    """The lab tests of a json-v1 document; tests of no lab, and compute-sanitizer's
    runs (sanitize.py), are left out."""
    tests = []
    for entry in doc.get("tests", []):
        test = parse_test(entry)
        if test is not None and test.kind != SANITIZE_KIND:
            tests.append(test)
    return tests


def parse_test(entry: Mapping[str, Any]) -> LabTest | None:
    """One json-v1 test entry as a LabTest, or None when it belongs to no lab."""
    name = str(entry.get("name", ""))
    props = {p.get("name"): p.get("value") for p in entry.get("properties", [])}
    labels = tuple(str(v) for v in _as_list(props.get("LABELS")))
    lab, kind = _lab_and_kind(name, labels, bool(props.get("FIXTURES_SETUP")))
    if lab is None:
        return None
    timeout = props.get("TIMEOUT")
    skip_code = props.get("SKIP_RETURN_CODE")
    return LabTest(
        name=name,
        lab=lab,
        kind=kind,
        command=tuple(str(a) for a in entry.get("command", [])),
        labels=labels,
        timeout=float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None,
        cwd=props.get("WORKING_DIRECTORY") or None,
        env=_environment(_as_list(props.get("ENVIRONMENT"))),
        fixtures_setup=tuple(str(v) for v in _as_list(props.get("FIXTURES_SETUP"))),
        fixtures_required=tuple(str(v) for v in _as_list(props.get("FIXTURES_REQUIRED"))),
        skip_return_codes=(int(skip_code),) if isinstance(skip_code, (int, float)) else (),
        skip_patterns=tuple(str(v) for v in _as_list(props.get("SKIP_REGULAR_EXPRESSION"))),
        run_serial=props.get("RUN_SERIAL") in (True, "ON", "TRUE", "1", 1),
    )


def _lab_and_kind(name: str, labels: Sequence[str], is_setup: bool) -> tuple[str | None, str]:
    """Exact label matching: `labN` names the lab, `labN.<kind>` the kind."""
    labs = [label for label in labels if is_lab_id(label)]
    sanitized = _sanitized_lab(labels) if not labs else None
    if sanitized is not None:
        return sanitized, SANITIZE_KIND
    if not labs:
        match = _NOT_BUILT.fullmatch(name)
        if match:
            return match.group(1), BUILD_KIND
        # A setup step of no lab still provides its fixture to those that need it.
        return ("", "data") if is_setup else (None, OTHER_KIND)
    for lab in labs:
        kinds = [kind for kind in KINDS if f"{lab}.{kind}" in labels]
        if kinds:
            return lab, kinds[0] if len(kinds) == 1 else OTHER_KIND
    return labs[0], "data" if is_setup else OTHER_KIND


def _sanitized_lab(labels: Sequence[str]) -> str | None:
    """The lab of a compute-sanitizer run (labels `sanitize` and `labN.sanitize`), else None."""
    for label in labels:
        lab, _, kind = label.partition(".")
        if kind == SANITIZE_KIND and is_lab_id(lab) and SANITIZE_LABEL in labels:
            return lab
    return None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _environment(pairs: Iterable[Any]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = str(pair).partition("=")
        if sep and key:
            env[key] = value
    return env


def lab_dirs(repo: Path) -> dict[str, Path]:
    """Map lab id to its `labs/labN_topic` folder (lab1 -> labs/lab1_histogram)."""
    labs = repo / "labs"
    return lab_folders(labs) if labs.is_dir() else {}


def lab_folders(impl: Path, labs: Sequence[str] | None = None) -> dict[str, Path]:
    """lab id -> its folder in `impl` (lab1 -> impl/lab1_histogram), only those asked for."""
    found: dict[str, Path] = {}
    for path in sorted(impl.iterdir()):
        match = _LAB_DIR.fullmatch(path.name)
        if match and path.is_dir() and (labs is None or match.group(1) in labs):
            found.setdefault(match.group(1), path)
    return found


def checked_repo(repo: Path) -> Path:
    """`repo` resolved, which must hold a labs/ folder (the --repo of every command)."""
    resolved = repo.expanduser().resolve()
    if not resolved.is_dir():
        problem = "no such folder, so no labs/"
    elif not (resolved / "labs").is_dir():
        problem = "the repository has no labs/ folder"
    elif not lab_dirs(resolved):
        problem = "its labs/ folder holds no lab (labN_topic/)"
    else:
        return resolved
    raise GraderUsageError(
        f"--repo {repo}: {problem}; give a cuda-labs repository (one holding labs/labN_topic/)"
    )


def parse_lab_list(text: str) -> list[str]:
    """`lab1,lab3` -> ['lab1', 'lab3']; anything else is a usage error.

    An empty or blank text is an error too, never "every lab": a script that
    passes `--labs "$LABS"` with LABS unset must not grade what it did not ask for.
    """
    labs: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if not is_lab_id(item):
            raise GraderUsageError(f"--labs takes lab ids such as lab1,lab3; got {item!r}")
        if item not in labs:
            labs.append(item)
    if not labs:
        raise GraderUsageError(
            f"--labs {text!r} names no lab: give lab ids such as lab1,lab3, "
            "or leave --labs out for every lab"
        )
    return labs


def resolve_labs(
    requested: Sequence[str] | None,
    tests: Sequence[LabTest],
    dirs: Mapping[str, Path],
    build: Path,
    build_failed: bool = False,
) -> list[str]:
    """The labs to grade, checked against what the build and the repository hold.

    After a failed build a lab may have no tests yet; it is still graded (as a
    build failure) instead of being an error, so a broken lab cannot drop out of
    the grade. Every lab folder CMake builds (one with a CMakeLists.txt) counts.
    """
    with_tests = {t.lab for t in tests if not t.is_setup}
    known = with_tests | set(dirs)
    if requested is None:
        built = {lab for lab, d in dirs.items() if (d / "CMakeLists.txt").is_file()}
        chosen = sorted(with_tests | (built if build_failed else set()), key=lab_number)
        if not chosen:
            raise GraderUsageError(
                f"{build} has no lab tests: configure and build it first "
                f"(ctest --test-dir {build} -N lists none)"
            )
        return chosen
    require_known_labs(requested, known)
    for lab in requested:
        if lab not in with_tests and not build_failed:
            listing = ", ".join(sorted(with_tests, key=lab_number)) or "none"
            raise GraderUsageError(f"{lab} has no tests in {build} (labs with tests: {listing})")
    return list(requested)


def require_known_labs(labs: Iterable[str], known: Iterable[str]) -> None:
    """The usage error every command gives for the first of `labs` not in `known`."""
    listing = sorted(set(known), key=lab_number)
    for lab in labs:
        if lab not in listing:
            raise GraderUsageError(
                f"unknown lab {lab!r}: known labs are {', '.join(listing) or 'none'}"
            )


def select_tests(tests: Sequence[LabTest], labs: Sequence[str]) -> list[LabTest]:
    """The graded tests of `labs` in running order: by lab, correctness before timing."""
    wanted = set(labs)
    chosen = [t for t in tests if t.lab in wanted and not t.is_setup]
    return sorted(chosen, key=lambda t: (lab_number(t.lab), _KIND_ORDER.get(t.kind, 99)))


def setups_by_fixture(tests: Sequence[LabTest]) -> dict[str, list[LabTest]]:
    """Fixture name -> the setup tests that provide it (from any lab)."""
    found: dict[str, list[LabTest]] = {}
    for test in tests:
        for fixture in test.fixtures_setup:
            found.setdefault(fixture, []).append(test)
    return found
