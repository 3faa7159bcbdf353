"""What `batch` asks of `grade --build` for one student, in a JSON file (`--request`).

The command line says what any user could ask (the build, the labs, the secret,
the sanitizer stage, ...). The request adds what only a batch knows: why a lab did
not build, the class's shared datasets, and whether
hidden-data results are released, decided once at the batch's start so that a batch
running past the deadline treats every student alike.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError
from grader.core.release import Release


@dataclass(frozen=True)
class WorkerRequest:
    released: bool
    release_at: str | None = None  # ISO time of the release, when one is known
    build_stage: str | None = None  # the step of the student's build that failed
    build_log: str | None = None  # the path of its log
    data_root: str | None = None  # the class's datasets, written once

    @classmethod
    def of(cls, release: Release, **fields: str | None) -> WorkerRequest:
        at = release.at.isoformat() if release.at is not None else None
        return cls(release.released, at, **fields)

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

    def release(self) -> Release:
        at = dt.datetime.fromisoformat(self.release_at) if self.release_at else None
        state = "released" if self.released else "held"
        return Release(self.released, f"{state} by the batch", at)
