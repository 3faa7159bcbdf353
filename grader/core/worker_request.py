"""What `batch` asks of `grade --build` for one student, in a JSON file (`--request`).

The command line says what any user could ask (the build, the labs, the secret,
the sanitizer stage, ...). The request adds what only a batch knows: why a lab did
not build, and the class's shared datasets.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError


@dataclass(frozen=True)
class WorkerRequest:
    build_stage: str | None = None  # the step of the student's build that failed
    build_log: str | None = None  # the path of its log
    data_root: str | None = None  # the class's datasets, written once

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def read(cls, path: Path) -> WorkerRequest:
        try:
            return cls(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            raise GraderUsageError(f"--request {path}: not a batch's request ({exc})") from exc
