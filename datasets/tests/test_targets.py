"""Where the generator writes: only regular files it may replace, through a temporary
file beside each that never stays behind, and never outside --out. Each test works in a
sandbox folder with a sibling file and checks that nothing outside the output changed."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from datasets import generate

REPO = Path(__file__).resolve().parents[2]
MANIFEST: dict[str, Any] = {
    "lab": "labX",
    "dtype": "int32",
    "defaults": {"low": 0, "high": 1024},
    "cases": [
        {"name": "u", "distribution": "uniform", "n": 1000, "seed": 1},
        {"name": "same", "distribution": "constant", "n": 50, "seed": 3, "value": 7},
    ],
}
Capture = pytest.CaptureFixture[str]


def _snapshot(root: Path) -> dict[str, str]:
    """Every entry under root, symlinks not followed: kind and content or target."""
    snap: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        rel = path.relative_to(root).as_posix()
        if stat.S_ISLNK(mode):
            snap[rel] = "link " + os.readlink(path)
        elif stat.S_ISREG(mode):
            snap[rel] = "file " + path.read_bytes().hex()
        else:
            snap[rel] = f"mode {stat.S_IFMT(mode):o}"
    return snap


@pytest.fixture()
def box(tmp_path: Path) -> Path:
    """The sandbox: a manifest and a sibling file that must survive every test."""
    (tmp_path / "m.json").write_text(json.dumps(MANIFEST))
    (tmp_path / "sibling.txt").write_text("keep")
    return tmp_path


def _one_case(box: Path, out: Path, capsys: Capture) -> tuple[int, str]:
    status = generate.main(["--manifest", str(box / "m.json"), "--case", "u", "--out", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    return status, err


def _no_temporary_files(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_fifo_is_refused_not_replaced(box: Path, capsys: Capture) -> None:
    fifo = box / "fifo"
    os.mkfifo(fifo)
    before = _snapshot(box)
    status, err = _one_case(box, fifo, capsys)
    assert status == 2 and "is not a regular file" in err
    assert _snapshot(box) == before and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_device_node_is_refused_not_replaced(box: Path, capsys: Capture) -> None:
    full = box / "full"  # a /dev/full of our own: never a real /dev node
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    before = _snapshot(box)
    status, err = _one_case(box, full, capsys)
    assert status == 2 and "not a regular file (a device" in err
    assert _snapshot(box) == before and stat.S_ISCHR(full.lstat().st_mode)


def test_dev_full_itself_is_refused_before_anything_is_written() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    # Only the check, which reads the node's type (lstat): nothing opens /dev/full.
    with pytest.raises(generate.GenerateError, match="not a regular file"):
        generate.check_target(Path("/dev/full"))
    assert stat.S_ISCHR(Path("/dev/full").lstat().st_mode)


def test_a_symlink_is_refused_not_followed(box: Path, capsys: Capture) -> None:
    link = box / "data.bin"
    link.symlink_to(box / "sibling.txt")
    before = _snapshot(box)
    status, err = _one_case(box, link, capsys)
    assert status == 2 and "is a symlink" in err
    assert _snapshot(box) == before


def test_a_symlinked_case_file_in_the_folder_is_refused(box: Path, capsys: Capture) -> None:
    out = box / "out"
    out.mkdir()
    (out / "same.bin").symlink_to(box / "sibling.txt")
    before = _snapshot(box)
    assert generate.main(["--manifest", str(box / "m.json"), "--out", str(out)]) == 2
    assert "same.bin is a symlink" in capsys.readouterr().err
    assert {k: v for k, v in _snapshot(box).items() if not k.startswith("out/u.")} == before
    _no_temporary_files(out)


def test_a_folder_in_the_file_s_place_is_refused_and_leaves_nothing(
    box: Path, capsys: Capture
) -> None:
    adir = box / "adir"
    adir.mkdir()
    (adir / "inside.txt").write_text("x")
    before = _snapshot(box)
    status, err = _one_case(box, adir, capsys)
    assert status == 2 and "is a folder, not a file" in err
    assert _snapshot(box) == before
    _no_temporary_files(box)


def test_a_failed_write_leaves_no_temporary_file(
    box: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even past the checks (a folder appearing between check and rename), the
    # temporary file goes.
    adir = box / "adir"
    adir.mkdir()
    before = _snapshot(box)
    with pytest.raises(generate.GenerateError, match="adir: not written"):
        generate.write_files([(adir, b"data")])
    assert _snapshot(box) == before

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(generate.GenerateError, match="new.bin: not written: No space left"):
        generate.write_files([(box / "new.bin", b"data"), (box / "new.json", b"{}")])
    assert _snapshot(box) == before


# Run inside a user and mount namespace (unshare -rm), as the disk a full tmpfs: the
# good pair is copied in, the rest of the space filled, and the generator asked for
# other data; what the tmpfs holds afterwards is copied out to $2/after.
_ON_A_FULL_TMPFS = """
mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
cp "$2/data.bin" "$2/data.json" "$1/"
head -c 1048576 /dev/zero > "$1/fill" 2>/dev/null
"$3" -m datasets.generate --manifest "$2/m2.json" --case u --out "$1/data.bin"
status=$?
rm "$1/fill"
mkdir "$2/after" && cp -a "$1/." "$2/after/"
exit $status
"""


@pytest.mark.parametrize("full", ["tmpfs", "file size limit"])
def test_a_full_disk_keeps_the_old_file_and_sidecar(box: Path, full: str) -> None:
    """A small case once wrote a 0-byte file over good data on a full disk, said
    "written" and exited 0, its sidecar still describing the old data."""
    assert generate.main(["--manifest", str(box / "m.json"), "--case", "u",
                          "--out", str(box / "data.bin")]) == 0  # fmt: skip
    good = {name: (box / name).read_bytes() for name in ("data.bin", "data.json")}
    other = {**MANIFEST, "cases": [{**MANIFEST["cases"][0], "seed": 2}]}
    (box / "m2.json").write_text(json.dumps(other))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if full == "tmpfs":
        if shutil.which("unshare") is None:
            pytest.skip("no unshare to mount a tmpfs")
        (box / "disk").mkdir()
        argv = ["unshare", "-rm", "sh", "-c", _ON_A_FULL_TMPFS, "sh"]
        result = _run([*argv, str(box / "disk"), str(box), sys.executable], env)
        if result.returncode == 99 or not (box / "after").is_dir():
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
        after = box / "after"
    else:  # writes past 1000 bytes fail with EFBIG (Python ignores SIGXFSZ)
        argv = [sys.executable, "-m", "datasets.generate", "--manifest", str(box / "m2.json"),
                "--case", "u", "--out", str(box / "data.bin")]  # fmt: skip
        result = _run(argv, env, file_size_limit=1000)
        after = box
    assert result.returncode == 2, result.stdout + result.stderr
    assert "written" not in result.stdout
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and "data.bin: not written: " in err, err
    assert {name: (after / name).read_bytes() for name in good} == good
    _no_temporary_files(after)


def _run(
    argv: list[str], env: dict[str, str], file_size_limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(
        argv, env=env, preexec_fn=limit, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_read_only_target_is_refused_and_keeps_its_mode(box: Path, capsys: Capture) -> None:
    out = box / "data.bin"
    assert _one_case(box, out, capsys)[0] == 0
    out.chmod(0o444)
    assert _one_case(box, out, capsys)[0] == 0  # up to date: nothing to replace
    _reseed(box)
    before = _snapshot(box)
    status, err = _one_case(box, out, capsys)
    assert status == 2 and f"{out} is read-only: refusing to replace it" in err
    assert _snapshot(box) == before and stat.S_IMODE(out.stat().st_mode) == 0o444
    _no_temporary_files(box)


def test_a_file_as_the_folder_for_all_cases_is_refused(box: Path, capsys: Capture) -> None:
    before = _snapshot(box)
    assert generate.main(["--manifest", str(box / "m.json"), "--out", str(box / "m.json")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert _snapshot(box) == before


def test_a_json_data_file_would_be_its_own_sidecar(box: Path, capsys: Capture) -> None:
    before = _snapshot(box)
    status, err = _one_case(box, box / "data.json", capsys)
    assert status == 2 and "may not end in .json" in err
    assert _snapshot(box) == before


def test_an_empty_out_is_a_usage_error(box: Path) -> None:
    before = _snapshot(box)
    result = subprocess.run(
        [sys.executable, "-m", "datasets.generate", "--manifest", str(box / "m.json"), "--out", ""],
        cwd=box,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "argument --out: must not be empty" in result.stderr
    assert _snapshot(box) == before


@pytest.mark.parametrize("name", ["../../x", "../sibling", "/tmp/x", "a/b", ".hidden"])
def test_a_case_name_never_writes_outside_out(box: Path, capsys: Capture, name: str) -> None:
    bad = {**MANIFEST, "cases": [{**MANIFEST["cases"][0], "name": name}]}
    (box / "m.json").write_text(json.dumps(bad))
    (box / "deep" / "out").mkdir(parents=True)
    before = _snapshot(box)
    assert generate.main(["--manifest", str(box / "m.json"), "--out", str(box / "deep/out")]) == 2
    assert "field 'name': must be a name" in capsys.readouterr().err
    assert _snapshot(box) == before


def _reseed(box: Path) -> None:
    """The manifest's case u with another seed: its file is no longer up to date."""
    other = {**MANIFEST, "cases": [{**MANIFEST["cases"][0], "seed": 2}]}
    (box / "m.json").write_text(json.dumps(other))


