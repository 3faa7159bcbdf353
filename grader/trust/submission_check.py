"""Everything checked before a submission's tests run: the source rules (which
teach early) and the object check (which defends), per lab.

`grade`, `batch`, `check` and `known-wrong` all come here, so a submission is
judged the same way on every path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.core.build import build_objects
from grader.core.discovery import lab_dirs, lab_folders
from grader.core.errors import GraderUsageError
from grader.trust.object_check import check_lab_objects, impl_objects, load_object_policy
from grader.trust.static_check import (
    Finding,
    check_lab,
    lab_libraries,
    source_files,
)


def _built(build: Path, lab: str) -> bool:
    return any(p.is_file() for p in impl_objects(build, lab))


def object_findings(
    repo: Path, impl: Path, build: Path, labs: Sequence[str] | None = None, log: str = ""
) -> dict[str, list[Finding]]:
    """The object check of each lab folder of `impl` whose objects `build` holds
    (`log`: the build's output, for the errors of a file that did not compile).

    A lab without objects did not compile: its build failure is its verdict, so
    it gets no object findings here.
    """
    dirs = lab_dirs(repo)
    found: dict[str, list[Finding]] = {}
    for lab, folder in lab_folders(impl, labs).items():
        if lab not in dirs or not _built(build, lab):
            continue
        policy = load_object_policy(lab, dirs[lab], [p.name for p in source_files(folder)])
        found[lab] = check_lab_objects(build, policy, dirs[lab], folder, log)
    return found


def check_submission(
    repo: Path,
    impl: Path,
    labs: Sequence[str] | None = None,
    *,
    build: Path | None = None,
    work: Path | None = None,
    cmake_args: Sequence[str] = (),
    log: str = "",
    configure: bool = True,
) -> dict[str, list[Finding]]:
    """Findings per lab folder of `impl` (every one, clean or not).

    With `build`, its objects are checked (`log`: the output of the build that made
    them); else the student's objects alone are compiled into `work` first (no GPU
    needed; `configure` False: `work` is configured already, as for these labs and
    arguments). A lab that does not compile, or any one file of it, is a finding with
    the compiler's first errors.
    """
    folders = lab_folders(impl, labs)
    results = {
        lab: check_lab(folder, impl, lab_libraries(repo, lab)) for lab, folder in folders.items()
    }
    if not folders:
        return results
    if build is None:
        if work is None:
            raise GraderUsageError("the object check needs a build folder")
        _, failure = build_objects(repo, str(impl), work, list(folders), cmake_args, configure)
        build = work
        log = failure.log if failure is not None else ""
        for lab in folders:  # nothing of it built; a file of a lab that did: object_findings
            if failure is not None and not _built(work, lab):
                results[lab].append(
                    Finding(folders[lab].name, 0, "does-not-compile", failure.errors_for(lab))
                )
    for lab, findings in object_findings(repo, impl, build, list(folders), log).items():
        results[lab] += findings
    return results


def rejected_labs(results: dict[str, list[Finding]]) -> dict[str, list[str]]:
    """lab -> its findings described, for each lab with at least one: what
    `grade` and `batch` score 0 without running its tests."""
    return {lab: [f.describe() for f in items] for lab, items in results.items() if items}
