"""The sandbox, tried with real small programs: what they may write, reach and read.

These run bubblewrap for real, so they are skipped (with the reason) where it is
not installed or cannot start; CI installs it (scripts/setup.sh).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.core.build import build_view, configure_and_build
from grader.core.discovery import read_ctest_json
from grader.core.errors import GraderUsageError
from grader.core.gpu import probe as gpu_probe
from grader.core.model import LabTest, Outcome, Status
from grader.core.provenance import NO_MARKER
from grader.core.reports import write_all
from grader.core.sandbox import (
    BWRAP_ENV,
    MODE_ENV,
    NOBODY,
    Decision,
    Sandbox,
    decide,
    exit_status,
    hide_targets,
    probe,
)
from grader.tests.helpers import FAKE_GTEST, OneByOne
from grader.tests.test_reports import H100, sample_grade

SH = "/bin/sh"
# The system's Python: the sandbox's user can run it wherever the grader's own lives.
PYTHON = shutil.which("python3", path="/usr/bin:/bin")
needs_python = pytest.mark.skipif(PYTHON is None, reason="no /usr/bin/python3")


@pytest.fixture(name="shared")
def _shared() -> Iterator[Path]:
    """A folder every user may enter (pytest's tmp_path is root's own when root runs it)."""
    folder = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(name="variant", params=["userns", "setpriv"])
def _variant(request: pytest.FixtureRequest) -> str:
    """Both ways to sandbox: a user namespace made as nobody, and (root without
    unprivileged user namespaces) bwrap as root with setpriv making the command nobody."""
    return str(request.param)


def _sandbox(
    monkeypatch: pytest.MonkeyPatch, hidden: tuple[Path, ...] = (), variant: str = "userns"
) -> Sandbox:
    monkeypatch.setenv(MODE_ENV, "auto")
    decision = decide(None, hidden=hidden)
    if decision.sandbox is None:
        pytest.skip(decision.reason)
    if variant == "userns":
        if decision.sandbox.setpriv:
            pytest.skip(
                "the user-namespace way cannot start here (no unprivileged user "
                "namespaces, or uid 65534 cannot run this bwrap): setpriv is used"
            )
        return decision.sandbox
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("setpriv is the root grader's fallback (needs root and setpriv)")
    sandbox = dataclasses.replace(decision.sandbox, setpriv=setpriv)
    failed = probe(sandbox)
    if failed:
        pytest.skip(failed)
    return sandbox


def _run(
    sandbox: Sandbox,
    *argv: str,
    cwd: Path | None = None,
    timeout: float = 20,
    env: dict[str, str] | None = None,
) -> Outcome:
    test = LabTest(
        name="lab1.sandboxed",
        lab="lab1",
        kind="correctness",
        command=argv,
        cwd=str(cwd) if cwd else None,
        timeout=timeout,
        env=env or {},
    )
    return OneByOne(gpu_present=True, sandbox=sandbox).run(test)


def _program(folder: Path, body: str) -> Path:
    """A shell script in `folder`: the folder of a test's program is shown to it."""
    script = folder / "prog.sh"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def test_a_write_outside_the_scratch_folder_fails(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    sandbox = _sandbox(monkeypatch, variant=variant)
    bin_dir = shared / "bin"
    bin_dir.mkdir(mode=0o777)
    bin_dir.chmod(0o777)  # writable on the host: only the sandbox stops the write
    for target in (
        bin_dir / "planted",
        Path("/etc/planted"),
        Path("/usr/planted"),
        shared / "elsewhere",
        Path("/planted"),
        Path("/dev/planted"),
    ):
        program = _program(bin_dir, f'echo x > "{target}" && echo WROTE')
        outcome = _run(sandbox, str(program), cwd=bin_dir)
        assert not target.exists()
        if not str(target).startswith("/tmp/"):  # /tmp inside is the scratch's tmp/
            assert outcome.status is Status.FAILED, (target, outcome.output)
            assert "WROTE" not in outcome.output


def test_a_write_inside_the_scratch_folder_works(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    sandbox = _sandbox(monkeypatch, variant=variant)
    script = (
        'echo a > "$TMPDIR/a" && echo b > /tmp/b && echo c > "$HOME/c" && '
        'cat "$TMPDIR/a" /tmp/b "$HOME/c" && test "$TMPDIR" = /tmp'
    )
    outcome = _run(sandbox, SH, "-c", script)
    assert outcome.status is Status.PASSED, outcome.reason
    assert outcome.output.split() == ["a", "b", "c"]


@needs_python
def test_the_network_is_unreachable(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    sandbox = _sandbox(monkeypatch, variant=variant)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # reachable from outside the sandbox
        script = (
            f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); "
            "print('CONNECTED')"
        )
        outcome = _run(sandbox, str(PYTHON), "-c", script)
    assert outcome.status is Status.FAILED
    assert "CONNECTED" not in outcome.output
    assert "Connection refused" in outcome.output or "unreachable" in outcome.output


def test_the_secret_other_students_and_reports_are_unreadable(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    bin_dir = shared / "build" / "bin"
    secret_dir = bin_dir / "instructor"  # inside a folder the test is shown: covered
    secret_dir.mkdir(parents=True)
    (secret_dir / "secret").write_text("s3cret\n")
    other = shared / "students" / "bob"
    other.mkdir(parents=True)
    (other / "kernels.cu").write_text("bob's code\n")
    data = shared / "build" / "datasets" / "lab1"
    data.mkdir(parents=True)
    (data / "case.bin").write_text("data\n")
    for folder in (shared / "build", bin_dir, secret_dir, other.parent, other, data.parent, data):
        folder.chmod(0o755)
    sandbox = _sandbox(monkeypatch, hidden=(secret_dir / "secret",), variant=variant)
    program = _program(
        bin_dir,
        f"""
cat "{secret_dir}/secret" 2>/dev/null && echo SECRET
ls "{secret_dir}" | grep -q secret && echo LISTED
cat "{other}/kernels.cu" 2>/dev/null && echo OTHER
cat /root/.bash_history 2>/dev/null && echo ROOT
cat "$LAB_DATA_DIR/case.bin" || exit 3
ls "{shared / "build" / "datasets"}"
exit 0""",
    )
    outcome = _run(sandbox, str(program), env={"LAB_DATA_DIR": str(data)})
    assert outcome.status is Status.PASSED, outcome.output
    for leak in ("s3cret", "SECRET", "LISTED", "bob's code", "OTHER", "ROOT"):
        assert leak not in outcome.output
    assert outcome.output.split() == ["data", "lab1"]  # only its own dataset folder


def test_the_process_is_nobody_and_root_files_stay_closed(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    sandbox = _sandbox(monkeypatch, variant=variant)
    private = shared / "private"
    private.write_text("root only\n")
    private.chmod(0o600)
    program = _program(shared, f'id -u; id -g; cat "{private}" && echo READ; exit 0')
    outcome = _run(sandbox, str(program))
    assert outcome.output.split()[:2] == [str(NOBODY), str(NOBODY)]
    if os.geteuid() == 0:  # dropped before bwrap: nobody outside the namespace too
        assert sandbox.uid == NOBODY
        assert "READ" not in outcome.output and "root only" not in outcome.output


def test_the_graders_environment_does_not_reach_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = _sandbox(monkeypatch)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secret")
    monkeypatch.setenv("LAB_SECRET_SEED", "seed")
    outcome = _run(
        sandbox, SH, "-c", "env; ls /proc | grep -c '^[0-9]'", env={"CUDA_VISIBLE_DEVICES": "0"}
    )
    assert "ghs_secret" not in outcome.output and "LAB_SECRET_SEED" not in outcome.output
    assert "CUDA_VISIBLE_DEVICES=0" in outcome.output
    assert int(outcome.output.split()[-1]) < 10  # its own pid namespace


@needs_python
def test_a_fork_bomb_is_stopped_by_the_process_limit(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    sandbox = _sandbox(monkeypatch, variant=variant)
    script = """
import os, sys, time
n = 0
try:
    while n < 100000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError as exc:
    print("stopped after", n, exc.errno)
    sys.exit(3)
print("not stopped", n)
"""
    start = time.monotonic()
    outcome = _run(sandbox, str(PYTHON), "-c", script, timeout=30)
    assert time.monotonic() - start < 20
    assert "stopped after" in outcome.output, outcome.output
    assert int(outcome.output.split("stopped after")[1].split()[0]) < sandbox.process_limit
    assert outcome.reason.startswith("exited with status 3")  # the children died with it


def test_the_dataset_setup_runs_outside_and_writes_what_the_tests_may_read(
    monkeypatch: pytest.MonkeyPatch, shared: Path
) -> None:
    sandbox = _sandbox(monkeypatch)
    out = shared / "datasets"
    setup = LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        fixtures_setup=("lab1_data",),
        # As the labs' setups: `python3 -m datasets.generate ... --out DIR`.
        command=(
            SH,
            "-c",
            'echo d > "$2/case.bin" && id -u',
            "datasets.generate",
            "--out",
            str(out),
        ),
    )
    reader = LabTest(
        name="lab1.reads",
        lab="lab1",
        kind="correctness",
        fixtures_required=("lab1_data",),
        env={"LAB_DATA_DIR": str(out)},
        command=(SH, "-c", 'cat "$LAB_DATA_DIR/case.bin"'),
    )
    old = os.umask(0o077)  # a grader with a strict umask still hands over readable data
    try:
        runner = OneByOne(gpu_present=True, sandbox=sandbox, setups={"lab1_data": [setup]})
        outcome = runner.run(reader)
    finally:
        os.umask(old)
    assert runner.setup_outcomes["lab1.datasets"].output.split() == [str(os.geteuid())]
    assert outcome.status is Status.PASSED, outcome.output
    assert outcome.output.split() == ["d"]


def test_shared_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = _sandbox(monkeypatch)
    script = (
        "head -c 1048576 /dev/zero > /dev/shm/small && echo SMALL; "
        "head -c 300000000 /dev/zero > /dev/shm/big && echo BIG; "
        "echo > /dev/null && echo NULL"
    )
    outcome = _run(sandbox, SH, "-c", script)
    assert "SMALL" in outcome.output and "NULL" in outcome.output
    assert "BIG" not in outcome.output


def test_a_crash_inside_reads_as_its_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = _sandbox(monkeypatch)
    outcome = _run(sandbox, SH, "-c", "kill -SEGV $$")
    assert outcome.reason.startswith("crashed: SIGSEGV")
    assert exit_status(139) == -11 and exit_status(77) == 77 and exit_status(124) == 124


def test_a_sandbox_that_cannot_start_is_a_grader_error(
    monkeypatch: pytest.MonkeyPatch, shared: Path
) -> None:
    sandbox = dataclasses.replace(_sandbox(monkeypatch), devices=(str(shared / "no-such-dev"),))
    outcome = _run(sandbox, SH, "-c", "exit 0")
    assert outcome.status is Status.ERROR
    assert "the sandbox did not start: bwrap:" in outcome.reason


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & stat.S_IXOTH for p in [path, *path.parents])


@needs_python
def test_the_harness_marker_is_written_from_inside(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    if not _reachable_by_others(FAKE_GTEST.parent):
        pytest.skip(f"{FAKE_GTEST.parent} is not reachable by other users")
    sandbox = _sandbox(monkeypatch, variant=variant)
    runner = OneByOne(gpu_present=True, sandbox=sandbox)

    def fake(mode: str) -> LabTest:
        return LabTest(
            name="lab1.Suite.Test",
            lab="lab1",
            kind="correctness",
            command=(str(PYTHON), str(FAKE_GTEST), mode, "--gtest_filter=Suite.Test"),
        )

    assert runner.run(fake("pass")).status is Status.PASSED
    forged = runner.run(fake("forged_report"))
    assert (forged.status, forged.reason) == (Status.FAILED, NO_MARKER)


def test_require_refuses_and_auto_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    with pytest.raises(GraderUsageError, match="--sandbox require: bubblewrap not found"):
        decide("require")
    auto = decide("auto")
    assert auto.sandbox is None and auto.headline.startswith("UNSANDBOXED:")
    assert "bubblewrap not found" in auto.headline
    assert decide("off").reason == "turned off with --sandbox off"
    with pytest.raises(GraderUsageError):
        decide("sometimes")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root drops to uid 65534 before bwrap")
def test_a_bwrap_nobody_may_run_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, shared: Path
) -> None:
    private = shared / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    bwrap = private / "bwrap"
    bwrap.write_text("#!/bin/sh\n")
    bwrap.chmod(0o755)
    monkeypatch.setenv(BWRAP_ENV, str(bwrap))
    assert "is not executable by uid 65534" in decide("auto").reason


def test_an_unsandboxed_run_says_so_first_in_every_report(tmp_path: Path) -> None:
    headline = Decision("auto", None, "bubblewrap not found (bwrap)").headline
    grade = dataclasses.replace(
        sample_grade(H100, {"Hist.Uniform": Outcome(Status.PASSED)}), unsandboxed=headline
    )
    paths = write_all(tmp_path, grade)
    doc = json.loads(paths["results.json"].read_text())
    assert doc["output"].splitlines()[0] == headline and doc["extra_data"]["sandboxed"] is False
    first = paths["summary.md"].read_text().splitlines()[0]
    assert first.startswith("## cuda-labs grading (UNSANDBOXED:")


def test_what_the_system_folders_show_is_not_bound_again(shared: Path) -> None:
    link = shared / "cuda"
    link.symlink_to("/usr/bin")
    sandbox = Sandbox("bwrap", "prlimit", hidden=(str(shared / "hidden"),))
    (shared / "hidden" / "bin").mkdir(parents=True)
    argv = sandbox.command(
        ["x"],
        scratch=shared,
        cwd=None,
        read_only=["/usr/bin", str(link), str(shared / "hidden" / "bin")],
    )
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    assert "/usr/bin" not in binds and str(link) not in binds  # ro /usr: a bind there fails
    assert str(shared / "hidden" / "bin") in binds
    assert argv.index("--tmpfs") < argv.index(str(shared / "hidden" / "bin"))
    # Its folders above are made enterable: as root, bwrap would make them 0700.
    made = [argv[i + 3] for i, a in enumerate(argv) if a == "--perms" and argv[i + 2] == "--dir"]
    assert str(shared) in made and str(shared / "hidden") in made


def test_a_secret_in_a_system_folder_hides_only_itself(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x")
    assert hide_targets([secret]) == (str(secret.resolve()), str(tmp_path.resolve()))
    assert hide_targets(["/etc/hostname"]) == ("/etc/hostname",)
    assert hide_targets(["/"]) == ()


# --- compiling in the sandbox (build.py) ---------------------------------------------

needs_cmake = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("cmake", "ninja", "c++")),
    reason="cmake, ninja and a C++ compiler are needed to build",
)


@pytest.fixture(name="secret_in_tmp")
def _secret_in_tmp() -> Iterator[tuple[Path, Path]]:
    """A secret kept in /tmp itself, and a folder beside it every user may enter: the
    secret's folder, which the sandbox hides, holds the build tree and the scratch."""
    handle, secret = tempfile.mkstemp(prefix="sandbox-test-secret-", dir="/tmp")
    os.write(handle, b"s3cret\n")
    os.close(handle)
    folder = Path(tempfile.mkdtemp(prefix="sandbox-test-", dir="/tmp"))
    folder.chmod(0o755)
    yield Path(secret), folder
    os.unlink(secret)
    shutil.rmtree(folder, ignore_errors=True)


# Megabytes written to the scratch's /tmp and the secret read: a compile's temporary
# files (nvcc's tmpxft_*) go there; the cover that hides a folder holds 1 MiB.
_ROOM_AND_SECRET = (
    'head -c 4000000 /dev/zero > "$TMPDIR/big" && echo ROOM; cat "{secret}"; ls -a /tmp'
)


def test_a_secret_kept_in_tmp_leaves_a_test_its_tmp_and_stays_unreadable(
    monkeypatch: pytest.MonkeyPatch, secret_in_tmp: tuple[Path, Path], variant: str
) -> None:
    secret, shared = secret_in_tmp
    sandbox = _sandbox(monkeypatch, hidden=(secret,), variant=variant)
    assert "/tmp" in sandbox.hidden  # the secret's folder
    bin_dir = shared / "bin"  # shown to the test: under the secret's folder
    bin_dir.mkdir(mode=0o755)
    program = _program(bin_dir, _ROOM_AND_SECRET.format(secret=secret))
    outcome = _run(sandbox, str(program), cwd=bin_dir)
    assert "ROOM" in outcome.output, outcome.output
    assert "s3cret" not in outcome.output and f"{secret.name}\n" not in outcome.output


@needs_cmake
def test_a_secret_kept_in_tmp_leaves_the_build_its_tmp_and_stays_unreadable(
    monkeypatch: pytest.MonkeyPatch, secret_in_tmp: tuple[Path, Path], variant: str
) -> None:
    secret, shared = secret_in_tmp
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    sandbox = _sandbox(monkeypatch, hidden=(secret,), variant=variant)
    repo, student = shared / "repo", shared / "student"
    repo.mkdir()
    student.mkdir()
    script = _ROOM_AND_SECRET.format(secret=secret).replace("\\", "\\\\").replace('"', '\\"')
    (repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(t NONE)\n"
        f'execute_process(COMMAND /bin/sh -c "{script}")\n'
    )
    log, failure = configure_and_build(
        repo, str(student), shared / "build", sandbox=Decision("auto", sandbox)
    )
    assert failure is None, log
    assert "ROOM" in log, log
    assert "s3cret" not in log and f"{secret.name}\n" not in log


def test_a_build_sees_its_inputs_and_writes_only_its_tree(shared: Path) -> None:
    repo, student, build = shared / "repo", shared / "student", shared / "build"
    for folder in (repo / "labs", repo / "solutions", repo / "submissions", student, build):
        folder.mkdir(parents=True)
    (repo / "CMakeLists.txt").write_text("")
    (build / "datasets").mkdir()  # hidden data a grading left there
    view = build_view(repo, str(student), [f"-DLAB_PREBUILT={shared / 'fixed'}", "-DX=1"])
    assert str(student) in view and str(repo / "labs") in view
    assert not any(p.startswith((str(repo / "solutions"), str(repo / "submissions"))) for p in view)
    assert str(repo / "solutions") in build_view(repo, "solutions")
    sandbox = Sandbox("bwrap", "prlimit", uid=NOBODY, hidden=(str(shared / "secret"),))
    argv = sandbox.build_command(
        ["cmake", "--build", str(build)], scratch=shared, build=build, read_only=view, env={}
    )
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    writable = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert str(student) in binds and str(repo / "CMakeLists.txt") in binds
    assert str(repo) not in binds and str(build) not in binds
    assert writable[1:] == [str(build), str(shared)]  # after /tmp: the tree, the scratch
    # No /opt, of /etc only what the tools read, no datasets in the tree.
    assert {"/opt", "/etc", str(build / "datasets")} <= set(tmpfs)
    assert "/etc/ld.so.cache" in binds and "/etc/hostname" not in binds
    assert argv.index("/etc/ld.so.cache") > argv.index("/etc")  # bound back onto the cover
    assert argv.index(str(build / "datasets")) > argv.index(str(build))
    assert f"--as={4 << 30}" in argv and argv[-3:] == ["cmake", "--build", str(build)]


def test_a_tree_lent_to_the_sandbox_comes_back_without_following_links(shared: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root grader lends the tree to uid 65534")
    tree, outside = shared / "tree", shared / "outside"
    (tree / "sub").mkdir(parents=True)
    outside.write_text("root's\n")
    (tree / "sub" / "link").symlink_to(outside)
    with Sandbox("bwrap", "prlimit", uid=NOBODY).lent(tree):
        assert (tree / "sub").stat().st_uid == NOBODY
        assert (tree / "sub" / "link").lstat().st_uid == NOBODY
    assert outside.stat().st_uid == 0 and (tree / "sub").stat().st_uid == 0


@needs_cmake
def test_a_student_file_cannot_read_an_outside_file_at_compile_time(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    # The system's tools: uid 65534 may not reach a Python in /root (then setpriv's way).
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    sandbox = _sandbox(monkeypatch, variant=variant)
    secret = "CANARY-" + os.urandom(8).hex()
    canary = shared / "outside" / "canary.txt"
    canary.parent.mkdir()
    canary.write_text(f"{secret}\n")
    repo, student = shared / "repo", shared / "student"
    repo.mkdir()
    student.mkdir()
    (repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(t LANGUAGES CXX)\n"
        "file(GLOB files ${LAB_IMPL}/*.cpp)\nadd_library(k STATIC ${files})\n"
    )
    (student / "evil.h").symlink_to(canary)
    attacks = {
        "absolute": f'#include "{canary}"\n',
        "climbing": '#include "../outside/canary.txt"\n',
        "link": '#include "evil.h"\n',
        "probe": f'#if __has_include("{canary}")\n#error VISIBLE\n#endif\nint probe;\n',
        "incbin": f'asm(".incbin \\"{canary}\\"");\n',
        "pragma": f'#pragma GCC dependency "{canary}"\nint pragma;\n',
        "honest": "int honest() { return 1; }\n",
    }
    for name, text in attacks.items():
        (student / f"{name}.cpp").write_text(text)
    build = shared / "build"
    decision = Decision("auto", sandbox)
    log, failure = configure_and_build(repo, str(student), build, sandbox=decision)
    assert failure is not None and failure.stage == "build", log
    assert secret not in log and "VISIBLE" not in log
    for name in ("absolute", "climbing", "link", "pragma"):
        assert f"{name}.cpp" in log  # each failed, not reading it
    assert log.count("No such file or directory") >= 4 and "file not found" in log
    assert (build / "CMakeFiles" / "k.dir").is_dir()  # the tree was written
    assert any(build.rglob("honest.cpp.o")) and any(build.rglob("probe.cpp.o"))
    for path in build.rglob("*"):
        assert path.is_symlink() or not path.is_file() or secret.encode() not in path.read_bytes()
    assert build.stat().st_uid == os.geteuid()  # lent, and given back
    plain, _ = configure_and_build(repo, str(student), shared / "plain", sandbox="off")
    assert secret in plain  # what the sandbox stops: without it, the lines are printed


def test_listing_runs_the_scripts_programs_wrote_where_they_change_nothing(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    """ctest executes the test lists gtest_discover_tests wrote from the programs'
    output (student code ran then, after its objects passed the check). In the
    sandbox such a script changes nothing: not the programs the grader runs next,
    the objects, or the scripts ctest reads."""
    sandbox = _sandbox(monkeypatch, variant=variant)
    build = shared / "build"
    (build / "bin").mkdir(parents=True)
    (build / "lab1" / "CMakeFiles").mkdir(parents=True)
    (build / "CMakeCache.txt").write_text("CMAKE_PROJECT_NAME:STATIC=cuda_labs\n")
    (build / "CTestTestfile.cmake").write_text('subdirs("lab1")\n')
    probe_program = build / "bin" / "lab_gpu_info"
    probe_program.write_text("#!/bin/sh\necho '{}'\n")
    probe_program.chmod(0o755)
    victims = [
        probe_program,
        build / "CTestTestfile.cmake",
        build / "lab1" / "CMakeFiles" / "kernels.cu.o",
    ]
    victims[-1].write_text("checked\n")
    attack = "; ".join(
        [*(f"echo owned > '{v}'" for v in victims), f"touch '{build}/planted'", "true"]
    )
    tests = build / "lab1" / "lab1_test[1]_tests.cmake"
    tests.write_text(
        f'execute_process(COMMAND /bin/sh -c "{attack}" ERROR_QUIET)\n'
        "add_test(lab1.Case.Honest /bin/true)\n",
        encoding="utf-8",
    )
    (build / "lab1" / "CTestTestfile.cmake").write_text(f'include("{tests}")\n')
    before = {v: v.read_bytes() for v in victims}
    listed = {t["name"] for t in read_ctest_json(build, sandbox)["tests"]}
    assert listed == {"lab1.Case.Honest"}
    assert {v: v.read_bytes() for v in victims} == before
    assert not (build / "planted").exists()


def test_the_gpu_probe_runs_in_the_sandbox(
    monkeypatch: pytest.MonkeyPatch, shared: Path, variant: str
) -> None:
    """The probe was built in a tree that student code could write: it runs as nobody,
    seeing only its folder, and what it prints is all the grader takes from it."""
    sandbox = _sandbox(monkeypatch, variant=variant)
    (shared / "bin").mkdir()
    program = shared / "bin" / "lab_gpu_info"
    program.write_text(
        f"#!/bin/sh\ntouch '{shared}/planted' 2>/dev/null\n"
        'echo "{\\"name\\": \\"$(id -u)\\"}"\n'
    )
    program.chmod(0o755)
    info = gpu_probe(shared, sandbox)
    assert info.state == "present" and info.details["name"] == str(NOBODY)
    assert not (shared / "planted").exists()
