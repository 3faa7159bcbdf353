"""Hidden grading data: the secret changes the values, never the cases, and is never written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.core.ctest_run import DATA_DIR_ENV, SECRET_ENV
from grader.core.errors import GraderUsageError
from grader.core.model import LabTest
from grader.options import read_secret
from grader.tests.helpers import OneByOne

np = pytest.importorskip("numpy")

REPO = Path(__file__).resolve().parents[2]
SECRET = "correct horse battery staple 7f3a"
MANIFEST = {
    "lab": "lab1",
    "dtype": "int32",
    "defaults": {"low": 0, "high": 1024},
    "cases": [
        {"name": "small", "distribution": "uniform", "n": 4096, "seed": 1},
        {"name": "hot", "distribution": "contention", "n": 999, "seed": 2, "hot_fraction": 0.9},
    ],
}


def _generate(tmp: Path, out: str, secret: str | None, *, via_file: bool = False) -> Path:
    manifest = tmp / "m.json"
    manifest.write_text(json.dumps(MANIFEST))
    argv = [
        sys.executable,
        "-m",
        "datasets.generate",
        "--manifest",
        str(manifest),
        "--out",
        str(tmp / out),
    ]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    if secret is not None and via_file:
        secret_file = tmp / "secret.txt"
        secret_file.write_text(secret + "\n")
        argv += ["--secret-file", str(secret_file)]
    elif secret is not None:
        env[SECRET_ENV] = secret
    subprocess.run(argv, cwd=REPO, env=env, check=True, capture_output=True)
    return tmp / out


def _bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.bin"))}


def test_the_same_secret_gives_the_same_bytes(tmp_path: Path) -> None:
    a = _generate(tmp_path, "a", SECRET)
    b = _generate(tmp_path, "b", SECRET, via_file=True)
    assert _bytes(a) == _bytes(b) and len(_bytes(a)) == 2


def test_another_secret_gives_other_bytes_of_the_same_shape(tmp_path: Path) -> None:
    a, b = _bytes(_generate(tmp_path, "a", SECRET)), _bytes(_generate(tmp_path, "b", "other"))
    assert a.keys() == b.keys()
    for name in a:
        assert len(a[name]) == len(b[name]) and a[name] != b[name]
    values = np.frombuffer(b["hot.bin"], dtype="<i4")
    assert values.min() >= 0 and values.max() < 1024
    assert np.bincount(values).max() > 0.8 * len(values)  # still the contention distribution


def test_no_secret_gives_the_public_bytes(tmp_path: Path) -> None:
    public = _bytes(_generate(tmp_path, "public", None))
    again = _bytes(_generate(tmp_path, "again", None))
    hidden = _bytes(_generate(tmp_path, "hidden", SECRET))
    assert public == again and public != hidden


def test_the_secret_is_never_written(tmp_path: Path) -> None:
    out = _generate(tmp_path, "hidden", SECRET)
    sidecars = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert sidecars and all(len(s["hidden"]) == 16 for s in sidecars)
    for path in out.rglob("*"):
        data = path.read_bytes()
        assert SECRET.encode() not in data and b"horse" not in data


def test_a_secret_change_regenerates(tmp_path: Path) -> None:
    first = _bytes(_generate(tmp_path, "d", SECRET))
    second = _bytes(_generate(tmp_path, "d", "other"))
    assert first != second


def _setup_and_test(tmp: Path) -> tuple[LabTest, LabTest]:
    setup = LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        command=(
            sys.executable,
            "-m",
            "datasets.generate",
            "--manifest",
            "m.json",
            "--out",
            str(tmp / "datasets" / "lab1"),
        ),
        fixtures_setup=("lab1_data",),
    )
    test = LabTest(
        name="lab1.Suite.Test",
        lab="lab1",
        kind="correctness",
        command=("prog",),
        fixtures_required=("lab1_data",),
    )
    return setup, test


def test_the_runner_gives_the_secret_to_the_setup_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, "leaked from the grader's own environment")
    setup, test = _setup_and_test(tmp_path)
    runner = OneByOne(gpu_present=True, setups={"lab1_data": [setup]}, secret=SECRET)
    argv, env = runner.command_and_env(setup)
    assert env[SECRET_ENV] == SECRET and argv[-1] == str(tmp_path / "datasets" / "lab1-hidden")
    argv, env = runner.command_and_env(test)
    assert SECRET_ENV not in env and env[DATA_DIR_ENV] == str(tmp_path / "datasets" / "lab1-hidden")
    assert argv == ["prog"]


def test_a_batch_data_root_holds_every_students_datasets_once(tmp_path: Path) -> None:
    ann, _ = _setup_and_test(tmp_path / "ann")
    bob, bob_test = _setup_and_test(tmp_path / "bob")
    root = tmp_path / "class-data"
    for secret, folder in ((SECRET, "lab1-hidden"), (None, "lab1")):
        runners = [
            OneByOne(gpu_present=True, setups={"lab1_data": [s]}, secret=secret, data_root=root)
            for s in (ann, bob)
        ]
        assert runners[0].command_and_env(ann)[0][-1] == str(root / folder)
        assert runners[1].command_and_env(bob)[0][-1] == str(root / folder)  # the same folder
        argv, env = runners[1].command_and_env(bob_test)
        assert env[DATA_DIR_ENV] == str(root / folder) and SECRET_ENV not in env


def test_without_a_secret_nothing_changes_and_nothing_leaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, "leaked from the grader's own environment")
    setup, test = _setup_and_test(tmp_path)
    runner = OneByOne(gpu_present=True, setups={"lab1_data": [setup]})
    argv, env = runner.command_and_env(setup)
    assert argv == list(setup.command) and SECRET_ENV not in env
    assert DATA_DIR_ENV not in runner.command_and_env(test)[1]


def test_grade_reads_the_secret_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    assert read_secret(None) is None
    path = tmp_path / "secret"
    path.write_text(f"{SECRET}\n")
    assert read_secret(path) == SECRET
    monkeypatch.setenv(SECRET_ENV, "from env")
    assert read_secret(None) == "from env"
    path.write_text("  \n")
    with pytest.raises(GraderUsageError):
        read_secret(path)
    with pytest.raises(GraderUsageError):
        read_secret(tmp_path / "missing")


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_secret_variable_is_refused_like_an_empty_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    # Empty once meant public data, silently, where an empty --secret-file is refused.
    monkeypatch.setenv(SECRET_ENV, value)
    with pytest.raises(GraderUsageError, match=rf"\${SECRET_ENV} is empty: unset it"):
        read_secret(None)
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(MANIFEST))
    result = subprocess.run(
        [sys.executable, "-m", "datasets.generate", "--manifest", str(manifest),
         "--out", str(tmp_path / "out")],
        cwd=REPO, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), SECRET_ENV: value},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and not (tmp_path / "out").exists()
    message = f"${SECRET_ENV} is empty: unset it for public data, or give the secret"
    assert result.stderr == f"datasets.generate: {message}\n"
