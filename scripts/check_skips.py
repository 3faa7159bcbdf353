"""On a machine without a GPU, every lab test must report itself skipped: not
passed (a GPU test that passes without a GPU checked nothing) and not failed. And
a run that checked nothing must not succeed: the course's tables, all skipped, fail
on the no-GPU check as the lab tests do (a CI preset's CUDA_LABS_EXPECT_NO_GPU=1
passes), and every test preset fails where it finds no test (a build configured
with -DLAB_ONLY=lab3, then `ctest --preset lab1`).

    python3 scripts/check_skips.py BUILD_DIR
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GPU_LABELS = r"^lab[0-9]+\.(correctness|timing|reference)$"
EXPECT_ENV = "CUDA_LABS_EXPECT_NO_GPU"


def _ctest(*args: str, cwd: Path | None = None, expect_no_gpu: bool = False) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != EXPECT_ENV}
    if expect_no_gpu:
        env[EXPECT_ENV] = "1"
    proc = subprocess.run(
        ["ctest", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    return proc.returncode, proc.stdout + proc.stderr


def check_tables(build: Path) -> list[str]:
    """A table run without a GPU fails, saying why; with CI's expectation it passes."""
    status, listing = _ctest("--test-dir", str(build), "-N", "-L", r"^tables\.")
    tables = re.findall(r"Test +#\d+: (tables\.\S+)", listing)
    if status != 0:
        return [f"ctest could not list the tables of {build}: {listing.strip()[-300:]}"]
    if not tables:  # a lab without the course's tables (the template's)
        print(f"check_skips: no table in {build}: no table run to check")
        return []
    one = ("--test-dir", str(build), "-R", f"^{re.escape(tables[0])}$")
    problems = []
    status, out = _ctest(*one, "--output-on-failure")
    if status == 0 or "nothing was checked" not in out:
        problems.append(f"{tables[0]}, skipped without a GPU, made ctest exit {status}")
    status, out = _ctest(*one, expect_no_gpu=True)
    if status != 0:
        problems.append(f"{tables[0]} with {EXPECT_ENV}=1 made ctest exit {status}")
    return problems


def check_presets_without_tests() -> list[str]:
    """Every test preset, over builds that hold no test, fails ("No tests were found")."""
    doc = json.loads((REPO / "CMakePresets.json").read_text(encoding="utf-8"))
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp)
        shutil.copy(REPO / "CMakePresets.json", source)
        for preset in doc["configurePresets"]:
            if "binaryDir" in preset:
                build = Path(preset["binaryDir"].replace("${sourceDir}", str(source)))
                build.mkdir(parents=True)
                (build / "CTestTestfile.cmake").write_text("")
        for preset in doc["testPresets"]:
            if not preset.get("hidden"):
                status, out = _ctest("--preset", preset["name"], cwd=source)
                if status == 0 or "No tests were found" not in out:
                    problems.append(f"ctest --preset {preset['name']} found no test, exit {status}")
    return problems


def main(build: Path) -> int:
    probe = subprocess.run(
        [str(build / "bin" / "lab_gpu_info")], capture_output=True, text=True, check=False
    )
    if probe.returncode != 77:
        print("check_skips: a GPU is visible here; nothing to check")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        # -FC: not the no-GPU summary that the GPU tests' fixture brings in (no GPU
        # test itself; cmake/LabNoGpuSummary.cmake).
        subprocess.run(
            [
                "ctest",
                "--test-dir",
                str(build),
                "-L",
                GPU_LABELS,
                "-j",
                "2",
                "-FC",
                "^cuda_labs_gpu$",
                "--output-junit",
                str(junit),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        cases = list(ET.parse(junit).getroot().iter("testcase"))
    wrong = [
        c.get("name")
        for c in cases
        if not c.get("name", "").endswith(".datasets") and c.find("skipped") is None
    ]
    total = sum(1 for c in cases if not c.get("name", "").endswith(".datasets"))
    if total == 0:
        print("check_skips: no lab tests found", file=sys.stderr)
        return 1
    if wrong:
        print(
            f"check_skips: {len(wrong)} of {total} GPU tests did not report skipped:",
            *wrong[:10],
            sep="\n  ",
            file=sys.stderr,
        )
        return 1
    print(f"check_skips: all {total} GPU tests reported skipped (no GPU here)")
    problems = check_tables(build) + check_presets_without_tests()
    for problem in problems:
        print(f"check_skips: {problem}", file=sys.stderr)
    if not problems:
        print("check_skips: a run of skipped tables fails, a preset that finds no test fails")
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(Path(sys.argv[1])))
    except KeyboardInterrupt:  # ctest, stopped by the same Ctrl-C, wrote only its temporary files
        print("check_skips: interrupted", file=sys.stderr)
        sys.exit(130)
