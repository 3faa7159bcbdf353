"""Write a lab's dataset cases as raw little-endian binary files.

    python3 -m datasets.generate --manifest datasets/lab1.json --out build/datasets/lab1
    python3 -m datasets.generate --manifest datasets/lab1.json --case uniform_2p25 --out data.bin

The same manifest entry always gives the same bytes (numpy's PCG64 seeded with
the case's seed). A file already written for the same entry is kept, so running
the tests twice does not regenerate hundreds of megabytes.

Hidden grading data: with an instructor's secret (the environment variable
LAB_SECRET_SEED, or --secret-file PATH kept outside the students' tree) each
case's seed becomes a hash of (secret, lab, case name, public seed). Sizes and
distributions stay those of the public manifest; the values differ. The sidecar
records a salted hash of the secret, never the secret itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

try:
    import numpy as np
except ImportError:  # a clear message instead of a traceback on a fresh machine
    sys.exit("datasets.generate: numpy is required: pip install -r requirements.txt")

from datasets.distributions import DISTRIBUTIONS

FORMAT_VERSION = 1
SECRET_ENV = "LAB_SECRET_SEED"


class ManifestError(Exception):
    """A manifest that cannot be used as written."""


def load_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such manifest") from None
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not valid JSON: {e}") from None
    for key in ("lab", "dtype", "cases"):
        if key not in manifest:
            raise ManifestError(f"{path}: missing key '{key}'")
    for case in manifest["cases"]:
        if case.get("distribution") not in DISTRIBUTIONS:
            raise ManifestError(
                f"{path}: case {case.get('name')!r}: unknown distribution "
                f"{case.get('distribution')!r} (known: {', '.join(DISTRIBUTIONS)})"
            )
    return manifest


def case_parameters(manifest: dict, case: dict) -> dict:
    """The case's entry with the manifest's defaults filled in."""
    return {**manifest.get("defaults", {}), **case}


def hidden_seed(secret: str, lab: str, case_name: str, seed: int) -> int:
    """The grading seed of a case: 64 bits of sha256(secret, lab, case, public seed)."""
    text = "\0".join(("cuda-labs hidden data", secret, lab, case_name, str(seed)))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def secret_digest(secret: str) -> str:
    """What a sidecar may say about the secret: a salted hash, enough to tell two apart."""
    return hashlib.sha256(f"cuda-labs secret digest\0{secret}".encode("utf-8")).hexdigest()[:16]


def read_secret(secret_file: Path | None) -> str | None:
    """The secret from --secret-file, else $LAB_SECRET_SEED, else None (public data)."""
    if secret_file is not None:
        secret = secret_file.read_text(encoding="utf-8").strip()
        if not secret:
            raise ManifestError(f"{secret_file}: the secret file is empty")
        return secret
    return os.environ.get(SECRET_ENV) or None


def generate_case(manifest: dict, case: dict, secret: str | None = None) -> np.ndarray:
    params = case_parameters(manifest, case)
    dtype = np.dtype(manifest["dtype"]).newbyteorder("<")
    seed = params["seed"]
    if secret is not None:
        seed = hidden_seed(secret, manifest["lab"], params["name"], seed)
    rng = np.random.default_rng(seed)
    values = DISTRIBUTIONS[params["distribution"]](rng, int(params["n"]), dtype, params)
    return values.astype(dtype, copy=False)


def write_case(manifest: dict, case: dict, out: Path, secret: str | None = None) -> bool:
    """Writes `out` (and a sidecar describing it); False when it was up to date."""
    stamp = {"format": FORMAT_VERSION, "dtype": manifest["dtype"], **case_parameters(manifest, case)}
    if secret is not None:
        stamp["hidden"] = secret_digest(secret)
    sidecar = out.with_suffix(".json")
    itemsize = np.dtype(manifest["dtype"]).itemsize
    if (
        out.exists()
        and sidecar.exists()
        and out.stat().st_size == int(stamp["n"]) * itemsize
        and json.loads(sidecar.read_text()) == stamp
    ):
        return False
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    generate_case(manifest, case, secret).tofile(tmp)
    tmp.replace(out)  # never leave a half-written file under the real name
    sidecar.write_text(json.dumps(stamp, indent=1) + "\n")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m datasets.generate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, required=True, help="datasets/labN.json")
    parser.add_argument("--out", type=Path, required=True,
                        help="folder for all cases, or the file for one --case")
    parser.add_argument("--case", help="write only this case, to the file --out")
    parser.add_argument("--secret-file", type=Path,
                        help=f"hidden grading data from this secret (default: ${SECRET_ENV})")
    args = parser.parse_args(argv)
    try:
        secret = read_secret(args.secret_file)
        manifest = load_manifest(args.manifest)
        cases = {c["name"]: c for c in manifest["cases"]}
        if args.case:
            if args.case not in cases:
                raise ManifestError(f"unknown case {args.case!r}; known: {', '.join(cases)}")
            targets = [(cases[args.case], args.out)]
        else:
            targets = [(c, args.out / f"{c['name']}.bin") for c in manifest["cases"]]
        for case, path in targets:
            start = time.perf_counter()
            written = write_case(manifest, case, path, secret)
            state = f"written in {time.perf_counter() - start:.2f} s" if written else "up to date"
            if secret is not None:
                state += " (hidden data)"
            print(f"{manifest['lab']}: {path} ({case['n']} values): {state}")
    except (ManifestError, OSError) as e:
        print(f"datasets.generate: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
