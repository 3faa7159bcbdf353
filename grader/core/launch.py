"""The launcher: what ctest starts for every test the grader runs (ctest_run.py).

`python3 -m grader.core.launch JOB` reads the job file the grader wrote (a folder the
sandbox never shows), runs its command, already wrapped in the sandbox, and writes
how it ended to the job's result file. The process gets a new session, so a hung
kernel and anything it spawned are killed together, under the job's own timeout.
Output goes to a file, not a pipe, so a leftover child holding it open cannot stall
the run. The exit status is the command's, for ctest's own log; the verdict never
comes from it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from grader.core import clocks
from grader.core.gpu_lock import GpuLock
from grader.core.sandbox import exit_status, start_failure

OUTPUT_KEEP_BYTES = 20_000
OUTPUT_LIMIT_BYTES = 64 << 20
_POLL_S = 0.05


@dataclass(frozen=True)
class ProcessResult:
    """How a test process ended, as the launcher saw it (verdict.py judges it)."""

    returncode: int | None
    output: str = ""
    duration_s: float = 0.0
    timeout_s: float = 0.0
    timed_out: bool = False
    output_overflow: bool = False
    not_built: bool = False
    launch_error: str = ""


def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout_s: float,
    keep_bytes: int = OUTPUT_KEEP_BYTES,
    user: Mapping[str, Any] | None = None,
) -> ProcessResult:
    """Run `argv` in a new process group; kill the whole group when it ends or hangs.

    `user`: Popen's user, group and umask arguments (the sandbox's user when the
    grader is root).
    """
    if not argv:
        return ProcessResult(None, not_built=True)
    if cwd is not None and not Path(cwd).is_dir():
        return ProcessResult(None, launch_error=f"working directory {cwd} does not exist")
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **(user or {}),
            )
        except FileNotFoundError as exc:
            if exc.filename in (argv[0], None):
                return ProcessResult(None, not_built=True)
            return ProcessResult(None, launch_error=str(exc))
        except OSError as exc:
            return ProcessResult(None, launch_error=str(exc))
        timed_out = overflow = False
        try:
            timed_out, overflow = _wait(proc, out, start + timeout_s)
        finally:
            _kill_group(proc.pid)
            proc.wait()
        return ProcessResult(
            returncode=proc.returncode,
            output=_head_and_tail(out, keep_bytes),
            duration_s=time.monotonic() - start,
            timeout_s=timeout_s,
            timed_out=timed_out,
            output_overflow=overflow,
        )


def _wait(proc: subprocess.Popen[bytes], out: IO[bytes], deadline: float) -> tuple[bool, bool]:
    """Wait for the process; (timed_out, output_overflow) say why we stopped early."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True, False
        try:
            proc.wait(timeout=min(_POLL_S, remaining))
            return False, False
        except subprocess.TimeoutExpired:
            if os.fstat(out.fileno()).st_size > OUTPUT_LIMIT_BYTES:
                return False, True


def _kill_group(pgid: int) -> None:
    """SIGKILL the test's process group: the test itself and whatever it left behind."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _head_and_tail(out: IO[bytes], keep_bytes: int) -> str:
    """The output, or its first and last keep_bytes / 2 when longer: the start holds
    the first error (compute-sanitizer's first report), the end the verdict."""
    size = out.seek(0, os.SEEK_END)
    out.seek(0)
    if size <= keep_bytes:
        return out.read().decode("utf-8", errors="replace")
    half = keep_bytes // 2
    head = out.read(half).decode("utf-8", errors="replace")
    out.seek(size - half)
    tail = out.read().decode("utf-8", errors="replace")
    return f"{head}\n[... {size - 2 * half} bytes of output cut ...]\n{tail}"


def _clear(scratch: Path, keep: set[str]) -> None:
    """Remove what the process left in its scratch folder but `keep` (its report and
    end marker), while other tests still run: a sanitizer's or a cache's files would
    otherwise be deleted one run folder after another once ctest is done. Entries
    are removed without following a link the process left there."""
    for entry in os.scandir(scratch):
        if entry.name in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def launch(job: Mapping[str, Any]) -> dict[str, Any]:
    """Run one job as ctest_run.py wrote it; what the result file holds."""
    started = job.get("started")  # the sandbox's file once it came up (sandbox.py)
    lock = GpuLock.from_environment()
    held: AbstractContextManager[None] = nullcontext()
    if lock is not None:
        held = lock.exclusive() if job["alone"] else lock.shared()
    asked = time.monotonic()
    with held:
        waited = time.monotonic() - asked if lock is not None else 0.0
        began = time.time()
        before = clocks.read() if job["clocks"] else {}
        result = run_process(
            job["argv"],
            cwd=job["cwd"],
            env=job["env"],
            timeout_s=job["timeout_s"],
            keep_bytes=job["keep_bytes"],
            user=job["user"],
        )
        after = clocks.read() if job["clocks"] else {}
    rc = result.returncode
    if started is not None and rc is not None:
        if not os.path.exists(started) and not result.timed_out:
            result = ProcessResult(
                None,
                result.output,
                result.duration_s,
                result.timeout_s,
                launch_error=start_failure(result.output),
            )
        else:
            result = dataclasses.replace(result, returncode=exit_status(rc))
    _clear(Path(job["scratch"]), keep=set(job["keep"]))
    return {
        "result": asdict(result),
        "clocks": clocks.around(before, after),
        "lock_wait_s": waited,
        "wall": [began, time.time()],  # when it ran, to read ctest's schedule from
    }


def main(argv: Sequence[str]) -> int:
    job_file = Path(argv[0])
    job = json.loads(job_file.read_text(encoding="utf-8"))
    job_file.unlink()  # its nonce, and a setup's secret, no longer than needed
    done = launch(job)
    out = Path(job["result_file"])
    partial = out.with_suffix(".partial")
    partial.write_text(json.dumps(done), encoding="utf-8")
    partial.replace(out)  # whole or absent: a killed launcher leaves no result
    rc = done["result"]["returncode"]
    return rc if isinstance(rc, int) and 0 <= rc < 256 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
