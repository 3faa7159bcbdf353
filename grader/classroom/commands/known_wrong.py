"""`known-wrong`: grade every known-wrong submission and check each is rejected
for its own reason.

    python3 -m grader.classroom known-wrong [--build-root DIR] [--only NAME] [--labs LABS]
                                  [--static-only] [--cmake-arg=-D...] [--secret-file PATH]
                                  [--build-jobs J] [--jobs N]

Prints the table (submission | expected reason | verdict | as expected) and
writes it to `--report`. Exit 0 when every submission was rejected as expected,
1 when one was not, 3 when some could not be judged (no GPU, or --static-only; a
canary entry without the sandbox).
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from grader.classroom.known_wrong import (
    Expectation,
    Judgement,
    judge_grade,
    judge_static,
    load_entries,
    table,
    write_trees,
)
from grader.command import Command
from grader.core.build import configure_and_build
from grader.core.discovery import lab_folders, repo_root
from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.core.model import LabTest, Outcome
from grader.core.reports import verdict_line
from grader.core.sandbox import decide
from grader.core.sanitize import sanitize_tests, tool_of
from grader.core.session import GradingSession
from grader.options import (
    add_build_jobs_argument,
    add_cmake_arg_argument,
    add_jobs_argument,
    add_labs_argument,
    add_repo_argument,
    add_report_file_argument,
    add_secret_argument,
    read_secret,
)
from grader.trust.static_check import Finding
from grader.trust.submission_check import check_submission

NOT_JUDGED = "not judged"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--build-root",
        type=Path,
        default=Path("build-known-wrong"),
        metavar="DIR",
        help="one build per submission under DIR (default: %(default)s)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="judge only this submission (repeatable)",
    )
    add_labs_argument(parser, "the submissions of every lab")
    parser.add_argument(
        "--static-only",
        action="store_true",
        help="run the static check only; GPU entries are reported not judged",
    )
    add_cmake_arg_argument(
        parser,
        "extra configure argument, e.g. "
        "--cmake-arg=-DLAB_GTEST_SOURCE_DIR=/src/googletest (repeatable)",
    )
    add_secret_argument(
        parser, "secret for the hidden-data entries (default: $LAB_SECRET_SEED, else a random one)"
    )
    parser.add_argument(
        "--kernel-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="the harness's per-kernel watchdog, LAB_KERNEL_TIMEOUT_S (default: %(default)s)",
    )
    add_report_file_argument(parser)
    parser.add_argument(
        "--outcomes",
        type=Path,
        metavar="FILE",
        help="also write every test run's status, per submission, to FILE (JSON, the "
        "shape of a report's results.json: scripts/compare_verdicts.py compares two)",
    )
    add_repo_argument(parser, "holding submissions/known_wrong")
    add_build_jobs_argument(
        parser, "entries built at once, ahead of grading (default: %(default)s)"
    )
    add_jobs_argument(parser)


def static_findings(
    entries: Sequence[Expectation], trees: Path, repo: Path, build_root: Path, cmake_args: list[str]
) -> dict[str, list[Finding]]:
    """The checks before any test (sources, and the objects compiled alone) of each
    entry of one lab, in turn, in one build under BUILD_ROOT/check/<lab>, configured
    once: each entry's lab folder is copied over the last one's, so only the files
    that differ compile. Entries that change the same file of the reference's come
    one after the other, so each compiles that file alone."""
    work = build_root / "check" / entries[0].lab
    folders = {}
    for entry in entries:
        labs = lab_folders(trees / entry.folder_name, [entry.lab])
        if entry.lab not in labs:
            raise GraderUsageError(f"{trees / entry.folder_name} has no {entry.lab}_* folder")
        folders[entry.name] = labs[entry.lab]
    reference = repo / "solutions"
    ordered = sorted(entries, key=lambda e: _changed(folders[e.name], reference))
    results: dict[str, list[Finding]] = {}
    for entry in ordered:
        folder = folders[entry.name]
        _mirror(folder, work / "impl" / folder.name)
        print(f"grader: checking {entry.name}", flush=True)
        results[entry.name] = check_submission(
            repo,
            work / "impl",
            [entry.lab],
            work=work / "build",
            cmake_args=cmake_args,
            configure=entry is ordered[0],
        ).get(entry.lab, [])
    return results


def _changed(folder: Path, reference: Path) -> list[str]:
    """The files of `folder` that differ from (or are not in) the same folder of
    `reference`."""
    return sorted(
        str(relative)
        for path in folder.rglob("*")
        if path.is_file()
        for relative in [path.relative_to(folder)]
        if not (reference / folder.name / relative).is_file()
        or (reference / folder.name / relative).read_bytes() != path.read_bytes()
    )


def _mirror(source: Path, copy: Path) -> None:
    """Make `copy` hold what `source` holds, writing only the files that differ (a
    rewritten file is newer than its object, which Ninja then compiles again)."""
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
    for path in [p for p in copy.rglob("*") if p.is_file()] if copy.exists() else []:
        if path.relative_to(copy) not in wanted:
            path.unlink()
    for relative in wanted:
        target = copy / relative
        data = (source / relative).read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def canary_leaks(entry: Expectation, root: Path, findings: list[Finding]) -> list[str]:
    """Where the line of the entry's canary (a file beside the trees, make_hostile.py)
    shows: a finding, or any file of BUILD_ROOT/check/<lab> (the build's logs)."""
    if not entry.canary:
        return []
    root = root.resolve()
    line = (root / "trees" / entry.canary).read_text(encoding="utf-8").strip()
    places = [f"its {f.rule_id} finding" for f in findings if line in f.reason]
    files = (p for p in sorted((root / "check" / entry.lab / "build").rglob("*")) if p.is_file())
    return places + [str(p) for p in files if line.encode() in p.read_bytes()]


def build_entry(entry: Expectation, folder: Path, repo: Path, args: argparse.Namespace) -> str:
    """Build the entry's lab alone; the compiler's first error, or an empty string."""
    build = args.build_root.resolve() / entry.name
    print(f"grader: building {entry.name} in {build}", flush=True)
    sanitize = ["-DLAB_SANITIZE=ON"] if entry.sanitizer or entry.sanitize_stage else []
    _, failure = configure_and_build(
        repo, str(folder), build, [f"-DLAB_ONLY={entry.lab}", *sanitize, *args.cmake_arg]
    )
    if failure is not None:
        return f"did not build: {failure.errors_for(entry.lab).splitlines()[0]}"
    return ""


def grade_entry(
    entry: Expectation, repo: Path, args: argparse.Namespace, secret: str
) -> tuple[dict[str, Outcome] | None, str]:
    """Run the entry's built lab: (its outcomes, None without a GPU; why it could not
    be judged, or an empty string)."""
    build = args.build_root.resolve() / entry.name
    session = GradingSession.open(
        build,
        labs=[entry.lab],
        repo=repo,
        secret=secret if entry.hidden_data else None,
        extra_env={"LAB_KERNEL_TIMEOUT_S": f"{args.kernel_timeout:g}"},
        jobs=args.jobs,
        sanitize=entry.sanitize_stage,
    )
    if not session.gpu.present:
        return None, ""

    # Only the tests the verdict rests on: those the defect must fail and those
    # that must still pass. Running the whole lab per entry costs minutes.
    def matching(pattern: str | None) -> list[LabTest]:
        return [t for t in session.tests if pattern and re.search(pattern, t.name)]

    if entry.sanitizer:
        defect = [
            t for t in sanitize_tests(session.listing, [entry.lab]) if tool_of(t) == entry.sanitizer
        ]
        if not defect:
            return None, (
                f"{NOT_JUDGED}: no {entry.sanitizer} tests (compute-sanitizer "
                "not found in the CUDA toolkit?)"
            )
    else:
        defect = matching(entry.tests)
    tests = defect + [t for t in matching(entry.must_pass) if t not in defect]
    outcomes = session.run_all(tests)
    for name, outcome in outcomes.items():
        print(f"  {verdict_line(name, outcome)}", flush=True)
    return outcomes, ""


def judge(
    entry: Expectation,
    findings: list[Finding],
    build: Future[str] | None,
    repo: Path,
    args: argparse.Namespace,
    secret: str,
    ran: dict[str, dict[str, Outcome]],
) -> Judgement:
    """The entry's verdict; the outcomes of the tests it ran go into `ran`."""
    if entry.kind == "static":
        if entry.canary and decide().sandbox is None:  # the sandbox is its defence
            return Judgement(f"{NOT_JUDGED}: compiled without the sandbox", None)
        return judge_static(entry, findings, canary_leaks(entry, args.build_root, findings))
    if build is None:
        return judge_grade(entry, findings, None, False)
    problem = build.result()
    if problem:
        return Judgement(problem, False)
    outcomes, problem = grade_entry(entry, repo, args, secret)
    if problem:
        return Judgement(problem, None)
    ran[entry.name] = outcomes or {}
    return judge_grade(entry, findings, outcomes, outcomes is not None)


def write_outcomes(path: Path, outcomes: dict[str, dict[str, Outcome]], seconds: float) -> None:
    """Each submission's test statuses as `entry/test` rows of a results.json."""
    tests = [
        {"name": f"{entry}/{name}", "status": outcome.status.value}
        for entry, runs in outcomes.items()
        for name, outcome in runs.items()
    ]
    doc = {"tests": tests, "execution_time": round(seconds)}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def exit_status(judgements: list[Judgement]) -> int:
    if any(j.as_expected is False for j in judgements):
        return EXIT_FAILED
    if any(j.as_expected is None for j in judgements):
        return EXIT_NO_GPU
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    repo = (args.repo or repo_root()).resolve()
    entries = load_entries(repo)
    unknown = [name for name in args.only if name not in {e.name for e in entries}]
    if unknown:
        raise GraderUsageError(
            f"no known-wrong submission {', '.join(unknown)}; known: "
            f"{', '.join(e.name for e in entries)}"
        )
    if args.only:
        entries = [e for e in entries if e.name in args.only]
    if args.labs:
        unknown = sorted(set(args.labs) - {e.lab for e in entries})
        if unknown:
            raise GraderUsageError(f"no known-wrong submission for {', '.join(unknown)}")
        entries = [e for e in entries if e.lab in args.labs]
    secret = read_secret(args.secret_file) or secrets.token_hex(16)
    if args.build_jobs < 1:
        raise GraderUsageError("--build-jobs must be at least 1")
    trees = write_trees(repo, args.build_root.resolve() / "trees")
    rows = []
    outcomes: dict[str, dict[str, Outcome]] = {}
    start = time.monotonic()
    root = args.build_root.resolve()
    # The labs' checks, --build-jobs of them at once; a lab's entries in turn.
    with ThreadPoolExecutor(max_workers=args.build_jobs) as pool:
        labs = dict.fromkeys(e.lab for e in entries)
        by_lab = [[e for e in entries if e.lab == lab] for lab in labs]
        checks = [
            pool.submit(static_findings, group, trees, repo, root, args.cmake_arg)
            for group in by_lab
        ]
        findings = {name: found for check in checks for name, found in check.result().items()}
    # Builds run ahead on the CPUs while the GPU grades, one entry at a time: only the
    # grade entries the static check lets through are built and run.
    with ThreadPoolExecutor(max_workers=args.build_jobs) as pool:
        builds = {
            e.name: pool.submit(build_entry, e, trees / e.folder_name, repo, args)
            for e in entries
            if e.kind != "static" and not args.static_only and not findings[e.name]
        }
        for entry in entries:
            build = builds.get(entry.name)
            rows.append(
                (entry, judge(entry, findings[entry.name], build, repo, args, secret, outcomes))
            )
    text = table(rows)
    print(text)
    if args.outcomes is not None:
        write_outcomes(args.outcomes, outcomes, time.monotonic() - start)
    if args.report is not None:
        args.report.write_text(text + "\n", encoding="utf-8")
    status = exit_status([j for _, j in rows])
    if status == EXIT_NO_GPU:
        print(
            "grader: some submissions need a GPU (or the sandbox) to be judged: not passed",
            file=sys.stderr,
        )
    return status


COMMAND = Command(
    "known-wrong",
    "check that every known-wrong submission is rejected for its own reason",
    _add_arguments,
    _run,
)
