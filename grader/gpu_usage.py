"""How busy each GPU was during a batch: nvidia-smi sampled once a second.

The class table says which GPU graded each student; this log says whether the
GPUs were busy at the same time, which is what spreading a batch over them is for.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Callable, Sequence

LOG_NAME = "gpu-usage.csv"
QUERY = "timestamp,index,utilization.gpu,memory.used"


@dataclass(frozen=True)
class Usage:
    """Per GPU, the samples in which it ran a kernel; and those in which all of them did."""

    samples: int
    busy: dict[str, int]
    all_busy: int

    def line(self) -> str:
        per_gpu = ", ".join(f"GPU {gpu} busy in {n}" for gpu, n in self.busy.items())
        return (f"GPU use (nvidia-smi, one sample a second): {per_gpu} of {self.samples} "
                f"samples; all {len(self.busy)} at once in {self.all_busy}")


def summarize(text: str, gpus: Sequence[str]) -> Usage:
    """Read `timestamp, index, utilization %, memory MiB` lines for the batch's GPUs.

    Each sample is one line per GPU in index order (their timestamps can differ
    by milliseconds), so a GPU seen again starts the next sample.
    """
    samples: list[dict[str, bool]] = [{}]
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 4 or fields[1] not in gpus:
            continue
        try:
            busy = float(fields[2]) > 0
        except ValueError:  # "[N/A]" or a header
            continue
        if fields[1] in samples[-1]:
            samples.append({})
        samples[-1][fields[1]] = busy
    samples = [s for s in samples if len(s) == len(gpus)]
    return Usage(len(samples), {gpu: sum(s[gpu] for s in samples) for gpu in gpus},
                 sum(all(s.values()) for s in samples))


class UsageLog:
    """`with UsageLog(report / LOG_NAME, gpus) as log:` samples while the batch runs;
    `log.usage` is None when nvidia-smi is missing or recorded nothing."""

    def __init__(self, path: Path, gpus: Sequence[str],
                 popen: Callable[..., subprocess.Popen[bytes]] = subprocess.Popen) -> None:
        self.path = path
        self.gpus = list(gpus)
        self.popen = popen
        self.usage: Usage | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> UsageLog:
        smi = shutil.which("nvidia-smi") if self.popen is subprocess.Popen else "nvidia-smi"
        if smi is None:
            return self
        with open(self.path, "wb") as out:
            try:
                self._proc = self.popen([smi, f"--query-gpu={QUERY}",
                                         "--format=csv,noheader,nounits", "--loop=1"],
                                        stdout=out, stderr=subprocess.DEVNULL)
            except OSError:
                self._proc = None
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        usage = summarize(self.path.read_text(encoding="utf-8", errors="replace"), self.gpus)
        self.usage = usage if usage.samples else None
