"""Whether a GoogleTest report came from the harness, not from the student's code.

The test program runs student code in-process, so the report file it writes is
student-writable. Each run therefore gets a fresh folder, and the program gets
a random nonce and the path of an end marker (LAB_RUN_NONCE, LAB_RUN_MARKER).
labs/common/src/test_main.cpp takes both out of its environment before any test
runs and, once RUN_ALL_TESTS has returned, writes `<nonce> <result>` to the
marker and exits with that result. A report counts only with such a marker
whose result is the process's exit status.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

NONCE_ENV = "LAB_RUN_NONCE"
MARKER_ENV = "LAB_RUN_MARKER"
REPORT_NAME = "gtest.xml"
MARKER_NAME = "end-marker"
_MARKER_MAX_BYTES = 256

NO_MARKER = "no end marker: the process ended before the harness finished"
PREEXISTING = "the report existed before the test ran"
FOREIGN_MARKER = "the end marker does not hold this run's nonce: it was not written by the harness"


@dataclass(frozen=True)
class RunFiles:
    """One run's report and end-marker paths, in a folder made for that run."""

    folder: Path
    nonce: str

    @classmethod
    def fresh(cls, folder: Path) -> RunFiles:
        return cls(folder, secrets.token_hex(16))

    @property
    def report(self) -> Path:
        return self.folder / REPORT_NAME

    @property
    def marker(self) -> Path:
        return self.folder / MARKER_NAME

    def env(self) -> dict[str, str]:
        """What the test program is handed."""
        return {NONCE_ENV: self.nonce, MARKER_ENV: str(self.marker)}

    def leftovers(self) -> bool:
        """True when a report or marker is already there before the run."""
        return self.report.exists() or self.marker.exists()

    def provenance(self, preexisting: bool) -> Provenance:
        """What the folder says after the run."""
        return Provenance(self.nonce, read_marker(self.marker), preexisting)


def read_marker(path: Path) -> str | None:
    """The marker's text, or None when there is none (or it is not a small file)."""
    try:
        if not path.is_file() or path.stat().st_size > _MARKER_MAX_BYTES:
            return None if not path.exists() else ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass(frozen=True)
class Provenance:
    """The nonce handed over, the marker found, and whether a report was there first."""

    nonce: str
    marker: str | None
    preexisting: bool = False

    def problem(self, returncode: int) -> str | None:
        """Why the report cannot be trusted, or None when the harness vouches for it."""
        if self.preexisting:
            return PREEXISTING
        if self.marker is None:
            return NO_MARKER
        parts = self.marker.split()
        if len(parts) != 2 or not secrets.compare_digest(parts[0].encode(), self.nonce.encode()):
            return FOREIGN_MARKER
        try:
            result = int(parts[1])
        except ValueError:
            return FOREIGN_MARKER
        if result != returncode:
            return f"exit status {returncode} differs from the harness's result {result}"
        return None
