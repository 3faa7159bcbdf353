"""`check`: the static check of a submission, without a GPU or a compiler.

    python3 -m grader check --impl DIR [--labs lab1,lab3] [--build BUILD]

Reads every source file of every lab folder in DIR (laid out like skeletons/)
and, with --build, the objects of each lab's `labN_impl` target. Prints each
finding as file:line: rule: reason. Exit status 0 clean, 1 findings, 2 usage.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.build import IMPL_WORDS
from grader.cli import Command
from grader.discovery import lab_dirs, parse_lab_list, repo_root
from grader.errors import EXIT_FAILED, EXIT_OK, GraderUsageError
from grader.static_check import Finding, check_lab, lab_folders
from grader.symbols import check_objects


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", required=True, metavar="DIR",
                        help="skeletons, solutions, or a folder laid out like skeletons/")
    parser.add_argument("--labs", metavar="LABS",
                        help="comma-separated labs, e.g. lab1,lab3 (default: every lab in DIR)")
    parser.add_argument("--build", type=Path, metavar="BUILD",
                        help="also check the symbols of each lab's compiled labN_impl objects")
    parser.add_argument("--repo", type=Path, metavar="REPO",
                        help="repository holding labs/ and the contract headers "
                             "(default: this one)")


def impl_folder(impl: str, repo: Path) -> Path:
    """`skeletons`/`solutions` name the repository's trees; anything else is a folder."""
    return repo / impl if impl in IMPL_WORDS else Path(impl).expanduser()


def resolve_impl(impl: str, repo: Path) -> Path:
    """impl_folder(), which must exist."""
    path = impl_folder(impl, repo)
    if not path.is_dir():
        raise GraderUsageError(f"--impl {impl}: no such folder")
    return path.resolve()


def contract_header(lab_dir: Path) -> Path | None:
    """The lab's contract: its one `.cuh` header."""
    headers = sorted(lab_dir.glob("*.cuh"))
    return headers[0] if headers else None


def check_impl(impl: Path, repo: Path, labs: list[str] | None,
               build: Path | None) -> dict[str, list[Finding]]:
    """Findings per lab; a lab asked for but missing from `impl` is a usage error."""
    folders = lab_folders(impl, labs)
    missing = [lab for lab in labs or () if lab not in folders]
    if missing:
        raise GraderUsageError(f"{impl} has no folder for {', '.join(missing)}")
    if not folders:
        raise GraderUsageError(f"{impl} holds no lab folders (labN_topic/)")
    dirs = lab_dirs(repo)
    results: dict[str, list[Finding]] = {}
    for lab, folder in folders.items():
        findings = check_lab(lab, folder, impl)
        if build is not None:
            header = contract_header(dirs[lab]) if lab in dirs else None
            if header is None:
                raise GraderUsageError(f"no contract header labs/{lab}_*/*.cuh in {repo}")
            findings += check_objects(build, lab, header)
        results[lab] = findings
    return results


def _run(args: argparse.Namespace) -> int:
    repo = (args.repo or repo_root()).resolve()
    labs = parse_lab_list(args.labs) if args.labs else None
    if args.build is not None and not args.build.is_dir():
        raise GraderUsageError(f"build directory {args.build} does not exist")
    impl = resolve_impl(args.impl, repo)
    results = check_impl(impl, repo, labs, args.build)
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


COMMAND = Command("check", "static check of a submission's sources (and objects): "
                  "forbidden libraries, timers, host answers", _add_arguments, _run)
