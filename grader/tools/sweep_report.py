"""The sweep's table (Markdown, CSV) and plot (PNG, when matplotlib is installed).

matplotlib is optional on purpose: the grading runner and the students'
machines need only numpy, and the table carries every number.
"""

from __future__ import annotations

import csv
from pathlib import Path

from grader.tools.sweep import RATE_LABELS, SweepResult


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def rate_unit(result: SweepResult) -> str:
    """The rate's column, gbps or gflops, whichever the program printed (empty when neither)."""
    return next((row.rate_unit for _, row in result.rows if row.rate_unit), "")


def rate_label(result: SweepResult) -> str:
    """The rate as a table heads it: GB/s, GFLOP/s (rate when there is none)."""
    unit = rate_unit(result)
    return RATE_LABELS.get(unit, unit or "rate")


def write_csv(result: SweepResult, path: Path) -> None:
    """The programs' own column names (time_ms, gbps), as their --format csv has them."""
    unit = rate_unit(result) or "rate"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*result.plan.names, "time_ms", unit, "check", "error"])
        for config, row in result.rows:
            writer.writerow([*config, _cell(row.time_ms), _cell(row.rate), row.check, row.error])


def write_markdown(result: SweepResult, path: Path, title: str) -> None:
    unit = rate_label(result)
    head = [*result.plan.names, "time_ms", unit, "check"]
    lines = [f"# {title}", "", "| " + " | ".join(head) + " |", "|" + " ---: |" * len(head)]
    for config, row in result.rows:
        tail = (
            [_cell(row.time_ms), _cell(row.rate), row.check]
            if not row.error
            else ["-", "-", row.error.replace("|", "\\|")]
        )
        lines.append("| " + " | ".join([*config, *tail]) + " |")
    measured = [(c, r) for c, r in result.rows if r.time_ms is not None]
    if measured:
        best_config, best = min(measured, key=lambda cr: cr[1].time_ms or 0.0)
        shown = ", ".join(f"{n}={v}" for n, v in zip(result.plan.names, best_config))
        lines += [
            "",
            f"Fastest: {shown} at {best.time_ms:g} ms"
            + (f" ({best.rate:g} {unit})" if best.rate is not None else "")
            + ".",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def plot_labels(result: SweepResult) -> tuple[str, list[str]]:
    """The parameters every configuration shares ("n=2048"), and each configuration's
    label from the others: a value repeated on every tick label only crowds the plot."""
    names = result.plan.names
    configs = [config for config, _ in result.rows]
    fixed = [i for i in range(len(names)) if len({c[i] for c in configs}) == 1]
    if len(fixed) == len(names):
        fixed = []
    shared = ", ".join(f"{names[i]}={configs[0][i]}" for i in fixed)
    labels = [
        ",".join(f"{n}={v}" for i, (n, v) in enumerate(zip(names, c)) if i not in fixed)
        for c in configs
    ]
    return shared, labels


def write_plot(result: SweepResult, path: Path, title: str) -> str | None:
    """Time and rate against the configuration; returns why it was skipped, if it was."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib): sweep.png skipped"
    fixed, labels = plot_labels(result)
    if fixed:
        title += f" ({fixed})"
    times = [row.time_ms if row.time_ms is not None else float("nan") for _, row in result.rows]
    rates = [row.rate if row.rate is not None else float("nan") for _, row in result.rows]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(max(6, 0.6 * len(labels)), 6))
    top.plot(range(len(labels)), times, "o-")
    top.set_ylabel("time (ms)")
    top.set_title(title)
    bottom.plot(range(len(labels)), rates, "s-", color="tab:green")
    bottom.set_ylabel(rate_label(result))
    bottom.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None
