"""The class leaderboard: each figure the harness measured, the class's best first.

Built from each student's results.json (its `leaderboard`, which holds only the
figures of passed tests, read from reports the harness vouched for), never from
output. The board scores nothing (a figure's only effect on a score is the
performance credit of its own test, credit.py). Anonymised, a student is a
pseudonym keyed by a salt, stable for one salt and meaningless without it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.classroom.batch import safe_name
from grader.core.model import lab_number
from grader.core.reports import RESULTS_NAME


def read_figures(report: Path, students: Sequence[str]) -> dict[str, dict[str, float]]:
    """figure name -> student -> value, from REPORT/<student>/results.json."""
    figures: dict[str, dict[str, float]] = {}
    for student in students:
        path = report / safe_name(student) / RESULTS_NAME
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not graded: the class table says why
        for entry in doc.get("leaderboard", []):
            if entry.get("order", "desc") != "desc":
                continue  # every figure the harness records is a ratio where higher is better
            figures.setdefault(str(entry["name"]), {})[student] = float(entry["value"])
    return figures


def pseudonym(student: str, salt: str) -> str:
    return "anon-" + hashlib.blake2b(f"{salt}\0{student}".encode(), digest_size=4).hexdigest()


def ranked(
    figures: Mapping[str, Mapping[str, float]], top: int, names: Mapping[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """Each figure's best `top` students, best first; lab by lab, figure names in order."""
    order = sorted(figures, key=lambda f: (lab_number(f.split(" ", 1)[0]), f))
    return {
        figure: [
            {"rank": rank, "student": names.get(s, s), "value": v}
            for rank, (s, v) in enumerate(
                sorted(figures[figure].items(), key=lambda sv: (-sv[1], sv[0]))[:top], 1
            )
        ]
        for figure in order
    }


def markdown(board: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    lines = [
        "## Class leaderboard",
        "",
        "Each figure the harness measured in a passed timing test, best first (higher is "
        "better; the board itself scores nothing).",
    ]
    for figure, rows in board.items():
        lines += ["", f"### {figure}", "", "| rank | student | value |", "| ---: | --- | ---: |"]
        lines += [f"| {r['rank']} | {r['student']} | {r['value']:.3g} |" for r in rows]
    return "\n".join(lines) + "\n"


def plot(board: Mapping[str, Sequence[Mapping[str, Any]]], out: Path) -> str:
    """One bar chart per figure; returns why none was drawn, or an empty string."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (the plot extra): no leaderboard.png"
    if not board:
        return "no figures: no leaderboard.png"
    cols = 3
    rows = (len(board) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 2.6 * rows), squeeze=False)
    for ax, (figure, entries) in zip(axes.flat, board.items()):
        ax.barh([str(e["student"]) for e in entries][::-1], [e["value"] for e in entries][::-1])
        ax.set_title(figure, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(board) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return ""
