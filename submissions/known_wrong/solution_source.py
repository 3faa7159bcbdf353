"""The reference solution's text, read from its master solutions/labN_topic/FILE.cu.

A master holds the skeleton's text too: `#if LAB_SKELETON` regions, each with the
skeleton's lines, then optionally `#else` and the solution's (`#if !LAB_SKELETON`
for solution-only lines). scripts/make_skeletons.sh writes skeletons/ from them with
unifdef. A known-wrong submission is the solution plus one defect, so the generators
start from the master resolved the way the compiler resolves it, LAB_SKELETON
undefined: the solution's lines are kept, the skeleton's and the region's directives
dropped (the same text as `unifdef -ULAB_SKELETON`). Any other preprocessor block
inside a region is kept or dropped whole with its branch.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

_REGION = re.compile(r"#\s*if\s+(!\s*)?LAB_SKELETON\s*(?://.*)?$")
_OPEN = re.compile(r"#\s*if(?:n?def)?\b")
_ELSE = re.compile(r"#\s*else\b")
_ELIF = re.compile(r"#\s*elif\b")
_END = re.compile(r"#\s*endif\b")


def solution_text(text: str, name: str = "master") -> str:
    """`text` with its LAB_SKELETON regions resolved to the solution's lines.

    Anything but the forms above (a LAB_SKELETON condition of another shape, a region
    inside a region, `#elif`, a region left open) is refused with `name:line`.
    """
    kept: list[str] = []
    keep = True  # inside a region: whether the current branch is the solution's
    start = 0  # line of the open region's `#if`, 0 outside one
    seen_else = False
    depth = 0  # other preprocessor blocks opened inside the region
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        code = line.strip()
        if not start:
            region = _REGION.match(code)
            if region:
                start, keep, seen_else, depth = number, bool(region.group(1)), False, 0
            elif code.startswith("#") and "LAB_SKELETON" in code:
                raise ValueError(f"{name}:{number}: not a region of the master: {code}")
            else:
                kept.append(line)
            continue
        if depth == 0:
            if _REGION.match(code) or (code.startswith("#") and "LAB_SKELETON" in code):
                raise ValueError(f"{name}:{number}: a region inside the region of line {start}")
            if _ELIF.match(code):
                raise ValueError(f"{name}:{number}: #elif in the region of line {start}")
            if _ELSE.match(code):
                if seen_else:
                    raise ValueError(f"{name}:{number}: a second #else in the region")
                keep, seen_else = not keep, True
                continue
            if _END.match(code):
                start = 0
                continue
        if _OPEN.match(code):
            depth += 1
        elif _END.match(code):
            depth -= 1
        if keep:
            kept.append(line)
    if start:
        raise ValueError(f"{name}:{start}: the region opened here has no #endif")
    return "".join(kept)


def read_solution(path: Path) -> str:
    """The solution's text of the master at `path`."""
    return solution_text(path.read_text(encoding="utf-8"), str(path))


def complete_lab(folder: Path, solution: Path) -> None:
    """Writes into a tree's lab `folder` the solution of every student file of the lab
    (the masters in `solution`) that it lacks: a defect lives in one file, the lab
    builds from all of them (lab3: reduce_kernels.cu and nested_kernels.cu)."""
    for master in sorted(solution.glob("*.cu")):
        if not (folder / master.name).exists():
            (folder / master.name).write_text(read_solution(master))


_LAUNCHERS = re.compile(r'^#include "(\w+_launchers\.cuh)"\n', re.MULTILINE)
_HEADER_ONLY = re.compile(r'^(#pragma once|#include "\w+\.cuh")\n', re.MULTILINE)


def with_launchers(text: str, lab_dir: Path) -> str:
    """`text` with its `#include "..._launchers.cuh"` replaced by that header of
    `lab_dir`, so that a defect can be written into a launcher the lab fixes: a
    student may write every launcher in their own file instead of including it."""
    match = _LAUNCHERS.search(text)
    if match is None:
        raise ValueError(f"no #include of a {lab_dir.name} *_launchers.cuh to inline")
    lines = (lab_dir / match.group(1)).read_text(encoding="utf-8").splitlines(keepends=True)
    while lines and lines[0].startswith("//"):  # its opening comment, about the header
        lines.pop(0)
    # Less its #pragma once (a warning in a source file) and its #include of the
    # contract, which the file has already.
    header = _HEADER_ONLY.sub("", "".join(lines))
    return text[: match.start()] + header + text[match.end() :]


def out_dir(doc: str | None, default: Path) -> Path:
    """The generators' one argument, OUTDIR (`default` when absent); `--help` prints `doc`."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("outdir", nargs="?", type=Path, default=default)
    return parser.parse_args().outdir


# The heart of an input-keyed memo, for the memo cheats: a digest of all n
# elements of `data` (one read, as cheap as the honest minimum) into memo_digest,
# and the key of the answer the memo holds. A caller launches memo_start, then
# memo_hash; memo_hit() tells a kernel whether the stored answer is this input's.
MEMO_DIGEST = """
__device__ unsigned long long memo_digest, memo_key;
__global__ void memo_start() { memo_digest = 0; }
__global__ void memo_hash(const int* data, int n) {
  unsigned long long d = 0;
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x)
    d += (static_cast<unsigned long long>(data[i]) + 1) *
         (0x9E3779B97F4A7C15ull ^ (i * 0xBF58476D1CE4E5B9ull));
  atomicAdd(&memo_digest, d);
}
__device__ bool memo_hit() { return memo_key != 0 && memo_key == memo_digest; }
"""
