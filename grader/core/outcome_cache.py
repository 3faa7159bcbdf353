"""Verdicts shared between identical submissions of one batch.

A class holds copies: skeletons handed back untouched, a lab not started, a
tree copied whole. Their untimed tests would give the verdicts the first copy's
gave (same sources, same harness, same hidden data, same GPU), yet cost the most
to grade: every failing case runs again alone, in a process of its own. So a
batch worker records each untimed verdict under the digest of the submission's
files and the test's name, and a worker grading the same digest takes it instead
of running the test.

The digest covers every file of the submission folder but version control's
own (`.git`), so anything a build could read is in it. Timed tests, setups and
sanitizer runs are never shared: a figure is measured for each student. The
folder is the batch's own, made for one run and removed after it (commands/batch.py),
so a verdict never outlives its secret, its GPU or its harness.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from grader.core.model import LabTest, Outcome, Status
from grader.core.process_groups import untimed_check

_SHARED = (Status.PASSED, Status.FAILED)  # an ERROR is the grader's, not the code's


def tree_digest(folder: Path) -> str:
    """SHA-256 over the relative paths and contents of every file under `folder`
    (symbolic links by their target), `.git` left out."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if ".git" in relative.parts or path.is_dir() and not path.is_symlink():
            continue
        digest.update(relative.as_posix().encode() + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        else:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        digest.update(b"\0")
    return digest.hexdigest()


def grading_order(digests: Sequence[str | None]) -> list[int]:
    """Indices of the submissions in the order to grade them: the first of each set
    of copies, those with the most copies first, then every later copy, so that a
    copy is graded after its original has finished and takes its verdicts instead
    of racing it. None (not gradable) counts as no copy."""
    copies = Counter(d for d in digests if d is not None)
    seen: set[str] = set()
    first: list[int] = []
    later: list[int] = []
    for index, digest in enumerate(digests):
        if digest is not None and digest in seen:
            later.append(index)
        else:
            first.append(index)
            if digest is not None:
                seen.add(digest)
    first.sort(key=lambda i: -copies[d] if (d := digests[i]) is not None else -1)
    return first + later


class OutcomeCache:
    """The verdicts recorded in `folder` for submissions of digest `digest`."""

    def __init__(self, folder: Path, digest: str) -> None:
        self.folder = folder
        self.digest = digest

    def _file(self, test: LabTest) -> Path:
        key = hashlib.sha256(f"{self.digest}\0{test.name}".encode()).hexdigest()
        return self.folder / f"{key}.json"

    def get(self, test: LabTest) -> Outcome | None:
        """The verdict an identical submission got for `test`, if one was recorded."""
        if not untimed_check(test):
            return None
        try:
            doc = json.loads(self._file(test).read_text(encoding="utf-8"))
            return Outcome(
                Status(doc["status"]),
                reason=str(doc["reason"]),
                output=str(doc["output"]),
                duration_s=float(doc["duration_s"]),
                returncode=doc["returncode"],
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # not recorded (or half written by a crashed worker): run it

    def put(self, test: LabTest, outcome: Outcome) -> None:
        """Record the final verdict on `test` (one written whole, never in part)."""
        if not untimed_check(test) or outcome.status not in _SHARED:
            return
        doc = {
            "status": outcome.status.value,
            "reason": outcome.reason,
            "output": outcome.output,
            "duration_s": outcome.duration_s,
            "returncode": outcome.returncode,
        }
        handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(doc, out)
        os.replace(temporary, self._file(test))
