"""The sandbox around every process that runs student code: bubblewrap (`bwrap`).

Inside it the process has no network, its own pid/ipc/uts namespaces, a
read-only view of the system folders plus what its test needs (the program's
folder, the lab's dataset folder), one writable scratch folder (which also
serves as /tmp), the GPU's device nodes, resource limits, and uid/gid 65534.
When the grader runs as root it drops to 65534 before starting bwrap, so the
process is nobody outside its namespace too: it cannot read root's files, and
the kernel counts its processes against a user the limit applies to (root is
exempt from RLIMIT_NPROC). Where unprivileged user namespaces are refused
(Ubuntu 24.04's AppArmor default), a root grader runs bwrap as root without a
user namespace instead, and setpriv makes the command nobody inside; the
process limit then counts every sandboxed process of the machine together.

The student's files are compiled in it too (`build_command`): the configure and
build steps see the system folders but /opt and most of /etc, the repository's
build inputs and the student's folder read-only, and only their build tree writable.

Whether the sandbox works is decided once per grading run (`decide`), by
starting one; `--sandbox require` refuses to grade without it, `auto` grades
unsandboxed and says so, `off` does not try.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.captured import run_captured
from grader.core.errors import GraderUsageError

MODES = ("require", "auto", "off")
MODE_ENV = "LAB_SANDBOX"
BWRAP_ENV = "LAB_BWRAP"
HIDE_ENV = "LAB_SANDBOX_HIDE"  # os.pathsep-separated folders never shown (batch sets it)
NOBODY = 65534
# Per sandbox (the kernel counts processes per user namespace since 5.14), threads
# included: a CUDA test program uses about a dozen, compute-sanitizer a few more.
PROCESS_LIMIT = 256
SHARED_PROCESS_LIMIT = 1024  # setpriv: one count for all sandboxes of the machine
OPEN_FILES_LIMIT = 4096
FILE_SIZE_LIMIT = 1 << 30
SHM_BYTES = 256 << 20  # /dev/shm is memory: bounded, unlike a tmpfs's default half of RAM
HIDE_BYTES = 1 << 20  # a tmpfs hiding a folder holds only the mount points bound into it
# Folders shown read-only; everything else (/home, /root, /tmp, /var, /run, /srv,
# /mnt, the repository and build trees) is absent unless a test needs it.
SYSTEM_DIRS = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/sys",
)
DRIVER_PATHS = ("/run/nvidia-persistenced",)
# A compile reads a file by naming it (#include "/path"), and its errors print it: it
# sees no /opt (a runner may be installed there) and of /etc only what the tools read
# (the dynamic linker's cache, the alternatives behind /usr/bin/c++).
BUILD_HIDDEN = ("/opt", "/etc")
BUILD_ETC = ("/etc/alternatives", "/etc/ld.so.cache")
BUILD_DATASETS = "datasets"  # LAB_DATA_ROOT in a build tree: hidden data a grading left
# Address space per process: the largest compile (lab6's Thrust file) passes with 1 GiB.
BUILD_MEMORY_BYTES = 4 << 30
SCRATCH_TMP = "tmp"
STARTED_NAME = ".sandbox-started"
_KEEP_ENV = {"PATH", "LD_LIBRARY_PATH", "LANG", "LANGUAGE", "TZ", "TERM"}
_KEEP_ENV |= {"CC", "CXX", "CUDACXX", "CUDAHOSTCXX", "CUDAARCHS"}  # the build's compilers
_KEEP_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "LAB_", "GTEST_", "CMAKE_")
_DROP_ENV = {"LAB_SECRET_SEED", HIDE_ENV}
_PROBE_TIMEOUT_S = 30.0
_SIGNAL_BASE = 128  # bwrap exits 128 + N when its child died of signal N
_MAX_SIGNAL = 64
NEEDS = (
    "what a self-hosted runner needs: bubblewrap (Debian/Ubuntu package `bubblewrap`, "
    f"or ${BWRAP_ENV}=/path/to/bwrap) and prlimit (util-linux), then either unprivileged "
    "user namespaces (kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 "
    "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap) "
    "or a grader running as root (with setpriv, util-linux)"
)


@dataclass(frozen=True)
class Sandbox:
    """How to start a command inside bubblewrap; one per grading run."""

    bwrap: str
    prlimit: str
    shell: str = "/bin/sh"
    uid: int | None = None  # the grader is root: the sandbox's user, outside too
    setpriv: str | None = None  # root without user namespaces: bwrap as root, setpriv inside
    devices: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()

    def prepare(self, scratch: Path) -> None:
        """Make the scratch folder (and its tmp/) writable by the sandbox's user."""
        tmp = scratch / SCRATCH_TMP
        tmp.mkdir(exist_ok=True)
        if self.uid is not None:
            for path in (scratch, tmp):
                os.chown(path, self.uid, self.uid)

    def command(
        self,
        argv: Sequence[str],
        *,
        scratch: Path,
        cwd: str | None,
        read_only: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
        writable: Iterable[str] = (),
        memory_bytes: int | None = None,
    ) -> list[str]:
        """`argv` wrapped: bwrap's options, then the limits, then the command.
        `writable` folders are bound read-write (a build tree); `memory_bytes` bounds
        each process's address space (not a test's: CUDA reserves huge ranges)."""
        needs = [
            p
            for p in _existing(list(read_only) + _library_dirs(env or {}))
            if not _shown_by_system(p, self.hidden)
        ]
        rw = _existing(writable)
        options = [
            *_namespaces(user=self.setpriv is None),
            *_system_binds(),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(SHM_BYTES),
            "--tmpfs",
            "/dev/shm",
        ]
        for device in self.devices:
            options += ["--dev-bind", device, device]
        for path in DRIVER_PATHS:
            options += ["--ro-bind-try", path, path]
        # /tmp first: the folders bound after it often lie under /tmp themselves.
        options += ["--bind", str(scratch / SCRATCH_TMP), "/tmp"]
        # Only what would show is covered: a cover over a folder that does not (the
        # host's /tmp, whose place the scratch's takes) would hide the scratch's /tmp.
        shown = [h for h in self.hidden if _visible(h, [*needs, *rw])]
        early, late = _split_hidden(shown, [*needs, *rw])
        options += _tmpfs(early)
        options += _parents(needs, self.hidden)
        for path in needs:
            options += ["--ro-bind", path, path]
        for path in rw:
            options += [*_parents([path], self.hidden), "--bind", path, path]
        options += _tmpfs(late)
        options += [*_parents([str(scratch)], self.hidden), "--bind", str(scratch), str(scratch)]
        inside = cwd if cwd else str(scratch)
        if cwd and not _visible(cwd, [*needs, str(scratch)]):
            # An empty, read-only stand-in: the tests use absolute paths.
            options += [*_parents([cwd], self.hidden), "--perms", "0755", "--dir", cwd]
        # Read-only last: writes go to the scratch folder or the small /dev/shm only
        # (device nodes stay usable on a read-only /dev).
        options += ["--chdir", inside, "--remount-ro", "/dev", "--remount-ro", "/"]
        limits = [
            self.prlimit,
            f"--nproc={self.process_limit}",
            f"--nofile={OPEN_FILES_LIMIT}",
            f"--fsize={FILE_SIZE_LIMIT}",
            "--core=0",
            *([f"--as={memory_bytes}"] if memory_bytes else []),
            "--",
        ]
        if self.setpriv:
            limits = [
                self.setpriv,
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
                *limits,
            ]
        # The shell leaves a file once the sandbox is up, so a bwrap that could not
        # set it up is told apart from a test that failed.
        started = [self.shell, "-c", ': > "$0" && exec "$@"', str(scratch / STARTED_NAME)]
        return [self.bwrap, *options, "--", *started, *limits, *argv]

    def build_command(
        self,
        argv: Sequence[str],
        *,
        scratch: Path,
        build: Path,
        read_only: Iterable[str],
        env: Mapping[str, str],
    ) -> list[str]:
        """A configure or build step wrapped (build.py): what `read_only` names
        (the repository's build inputs, the student's folder, the tools), the system
        folders but BUILD_HIDDEN (BUILD_ETC shows again), `build` writable but its
        datasets, each process's memory bounded. The GPU stays: configure asks
        nvidia-smi which architecture to build for (cmake/CudaArchitectures.cmake)."""
        hidden = (*self.hidden, *BUILD_HIDDEN, str(build / BUILD_DATASETS))
        view = dataclasses.replace(self, hidden=hidden)
        return view.command(
            argv,
            scratch=scratch,
            cwd=str(build),
            read_only=[*read_only, *BUILD_ETC],
            env=env,
            writable=[str(build)],
            memory_bytes=BUILD_MEMORY_BYTES,
        )

    def captured(
        self, argv: Sequence[str], *, read_only: Iterable[str], timeout_s: float, cwd: str | None
    ) -> tuple[subprocess.CompletedProcess[str], bool]:
        """Run a helper command in the sandbox for what it prints (the test list, the
        GPU probe): its result, and whether the sandbox came up at all."""
        with tempfile.TemporaryDirectory(prefix="grader-sandboxed-") as tmp:
            scratch = Path(tmp)
            self.prepare(scratch)
            wrapped = self.command(
                argv, scratch=scratch, cwd=cwd, read_only=read_only, env=os.environ
            )
            proc = run_captured(
                wrapped,
                timeout_s,
                stdin=subprocess.DEVNULL,
                env=self.environment(os.environ, scratch),
                cwd=scratch,
                **self.process_user(),
            )
            return proc, self.started(scratch)

    @contextmanager
    def lent(self, folder: Path) -> Iterator[None]:
        """`folder` (a build tree) owned by the sandbox's user while a sandboxed step
        writes it, when the grader is root; then root's again, so that no process of
        that user outside a sandbox can change what the grader reads and runs next."""
        if self.uid is None:
            yield
            return
        _own(folder, self.uid, self.uid)
        try:
            yield
        finally:
            _own(folder, os.getuid(), os.getgid())

    def environment(self, env: Mapping[str, str], scratch: Path) -> dict[str, str]:
        """The variables a test may see: no tokens or credentials of the grader's."""
        kept = {
            k: v
            for k, v in env.items()
            if k not in _DROP_ENV and (k in _KEEP_ENV or k.startswith(_KEEP_PREFIXES))
        }
        kept.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        return {**kept, "HOME": str(scratch), "TMPDIR": "/tmp"}

    @property
    def process_limit(self) -> int:
        return SHARED_PROCESS_LIMIT if self.setpriv else PROCESS_LIMIT

    def process_user(self) -> dict[str, Any]:
        """Popen's arguments that start bwrap as the sandbox's user."""
        if self.uid is None or self.setpriv:
            return {}
        return {"user": self.uid, "group": self.uid, "extra_groups": []}

    def started(self, scratch: Path) -> bool:
        """True once the sandbox was set up and the command was about to start."""
        return (scratch / STARTED_NAME).exists()


