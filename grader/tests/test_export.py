"""`grader.classroom export`: what the student repository holds, what it must never hold, and
that it configures (and, with CUDA_LABS_SLOW_TESTS=1, builds) on its own."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.classroom.export import (
    MARKER,
    check_outdir,
    export_tree,
    is_excluded,
    student_presets,
    student_readme,
)
from grader.core.errors import GraderUsageError
from grader.tests.helpers import run_grader

REPO = Path(__file__).resolve().parents[2]
needs_cuda_cmake = pytest.mark.skipif(
    shutil.which("cmake") is None
    or shutil.which("ninja") is None
    or (shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists()),
    reason="cmake, ninja and nvcc are needed to configure the export",
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "student"
    export_tree(REPO, out, instructor_repo="course/cuda-labs", ref="v1")
    return out


def _all_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_the_export_has_what_a_student_needs(exported: Path) -> None:
    for rel in (
        "CMakeLists.txt",
        "CMakePresets.json",
        "README.md",
        "cmake/LabImpl.cmake",
        "labs/lab1_histogram/histogram.cuh",
        "skeletons/lab1_histogram",
        "datasets/generate.py",
        "datasets/lab1.json",
        "scripts/setup.sh",
        "scripts/test.sh",
        "scripts/check_skips.py",
        "grader/__main__.py",
        "grader/commands/grade.py",
        ".github/workflows/grade.yml",
        ".github/workflows/ci.yml",
        ".ci/run",
        ".clang-format",
        "pyproject.toml",
        "requirements.lock",
        "scripts/python-env.sh",
    ):
        assert (exported / rel).exists(), rel
    # The maintainers' lock and its generator are the instructor's.
    assert not (exported / "requirements-dev.lock").exists()
    assert not (exported / "scripts" / "lock.sh").exists()
    assert os.access(exported / "scripts" / "test.sh", os.X_OK)


def test_the_export_leaks_no_solution_submission_or_secret(exported: Path) -> None:
    files = _all_files(exported)
    for rel in files:
        assert not rel.startswith(("solutions/", "submissions/", "build", ".git/")), rel
        assert "__pycache__" not in rel and "secret" not in rel.lower(), rel
    assert not (exported / "grader" / "instructor").exists()
    assert not (exported / "grader" / "classroom").exists()
    assert not (exported / "grader" / "tests").exists()
    assert not (exported / "scripts" / "gpu-suite.sh").exists()
    assert not (exported / "scripts" / "make_skeletons.sh").exists()  # needs solutions/
    assert not (exported / "templates").exists()  # the lab template's master is a solution
    assert not (exported / "scripts" / "new_lab.py").exists()
    # The reference kernels' bodies appear nowhere in the export, nor do the masters'
    # LAB_SKELETON regions the skeletons are generated from.
    solution = (REPO / "solutions" / "lab1_histogram" / "histogram_kernels.cu").read_text()
    skeleton = (exported / "skeletons" / "lab1_histogram" / "histogram_kernels.cu").read_text()
    assert solution != skeleton
    assert "zero(hist);" in solution and "zero(hist);" not in skeleton
    for source in (exported / "skeletons").rglob("*.cu"):
        assert "LAB_SKELETON" not in source.read_text(), source


def test_the_instructor_workflows_are_replaced(exported: Path) -> None:
    names = sorted(p.name for p in (exported / ".github" / "workflows").iterdir())
    assert names == ["ci.yml", "grade.yml"]
    grade = (exported / ".github" / "workflows" / "grade.yml").read_text()
    assert "uses: course/cuda-labs/.github/workflows/grade-student.yml@v1" in grade
    assert "self-hosted" not in grade  # the runner is chosen by the instructor's workflow
    ci = (exported / ".github" / "workflows" / "ci.yml").read_text()
    assert "bash .ci/run" in ci


def test_the_reference_presets_are_gone(exported: Path) -> None:
    text = (exported / "CMakePresets.json").read_text()
    assert "solutions" not in text
    names = [p["name"] for p in json.loads(text)["configurePresets"]]
    assert "student" in names and "ci-skeletons" in names and "reference" not in names
    assert "ci-solutions" not in (exported / "scripts" / "test.sh").read_text()


def test_student_presets_drop_dependants() -> None:
    doc = {
        "configurePresets": [
            {"name": "a", "cacheVariables": {"LAB_IMPL": "skeletons"}},
            {"name": "r", "cacheVariables": {"LAB_IMPL": "solutions"}},
        ],
        "buildPresets": [
            {"name": "a", "configurePreset": "a"},
            {"name": "r", "configurePreset": "r"},
        ],
        "testPresets": [{"name": "r", "configurePreset": "r"}],
        "workflowPresets": [
            {"name": "r", "steps": [{"type": "configure", "name": "r"}]},
            {"name": "a", "steps": [{"type": "configure", "name": "a"}]},
        ],
    }
    out = student_presets(doc)
    assert [p["name"] for p in out["configurePresets"]] == ["a"]
    assert [p["name"] for p in out["buildPresets"]] == ["a"]
    assert out["testPresets"] == []
    assert [w["name"] for w in out["workflowPresets"]] == ["a"]


def test_student_readme_drops_the_instructor_section() -> None:
    text = (REPO / "README.md").read_text()
    readme = student_readme(text, (REPO / "templates/student/grading-section.md").read_text())
    assert "## Instructor workflow" not in readme
    assert "solutions/" not in readme and "reference solution" not in readme
    assert "## How your work is graded" in readme
    assert readme.index("## How your work is graded") < readme.index("## Layout")


@pytest.mark.parametrize(
    "rel, excluded",
    [
        ("solutions/lab1_histogram/histogram_kernels.cu", True),
        ("submissions/known_wrong/manifest.json", True),
        ("datasets/hidden_lab1.json", True),
        ("course.secret", True),
        ("grader/tests/test_cli.py", True),
        ("templates/lab/solutions/labN_TOPIC/TOPIC_kernels.cu", True),
        ("scripts/new_lab.py", True),
        ("CONTRIBUTING.md", True),
        (".github/workflows/grade.yml", True),
        ("skeletons/lab1_histogram/histogram_kernels.cu", False),
        ("datasets/lab1.json", False),
        ("grader/grade.py", False),
        ("grader/classroom/batch.py", True),
        ("grader/classroom/deadline.py", True),
        ("grader/classroom/commands/batch.py", True),
        ("grader/core/reports.py", False),
        ("scripts/sweep.py", False),
        ("scripts/calibrate.py", True),
    ],
)
def test_is_excluded(rel: str, excluded: bool) -> None:
    assert is_excluded(rel) is excluded


def _snapshot(root: Path) -> dict[str, str]:
    """Every entry under root (symlinks not followed): files by content, links by target."""
    snap: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            snap[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            snap[rel] = path.read_text(errors="replace")
        else:
            snap[rel] = "/"
    return snap


def _export_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_grader("export", *args, cwd=cwd, env=env)


def _refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.fixture()
def sandbox(tmp_path: Path) -> Path:
    """A folder with a fake repository (labs/, skeletons/, .git/) and a sibling file."""
    box = tmp_path / "box"
    for rel in ("repo/labs/x.cu", "repo/skeletons/y.cu", "repo/.git/HEAD", "sibling.txt"):
        (box / rel).parent.mkdir(parents=True, exist_ok=True)
        (box / rel).write_text(rel)
    return box


def test_a_non_empty_outdir_is_refused_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_tree(REPO, out)
    (out / "README.md").unlink()
    with pytest.raises(GraderUsageError, match="not empty.*--force"):
        export_tree(REPO, out)
    assert not (out / "README.md").exists()
    export_tree(REPO, out, force=True)
    assert (out / "README.md").is_file() and (out / "labs").is_dir()


def test_force_refuses_to_overwrite_an_edited_file(tmp_path: Path) -> None:
    """--force once replaced a README the user had edited, without a word."""
    out = tmp_path / "out"
    export_tree(REPO, out)
    (out / "README.md").write_text("edited")
    before = _snapshot(tmp_path)
    _refused(
        _export_cli(str(out), "--force", cwd=tmp_path),
        f"{out / 'README.md'} changed since export wrote it: refusing to overwrite it, even "
        "with --force; move it out of the export or export to a new folder",
    )
    assert _snapshot(tmp_path) == before


def test_force_refuses_to_overwrite_a_file_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_tree(REPO, out)
    marker = json.loads((out / MARKER).read_text())
    del marker["files"]["CMakeLists.txt"]  # as if the user had put it there
    (out / MARKER).write_text(json.dumps(marker))
    before = _snapshot(tmp_path)
    with pytest.raises(GraderUsageError, match="CMakeLists.txt not written by export: refusing"):
        export_tree(REPO, out, force=True)
    assert _snapshot(tmp_path) == before


def test_force_refuses_a_folder_that_no_export_marked(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "keep.txt").write_text("x")
    (out / "sub" / "README.md").write_text("y")
    before = _snapshot(tmp_path)
    _refused(_export_cli(str(out), "--force", cwd=tmp_path), f"holds no {MARKER}")
    assert _snapshot(tmp_path) == before


def test_force_removes_only_what_the_previous_export_wrote(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (tmp_path / "sibling.txt").write_text("s")
    export_tree(REPO, out)
    listed = json.loads((out / MARKER).read_text())["files"]
    assert "README.md" in listed and "labs/lab1_histogram/histogram.cuh" in listed
    (out / "notes.txt").write_text("mine")  # the student's own files stay
    (out / "build").mkdir()
    (out / "build" / "a.o").write_text("o")
    (out / "labs" / "mine.txt").write_text("m")
    (out / "labs" / "lab1_histogram" / "histogram.cuh").unlink()
    result = _export_cli(str(out), "--force", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (out / "notes.txt").read_text() == "mine" and (out / "build" / "a.o").is_file()
    assert (out / "labs" / "mine.txt").read_text() == "m"
    assert (out / "labs" / "lab1_histogram" / "histogram.cuh").is_file()
    assert (tmp_path / "sibling.txt").read_text() == "s"


def test_force_never_follows_a_symlink_out_of_the_export(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    export_tree(REPO, out)
    (outside / "lab1_histogram").mkdir(parents=True)
    (outside / "lab1_histogram" / "histogram.cuh").write_text("not the export's")
    shutil.rmtree(out / "labs")
    (out / "labs").symlink_to(outside)
    before = _snapshot(outside)
    _refused(_export_cli(str(out), "--force", cwd=tmp_path), "is a symlink")
    assert _snapshot(outside) == before and (out / "README.md").is_file()


def test_a_forged_marker_cannot_name_paths_outside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "sibling.txt").write_text("s")
    (out / "x.txt").write_text("x")
    (out / MARKER).write_text(
        json.dumps(
            {
                "format": 2,
                "files": {
                    "../sibling.txt": None,
                    str(tmp_path / "sibling.txt"): None,
                    "x.txt": None,
                },
            }
        )
    )
    export_tree(REPO, out, force=True)
    assert (tmp_path / "sibling.txt").read_text() == "s" and not (out / "x.txt").exists()


def test_an_outdir_holding_the_repository_is_refused(sandbox: Path) -> None:
    before = _snapshot(sandbox)
    repo = str(sandbox / "repo")
    _refused(
        _export_cli("..", "--force", "--repo", repo, cwd=sandbox / "repo"), "holds the repository"
    )
    (sandbox / "link").symlink_to(sandbox)  # the folder a symlink leads to counts
    _refused(
        _export_cli(str(sandbox / "link"), "--force", "--repo", repo, cwd=sandbox),
        "holds the repository",
    )
    (sandbox / "link").unlink()
    assert _snapshot(sandbox) == before


def test_home_and_its_parents_are_refused(sandbox: Path) -> None:
    home = sandbox / "home" / "user"
    home.mkdir(parents=True)
    (home / "thesis.tex").write_text("t")
    before = _snapshot(sandbox)
    for out in (home, home.parent):
        _refused(
            _export_cli(
                str(out), "--force", "--repo", str(REPO), cwd=sandbox, env={"HOME": str(home)}
            ),
            "your home",
        )
    assert _snapshot(sandbox) == before


@pytest.mark.parametrize(
    "out, reason",
    [("/", "top-level"), ("/usr", "top-level"), ("/tmp", "top-level"), ("/etc/", "top-level")],
)
def test_system_folders_are_refused(out: str, reason: str) -> None:
    # No --force: even a broken guard must not be able to delete anything here.
    _refused(_export_cli(out, "--repo", str(REPO), cwd=REPO), reason)


def test_the_temporary_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(GraderUsageError, match="temporary folder itself"):
        check_outdir(tmp_path, REPO)


def test_an_outdir_inside_the_repository_is_refused() -> None:
    with pytest.raises(GraderUsageError, match="inside the repository"):
        export_tree(REPO, REPO / "build" / "export-here")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_outdir_is_a_usage_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = _export_cli(str(locked / "x"), cwd=tmp_path)
    finally:
        locked.chmod(0o700)
    assert result.returncode == 2
    assert "cannot write" in result.stderr


def test_an_outdir_under_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    with pytest.raises(GraderUsageError, match="cannot write"):
        export_tree(REPO, tmp_path / "plain" / "out")


def test_the_command_line_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("x")
    result = _export_cli(str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert "is not empty" in result.stderr and "Traceback" not in result.stderr


def test_the_exported_grader_runs_without_the_instructors_modules(exported: Path) -> None:
    """`grade` starts in the export, which has no grader/classroom/."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "--help"],
        cwd=exported,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


