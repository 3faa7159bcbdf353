"""Known-wrong submissions: what each must be rejected for, and whether it was.

`submissions/known_wrong/manifest.json` lists them. An entry of kind `static`
must be rejected by the static check with a finding matching `reason`; an entry
of kind `grade` must pass the static check (else it was rejected for another
reason) and have a test matching `tests` fail with a reason matching `reason`,
while every test matching `must_pass` passes. An entry with `sanitizer` (a
compute-sanitizer tool) is judged on its lab's `labN.sanitize.<tool>` tests, from
a build configured with -DLAB_SANITIZE=ON; one with `sanitize_stage` is judged on a
grading run with the sanitizer stage (sanitize_stage.py), whose verdicts the
instructor's grade gives; `folder` lets several entries judge one submission
(default: the entry's name); `canary` names a file beside the trees that the entry
#includes, whose line must show in no finding or file its check wrote.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError, read_json_object
from grader.core.model import Outcome, Status
from grader.core.reports import markdown_table
from grader.core.sanitize import TOOLS
from grader.trust.static_check import Finding

MANIFEST = Path("submissions") / "known_wrong" / "manifest.json"
# The cheats of hostile students, refused before any test (make_hostile.py).
HOSTILE = MANIFEST.parent / "hostile.json"


@dataclass(frozen=True)
class Expectation:
    """One known-wrong submission and the rejection it must get."""

    name: str
    lab: str
    kind: str  # "static" or "grade"
    reason: str
    tests: str = ""
    must_pass: str = ""
    hidden_data: bool = False
    sanitizer: str = ""  # memcheck, racecheck or synccheck: judged in sanitizer mode
    sanitize_stage: bool = False  # judged on a grading run with the sanitizer stage
    folder: str = ""  # the submission's folder, when not the entry's name
    canary: str = ""  # a file beside the trees it #includes: its line must show nowhere

    @property
    def expected(self) -> str:
        if self.kind == "static":
            return f"static check rejects with /{self.reason}/"
        where = f"under {self.sanitizer}, " if self.sanitizer else ""
        if self.sanitize_stage:
            where = "graded with the sanitizer stage, "
        return f"{where}a test /{self.tests}/ fails with /{self.reason}/"

    @property
    def folder_name(self) -> str:
        return self.folder or self.name


@dataclass(frozen=True)
class Judgement:
    """What happened to one submission; `as_expected` is None when it could not be judged."""

    verdict: str
    as_expected: bool | None


def load_manifest(path: Path) -> list[Expectation]:
    """The manifest's entries; a malformed one is a usage error naming it."""
    doc = read_json_object(path, "known-wrong manifest")
    entries = []
    for raw in doc.get("submissions", []):
        fields = {k: v for k, v in raw.items() if k in Expectation.__dataclass_fields__}
        try:
            entry = Expectation(**fields)
        except TypeError as exc:
            raise GraderUsageError(f"{path}: entry {raw.get('name')!r}: {exc}") from exc
        problem = ""
        if entry.kind not in ("static", "grade") or (entry.kind == "grade" and not entry.tests):
            problem = "kind must be 'static', or 'grade' with 'tests'"
        elif entry.sanitize_stage and (entry.kind != "grade" or entry.sanitizer):
            problem = "sanitize_stage goes on a 'grade' entry without 'sanitizer'"
        elif entry.sanitizer and (entry.sanitizer not in TOOLS or entry.kind != "grade"):
            problem = f"sanitizer must be one of {', '.join(TOOLS)}, on a 'grade' entry"
        if problem:
            raise GraderUsageError(f"{path}: entry {entry.name!r}: {problem}")
        entries.append(entry)
    return entries


def load_entries(repo: Path) -> list[Expectation]:
    """Every entry: the known-wrong submissions, then the hostile ones."""
    return load_manifest(repo / MANIFEST) + load_manifest(repo / HOSTILE)


def judge_static(
    entry: Expectation, findings: Sequence[Finding], leaks: Sequence[str] = ()
) -> Judgement:
    """A `static` entry: some finding must match its reason, and its canary's line
    show in none of `leaks` (what the check wrote)."""
    if leaks:
        return Judgement(f"{entry.canary} leaked into {leaks[0]}", False)
    pattern = re.compile(entry.reason)
    hits = [f for f in findings if pattern.search(f"{f.rule_id}: {f.reason}")]
    if hits:
        first = hits[0]
        return Judgement(f"static check: {first.path}:{first.line}: {first.rule_id}", True)
    if findings:
        return Judgement(f"static check rejects for another reason: {findings[0].rule_id}", False)
    return Judgement("static check passes it", False)


def judge_grade(
    entry: Expectation,
    findings: Sequence[Finding],
    outcomes: Mapping[str, Outcome] | None,
    gpu_present: bool,
) -> Judgement:
    """A `grade` entry: clean statically, then the right test fails for the right reason."""
    if findings:
        return Judgement(
            f"static check rejects it first ({findings[0].rule_id}), not for its own reason", False
        )
    if outcomes is None or not gpu_present:
        return Judgement("not judged: needs a GPU", None)
    tests = re.compile(entry.tests)
    reason = re.compile(entry.reason, re.DOTALL)
    chosen = {name: o for name, o in outcomes.items() if tests.search(name)}
    if not chosen:
        return Judgement(f"no test matches /{entry.tests}/", False)
    if entry.must_pass:
        keep = re.compile(entry.must_pass)
        broken = [
            n for n, o in outcomes.items() if keep.search(n) and o.status is not Status.PASSED
        ]
        if broken:
            return Judgement(
                f"{broken[0]} should pass but did not: {_first_line(outcomes[broken[0]].reason)}",
                False,
            )
    failed = {n: o for n, o in chosen.items() if o.status in (Status.FAILED, Status.ERROR)}
    right = [n for n, o in failed.items() if reason.search(o.reason)]
    if right:
        return Judgement(
            f"{len(right)} of {len(chosen)} failed: {_first_line(failed[right[0]].reason)}", True
        )
    if failed:
        name, outcome = next(iter(failed.items()))
        return Judgement(f"failed for another reason: {name}: {_first_line(outcome.reason)}", False)
    return Judgement(f"all {len(chosen)} matching tests passed", False)


def _first_line(text: str, limit: int = 120) -> str:
    line = next((part for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def table(rows: Sequence[tuple[Expectation, Judgement]]) -> str:
    """The Markdown table: submission | expected reason | verdict | as expected."""
    marks = {True: "yes", False: "NO", None: "not judged"}
    cells = [(e.name, e.expected, j.verdict, marks[j.as_expected]) for e, j in rows]
    head = ("submission", "expected reason", "verdict", "as expected")
    return "\n".join(markdown_table(head, cells))


GENERATORS = ("make_lab1.py", "make_labs.py", "make_hostile.py")


def write_trees(repo: Path, out: Path) -> Path:
    """Writes every known-wrong submission under `out` from the current solutions.

    The trees are generated rather than committed: each is the solution plus one
    defect, so a copy in the repository would only drift from the solution. A
    recipe that no longer applies to the solution stops with its reason.
    """
    out.mkdir(parents=True, exist_ok=True)
    for script in GENERATORS:
        path = repo / MANIFEST.parent / script
        done = subprocess.run(
            [sys.executable, str(path), str(out)], capture_output=True, text=True, cwd=repo
        )
        if done.returncode != 0:
            raise GraderUsageError(
                f"{path}: could not write the known-wrong submissions:\n"
                f"{done.stderr.strip()[-2000:]}"
            )
    return out
