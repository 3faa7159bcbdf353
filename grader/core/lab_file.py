"""A lab's policy file, `labs/labN_topic/lab.json`: the one place a lab's grading
rules live. CMake reads it too (cmake/LabPolicy.cmake).

    {"lab": "lab3", "title": "Parallel reduction",
     "score": {"correctness": 60, "timing": 40},
     "sanitize_filter": "*__n1__*:...",
     "objects": {"imports": [...], "only_in": {...}, "relocatable": [...]}}

`score`: the points of each group of tests, by kind, split evenly among the
group's tests (scoring.py). `sanitize_filter`: the small cases run under
compute-sanitizer. `objects`: what the object check allows beyond the contract
(object_check.py); its `relocatable`, the student files compiled with relocatable
device code (cmake/LabTesting.cmake).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.core.errors import read_json_object

LAB_FILE = "lab.json"


def lab_file(lab_dir: Path) -> Path:
    return lab_dir / LAB_FILE


def read_lab_file(lab_dir: Path) -> dict[str, Any] | None:
    """The lab's policy, or None when the folder has no lab.json; a usage error
    (naming the file) when it is not a JSON object."""
    path = lab_file(lab_dir)
    return read_json_object(path, LAB_FILE) if path.is_file() else None
