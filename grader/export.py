"""Writing the student repository: the instructor's tree minus what must not leak.

What goes out is decided by an allow-by-default list of committed files with an
explicit deny list (`EXCLUDED`), so a new lab or script is exported without an
edit here, while the reference solutions, the known-wrong submissions, the
grader's instructor-only commands and the instructor's workflows never are.
Files that mention the solutions are rewritten (`CMakePresets.json`, README,
`scripts/test.sh`, the workflows) rather than shipped as they are.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from grader.errors import GraderUsageError

# Never exported, as path prefixes (folders end in "/") or fnmatch patterns.
EXCLUDED_PREFIXES = (
    "solutions/", "submissions/", ".github/", "grader/tests/",
    "scripts/gpu-suite.sh", "scripts/suite_summary.py", "scripts/class-batch.sh",
    "scripts/seed-sweeps.sh",
    "scripts/check_max_scores.py",
    "grader/known_wrong.py", "grader/commands/known_wrong.py",
    "grader/batch.py", "grader/commands/batch.py",
    "grader/export.py", "grader/commands/export.py",
)
# Secrets and hidden data, wherever they are: belt and braces, none is committed.
EXCLUDED_PATTERNS = ("*secret*", "*.key", "*.pem", "*hidden*", "build*/*", "*/__pycache__/*",
                     "*.pyc", ".pytest_cache/*", ".deps/*", ".git/*")
# Written by the export itself (templates below or rewrites of the originals).
REWRITTEN = ("README.md", "CMakePresets.json", "scripts/test.sh")
DEFAULT_INSTRUCTOR_REPO = "INSTRUCTOR/cuda-labs"
DEFAULT_REF = "main"
REUSABLE_WORKFLOW = ".github/workflows/grade-student.yml"


@dataclass(frozen=True)
class ExportResult:
    """What was written: file count and the files that were rewritten or added."""

    out: Path
    copied: int
    generated: tuple[str, ...]


def is_excluded(rel: str) -> bool:
    """True for a path (POSIX, relative to the repository) the students must not get."""
    if any(rel == p.rstrip("/") or rel.startswith(p) for p in EXCLUDED_PREFIXES):
        return True
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(Path(rel).name, pat)
               for pat in EXCLUDED_PATTERNS)


def committed_files(repo: Path) -> list[str]:
    """The repository's tracked files; a tree without git is walked instead.

    Tracked files, not the working tree: build folders, caches and a colleague's
    unfinished files never leak into the export.
    """
    if (repo / ".git").exists() and shutil.which("git"):
        proc = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True,
                              check=False)
        if proc.returncode == 0:
            names = [n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n]
            return sorted(n for n in names if (repo / n).is_file())
    return sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(repo).parts)


def export_plan(repo: Path) -> list[str]:
    """The files copied as they are: committed, not excluded, not rewritten."""
    return [f for f in committed_files(repo) if not is_excluded(f) and f not in REWRITTEN]


def prepare_out(out: Path, force: bool) -> None:
    """Refuse a non-empty OUTDIR unless forced (then empty it); prove it is writable."""
    if out.exists() and not out.is_dir():
        raise GraderUsageError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not force:
            raise GraderUsageError(f"{out} is not empty: choose an empty folder or pass --force "
                                   "(which deletes what it holds)")
        if (out / ".git").exists() or out.resolve() == Path.home():
            raise GraderUsageError(f"{out} holds a git repository or is your home: refusing to "
                                   "delete it even with --force; export to a new folder")
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".export-probe"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise GraderUsageError(f"cannot write to {out}: {exc.strerror or exc}") from exc


def export_tree(repo: Path, out: Path, *, force: bool = False,
                instructor_repo: str = DEFAULT_INSTRUCTOR_REPO,
                ref: str = DEFAULT_REF) -> ExportResult:
    """Write the student repository of `repo` into `out`."""
    repo, out = repo.resolve(), out.resolve()
    if out == repo or repo in out.parents:
        raise GraderUsageError(f"{out} is inside the repository: export outside it")
    if not (repo / "skeletons").is_dir() or not (repo / "labs").is_dir():
        raise GraderUsageError(f"{repo} has no labs/ and skeletons/: not a cuda-labs repository")
    prepare_out(out, force)
    plan = export_plan(repo)
    for rel in plan:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / rel, target)
    generated = {
        "README.md": student_readme((repo / "README.md").read_text(encoding="utf-8")),
        "CMakePresets.json": json.dumps(
            student_presets(json.loads((repo / "CMakePresets.json").read_text("utf-8"))),
            indent=2) + "\n",
        "scripts/test.sh": STUDENT_TEST_SH,
        ".github/workflows/grade.yml": student_grade_workflow(instructor_repo, ref),
        ".github/workflows/ci.yml": STUDENT_CI_WORKFLOW,
    }
    for rel, text in generated.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (out / "scripts" / "test.sh").chmod(0o755)
    return ExportResult(out, len(plan), tuple(generated))


# --- rewrites ---------------------------------------------------------------------------

def _mentions_solutions(value: Any) -> bool:
    return "solutions" in json.dumps(value)


def student_presets(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop every preset that builds the reference solutions (and those built on them)."""
    configure = doc.get("configurePresets", [])
    gone = {p["name"] for p in configure if _mentions_solutions(p.get("cacheVariables", {}))}
    out = dict(doc)
    out["configurePresets"] = [p for p in configure if p["name"] not in gone]
    for key in ("buildPresets", "testPresets"):
        out[key] = [p for p in doc.get(key, []) if p.get("configurePreset") not in gone]
    out["workflowPresets"] = [
        w for w in doc.get("workflowPresets", [])
        if not any(step.get("name") in gone for step in w.get("steps", []))]
    return out


