"""Configuring and building a lab tree for `grade --impl`, and explaining failures.

A student's compile error must come back as a failed lab with the compiler's
first error lines, not as a traceback, so this module never raises on a failed
build: it returns what went wrong.

Both steps run in the sandbox (sandbox.py, `build_command`) under the grading run's
decision: the compiler reads and prints whatever file a student's source names, so it
sees only the build's inputs (`build_view`), and writes only the build tree. Linking
runs student code too (gtest_discover_tests runs each test program), so a lab is
linked only once its objects passed the object check (`build_checked`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.discovery import lab_dirs
from grader.core.errors import GraderUsageError
from grader.core.lab_file import library_files
from grader.core.sandbox import Decision, Sandbox, decide, installation, start_failure, warn

IMPL_WORDS = ("skeletons", "solutions")
# What a build reads of the repository: its CMake code, the labs' contract headers and
# harness, the dataset manifests (configure turns them into headers), the virtual
# environment's Python (cmake/LabTesting.cmake). Not solutions/ or submissions/
# (unless built), reports, other builds.
REPO_PARTS = ("CMakeLists.txt", "cmake", "labs", "datasets", ".venv")
_BUILD_TIMEOUT_S = 3600
_LOG_LIMIT = 16 << 20  # characters of one step's output; past them the step is stopped
_LINE_LIMIT = 1 << 16
_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\]")
_ERROR_LINES = 8
# In each build folder the grader configures: it may configure that folder again (its
# LAB_IMPL, LAB_ONLY, build type), never one it did not make (a student's own build).
GRADER_TREE_MARK = ".grader-build"
_ERROR = re.compile(r"\berror\b|CMake Error|undefined reference", re.IGNORECASE)
# Lines that mention "error" but teach nothing: compiler command lines, build tool chatter.
_NOISE = re.compile(
    r"^(FAILED:|ninja:|\[\d+/\d+\]|make(\[\d+\])?:|gmake)"
    r"|\s-o\s.*\s-c\s|\s-c\s.*\s-o\s"
)


@dataclass(frozen=True)
class BuildFailure:
    """A failed configure or build step and its full log."""

    stage: str
    log: str

    def errors_for(self, lab: str | None = None) -> str:
        """The first error lines, those naming `lab`'s folders first."""
        lines = self.log.splitlines()
        hits = [
            i for i, line in enumerate(lines) if _ERROR.search(line) and not _NOISE.search(line)
        ]
        if lab is not None:
            own = re.compile(rf"\b{re.escape(lab)}_")
            hits = [i for i in hits if own.search(lines[i])] or hits
        if not hits:
            tail = [line for line in lines if line.strip()][-_ERROR_LINES:]
            return "\n".join(tail) or f"the {self.stage} step failed without output"
        picked = [line for line in lines[hits[0] :] if not _NOISE.search(line)][:_ERROR_LINES]
        return "\n".join(line[:300] for line in picked)


def impl_argument(impl: str) -> str:
    """`skeletons`/`solutions` pass through as words; a folder becomes absolute."""
    if impl in IMPL_WORDS:
        return impl
    path = Path(impl).expanduser().resolve()
    if not path.is_dir():
        raise GraderUsageError(
            f"--impl {impl}: no such folder (use skeletons, solutions, or a "
            "folder laid out like skeletons/)"
        )
    return str(path)


def build_view(repo: Path, impl: str, cmake_args: Sequence[str] = ()) -> list[str]:
    """What a build is shown read-only: the repository's REPO_PARTS, the folder it
    builds, where the tools are installed (cmake, ninja, the compilers, Python:
    the PATH's, the environment's CXX..., the virtual environment's), and every
    path a configure argument names (-DLAB_PREBUILT=, -DLAB_GTEST_SOURCE_DIR=,
    -DCMAKE_CXX_COMPILER=). The system folders show the rest (sandbox.py)."""
    folder = repo / impl if impl in IMPL_WORDS else Path(impl_argument(impl))
    tools = [shutil.which(t) for t in ("cmake", "ninja", "nvcc", "cc", "c++", "python3")]
    tools += [os.environ.get(v) for v in ("CC", "CXX", "CUDACXX", "CUDAHOSTCXX")]
    tools += [str(repo / ".venv" / "bin" / "python3")]
    named = [m.group(1) for a in cmake_args if (m := re.match(r"-D[^=]+=(/.*)", a))]
    places = [
        installation(path)
        for given in (*tools, *named)
        if given and os.path.exists(given)
        for path in (os.path.abspath(given), os.path.realpath(given))  # a link and its target
    ]
    return [*(str(repo / part) for part in REPO_PARTS), str(folder), *places]