def exit_status(returncode: int) -> int:
    """bwrap's exit status as the grader reads a process's: 128 + N is signal N (-N).

    A program that exits with 139 itself is taken for SIGSEGV: either way it failed.
    """
    if _SIGNAL_BASE < returncode <= _SIGNAL_BASE + _MAX_SIGNAL:
        return _SIGNAL_BASE - returncode
    return returncode


def start_failure(output: str) -> str:
    """Why bwrap could not start the sandbox, from its own `bwrap: ...` line."""
    lines = [line for line in output.splitlines() if line.startswith("bwrap:")]
    return f"the sandbox did not start: {lines[0] if lines else output.strip()[:300]}"


@dataclass(frozen=True)
class Decision:
    """The sandbox this grading run uses, or why it runs without one."""

    mode: str
    sandbox: Sandbox | None
    reason: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def headline(self) -> str:
        """The reports' first line when unsandboxed, else ''."""
        if self.sandbox is not None:
            return ""
        return f"UNSANDBOXED: student code ran without the sandbox ({self.reason})"

    @property
    def note(self) -> str:
        """One line for the reports' notes."""
        if self.sandbox is None:
            return self.headline + "."
        user = "uid 65534"
        if self.sandbox.setpriv:
            user += " (set by setpriv inside a sandbox bwrap made as root)"
        elif self.sandbox.uid is not None:
            user += " (dropped from root)"
        return (
            "Student code ran in the sandbox (bubblewrap): no network, read-only files but "
            f"its scratch folder, only its program and dataset folders visible, {user}, "
            f"at most {self.sandbox.process_limit} processes"
            + (" for all sandboxes together." if self.sandbox.setpriv else ".")
        )


