"""The calibration grading: the figures the performance credit is measured against.

`grade --calibration RESULTS` takes a grading of `submissions/typical` on the same
GPU model (its results.json): each passed timing test's figure is the yardstick of
its lab's credit curve (credit.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError
from grader.core.reports import lab_test_name

RESULTS_FILE = "results.json"


@dataclass(frozen=True)
class Calibration:
    """The figure of each timing test (by name) that the calibration grading on `gpu`
    passed: the yardstick of the curve."""

    gpu: str
    figures: Mapping[str, float]
    source: Path

    @classmethod
    def read(cls, path: Path) -> Calibration:
        """From a report folder or its results.json; a usage error when unreadable."""
        file = path / RESULTS_FILE if path.is_dir() else path
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
            gpu = str(doc["extra_data"]["gpu"]["name"])
            rows = doc["tests"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GraderUsageError(
                f"--calibration {path}: not the results.json of a grading ({exc})"
            ) from None
        figures: dict[str, float] = {}
        passed = 0
        for row in rows:
            name = lab_test_name(row)
            if row.get("status") != "passed" or name is None:
                continue
            passed += 1
            value = ((row.get("extra_data") or {}).get("figure") or {}).get("value")
            if isinstance(value, (int, float)) and value > 0:
                figures[name] = float(value)
        if not passed:
            raise GraderUsageError(f"--calibration {path}: no passed test")
        return cls(gpu, figures, file)

    def check_gpu(self, gpu: str | None) -> None:
        """Figures from another GPU model are no yardstick here."""
        if gpu is not None and gpu != self.gpu:
            raise GraderUsageError(
                f"--calibration {self.source} was measured on {self.gpu}, this GPU is {gpu}: "
                "grade the calibration submission here first"
            )
