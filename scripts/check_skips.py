"""On a machine without a GPU, every lab test must report itself skipped: not
passed (a GPU test that passes without a GPU checked nothing) and not failed.

    python3 scripts/check_skips.py BUILD_DIR
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

GPU_LABELS = r"^lab[0-9]+\.(correctness|timing|reference)$"


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
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
