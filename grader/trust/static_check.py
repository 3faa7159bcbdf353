"""The source rules of a submission: libraries named at the line that uses them.
Needs no GPU and no compiler; teaches early. The defence is the object check
(`object_check.py`), which `submission_check.py` runs after these.

`check_lab(folder)` reads every source file of one lab folder laid out like
`skeletons/` and returns the findings, each with file:line and the reason. The
rules are in `static_rules.py`; a file the lab's `lab.json` lets use a library
(`objects.libraries`) is held to the rules less that library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.discovery import lab_dirs, lab_folders
from grader.core.lab_file import library_names
from grader.trust.static_rules import RULES, Rule, rules_allowing

SOURCE_SUFFIXES = (
    ".cu",
    ".cuh",
    ".h",
    ".hpp",
    ".hh",
    ".cpp",
    ".cc",
    ".cxx",
    ".c",
    ".inc",
    ".inl",
    ".ptx",
)


@dataclass(frozen=True)
class Finding:
    """One reason to reject a submission, where it is and what rule it broke."""

    path: str
    line: int
    rule_id: str
    reason: str
    excerpt: str = ""

    def describe(self) -> str:
        text = f"{self.path}:{self.line}: {self.rule_id}: {self.reason}"
        return f"{text}\n    {self.excerpt}" if self.excerpt else text


def strip_comments(text: str, *, blank_strings: bool) -> str:
    """`text` with comments (and optionally string/char literals) replaced by spaces.

    Lengths and newlines are kept, so an offset in the result is an offset in
    `text` and line numbers stay right.
    """
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        two = text[i : i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
            while end > 0 and end < n and text[end - 1] == "\\":  # continued comment
                nxt = text.find("\n", end + 1)
                end = n if nxt < 0 else nxt
            _blank(out, i, end)
            i = end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            _blank(out, i, end)
            i = end
        elif c == '"' or (c == "'" and not (i and text[i - 1].isalnum())):  # not 1'000
            end = _literal_end(text, i)
            if blank_strings:
                _blank(out, i + 1, end - 1)
            i = end
        else:
            i += 1
    return "".join(out)


def _literal_end(text: str, start: int) -> int:
    """The index just past the string or char literal opening at `start`."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote or text[i] == "\n":
            return i + 1
        i += 1
    return len(text)


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, min(end, len(chars))):
        if chars[k] != "\n":
            chars[k] = " "


def _join_continuations(text: str) -> tuple[str, list[int]]:
    """Remove backslash-newlines (which can split a name); map new offsets to old."""
    joined: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 2] == "\n":
            i += 2
            continue
        joined.append(text[i])
        where.append(i)
        i += 1
    where.append(len(text))
    return "".join(joined), where


def check_source(text: str, path: str, rules: Sequence[Rule] = RULES) -> list[Finding]:
    """Every rule broken in one source file's text, in file order, once per line and rule."""
    original_lines = text.splitlines()
    views = {
        keep: _join_continuations(strip_comments(text, blank_strings=not keep))
        for keep in (True, False)
    }
    findings: dict[tuple[int, str], Finding] = {}
    for rule in rules:
        code, where = views[rule.on_includes]
        for match in rule.pattern.finditer(code):
            line = text.count("\n", 0, where[match.start()]) + 1
            excerpt = original_lines[line - 1].strip()[:160] if line <= len(original_lines) else ""
            findings.setdefault(
                (line, rule.rule_id), Finding(path, line, rule.rule_id, rule.reason, excerpt)
            )
    return sorted(findings.values(), key=lambda f: (f.line, f.rule_id))


def source_files(folder: Path) -> list[Path]:
    """The files of a lab folder the compiler could read, in a stable order."""
    return sorted(
        p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES
    )


def check_lab(
    folder: Path,
    root: Path | None = None,
    libraries: Mapping[str, frozenset[str]] | None = None,
) -> list[Finding]:
    """Findings for every source file of one lab folder; paths relative to `root`.
    `libraries`: file name (in the folder itself) -> the libraries it may use."""
    root = root or folder.parent
    findings = []
    for path in source_files(folder):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            findings.append(Finding(_relative(path, root), 0, "unreadable", str(exc)))
            continue
        allowed = (libraries or {}).get(path.name) if path.parent == folder else None
        rules = rules_allowing(allowed) if allowed else RULES
        findings += check_source(text, _relative(path, root), rules)
    return findings


def lab_libraries(repo: Path | None, lab: str) -> dict[str, frozenset[str]]:
    """The lab's files allowed a library (lab.json's objects.libraries), none
    without a repository or a folder for the lab."""
    folder = lab_dirs(repo).get(lab) if repo is not None else None
    return library_names(folder) if folder is not None else {}


def rejections(
    impl: Path, labs: Sequence[str] | None = None, repo: Path | None = None
) -> dict[str, list[str]]:
    """lab -> its source findings (`file:line: rule: reason`), for each lab folder of
    `impl` with at least one: what `batch` scores 0 before building (the object check
    follows once the objects exist: submission_check.py). `repo`: the labs' policies."""
    found = {
        lab: [f.describe() for f in check_lab(folder, impl, lab_libraries(repo, lab))]
        for lab, folder in lab_folders(impl, labs).items()
    }
    return {lab: items for lab, items in found.items() if items}


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
