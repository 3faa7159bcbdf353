"""What GPU (if any) the grading ran on, from the build's `lab_gpu_info` probe.

The answer decides how exit status 77 is read: a genuine skip without a GPU,
a failure with one. A missing or broken probe is "no GPU known", said aloud.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.captured import run_captured
from grader.core.sandbox import Sandbox, start_failure

PROBE_RELPATH = Path("bin") / "lab_gpu_info"
SKIP_MARKER = "cuda-labs: skipped:"
SKIP_EXIT_CODE = 77
_PROBE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class GpuInfo:
    """The probe's answer: `present`, `absent` (probe said so) or `unknown`."""

    state: str
    details: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""

    @property
    def present(self) -> bool:
        """Only a probe that printed a device counts; unknown is treated as none."""
        return self.state == "present"

    def describe(self) -> str:
        """One line for logs and summaries."""
        if not self.present:
            label = "no GPU" if self.state == "absent" else "no GPU known"
            return f"{label}: {self.reason}" if self.reason else label
        d = self.details
        parts = [str(d.get("name", "unnamed GPU"))]
        if "compute_capability" in d:
            parts.append(f"compute capability {d['compute_capability']}")
        if "sm_count" in d:
            parts.append(f"{d['sm_count']} SMs")
        if "memory_gb" in d:
            parts.append(f"{float(d['memory_gb']):.1f} GB")
        for key, label in (("sm_clock_mhz", "SM clock"), ("mem_clock_mhz", "memory clock")):
            if key in d:
                parts.append(f"{label} {d[key]} MHz")
        for key, label in (("driver_version", "driver"), ("runtime_version", "runtime")):
            if key in d:
                parts.append(f"{label} {d[key]}")
        return ", ".join(parts)

    def as_json(self) -> dict[str, Any]:
        """The record stored in results.json."""
        return {
            "state": self.state,
            "description": self.describe(),
            "reason": self.reason,
            **dict(self.details),
        }


def skip_reason(output: str) -> str:
    """The text after the last `cuda-labs: skipped:` marker, or an empty string."""
    found = ""
    for line in output.splitlines():
        index = line.find(SKIP_MARKER)
        if index >= 0:
            found = line[index + len(SKIP_MARKER) :].strip()
    return found


def probe(build: Path, sandbox: Sandbox | None = None) -> GpuInfo:
    """Run the probe of `build` (in `sandbox` unless None: the tree it was built in ran
    student code); never raises, so grading goes on without it."""
    program = (build / PROBE_RELPATH).absolute()
    if not program.is_file():
        return GpuInfo("unknown", reason=f"GPU probe {program} not found (was the build complete?)")
    try:
        if sandbox is None:
            proc = run_captured([str(program)], _PROBE_TIMEOUT_S)
        else:
            proc, started = sandbox.captured(
                [str(program)],
                read_only=[str(program.parent)],
                timeout_s=_PROBE_TIMEOUT_S,
                cwd=None,
            )
            if not started:
                return GpuInfo("unknown", reason=start_failure(proc.stderr + proc.stdout))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return GpuInfo("unknown", reason=f"GPU probe {program} could not run: {exc}")
    return parse_probe(proc.returncode, proc.stdout + proc.stderr)


def parse_probe(returncode: int, output: str) -> GpuInfo:
    """Read the probe's exit status and output (separate so tests need no program)."""
    if returncode == SKIP_EXIT_CODE:
        return GpuInfo("absent", reason=skip_reason(output) or "the GPU probe found no CUDA device")
    if returncode != 0:
        tail = output.strip().splitlines()[-1:] or ["no output"]
        return GpuInfo(
            "unknown", reason=f"GPU probe failed with exit status {returncode}: {tail[0]}"
        )
    candidates = [output.strip()] + [line.strip() for line in output.splitlines()]
    for text in candidates:
        if not text.startswith("{"):
            continue
        try:
            details = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(details, dict):
            return GpuInfo("present", details=details)
    return GpuInfo("unknown", reason="GPU probe printed no JSON object")
