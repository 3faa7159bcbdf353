"""The GitHub Actions workflows, committed and exported: the student's call matches the
reusable workflow's inputs, one ref names both the workflow and the harness, actions are
pinned by commit, tokens are read-only, gradings queue, inputs never reach shell code
inline, and grading jobs install nothing and refuse to grade unsandboxed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.classroom.export import REUSABLE_WORKFLOW, export_tree

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
GRADING = ("grade.yml", "grade-student.yml")
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+([\w.-]+/[\w./-]+)@(\S+)\s+#\s+(v\d+\.\d+\.\d+)\s*$")
INLINE_INPUT = re.compile(r"\$\{\{[^}]*\b(inputs|github\.event)\.")


def _load(path: Path) -> dict[Any, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), path
    return doc


def _trigger(doc: dict[Any, Any]) -> dict[str, Any]:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads the key `on` as True
    assert isinstance(on, dict)
    return on


def _steps(doc: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "student"
    export_tree(REPO, out, instructor_repo="course/cuda-labs", ref="v2")
    return out


def _all_workflows(exported: Path) -> list[Path]:
    return [
        *sorted(WORKFLOWS.glob("*.yml")),
        *sorted((exported / ".github" / "workflows").glob("*.yml")),
    ]


def undeclared_keys(caller: dict[Any, Any], reusable: dict[Any, Any]) -> list[str]:
    """The `with:` keys of the caller's jobs that the reusable workflow does not declare,
    and its required inputs that the caller leaves out."""
    inputs = _trigger(reusable)["workflow_call"].get("inputs") or {}
    wrong: list[str] = []
    for job in caller["jobs"].values():
        given = job.get("with") or {}
        wrong += [f"undeclared input {key}" for key in given if key not in inputs]
        wrong += [
            f"required input {key} not given"
            for key, spec in inputs.items()
            if (spec or {}).get("required") and "default" not in (spec or {}) and key not in given
        ]
    return wrong


def test_the_student_repository_calls_the_reusable_workflow_at_the_export_ref(
    exported: Path,
) -> None:
    caller = _load(exported / ".github" / "workflows" / "grade.yml")
    reusable = _load(WORKFLOWS / "grade-student.yml")
    assert caller["jobs"]["grade"]["uses"] == f"course/cuda-labs/{REUSABLE_WORKFLOW}@v2"
    assert undeclared_keys(caller, reusable) == []


def test_the_harness_is_the_reusable_workflows_own_commit() -> None:
    doc = _load(WORKFLOWS / "grade-student.yml")
    assert "env" not in doc  # no second, drifting HARNESS_REF
    assert set(_trigger(doc)) == {"workflow_call"}
    job = doc["jobs"]["grade"]
    assert job["runs-on"] == ["self-hosted", "linux", "gpu"]
    steps = job["steps"]
    checkouts = [i for i, s in enumerate(steps) if "actions/checkout" in str(s.get("uses"))]
    harness, student = (steps[i]["with"] for i in checkouts)
    assert harness["repository"] == "${{ job.workflow_repository }}"
    assert harness["ref"] == "${{ job.workflow_sha }}"
    assert harness["persist-credentials"] is False
    assert {"!/solutions/", "!/submissions/"} <= set(harness["sparse-checkout"].split())
    assert student["sparse-checkout"] == "skeletons" and student["ref"] == "${{ github.sha }}"
    # Empty values would make checkout take the student's repository: a step before refuses.
    guard = steps[checkouts[0] - 1]
    assert set(guard["env"].values()) >= {
        "${{ job.workflow_repository }}",
        "${{ job.workflow_sha }}",
    }
    assert "exit 1" in guard["run"]


def test_actions_are_pinned_by_commit_with_their_release(exported: Path) -> None:
    pins: dict[str, set[str]] = {}
    for path in _all_workflows(exported):
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"^\s*(-\s+)?uses:", line) and "/.github/workflows/" not in line:
                match = PINNED.match(line)
                assert match, f"{path.name}: not pinned by commit with a # vX.Y.Z: {line}"
                action, sha, _ = match.groups()
                assert re.fullmatch(r"[0-9a-f]{40}", sha), line
                pins.setdefault(action, set()).add(sha)
    assert set(pins) == {"actions/checkout", "actions/upload-artifact"}
    # One version everywhere: the exported ones (templates/student/) included.
    assert all(len(shas) == 1 for shas in pins.values()), pins


def test_read_only_tokens_and_one_grading_at_a_time(exported: Path) -> None:
    for path in _all_workflows(exported):
        doc = _load(path)
        assert doc.get("permissions") == {"contents": "read"}, path.name
        found = [doc.get("concurrency"), *(j.get("concurrency") for j in doc["jobs"].values())]
        groups: list[dict[str, Any]] = [g for g in found if g]
        assert groups, f"{path.name}: no concurrency"
        if path.name in GRADING:
            for group in groups:
                assert group["cancel-in-progress"] is False, path.name
                assert "github.repository" in group["group"], path.name


def test_inputs_reach_shell_code_through_env_only(exported: Path) -> None:
    for path in _all_workflows(exported):
        for step in _steps(_load(path)):
            assert not INLINE_INPUT.search(step.get("run", "")), f"{path.name}: {step['run']}"


def test_grading_jobs_install_nothing_and_require_the_sandbox() -> None:
    for name in GRADING:
        runs = [s.get("run", "") for s in _steps(_load(WORKFLOWS / name))]
        for run in runs:
            for word in ("setup.sh", "sudo", "apt-get", "pip install", "--install"):
                assert word not in run, f"{name}: {run}"
        grading = [r for r in runs if "grader grade" in r]
        assert grading and all("--sandbox require" in r for r in grading), name
        assert any("provision-runner.sh" in r for r in runs), name


def test_actionlint_passes_on_committed_and_exported_workflows(exported: Path) -> None:
    actionlint = shutil.which("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (the dev extra); scripts/test.sh runs it")
    config = str(REPO / ".github" / "actionlint.yaml")
    for root in (REPO, exported):
        files = [str(p) for p in sorted((root / ".github" / "workflows").glob("*.yml"))]
        result = subprocess.run(
            [actionlint, "-config-file", config, *files],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