def warn(decision: Decision) -> None:
    """Say on stderr that student code is about to run unsandboxed."""
    if decision.sandbox is None:
        print(f"grader: warning: {decision.headline}", file=sys.stderr, flush=True)


def decide(
    mode: str | None = None,
    *,
    hidden: Iterable[Path | str] = (),
    probe_paths: Iterable[Path | str] = (),
) -> Decision:
    """Try the sandbox once; `require` turns a failure into a usage error.

    `mode` None reads $LAB_SANDBOX (default auto). `probe_paths` are bound in the
    trial run, so a build tree the sandbox's user cannot reach is found here.
    """
    mode = mode or os.environ.get(MODE_ENV) or "auto"
    if mode not in MODES:
        raise GraderUsageError(f"--sandbox takes {', '.join(MODES)}; got {mode!r}")
    if mode == "off":
        return Decision(mode, None, "turned off with --sandbox off")
    given = [*hidden, *(p for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p)]
    candidates, reason = _candidates(hide_targets(given))
    paths = [str(Path(p).resolve()) for p in probe_paths]
    for sandbox in candidates:
        failed = probe(sandbox, paths)
        if not failed:
            return Decision(mode, sandbox)
        reason = reason or failed  # the first way's reason: the preferred one
    if mode == "require":
        raise GraderUsageError(f"--sandbox require: {reason}; {NEEDS}")
    return Decision(mode, None, reason)


