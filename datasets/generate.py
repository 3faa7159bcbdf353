"""Write a lab's dataset cases as raw little-endian binary files.

    python3 -m datasets.generate --manifest datasets/lab1.json --out build/datasets/lab1
    python3 -m datasets.generate --manifest datasets/lab1.json --case uniform_2p25 --out data.bin

The same manifest entry always gives the same bytes (numpy's PCG64 seeded with
the case's seed). A file already written for the same entry is kept, so running
the tests twice does not regenerate hundreds of megabytes.

The manifest is checked against datasets/schema.py first (one line naming the case,
the field and the rule; n at most 2^28). Each file is written through a uniquely named
temporary file beside it, flushed to disk and its size checked; the data file and its
sidecar are renamed into place only once both are whole, so a failure (a full disk)
keeps the old pair and exits 2. A target that exists and is not a regular file (a
folder, a device, a FIFO, a symlink), or is read-only, is refused, never replaced; so
is one the generator did not write: a data file without its sidecar, or a sidecar
(the data file's name ending in .json) that is not one of its own.

Hidden grading data: with an instructor's secret (the environment variable
LAB_SECRET_SEED, or --secret-file PATH kept outside the students' tree) each
case's seed becomes a hash of (secret, lab, case name, public seed). Sizes and
distributions stay those of the public manifest; the values differ. The sidecar
records a salted hash of the secret, never the secret itself.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    import numpy as np
    import numpy.typing as npt
except ImportError:  # a clear message instead of a traceback on a fresh machine
    sys.exit("datasets.generate: numpy is required: bash scripts/setup.sh installs it in .venv")

from datasets.distributions import DISTRIBUTIONS
from datasets.schema import SchemaError, validate_manifest

FORMAT_VERSION = 1
_STAMP_LIMIT = 1 << 16  # bytes of a sidecar read to recognise it
SECRET_ENV = "LAB_SECRET_SEED"
Manifest = dict[str, Any]


class GenerateError(Exception):
    """What the generator was asked to do cannot be done as asked: one line, exit 2."""


class ManifestError(GenerateError):
    """A manifest that cannot be used as written."""


def load_manifest(path: Path) -> Manifest:
    """The manifest at `path`, checked against datasets.schema."""
    try:
        text = path.read_bytes().decode("utf-8")
        doc = json.loads(text, parse_constant=_no_constant)
        return validate_manifest(doc)
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such manifest") from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"{path}: not UTF-8 text (byte {e.start}): not a manifest") from None
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not valid JSON: {e}") from None
    except SchemaError as e:
        raise ManifestError(f"{path}: {e}") from None
    except RecursionError:
        raise ManifestError(f"{path}: not valid JSON: nested too deeply") from None


def _no_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not a JSON number", name, 0)


def case_parameters(manifest: Manifest, case: dict[str, Any]) -> dict[str, Any]:
    """The case's entry with the manifest's defaults filled in."""
    return {**manifest.get("defaults", {}), **case}


def hidden_seed(secret: str, lab: str, case_name: str, seed: int) -> int:
    """The grading seed of a case: 64 bits of sha256(secret, lab, case, public seed)."""
    text = "\0".join(("cuda-labs hidden data", secret, lab, case_name, str(seed)))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def secret_digest(secret: str) -> str:
    """What a sidecar may say about the secret: a salted hash, enough to tell two apart."""
    return hashlib.sha256(f"cuda-labs secret digest\0{secret}".encode()).hexdigest()[:16]


def read_secret(secret_file: Path | None) -> str | None:
    """The secret from --secret-file, else $LAB_SECRET_SEED, else None (public data)."""
    if secret_file is not None:
        try:
            secret = secret_file.read_text(encoding="utf-8").strip()
        except UnicodeDecodeError:
            raise ManifestError(f"{secret_file}: the secret file is not UTF-8 text") from None
        if not secret:
            raise ManifestError(f"{secret_file}: the secret file is empty")
        return secret
    value = os.environ.get(SECRET_ENV)
    if value is not None and not value.strip():  # as an empty --secret-file: never public data
        raise GenerateError(f"${SECRET_ENV} is empty: unset it for public data, or give the secret")
    return value


def generate_case(
    manifest: Manifest, case: dict[str, Any], secret: str | None = None
) -> npt.NDArray[Any]:
    params = case_parameters(manifest, case)
    dtype = np.dtype(manifest["dtype"]).newbyteorder("<")
    seed = params["seed"]
    if secret is not None:
        seed = hidden_seed(secret, manifest["lab"], params["name"], seed)
    rng = np.random.default_rng(seed)
    values = DISTRIBUTIONS[params["distribution"]](rng, int(params["n"]), dtype, params)
    return values.astype(dtype, copy=False)


def check_target(path: Path) -> None:
    """Refuse a file target that exists and is not a regular file.

    Replacing it would destroy a device node, a FIFO or a folder, and a symlink
    would send the data somewhere --out does not name.
    """
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise GenerateError(
            f"{path} is a symlink: refusing to write through it; remove it or choose another --out"
        )
    if stat.S_ISDIR(mode):
        raise GenerateError(
            f"{path} is a folder, not a file: with --case, --out names the file to write"
        )
    if not stat.S_ISREG(mode):
        raise GenerateError(
            f"{path} exists and is not a regular file (a device, FIFO or "
            "socket): refusing to replace it"
        )


def check_replaceable(path: Path) -> None:
    """Refuse to replace a read-only file: renaming over it would succeed (the folder is
    writable) and drop the protection its owner gave it; root passes os.access."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise GenerateError(
            f"{path} is read-only: refusing to replace it; make it writable or choose another --out"
        )


