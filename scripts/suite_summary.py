"""Summary table of a GPU suite run: per tree and lab, counts of passed, failed
and skipped tests from ctest's JUnit files, the slowest test, the timing lines
the tests printed, and whether each tree met its expectation (solutions pass
everything; skeletons fail every lab test and none hangs)."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def counts(junit: Path) -> dict[str, float]:
    root = ET.parse(junit).getroot()
    c = {"passed": 0, "failed": 0, "skipped": 0, "slowest": 0.0, "timeouts": 0}
    for case in root.iter("testcase"):
        name = case.get("name", "")
        if name.endswith(".datasets"):
            continue
        c["slowest"] = max(c["slowest"], float(case.get("time", 0)))
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            c["skipped"] += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            c["failed"] += 1
            text = "".join(case.itertext())
            c["timeouts"] += "Timeout" in text or "timed out" in text
        else:
            c["passed"] += 1
    return c


def main(out: Path) -> int:
    rows, ok = [], True
    for junit in sorted(out.glob("junit-*.xml")):
        _, tree, lab = junit.stem.split("-", 2)
        c = counts(junit)
        if tree == "solutions":
            good = c["failed"] == 0 and c["skipped"] == 0 and c["passed"] > 0
        else:
            good = c["passed"] == 0 and c["skipped"] == 0 and c["timeouts"] == 0
        ok &= good
        rows.append((tree, lab, c, "yes" if good else "NO"))
    timings = []
    for junit in sorted(out.glob("junit-solutions-*.xml")):
        lab = junit.stem.split("-", 2)[2]  # the harness's lines name the figure, not the lab
        for node in ET.parse(junit).getroot().iter("system-out"):
            timings += [
                f"{lab} {t}" for t in re.findall(r"cuda-labs: timing: (.*)", node.text or "")
            ]
    gpu_file = out / "gpu.txt"
    gpu = gpu_file.read_text().strip().splitlines()[-1] if gpu_file.exists() else "?"
    if timings:
        print("\n== timing verdicts (reference solutions) ==")
    for line in timings:
        print("  " + line)
    print(f"\n== GPU suite summary ({gpu}) ==")
    if rows:
        print(
            f"{'tree':<10} {'lab':<6} {'passed':>6} {'failed':>6} {'skipped':>7} "
            f"{'slowest s':>9}  as expected"
        )
    else:
        print("ctest: not run (CTEST=0 or no build)")
    for tree, lab, c, expected in rows:
        print(
            f"{tree:<10} {lab:<6} {c['passed']:>6} {c['failed']:>6} {c['skipped']:>7} "
            f"{c['slowest']:>9.2f}  {expected}"
        )
    print_startup(out / "startup.txt")
    checks_ok = print_checks(out)
    if not rows and checks_ok is None:
        print("no results: did the builds fail?")
        return 1
    return 0 if ok and checks_ok is not False else 1


def print_startup(startup: Path) -> None:
    """`init 8 394` lines: probe, processes at once, milliseconds for all of them."""
    if not startup.exists():
        return
    by_probe: dict[str, list[str]] = {}
    for line in startup.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            by_probe.setdefault(parts[0], []).append(f"{parts[1]} at once {parts[2]} ms")
    print("\nCUDA process start-up (lab_gpu_info; init: device query, context: + context,")
    print("  ctx+256MiB: + 256 MiB allocated and cleared; @all: spread over all GPUs):")
    for probe, runs in by_probe.items():
        print(f"  {probe:<15} " + ", ".join(runs))


def _text(path: Path) -> str:
    """A log or report's text; empty when the check did not write it."""
    return path.read_text() if path.exists() else ""


def check_result(out: Path, name: str) -> str:
    """One line on what a grader check found, read from its report and log."""
    if name in ("grade", "typical", "typical2"):
        results = out / name / "results.json"
        if not results.exists():
            return "no results.json"
        doc = json.loads(results.read_text())
        extra = doc.get("extra_data") or {}  # the Gradescope spec's place for ours
        sandbox = "sandboxed" if extra.get("sandboxed") else "UNSANDBOXED"
        return (
            f"score {doc.get('score')}/{extra.get('max_score')}, {sandbox}, "
            f"execution_time {doc.get('execution_time')} s"
        )
    if name == "class":
        runs = re.findall(
            r"^(\d+) +batch done in (\d+ s).*?(\d+ of \d+ as expected)",
            _text(out / "class.log"),
            re.MULTILINE,
        )
        return "; ".join(f"{n} GPU(s) {wall}, {ok}" for n, wall, ok in runs) or "no result"
    if name == "modes":
        trees = re.findall(
            r"^([\w-]+): (\d+ tests, \d+ different verdicts)", _text(out / "modes.log"), re.M
        )
        return "; ".join(f"{tree} {found}" for tree, found in trees) or "no result"
    if name in ("sanitize", "repeat"):  # ctest runs them: its own summary line
        said = re.findall(r"^\d+% tests passed.*$", _text(out / f"{name}.log"), re.MULTILINE)
        return said[-1] if said else "no result"
    if name == "sweep":
        rows = re.findall(
            r"^lab\d+ \S+ +(\d+) +(\d+)  (.*)$", _text(out / "sweep.log"), re.MULTILINE
        )
        ran = sum(1 for code, _, _ in rows if code == "0")
        configs = sum(int(n) for _, n, _ in rows)
        plots = sum(1 for _, _, plot in rows if plot == "sweep.png")
        return f"{ran}/{len(rows)} sweeps ran, {configs} configurations, {plots} plots"
    text = _text(out / f"{name}.md")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    if name == "known-wrong":
        good = sum(1 for row in rows if row.rstrip().endswith("| yes |"))
        return f"{good}/{len(rows)} rejected for their own reason"
    return text.strip().splitlines()[0] if text.strip() else "no report"


def print_checks(out: Path) -> bool | None:
    """The grader checks' table; None when none ran, else whether all exited 0."""
    listing = out / "checks.txt"
    if not listing.exists():
        return None
    print("\n== grader checks (reference solutions; typical, typical2: those trees) ==")
    print(f"{'check':<12} {'exit':>4} {'seconds':>7}  result")
    ok = True
    for line in listing.read_text().splitlines():
        name, status, seconds = line.split()
        ok &= status == "0"
        print(f"{name:<12} {status:>4} {seconds:>7}  {check_result(out, name)}")
    return ok


if __name__ == "__main__":
    try:
        sys.exit(main(Path(sys.argv[1])))
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("suite_summary: interrupted", file=sys.stderr)
        sys.exit(130)