def decide_build(
    mode: str | None,
    repo: Path,
    impl: str,
    build_dir: Path,
    cmake_args: Sequence[str] = (),
    hidden: Sequence[Path | str] = (),
) -> Decision:
    """sandbox.decide for building `impl`, tried with all the build is shown (a
    root grader's uid 65534 may not reach a Python in /root: then setpriv's way)."""
    view = build_view(repo, impl, cmake_args)
    return decide(mode, hidden=hidden, probe_paths=[*view, build_dir])


def _run_step(
    argv: Sequence[str],
    progress: Callable[[str], None] | None,
    sandbox: Sandbox | None,
    build_dir: Path,
    view: Sequence[str],
) -> tuple[int, str]:
    """Run one build step, in `sandbox` unless None (`view` read-only, `build_dir`
    writable); Ninja's `[n/N]` lines go to `progress` as they come."""
    if sandbox is None:
        return _stream(argv, progress, {})
    with tempfile.TemporaryDirectory(prefix="grader-build-") as tmp:
        scratch = Path(tmp)
        sandbox.prepare(scratch)
        wrapped = sandbox.build_command(
            argv, scratch=scratch, build=build_dir, read_only=view, env=os.environ
        )
        env = sandbox.environment(os.environ, scratch)
        # umask: what the build writes is run and read by the sandbox's user later.
        returncode, output = _stream(
            wrapped, progress, {"env": env, "umask": 0o022, **sandbox.process_user()}
        )
        if not sandbox.started(scratch):
            return returncode or 1, f"{output}\n{start_failure(output)}"
    return returncode, output