def test_written_files_are_readable_and_replace_the_generator_s_own(
    box: Path, capsys: Capture
) -> None:
    out = box / "data.bin"
    assert _one_case(box, out, capsys)[0] == 0
    first = out.read_bytes()
    _reseed(box)
    status, _ = _one_case(box, out, capsys)
    assert status == 0 and out.stat().st_size == 4000 and out.read_bytes() != first
    mode = stat.S_IMODE(out.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # not mkstemp's 0600: the sandboxed tests read it
    assert (box / "sibling.txt").read_text() == "keep"
    _no_temporary_files(box)


@pytest.mark.parametrize(
    "data, sidecar, message",
    [
        ("notes\n", None, "n.txt exists and datasets.generate did not write it (no n.json"),
        ("notes\n", "{}", "n.json exists and is not a sidecar datasets.generate wrote"),
        (None, '{"my": "settings"}', "n.json exists and is not a sidecar datasets.generate"),
        (None, "not json", "n.json exists and is not a sidecar datasets.generate wrote"),
    ],
)
def test_a_file_the_generator_did_not_write_is_refused(
    box: Path, capsys: Capture, data: str | None, sidecar: str | None, message: str
) -> None:
    """`echo notes > n.txt; ... --out n.txt` once replaced n.txt, and n.json beside it."""
    if data is not None:
        (box / "n.txt").write_text(data)
    if sidecar is not None:
        (box / "n.json").write_text(sidecar)
    before = _snapshot(box)
    status, err = _one_case(box, box / "n.txt", capsys)
    assert status == 2 and message in err
    assert _snapshot(box) == before
    _no_temporary_files(box)


def test_a_data_file_replaced_since_it_was_written_is_refused(box: Path, capsys: Capture) -> None:
    out = box / "data.bin"
    assert _one_case(box, out, capsys)[0] == 0
    out.write_text("my own notes\n")  # the sidecar still describes the generated data
    _reseed(box)
    before = _snapshot(box)
    status, err = _one_case(box, out, capsys)
    assert status == 2 and "data.bin holds 13 bytes, not the 4000 its sidecar data.json" in err
    assert _snapshot(box) == before


def test_a_case_file_the_generator_did_not_write_stops_the_folder(
    box: Path, capsys: Capture
) -> None:
    out = box / "out"
    out.mkdir()
    (out / "same.bin").write_text("mine")
    assert generate.main(["--manifest", str(box / "m.json"), "--out", str(out)]) == 2
    assert "same.bin exists and datasets.generate did not write it" in capsys.readouterr().err
    assert (out / "same.bin").read_text() == "mine"