def write_files(files: list[tuple[Path, bytes | memoryview]]) -> None:
    """Write each (path, data) through a uniquely named temporary file beside it, then
    rename them all over their targets.

    Nothing is renamed before every temporary file is whole on disk, so a failure
    (a full disk) leaves the old files, data and sidecar alike, as they were; the
    temporary files are removed whatever fails.
    """
    temporaries: list[str] = []
    path = files[0][0]
    try:
        for path, data in files:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            temporaries.append(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                # A buffered write can lose a full disk's error (numpy's tofile did), and
                # some file systems report it only at fsync: check what reached the disk.
                f.flush()
                os.fsync(f.fileno())
                written, size = os.fstat(f.fileno()).st_size, memoryview(data).nbytes
            if written != size:
                raise OSError(f"{written} of {size} bytes reached the disk")
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600: readable like any new file
        for (path, _), tmp in zip(files, temporaries, strict=True):
            os.replace(tmp, path)
    except OSError as exc:
        raise GenerateError(f"{path}: not written: {exc.strerror or exc}") from exc
    finally:
        for tmp in temporaries:  # those renamed are gone already
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _sidecar(out: Path) -> Path:
    return out.with_suffix(".json")


def _up_to_date(out: Path, stamp: dict[str, Any], itemsize: int) -> bool:
    """True when `out` and its sidecar were written for exactly this stamp."""
    try:
        return (
            out.is_file()
            and out.stat().st_size == int(stamp["n"]) * itemsize
            and json.loads(_sidecar(out).read_text(encoding="utf-8")) == stamp
        )
    except (OSError, ValueError):  # no sidecar, or one that is not ours: write again
        return False


def _stamp_size(stamp: Any) -> int | None:
    """The data file's size in bytes that a sidecar's stamp records; None when
    `stamp` is not a stamp the generator writes."""
    if not isinstance(stamp, dict) or stamp.get("format") != FORMAT_VERSION:
        return None
    try:
        return int(stamp["n"]) * np.dtype(stamp["dtype"]).itemsize
    except (KeyError, TypeError, ValueError):
        return None


def check_owned(out: Path) -> None:
    """Refuse to replace a file the generator did not write: its data files always
    have their sidecar beside them, which records their size."""
    sidecar = _sidecar(out)
    try:
        with sidecar.open("rb") as f:  # a stamp is a few hundred bytes; a user's file may be large
            size = _stamp_size(json.loads(f.read(_STAMP_LIMIT).decode("utf-8")))
    except FileNotFoundError:
        if out.exists():
            raise GenerateError(
                f"{out} exists and datasets.generate did not write it (no {sidecar.name} "
                "beside it): refusing to replace it; remove it or choose another --out"
            ) from None
        return
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON (or longer than a stamp)
        size = None
    if size is None:
        raise GenerateError(
            f"{sidecar} exists and is not a sidecar datasets.generate wrote: refusing to "
            "replace it; remove it or choose another --out"
        )
    if out.exists() and out.stat().st_size != size:
        raise GenerateError(
            f"{out} holds {out.stat().st_size} bytes, not the {size} its sidecar "
            f"{sidecar.name} records: datasets.generate did not write it; refusing to "
            "replace it; remove it or choose another --out"
        )


def write_case(
    manifest: Manifest, case: dict[str, Any], out: Path, secret: str | None = None
) -> bool:
    """Writes `out` (and a sidecar describing it); False when it was up to date."""
    stamp = {
        "format": FORMAT_VERSION,
        "dtype": manifest["dtype"],
        **case_parameters(manifest, case),
    }
    if secret is not None:
        stamp["hidden"] = secret_digest(secret)
    sidecar = _sidecar(out)
    if sidecar == out:
        raise GenerateError(f"{out}: a data file may not end in .json (its sidecar's name)")
    check_target(out)
    check_target(sidecar)
    if _up_to_date(out, stamp, np.dtype(manifest["dtype"]).itemsize):
        return False
    check_owned(out)
    check_replaceable(out)
    check_replaceable(sidecar)
    out.parent.mkdir(parents=True, exist_ok=True)
    values = np.ascontiguousarray(generate_case(manifest, case, secret))
    text = json.dumps(stamp, indent=1) + "\n"
    write_files([(out, values.data.cast("B")), (sidecar, text.encode("utf-8"))])
    return True


def _path_argument(text: str) -> Path:
    """An argparse type: a path, never the empty string (which Path reads as `.`)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return Path(text)


def _targets(
    manifest: Manifest, out: Path, case_name: str | None
) -> list[tuple[dict[str, Any], Path]]:
    """(case, file) for each case to write: one case to the file --out, or all into it."""
    cases = {c["name"]: c for c in manifest["cases"]}
    if case_name is not None:
        if case_name not in cases:
            raise ManifestError(f"unknown case {case_name!r}; known: {', '.join(cases)}")
        return [(cases[case_name], out)]
    if out.exists() and not out.is_dir():
        raise GenerateError(
            f"{out} exists and is not a folder: without --case, --out names "
            "the folder for all cases"
        )
    targets = [(c, out / f"{c['name']}.bin") for c in manifest["cases"]]
    for case, path in targets:  # the schema's names are file names; never write outside
        if path.parent != out or path.name != f"{case['name']}.bin":
            raise ManifestError(f"case {case['name']!r}: its file would be outside {out}")
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m datasets.generate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--manifest", type=_path_argument, required=True, help="datasets/labN.json")
    parser.add_argument(
        "--out",
        type=_path_argument,
        required=True,
        help="folder for all cases, or the file for one --case",
    )
    parser.add_argument("--case", help="write only this case, to the file --out")
    parser.add_argument(
        "--secret-file",
        type=_path_argument,
        help=f"hidden grading data from this secret (default: ${SECRET_ENV})",
    )
    args = parser.parse_args(argv)
    try:
        secret = read_secret(args.secret_file)
        manifest = load_manifest(args.manifest)
        for case, path in _targets(manifest, args.out, args.case):
            start = time.perf_counter()
            written = write_case(manifest, case, path, secret)
            state = f"written in {time.perf_counter() - start:.2f} s" if written else "up to date"
            if secret is not None:
                state += " (hidden data)"
            print(f"{manifest['lab']}: {path} ({case['n']} values): {state}")
    except (GenerateError, OSError) as e:
        print(f"datasets.generate: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # write_files puts only whole files in place: none is half-written
        print("datasets.generate: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