def hide_targets(paths: Iterable[Path | str]) -> tuple[str, ...]:
    """What to cover for each folder or file never to be shown: a file and its folder,
    unless that folder holds the system (a secret in / or /etc hides only itself)."""
    targets: list[str] = []
    for given in paths:
        path = str(Path(given).resolve())
        if os.path.isfile(path):
            targets.append(path)
            path = os.path.dirname(path)
        if not any(_under(system, path) for system in (*SYSTEM_DIRS, "/dev", "/proc")):
            targets.append(path)
    return tuple(dict.fromkeys(targets))


def _candidates(hidden: tuple[str, ...]) -> tuple[list[Sandbox], str]:
    """The ways to sandbox worth trying, best first, and why a better one is out."""
    bwrap = os.environ.get(BWRAP_ENV) or shutil.which("bwrap")
    if not bwrap or not os.access(bwrap, os.X_OK):
        where = f"${BWRAP_ENV}={bwrap}" if os.environ.get(BWRAP_ENV) else "bwrap"
        return [], f"bubblewrap not found ({where})"
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return [], "prlimit (util-linux) not found"
    base = Sandbox(bwrap, prlimit, devices=gpu_devices(), hidden=hidden)
    if os.geteuid() != 0:
        return [base], ""
    found, reason = [], ""
    if _others_may_run(bwrap):
        found.append(dataclasses.replace(base, uid=NOBODY))
    else:
        reason = (
            f"{bwrap} is not executable by uid {NOBODY}, which starts it when the "
            "grader is root: put it in a folder every user may enter (e.g. /opt)"
        )
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        found.append(dataclasses.replace(base, uid=NOBODY, setpriv=setpriv))
    return found, reason


