"""A lab's policy file, `labs/labN_topic/lab.json`: the one place a lab's grading
rules live. CMake reads it too (cmake/LabPolicy.cmake).

    {"lab": "lab3", "title": "Parallel reduction",
     "score": {"correctness": 60, "timing": 40},
     "written": {"points": 20, "why": TEXT},
     "sanitize_filter": "*__n1__*:...",
     "timing_needs": {"tests": REGEX, "why": TEXT},
     "objects": {"imports": [...], "only_in": {...}, "relocatable": [...],
                 "fixed": [FILE, ...], "device": {"forbid": [CLASS, ...], "why": TEXT},
                 "libraries": {FILE: {"use": [...], "imports": {WHY: [...]},
                                      "startup": [...], "functions": [...]}}}}

`score`: the points of each group of tests, by kind, split evenly among the
group's tests (scoring.py). `written`: the points of the REPORT.md answers, marked
by hand (`grader.classroom written`), a gradebook column of their own. `sanitize_filter`: the
small cases run under compute-sanitizer. `timing_needs`: the correctness tests every
timing test needs passed (scoring.py). `objects`: what the object check allows beyond
the contract (object_check.py); its `relocatable`, the student files compiled with
relocatable device code (cmake/LabTesting.cmake).

`objects.libraries`: the student files that may use a library, each alone (lab6's
thrust_pipeline.cu: Thrust). `use`: the libraries' namespaces and include folders
(`thrust`, `cub`), which the source rules and the object check then allow in that
file only: their headers, and their code as the headers' weak instances, never a
strong definition, an undefined reference or a symbol a harness object defines.
`imports`: the names (regular expressions, as `imports`) the library's code needs
beyond the lab's, grouped by why, allowed in that file's object only. `startup`:
the only names that one static initialiser of that file besides nvcc's may refer
to (`<iostream>`'s, which CUB's headers include). CMake compiles the file with
CCCL's NVTX ranges off (cmake/LabTesting.cmake). `functions`: the contract functions
that file may define, the only ones the library serves.

`objects.fixed`: the lab's own files that define contract functions (launchers the
lab fixes), compiled by the lab: no student object may define those functions.
`objects.device.forbid`: device instruction classes refused in the student's SASS
and PTX (object_rules.DEVICE_CLASSES: `tensor-core`), `why` saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.core.errors import GraderUsageError, read_json_object

LAB_FILE = "lab.json"


def lab_file(lab_dir: Path) -> Path:
    return lab_dir / LAB_FILE


def read_lab_file(lab_dir: Path) -> dict[str, Any] | None:
    """The lab's policy, or None when the folder has no lab.json; a usage error
    (naming the file) when it is not a JSON object."""
    path = lab_file(lab_dir)
    return read_json_object(path, LAB_FILE) if path.is_file() else None


def library_files(lab_dir: Path) -> dict[str, dict[str, Any]]:
    """`objects.libraries` of the lab's policy: student file -> its allowance."""
    doc = read_lab_file(lab_dir) or {}
    found = doc.get("objects", {}).get("libraries", {})
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise GraderUsageError(
            f"{lab_file(lab_dir)}: objects.libraries must map each file to its allowance"
        )
    return found


def library_names(lab_dir: Path) -> dict[str, frozenset[str]]:
    """Student file -> the libraries (`use`) it may use, from `objects.libraries`."""
    return {
        f: frozenset(str(u) for u in v.get("use", ())) for f, v in library_files(lab_dir).items()
    }