_DROPPED_SECTIONS = ("Instructor workflow",)


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """Split Markdown at `## ` headings: (heading or '' for the intro, lines)."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), [line]))
        else:
            sections[-1][1].append(line)
    return sections


def _paragraphs(lines: Iterable[str]) -> list[list[str]]:
    paras: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paras[-1].append(line)
        elif paras[-1]:
            paras.append([])
    return [p for p in paras if p]


def student_readme(text: str) -> str:
    """The README without the instructor's section, the solutions or the maintainer's notes."""
    kept: list[str] = []
    for heading, lines in _sections(text):
        if heading in _DROPPED_SECTIONS:
            continue
        for para in _paragraphs(lines):
            body = "\n".join(para)
            if body.startswith("Adding a lab"):
                continue
            body = body.replace(" a reference solution,", "")
            body = body.replace("`skeletons/`, `solutions/`", "`skeletons/`")
            body = body.replace("the student's files, same names, compiled against the same "
                                "contract", "your files, compiled against the lab's contract")
            body = body.replace("the pytest-based grader and its own tests",
                                "the grader: `python3 -m grader grade --impl skeletons`")
            body = body.replace("setup, CPU tests, the GPU suite", "setup and the CPU tests")
            kept.append(body)
    kept.insert(_grading_index(kept), STUDENT_GRADING_SECTION.strip())
    return "\n\n".join(kept) + "\n"


def _grading_index(paragraphs: list[str]) -> int:
    """Insert the grading section before `## Layout` (or at the end)."""
    for i, para in enumerate(paragraphs):
        if para.startswith("## Layout"):
            return i
    return len(paragraphs)


STUDENT_GRADING_SECTION = """
## How your work is graded

Pushing to your repository runs `.github/workflows/grade.yml`, which calls the
course's grading workflow: it checks out the course repository at a fixed version,
takes only your `skeletons/` folder from your repository, builds it against the
course's harness and tests on a GPU runner, and posts the summary on the run's page
(the reports are its artifact). Editing the tests, the harness or the workflows in
your repository changes nothing in the grade; run the same tests yourself with
`ctest --preset student` and `python3 -m grader grade --impl skeletons --report report`.
"""

STUDENT_TEST_SH = """#!/usr/bin/env bash
# Everything that can be checked without a GPU: the skeletons build for one
# architecture, every CTest test runs (GPU tests report themselves skipped), the
# dataset generator's tests pass, and the sources are formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

echo "== ci-skeletons: configure, build, ctest"
cmake --workflow --preset ci-skeletons

echo "== a GPU test without a GPU is skipped, never passed"
python3 scripts/check_skips.py build/ci-skeletons

echo "== formatting"
files=$(git ls-files '*.cu' '*.cuh' '*.cpp' '*.hpp' 2>/dev/null || find labs skeletons -name '*.cu*' -o -name '*.[ch]pp')
clang-format --dry-run --Werror $files

echo "== Python unit tests"
python3 -m pytest -q datasets/tests
"""

STUDENT_CI_WORKFLOW = """# Builds your skeletons and runs every test that needs no GPU (no grade here).
name: build-and-cpu-test
on:
  push:
  pull_request:
jobs:
  cpu:
    runs-on: ubuntu-latest
    container: nvidia/cuda:13.0.0-devel-ubuntu24.04   # nvcc; no GPU needed to build
    steps:
      - run: apt-get update -q && apt-get install -y -q git
      - uses: actions/checkout@v4
      - run: bash .ci/run
"""


def student_grade_workflow(instructor_repo: str, ref: str) -> str:
    """The student's grading workflow: a call to the instructor's reusable workflow."""
    return f"""# Grading: the course's workflow, from the course repository at a fixed version.
# It takes only skeletons/ from this repository; editing anything else here
# (tests, harness, this file) does not change the grade.
name: grade
on:
  push:
  workflow_dispatch:
jobs:
  grade:
    uses: {instructor_repo}/{REUSABLE_WORKFLOW}@{ref}
    with:
      harness-ref: {ref}
"""
