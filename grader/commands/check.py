"""`check`: the checks a submission passes before any of its tests runs.

    python3 -m grader check --impl DIR [--labs lab1,lab3] [--build BUILD | --build-dir B]

Reads every source file of every lab folder in DIR (laid out like skeletons/),
compiles the student's objects alone (no GPU needed; in a temporary folder, or
B to keep them) and checks what they import, define, include and run: the same
checks `grade` and `batch` apply. With --build, the objects of that build are
checked instead. Prints each finding as file:line: rule: reason. Exit status 0
clean, 1 findings, 2 usage.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from grader.command import Command
from grader.core.build import check_built_from, checked_build_target
from grader.core.discovery import check_build_dir, checked_repo, repo_root
from grader.core.errors import EXIT_FAILED, EXIT_OK, GraderUsageError
from grader.options import (
    add_build_argument,
    add_build_dir_argument,
    add_cmake_arg_argument,
    add_labs_argument,
    add_repo_argument,
    impl_labs,
    resolve_impl,
)
from grader.trust.static_check import Finding
from grader.trust.submission_check import check_submission


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--impl",
        required=True,
        metavar="DIR",
        help="skeletons, solutions, or a folder laid out like skeletons/",
    )
    add_labs_argument(parser, "every lab in DIR")
    add_build_argument(
        parser, "check the objects of this build instead of compiling them", required=False
    )
    add_build_dir_argument(
        parser, "compile the student's objects here and keep them (default: a temporary folder)"
    )
    add_cmake_arg_argument(
        parser,
        "extra configure argument for compiling the objects, e.g. "
        "--cmake-arg=-DLAB_GTEST_SOURCE_DIR=/src/googletest (repeatable)",
    )
    add_repo_argument(parser, "holding labs/ and the contract headers")


def check_impl(
    impl: Path,
    repo: Path,
    labs: list[str] | None,
    build: Path | None,
    build_dir: Path | None = None,
    cmake_args: list[str] | None = None,
) -> dict[str, list[Finding]]:
    """Findings per lab; a lab asked for but missing from `impl` is a usage error."""
    labs = impl_labs(impl, str(impl), labs, repo)
    if build is not None or build_dir is not None:
        return check_submission(
            repo, impl, labs, build=build, work=build_dir, cmake_args=cmake_args or []
        )
    with tempfile.TemporaryDirectory(prefix="grader-check-") as work:
        return check_submission(repo, impl, labs, work=Path(work), cmake_args=cmake_args or [])


def _run(args: argparse.Namespace) -> int:
    # --repo first: skeletons/solutions are looked up in it, so a wrong --repo
    # would otherwise read as a wrong --impl.
    repo = checked_repo(args.repo) if args.repo is not None else repo_root()
    if args.build is not None:
        check_build_dir(args.build)
    if args.build is not None and args.build_dir is not None:
        raise GraderUsageError(
            "--build checks an existing build; --build-dir makes one: give one of them"
        )
    impl = resolve_impl(args.impl, repo)
    if args.build is not None:
        check_built_from(args.build, impl, repo)
    if args.build_dir is not None:
        checked_build_target(args.build_dir, impl, repo)
    print(f"grader: checking {impl} (compiling the student's objects)", flush=True)
    results = check_impl(impl, repo, args.labs, args.build, args.build_dir, args.cmake_arg)
    total = 0
    for lab, findings in results.items():
        print(f"{lab}: {'clean' if not findings else f'{len(findings)} finding(s)'}")
        for finding in findings:
            print(f"  {finding.describe()}")
        total += len(findings)
    if total:
        print(f"grader: check rejects {impl}: {total} finding(s)")
        return EXIT_FAILED
    return EXIT_OK


COMMAND = Command(
    "check",
    "the checks before any test: a submission's sources and compiled "
    "objects (imports, definitions, includes, constructors, system calls)",
    _add_arguments,
    _run,
)
