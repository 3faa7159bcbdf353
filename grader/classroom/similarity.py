"""Pairs of submissions whose kernels are suspiciously alike, per lab and file.

Fingerprints come from copydetect (PyPI): pygments tokens with identifiers,
literals and comments normalised, k-grams hashed and winnowed, so renaming
variables, reformatting and reordering comments do not hide a copy. The
skeleton's file is the boilerplate: what every student was handed counts for
no one. Only files the skeleton hands out are compared, and a student's file
only with the same file of other students.

A pair's score is the larger of its two shares (the part of either file found
in the other), so copying a whole small file into a larger one still ranks
high. It is a lead for a human, never a verdict.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.core.errors import GraderUsageError

# copydetect's defaults: a match shorter than NOISE tokens is ignored, one of
# GUARANTEE tokens or more is always found (winnowing window = the difference + 1).
NOISE_TOKENS = 25
GUARANTEE_TOKENS = 25
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc")


@dataclass(frozen=True)
class PairScore:
    """Two students' copies of one lab file and how much of each the other holds."""

    lab_dir: str
    file: str
    first: str
    second: str
    share_first: float
    share_second: float
    tokens: int
    highlighted: tuple[str, str] = ("", "")

    @property
    def score(self) -> float:
        return max(self.share_first, self.share_second)


def _copydetect() -> Any:
    try:
        import copydetect
    except ImportError as exc:
        raise GraderUsageError(
            "similarity needs copydetect: install the project's `similarity` extra "
            "(pip install -e '.[similarity]'; scripts/setup.sh does in this repository)"
        ) from exc
    return copydetect


def handed_out(skeleton: Path) -> dict[str, list[str]]:
    """lab folder -> the source files the skeleton hands out (what students edit)."""
    found: dict[str, list[str]] = {}
    for lab_dir in sorted(p for p in skeleton.iterdir() if p.is_dir()):
        files = sorted(
            f.name for f in lab_dir.iterdir() if f.is_file() and f.suffix in SOURCE_SUFFIXES
        )
        if files:
            found[lab_dir.name] = files
    return found


def compare_class(
    students: Sequence[tuple[str, Path]],
    skeleton: Path,
    lab_dirs: Sequence[str] | None = None,
    keep_highlight: int = 10,
) -> list[PairScore]:
    """Every pair of students, per handed-out file, best first.

    `students`: (name, folder laid out like skeletons/). `keep_highlight`: the
    best pairs whose code is kept, highlighted, for the HTML report.
    """
    cd = _copydetect()
    files = handed_out(skeleton)
    if lab_dirs is not None:
        files = {d: f for d, f in files.items() if d in lab_dirs}
    window = GUARANTEE_TOKENS - NOISE_TOKENS + 1
    pairs: list[tuple[PairScore, Any, Any]] = []
    for lab_dir, names in files.items():
        for name in names:
            boiler = cd.CodeFingerprint(str(skeleton / lab_dir / name), NOISE_TOKENS, window)
            prints = []
            for student, folder in students:
                path = folder / lab_dir / name
                if path.is_file():
                    fp = cd.CodeFingerprint(
                        str(path), NOISE_TOKENS, window, boilerplate=sorted(boiler.hashes)
                    )
                    prints.append((student, fp))
            for (a, fa), (b, fb) in itertools.combinations(prints, 2):
                tokens, (share_a, share_b), slices = cd.compare_files(fa, fb)
                score = PairScore(lab_dir, name, a, b, float(share_a), float(share_b), int(tokens))
                pairs.append((score, (fa, slices[0]), (fb, slices[1])))
    pairs.sort(key=lambda p: (-p[0].score, p[0].lab_dir, p[0].file, p[0].first, p[0].second))
    ranked = []
    for rank, (score, left, right) in enumerate(pairs):
        if rank < keep_highlight and score.tokens:
            score = replace(score, highlighted=(_mark(left), _mark(right)))
        ranked.append(score)
    return ranked


def _mark(side: tuple[Any, Any]) -> str:
    """The file's code, HTML-escaped, with the copied slices in <mark>."""
    fingerprint, slices = side
    code = fingerprint.raw_code
    out, last = [], 0
    for start, end in sorted(zip(slices[0], slices[1])):
        start, end = max(int(start), last), int(end)
        if end <= start:
            continue
        out += [html.escape(code[last:start]), "<mark>", html.escape(code[start:end]), "</mark>"]
        last = end
    out.append(html.escape(code[last:]))
    return "".join(out)


def markdown(pairs: Sequence[PairScore], threshold: float, limit: int = 50) -> str:
    """The ranked table: pairs at or above `threshold`, at most `limit` rows."""
    flagged = [p for p in pairs if p.score >= threshold]
    lines = [
        "## Similarity",
        "",
        f"{len(flagged)} of {len(pairs)} pairs share at least {threshold:.0%} of a file "
        "(the skeleton's code excluded). A lead to read, not a verdict.",
        "",
        "| rank | file | student | student | share of first | share of second | tokens |",
        "| ---: | --- | --- | --- | ---: | ---: | ---: |",
    ]
    for rank, p in enumerate(flagged[:limit], 1):
        lines.append(
            f"| {rank} | {p.lab_dir}/{p.file} | {p.first} | {p.second} | "
            f"{p.share_first:.0%} | {p.share_second:.0%} | {p.tokens} |"
        )
    return "\n".join(lines) + "\n"


def html_report(pairs: Sequence[PairScore], threshold: float) -> str:
    """The same ranking (`pairs` best first, as compare_class gives them), with the
    best pairs' code side by side, copied parts marked."""
    rows, details = [], []
    for rank, p in enumerate(pairs, 1):
        if p.score < threshold:
            break
        rows.append(
            f"<tr><td>{rank}</td><td>{html.escape(p.lab_dir)}/{html.escape(p.file)}</td>"
            f"<td>{html.escape(p.first)}</td><td>{html.escape(p.second)}</td>"
            f"<td>{p.share_first:.0%}</td><td>{p.share_second:.0%}</td><td>{p.tokens}</td></tr>"
        )
        if not p.highlighted[0]:
            continue
        details.append(
            f"<h2>{rank}. {html.escape(p.lab_dir)}/{html.escape(p.file)}: "
            f"{html.escape(p.first)} ({p.share_first:.0%}) and "
            f"{html.escape(p.second)} ({p.share_second:.0%})</h2>"
            f"<div class=pair><pre>{p.highlighted[0]}</pre><pre>{p.highlighted[1]}</pre></div>"
        )
    return (
        "<!doctype html><meta charset=utf-8><title>cuda-labs similarity</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px}.pair{display:flex;gap:1em}"
        "pre{flex:1;overflow:auto;font-size:12px;border:1px solid #ccc}"
        "mark{background:#fd9}</style>"
        "<h1>Similarity</h1><p>The skeleton's code is excluded. A lead to read, not a verdict.</p>"
        "<table><tr><th>rank</th><th>file</th><th>student</th><th>student</th>"
        "<th>share of first</th><th>share of second</th><th>tokens</th></tr>"
        + "".join(rows)
        + "</table>"
        + "".join(details)
    )
