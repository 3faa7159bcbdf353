"""scripts/new_lab.py: the lab it makes from templates/lab/, the presets it adds, and
what it refuses. Building the lab it makes is scripts/check-new-lab.sh's job (CI)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
needs_tools = pytest.mark.skipif(
    shutil.which("unifdef") is None or shutil.which("clang-format") is None,
    reason="unifdef and clang-format are needed to render the template",
)


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("new_lab", REPO / "scripts" / "new_lab.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


new_lab = _module()


def _repo(tmp_path: Path) -> Path:
    """A repository with the template, the presets and two labs, lab1 and lab3."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "templates", repo / "templates")
    for name in ("CMakePresets.json", ".clang-format"):
        shutil.copy2(REPO / name, repo / name)
    for root in ("labs", "solutions", "skeletons"):
        (repo / root / "lab1_histogram").mkdir(parents=True)
    (repo / "labs" / "lab3_reduction").mkdir()
    return repo


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("topic", ["", "Demo", "1x", "a-b", "_x", "x y", "ümlaut"])
def test_a_topic_that_cannot_name_files_and_programs_is_refused(topic: str) -> None:
    with pytest.raises(new_lab.NewLabError, match="lower-case letters"):
        new_lab.check_topic(topic)


def test_the_next_number_follows_every_lab_folder_and_preset(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert new_lab.choose_number(repo, None) == 7  # the presets name lab6
    assert new_lab.choose_number(repo, 8) == 8
    with pytest.raises(new_lab.NewLabError, match="lab3 exists: labs/lab3_reduction"):
        new_lab.choose_number(repo, 3)
    with pytest.raises(new_lab.NewLabError, match="start at 1"):
        new_lab.choose_number(repo, 0)


def test_a_topic_in_use_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with pytest.raises(new_lab.NewLabError, match="labs/lab3_reduction"):
        new_lab.check_topic_free(repo, "reduction")
    new_lab.check_topic_free(repo, "duction")  # only the whole topic counts
    # It names a test preset too: not one that exists, whatever its kind.
    with pytest.raises(new_lab.NewLabError, match="test preset 'student'"):
        new_lab.check_topic_free(repo, "student")
    with pytest.raises(new_lab.NewLabError, match="test preset 'matmul'"):
        new_lab.check_topic_free(repo, "matmul")


def test_the_presets_are_added_in_order_and_nothing_else_changes() -> None:
    text = (REPO / "CMakePresets.json").read_text()
    doc = json.loads(text)
    added = new_lab.presets_with(text, new_lab.Lab(7, "demo"))
    names = [p["name"] for p in json.loads(added)["testPresets"]]
    assert names[-5:] == ["lab7", "lab7-correctness", "lab7-timing", "lab7-tables", "demo"]
    assert added.startswith(text[: text.index('"image_pipeline"')])  # the rest as it was
    new = {p["name"]: p for p in json.loads(added)["testPresets"]}
    old = {p["name"]: p for p in doc["testPresets"]}
    assert new["lab7-correctness"] == {
        **old["lab6-correctness"],
        "name": "lab7-correctness",
        "displayName": "lab7: correctness tests",
        "filter": {"include": {"label": "^lab7\\.correctness$"}},
    }
    between = new_lab.presets_with(text, new_lab.Lab(0, "first"))  # before every lab's
    between_names = [p["name"] for p in json.loads(between)["testPresets"]]
    first = between_names.index("lab0")
    assert between_names[first - 1] == "ci-solutions"  # after the trees' presets
    assert between_names[first : first + 5] == [
        "lab0",
        "lab0-correctness",
        "lab0-timing",
        "lab0-tables",
        "first",
    ]
    assert new["lab7-tables"]["filter"] == {"include": {"label": "^tables\\.lab7$"}}
    # "student" leaves the tables out; the tables' preset must not inherit that.
    assert new["lab7-tables"]["inherits"] == "student-every-test"
    # The topic's preset runs what labN runs: it inherits it, filter and all.
    assert new["demo"] == {"name": "demo", "inherits": "lab7", "displayName": "lab7: every test"}


def test_every_lab_has_its_presets_and_one_named_by_its_topic() -> None:
    """The presets of CMakePresets.json are what new_lab.py adds, for every lab folder."""
    tests = {
        p["name"]: p for p in json.loads((REPO / "CMakePresets.json").read_text())["testPresets"]
    }
    for folder in sorted((REPO / "labs").glob("lab*_*")):
        number, topic = folder.name[3:].split("_", 1)
        lab = new_lab.Lab(int(number), topic)
        for entry in [*new_lab.preset_entries(lab.id), new_lab.topic_preset(lab)]:
            assert tests.get(entry["name"]) == entry, (folder.name, entry["name"])


@needs_tools
def test_a_lab_is_made_with_its_names_filled_in(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    written = new_lab.create(repo, new_lab.Lab(7, "matrix_transpose"))
    assert Path("labs/lab7_matrix_transpose/matrix_transpose.cuh") in written
    assert Path("skeletons/lab7_matrix_transpose/REPORT.md") in written
    for rel in written:
        text = (repo / rel).read_text()
        for placeholder in ("labN", "TOPIC", "TITLE"):
            assert placeholder not in text and placeholder not in str(rel), (rel, placeholder)
    lab_json = json.loads((repo / "labs/lab7_matrix_transpose/lab.json").read_text())
    assert (lab_json["lab"], lab_json["title"]) == ("lab7", "Matrix transpose")
    master = (repo / "solutions/lab7_matrix_transpose/matrix_transpose_kernels.cu").read_text()
    skeleton = (repo / "skeletons/lab7_matrix_transpose/matrix_transpose_kernels.cu").read_text()
    assert "#if LAB_SKELETON" in master and "LAB_SKELETON" not in skeleton
    assert "// TODO" in skeleton and "out[i] = a * x[i] + y[i];" not in skeleton
    assert "lab7-timing" in (repo / "CMakePresets.json").read_text()


@needs_tools
def test_nothing_is_written_over_an_existing_folder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "skeletons" / "lab7_demo").mkdir()
    before = _snapshot(repo)
    with pytest.raises(new_lab.NewLabError, match="skeletons/lab7_demo exists"):
        new_lab.create(repo, new_lab.Lab(7, "demo"))
    assert _snapshot(repo) == before
    assert not (repo / "labs" / "lab7_demo").exists()


def test_the_command_line_refuses_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert new_lab.main(["Bad-Topic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("new_lab: topic 'Bad-Topic'") and len(err.splitlines()) == 1
    assert new_lab.main(["anything", "--number", "1"]) == 2
    assert "lab1 exists" in capsys.readouterr().err


def test_a_topic_too_long_for_a_file_name_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """300 characters made names too long for the file system: a traceback."""
    assert new_lab.main(["a" * 300]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("new_lab: topic aaaa") and f"at most {new_lab.TOPIC_MAX}" in line
    assert new_lab.check_topic("a" * new_lab.TOPIC_MAX)  # the longest allowed
    with pytest.raises(new_lab.NewLabError, match="at most"):
        new_lab.check_topic("a" * (new_lab.TOPIC_MAX + 1))


@needs_tools
def test_a_write_that_fails_leaves_nothing_behind(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    shutil.rmtree(repo / "skeletons")
    (repo / "skeletons").write_text("a file where the folder goes")
    before = _snapshot(repo)
    with pytest.raises(new_lab.NewLabError, match="cannot write .*skeletons.*nothing written"):
        new_lab.create(repo, new_lab.Lab(7, "demo"))
    assert _snapshot(repo) == before
    assert not (repo / "labs" / "lab7_demo").exists()
    assert not (repo / "solutions" / "lab7_demo").exists()


def test_ctrl_c_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(repo: Path, lab: object) -> list[Path]:
        raise KeyboardInterrupt

    monkeypatch.setattr(new_lab, "create", interrupted)
    assert new_lab.main(["demo"]) == 130
    assert capsys.readouterr().err == "new_lab: interrupted: nothing written\n"