def test_the_exported_resource_spec_script_runs(exported: Path) -> None:
    """The README's scripts/gpu_resource_spec.py, for ctest --resource-spec-file, finds
    its grader modules in the export."""
    result = subprocess.run(
        [sys.executable, "scripts/gpu_resource_spec.py", "--help"],
        cwd=exported,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def _cmake(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["cmake", *args], capture_output=True, text=True, timeout=900, check=False
    )


def _configure_args(exported: Path, build: Path, impl: str = "skeletons") -> list[str]:
    args = [
        "-S",
        str(exported),
        "-B",
        str(build),
        "-G",
        "Ninja",
        "-DCMAKE_CUDA_ARCHITECTURES=86-real",
        "-DLAB_ONLY=lab1",
        f"-DLAB_IMPL={impl}",
    ]
    gtest = REPO / ".deps" / "googletest"
    if not Path("/usr/include/gtest/gtest.h").exists() and gtest.is_dir():
        args.append(f"-DLAB_GTEST_SOURCE_DIR={gtest}")
    return args


@needs_cuda_cmake
def test_the_export_configures_on_its_own(exported: Path, tmp_path: Path) -> None:
    result = _cmake(*_configure_args(exported, tmp_path / "b"))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    if os.environ.get("CUDA_LABS_SLOW_TESTS") == "1":  # about 30 s on two cores
        built = _cmake("--build", str(tmp_path / "b"))
        assert built.returncode == 0, built.stdout[-3000:]
        assert (tmp_path / "b" / "bin" / "lab1_histogram").is_file()


@needs_cuda_cmake
def test_the_export_says_it_has_no_solutions(exported: Path, tmp_path: Path) -> None:
    result = _cmake(*_configure_args(exported, tmp_path / "b", impl="solutions"))
    assert result.returncode != 0
    assert "no reference solutions" in result.stderr.replace("\n  ", " ")


def _printed_check(stdout: str) -> str:
    hint = "grader: check it builds (the students' CI): "
    (command,) = [line[len(hint) :] for line in stdout.splitlines() if line.startswith(hint)]
    return command


def test_the_printed_check_sets_up_first_as_the_readme_says(tmp_path: Path) -> None:
    """It printed `cmake --workflow --preset ci-skeletons` alone: in a new export, without
    the .venv that scripts/setup.sh makes, 999 tests did not run (no numpy)."""
    out = tmp_path / "student"
    result = _export_cli(str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    setup = "bash scripts/setup.sh && cmake --workflow --preset "
    assert _printed_check(result.stdout) == f"(cd {out} && {setup}ci-skeletons)"
    assert f"{setup}student" in (out / "README.md").read_text()  # what a newcomer runs


@needs_cuda_cmake
def test_the_printed_check_configures_the_export_from_anywhere(tmp_path: Path) -> None:
    """The hint once built the presets of the current folder (`cmake --build --preset`
    has no -S), the instructor's own tree, and printed the path unquoted."""
    out = tmp_path / "it's here" / "student"
    result = _export_cli(str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    command = _printed_check(result.stdout)
    # Runs the workflow's configure step only, for lab1: `cmake --workflow --preset P`
    # becomes `cmake --preset P` in the folder the printed command runs it in; the setup
    # (scripts/setup.sh) only says where it ran.
    shims = tmp_path / "bin"
    shims.mkdir()
    extra = [a for a in _configure_args(out, tmp_path / "unused") if a.startswith("-DLAB_GTEST")]
    real = shlex.join([str(shutil.which("cmake")), "-DLAB_ONLY=lab1", *extra])
    (shims / "cmake").write_text(
        f'#!/bin/sh\n[ "$1 $2" = "--workflow --preset" ] || exit 64\nexec {real} --preset "$3"\n'
    )
    bash, setup_ran = str(shutil.which("bash")), tmp_path / "setup-ran-in"
    (shims / "bash").write_text(
        f'#!/bin/sh\n[ "$1" = scripts/setup.sh ] || exec {bash} "$@"\n'
        f"pwd > {shlex.quote(str(setup_ran))}\n"
    )
    for shim in shims.iterdir():
        shim.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(
        [bash, "-c", command],
        cwd=elsewhere,
        env={**os.environ, "PATH": f"{shims}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, command + "\n" + run.stdout[-2000:] + run.stderr[-2000:]
    assert setup_ran.read_text() == f"{out}\n"
    cache = (out / "build" / "ci-skeletons" / "CMakeCache.txt").read_text()
    assert f"CMAKE_HOME_DIRECTORY:INTERNAL={out}\n" in cache
    assert not any(elsewhere.iterdir())


def _clone(tmp_path: Path) -> Path:
    """A clone of this repository's HEAD, to edit without touching the checkout."""
    clone = tmp_path / "instructor"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    return clone


def test_the_export_is_the_commit_and_an_edit_not_committed_is_named(tmp_path: Path) -> None:
    """An edited skeleton went out edited, without a word."""
    clone = _clone(tmp_path)
    kernels = "skeletons/lab1_histogram/histogram_kernels.cu"
    committed = (clone / kernels).read_text()
    (clone / kernels).write_text(committed + "// the instructor's unfinished edit\n")
    (clone / "solutions" / "lab1_histogram" / "notes.txt").write_text("never exported")
    result = _export_cli(str(tmp_path / "out"), "--repo", str(clone), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / kernels).read_text() == committed
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert f"from commit {head[:12]}:" in result.stdout
    assert result.stderr == (
        f"grader: warning: {kernels} has uncommitted changes, not exported: commit them and "
        "export again to ship them\n"
    )
    assert os.access(tmp_path / "out" / "scripts" / "setup.sh", os.X_OK)  # the commit's mode


def test_a_student_export_is_no_repository_to_export_from(exported: Path, tmp_path: Path) -> None:
    """--repo naming a student's export was a FileNotFoundError traceback."""
    _refused(
        _export_cli(str(tmp_path / "again"), "--repo", str(exported), cwd=tmp_path),
        f"{exported} has no templates/student/ (a student repository, written by export?): "
        "export from the instructor's repository",
    )
    assert not (tmp_path / "again").exists()


_LINK = re.compile(r"\[[^\]\n]+\]\(([^)\s]+)\)")


def test_no_exported_page_links_what_the_export_leaves_out(exported: Path) -> None:
    """grader/README.md linked ../CONTRIBUTING.md and classroom/README.md, the README
    grader/classroom/README.md: none is exported."""
    dangling = []
    for page in sorted(exported.rglob("*.md")):
        for target in _LINK.findall(page.read_text()):
            path = target.split("#", 1)[0]
            if path and not re.match(r"[a-z]+:", path) and not (page.parent / path).exists():
                dangling.append(f"{page.relative_to(exported)}: {target}")
    assert dangling == []
    readme = (exported / "README.md").read_text()
    assert "| `grader/` |" in readme and "grader/classroom" not in readme
    grader_readme = (exported / "grader" / "README.md").read_text()
    assert "| `core/` |" in grader_readme and "| `classroom/` |" not in grader_readme
    assert "and why: CONTRIBUTING.md, from" in grader_readme  # the link's text stays


def test_every_command_the_exported_pages_show_is_in_the_export(exported: Path) -> None:
    """The README's layout showed `python3 -m grader.classroom COMMAND`, not exported."""
    missing = []
    for page in sorted(exported.rglob("*.md")):
        for module, name in re.findall(
            r"python3 -m (grader[\w.]*)(?: ([a-z][a-z-]*))?", page.read_text()
        ):
            package = exported.joinpath(*module.split("."))
            command = package / "commands" / f"{name.replace('-', '_')}.py"
            if not (package / "__main__.py").is_file() or (name and not command.is_file()):
                missing.append(f"{page.relative_to(exported)}: python3 -m {module} {name}")
    assert missing == []


def test_every_exported_python_file_imports_only_exported_modules(exported: Path) -> None:
    """A script students get (scripts/gpu_resource_spec.py) must not reach into a
    module the export leaves out (grader/classroom/). Imports at module level only."""
    missing = []
    for path in sorted(exported.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in (n for n in names if n == "grader" or n.startswith("grader.")):
                module = exported.joinpath(*name.split("."))
                if not (module.with_suffix(".py").is_file() or (module / "__init__.py").is_file()):
                    missing.append(f"{path.relative_to(exported)} imports {name}")
    assert missing == []