def _stream(
    argv: Sequence[str], progress: Callable[[str], None] | None, options: dict[str, Any]
) -> tuple[int, str]:
    """`argv`'s output as it comes; killed, with all it started, past _BUILD_TIMEOUT_S
    or _LOG_LIMIT (a compile error can print without end) or when the grader is stopped."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        **options,
    )
    out = proc.stdout
    assert out is not None
    timer = threading.Timer(_BUILD_TIMEOUT_S, _kill_group, [proc.pid])
    timer.start()
    lines, size, why = [], 0, f"killed after {_BUILD_TIMEOUT_S} s"
    try:
        for line in iter(lambda: out.readline(_LINE_LIMIT), ""):
            size += len(line)
            if size > _LOG_LIMIT:
                why = f"stopped: it printed more than {_LOG_LIMIT >> 20} MiB"
                _kill_group(proc.pid)
                break
            lines.append(line)
            if progress is not None and _PROGRESS.match(line):
                progress(line.rstrip())
        proc.wait()
    except BaseException:  # Ctrl-C: the step's compilers, in a session of their own, too
        _kill_group(proc.pid)
        proc.wait()
        raise
    finally:
        timer.cancel()
        out.close()
    if proc.returncode < 0:
        lines.append(f"\n{why}\n")
    return proc.returncode, "".join(lines)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def print_progress(line: str) -> None:
    """Every tenth of the build (and its end), one line: `grader: build 12/40 ...`."""
    match = _PROGRESS.match(line)
    if match:
        done, total = int(match.group(1)), int(match.group(2))
        if done == total or done % max(1, total // 10) == 0:
            print(f"grader: build {done}/{total}", flush=True)


def configure_and_build(
    repo: Path,
    impl: str,
    build_dir: Path,
    cmake_args: Sequence[str] = (),
    targets: Sequence[str] | Callable[[Path], Sequence[str]] = (),
    progress: Callable[[str], None] | None = None,
    sandbox: Decision | str | None = None,
    configure: bool = True,
) -> tuple[str, BuildFailure | None]:
    """Configure with Ninja in Release (unless `configure` is False) and build
    everything that compiles, or only `targets` (a function of the configured build
    folder: those it names; none builds nothing).

    `cmake_args` are extra configure arguments, e.g. `-DLAB_GTEST_SOURCE_DIR=...`.
    `sandbox`: the grading run's decision, or require, auto, off (None: $LAB_SANDBOX,
    else auto), decided here as for tests (sandbox.decide) and warned about.

    `-k 0` keeps Ninja going past a failing lab so the others still get graded.
    Returns the combined log and the failure, if any.
    """
    cmake = shutil.which("cmake")
    if cmake is None:
        raise GraderUsageError("cmake not found on PATH (CMake 3.25 or newer is needed)")
    repo, build_dir = repo.absolute(), build_dir.absolute()  # the same inside the sandbox
    steps = (
        (
            "configure",
            [
                cmake,
                "-S",
                str(repo),
                "-B",
                str(build_dir),
                "-G",
                "Ninja",
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DLAB_IMPL={impl_argument(impl)}",
                *cmake_args,
            ],
        ),
        ("build", [cmake, "--build", str(build_dir)]),
    )[0 if configure else 1 :]
    build_dir.mkdir(parents=True, exist_ok=True)
    if configure:  # before the configure: a tree it left half made is still the grader's
        (build_dir / GRADER_TREE_MARK).write_text(
            "configured by python3 -m grader, which may configure it again\n", encoding="utf-8"
        )
    view = build_view(repo, impl, cmake_args)
    if not isinstance(sandbox, Decision):
        sandbox = decide_build(sandbox, repo, impl, build_dir, cmake_args)
        warn(sandbox)
    log = [sandbox.headline] if sandbox.headline else []
    box = sandbox.sandbox
    with box.lent(build_dir) if box else contextlib.nullcontext():
        for stage, argv in steps:
            if stage == "build":
                chosen = list(targets(build_dir) if callable(targets) else targets)
                if callable(targets) and not chosen:
                    break
                argv = [*argv, *(["--target", *chosen] if chosen else []), "--", "-k", "0"]
            log.append(f"$ {' '.join(argv)}")
            try:
                returncode, output = _run_step(argv, progress, box, build_dir, view)
            except OSError as exc:
                log.append(str(exc))
                return "\n".join(log), BuildFailure(stage, str(exc))
            log.append(output)
            if returncode != 0:
                return "\n".join(log), BuildFailure(stage, output)
    return "\n".join(log), None


def build_checked(
    repo: Path,
    impl: str,
    build_dir: Path,
    labs: Sequence[str],
    cmake_args: Sequence[str],
    check: Callable[[Sequence[str], str], Mapping[str, Sequence[str]]],
    progress: Callable[[str], None] | None = None,
    sandbox: Decision | str | None = None,
) -> tuple[str, BuildFailure | None, dict[str, list[str]]]:
    """Configure, compile the student's objects of `labs` (and their harnesses), run
    `check` on them (labs, the compile's log -> lab -> findings; a file that did not
    compile is a finding with its errors), then link only the labs it passed.

    Linking runs student code: gtest_discover_tests runs each test program to list
    its cases, with the build tree writable. A lab's code runs only once its objects
    passed the check (no code before main, no replaced harness or runtime symbol),
    so what the check read is what the programs hold, and what the grader runs next
    is what was built. Returns the log, the first failure and check's findings."""
    if not isinstance(sandbox, Decision):
        sandbox = decide_build(sandbox, repo, impl, build_dir, cmake_args)
        warn(sandbox)
    parts = ("impl", "impl_rdc", "harness")
    log, failure = configure_and_build(
        repo,
        impl,
        build_dir,
        cmake_args,
        targets=lambda tree: ninja_targets(tree, [f"{lab}_{p}" for lab in labs for p in parts]),
        progress=progress,
        sandbox=sandbox,
    )
    if failure is not None and failure.stage == "configure":
        return log, failure, {}
    rejected = {lab: list(found) for lab, found in check(labs, log).items() if found}
    dirs = lab_dirs(repo)
    linked = [f"labs/{dirs[lab].name}/all" for lab in labs if lab in dirs and lab not in rejected]
    more, failed = configure_and_build(
        repo,
        impl,
        build_dir,
        cmake_args,
        targets=lambda tree: ninja_targets(tree, ["labs/common/all", *linked]),
        progress=progress,
        sandbox=sandbox,
        configure=False,
    )
    return f"{log}\n{more}", failure or failed, rejected


