"""Writes each lab README's table of timing bars from the lab's data files.

The bars come from `labs/labN_topic/lab.json` ("bars": value, who it applies to,
what it measures) and what set them from `calibration.json` (the device, the
reference's measured figure, a note), so a README never restates a number by hand.
The table sits between two markers in the lab's README:

    <!-- bars: scripts/readme_bars.py writes this table from lab.json and calibration.json -->
    <!-- end of bars -->

    python3 scripts/readme_bars.py          # rewrite the tables that changed
    python3 scripts/readme_bars.py --check  # change nothing; exit 1 naming each stale README
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- bars: scripts/readme_bars.py writes this table from lab.json and calibration.json -->"
END = "<!-- end of bars -->"
WHO = {"students": "your code", "reference": "the reference solution only"}
# A student bar passes each typical solution by at least this factor (test_readme_bars.py).
TYPICAL_MARGIN = 1.25
# The two honest solutions written apart from the reference and from each other, by
# their calibration.json keys: submissions/typical and submissions/typical2.
TYPICALS = ("typical", "typical2")


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc if isinstance(doc, dict) else {}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _typical_cell(seen: dict[str, Any], key: str, bar: dict[str, Any]) -> str:
    """A typical solution's figure and its margin over the bar: `0.615 (1.28x)`."""
    figure, needed = seen.get(key), bar.get("value")
    if not isinstance(figure, (int, float)):
        return ""
    if bar.get("for") != "students" or not isinstance(needed, (int, float)) or needed <= 0:
        return f"{figure:.3g}"
    return f"{figure:.3g} ({figure / needed:.2f}x)"


def table(lab_dir: Path) -> str:
    """The lab's bars as a Markdown table, between the markers."""
    bars: dict[str, Any] = _read(lab_dir / "lab.json").get("bars", {})
    calibration = _read(lab_dir / "calibration.json")
    measured: dict[str, Any] = calibration.get("bars", {})
    device = calibration.get("device", "the reference GPU")
    typicals_on = calibration.get("typicals_measured", "the same GPU")
    lines = [
        BEGIN,
        "",
        f"| bar | for | what it measures | needs at least | measured on {_cell(device)} | from "
        "| `typical` | `typical2` |",
        "| --- | --- | --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for name, bar in bars.items():
        seen = measured.get(name, {})
        typicals = " | ".join(_typical_cell(seen, key, bar) for key in TYPICALS)
        lines.append(
            f"| `{name}` | {WHO.get(bar.get('for', ''), _cell(bar.get('for', '')))} "
            f"| {_cell(bar.get('what', ''))} | {bar.get('value', '')} "
            f"| {seen.get('measured', '')} | {_cell(seen.get('note', ''))} | {typicals} |"
        )
    lines += [
        "",
        f"A bar for your code is at most {TYPICAL_MARGIN:g}x below what each of two honest, "
        "untuned solutions written from this README, apart from the reference and from each "
        "other, reached (`submissions/typical/` and `submissions/typical2/`, the last two "
        f"columns, with their margin over the bar; measured on {_cell(typicals_on)}): honest "
        "code passes it with room for noise.",
    ]
    return "\n".join([*lines, "", END])


def updated(readme: Path, lab_dir: Path) -> str | None:
    """The README with its table rewritten, or None when it has no markers."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[:start] + table(lab_dir) + text[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    status = 0
    for lab_dir in sorted((ROOT / "labs").glob("lab*_*")):
        readme = lab_dir / "README.md"
        if not (lab_dir / "lab.json").is_file() or not readme.is_file():
            continue
        new = updated(readme, lab_dir)
        rel = readme.relative_to(ROOT)
        if new is None:
            print(f"readme_bars: {rel} has no bars markers ({BEGIN})", file=sys.stderr)
            status = 1
        elif new != readme.read_text(encoding="utf-8"):
            if args.check:
                print(f"readme_bars: {rel} is stale: run python3 scripts/readme_bars.py")
                status = 1
            else:
                readme.write_text(new, encoding="utf-8")
                print(f"readme_bars: wrote {rel}")
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("readme_bars: interrupted", file=sys.stderr)
        sys.exit(130)