def _others_may_run(program: str) -> bool:
    """Whether a user other than the owner can reach and run `program`."""
    path = Path(program).resolve()
    try:
        return bool(path.stat().st_mode & stat.S_IXOTH) and all(
            folder.stat().st_mode & stat.S_IXOTH for folder in path.parents
        )
    except OSError:
        return False


def gpu_devices() -> tuple[str, ...]:
    """The NVIDIA device nodes (and the MIG capability folder) a CUDA program opens."""
    return tuple(sorted(p for p in glob.glob("/dev/nvidia*") if os.path.exists(p)))


def probe(sandbox: Sandbox, read_only: Sequence[str] = ()) -> str:
    """'' when a trial command runs in the sandbox, else why not."""
    true = shutil.which("true") or "/bin/true"
    try:
        proc, started = sandbox.captured(
            [true], read_only=read_only, timeout_s=_PROBE_TIMEOUT_S, cwd=None
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap could not be started: {exc}"
    if proc.returncode != 0 or not started:
        said = (proc.stderr or proc.stdout).strip().splitlines()
        first = said[0] if said else f"exit status {proc.returncode}"
        return f"bwrap could not start a sandbox: {first}"
    return ""


def _namespaces(*, user: bool) -> list[str]:
    ids = ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)] if user else []
    return [
        *ids,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]


def _system_binds() -> list[str]:
    """Read-only system folders; merged-/usr links stay links."""
    options: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    return options


def _library_dirs(env: Mapping[str, str]) -> list[str]:
    return [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if os.path.isabs(p)]


def _existing(paths: Iterable[str]) -> list[str]:
    """Absolute, existing, without duplicates or paths under another one listed."""
    found = sorted({os.path.abspath(p) for p in paths if os.path.isabs(p) and os.path.exists(p)})
    return [p for p in found if not any(_under(p, q) for q in found if q != p)]


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _shown_by_system(path: str, hidden: Sequence[str]) -> bool:
    """Whether a system folder already shows `path` (a bind into the read-only /usr
    would fail: the CUDA toolkit's compute-sanitizer lives there)."""
    real = os.path.realpath(path)
    return _visible(real, ()) and not any(_under(p, h) for h in hidden for p in (path, real))


def _visible(path: str, needs: Sequence[str]) -> bool:
    """Whether `path` shows through a system folder or a bound need."""
    roots = [p for p in SYSTEM_DIRS if os.path.isdir(p) and not os.path.islink(p)]
    return any(_under(path, root) for root in [*roots, *needs])


def _split_hidden(hidden: Sequence[str], needs: Sequence[str]) -> tuple[list[str], list[str]]:
    """Hidden folders holding a need are covered before the needs are bound back on
    top; the others after, so a need never uncovers them."""
    early = [h for h in hidden if any(_under(n, h) for n in needs)]
    return early, [h for h in hidden if h not in early]


def _parents(paths: Iterable[str], hidden: Sequence[str]) -> list[str]:
    """Enterable folders above the paths bound next: bwrap would make them 0700 as
    root, closed to the sandbox's user (those the system binds show exist already)."""
    folders = {
        str(parent)
        for path in paths
        for parent in Path(path).parents
        if str(parent) not in ("/", "/tmp") and not _shown_by_system(str(parent), hidden)
    }
    options: list[str] = []
    for folder in sorted(folders, key=lambda f: (f.count("/"), f)):
        options += ["--perms", "0755", "--dir", folder]
    return options


def installation(path: str) -> str:
    """A folder itself; a program's installation (the folder above its bin/); a file's folder."""
    if os.path.isdir(path):
        return path
    folder = os.path.dirname(path)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def _own(folder: Path, uid: int, gid: int) -> None:
    """chown -R that never follows a link (the sandbox may have left some)."""
    os.lchown(folder, uid, gid)
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            os.lchown(os.path.join(root, name), uid, gid)


def _tmpfs(paths: Iterable[str]) -> list[str]:
    options: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            options += ["--size", str(HIDE_BYTES), "--tmpfs", path]
        elif os.path.exists(path):
            options += ["--ro-bind", "/dev/null", path]
    return options