def ninja_targets(build_dir: Path, wanted: Sequence[str]) -> list[str]:
    """Those of `wanted` that the build's build.ninja defines."""
    try:
        text = (build_dir / "build.ninja").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [t for t in wanted if re.search(rf"^build {re.escape(t)}: phony", text, re.M)]


# The host side of an object is the same for every GPU architecture, so the
# object check compiles for one (the grading build's own objects are checked too).
OBJECTS_ARCHITECTURE = "-DCMAKE_CUDA_ARCHITECTURES=86-real"


def build_objects(
    repo: Path,
    impl: str,
    build_dir: Path,
    labs: Sequence[str],
    cmake_args: Sequence[str] = (),
    configure: bool = True,
) -> tuple[str, BuildFailure | None]:
    """Compile only the student's objects (`labN_impl`) of `labs`: no GPU, no tests.
    A lab that lets a student file use a library (lab.json's objects.libraries) also
    gets its harness (`labN_harness`): the object check compares the two's symbols."""
    dirs = lab_dirs(repo)
    harness = [f"{lab}_harness" for lab in labs if lab in dirs and library_files(dirs[lab])]
    return configure_and_build(
        repo,
        impl,
        build_dir,
        [OBJECTS_ARCHITECTURE, f"-DLAB_ONLY={';'.join(labs)}", *cmake_args],
        targets=[*(f"{lab}_impl" for lab in labs), *harness],
        configure=configure,
    )


def prebuilt_argument(fixed_build: Path) -> str:
    """The configure argument that links a student's build against `fixed_build`'s
    harness, references and test programs, compiling only the student's files
    (cmake/LabPrebuilt.cmake)."""
    return f"-DLAB_PREBUILT={fixed_build}"


def configured_impl(build: Path, repo: Path) -> Path | None:
    """The student folder a build was configured with (its cache's LAB_IMPL,
    resolved as cmake/LabImpl.cmake does), or None when it cannot be read."""
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r"^LAB_IMPL:\w+=(.*)$", cache, re.M)
    if match is None:
        return None
    value = match.group(1).strip()
    return repo / value if value in IMPL_WORDS else (repo / value).resolve()


def checked_build_target(build: Path, impl: Path, repo: Path) -> Path:
    """Refuse a --build-dir that is not a folder for this build before anything is
    written: a file, the repository or the student's folder (the build would fill
    them), a folder of other files, a build the grader did not configure (a student's
    own, which it would configure for grading) or another student folder's build (it
    would be reconfigured silently)."""
    where = build.resolve()
    if build.exists() and not build.is_dir():
        raise GraderUsageError(f"--build-dir {build} is a file, not a folder for a build")
    if where == repo.resolve():
        raise GraderUsageError(
            f"--build-dir {build} is the repository itself: the build would fill it; "
            "give a folder of its own, e.g. build/grading"
        )
    if where == impl.resolve() or impl.resolve() in where.parents:
        raise GraderUsageError(
            f"--build-dir {build} is inside the student's folder {impl}: the build would "
            "fill it; give a folder of its own, e.g. build/grading"
        )
    if build.is_dir() and any(build.iterdir()):
        if (build / GRADER_TREE_MARK).is_file():
            check_built_from(build, impl, repo)
        elif configured_impl(build, repo) is None:
            raise GraderUsageError(
                f"--build-dir {build} holds files and is not a build: give an empty or new folder"
            )
        else:
            raise GraderUsageError(
                f"--build-dir {build} is a build the grader did not make (no {GRADER_TREE_MARK}):"
                " grading would configure it anew (LAB_IMPL, LAB_ONLY); give an empty or new"
                " folder, e.g. build/grading"
            )
    return build


def check_built_from(build: Path, impl: Path, repo: Path) -> None:
    """Refuse a build configured with another student folder than `impl`."""
    built_from = configured_impl(build, repo)
    if built_from is not None and built_from.resolve() != impl.resolve():
        raise GraderUsageError(
            f"{build} is a build of {built_from}, not of {impl}: give that folder's own "
            "build, or a new folder"
        )
