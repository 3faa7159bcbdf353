"""What the device code in a compiled object holds, read with cuobjdump (and the
nvdisasm it runs for SASS): every function and symbol of its fatbinary's ELF images
and PTX, and the machine instructions of each function.

The object check judges these, never the source: an `asm("mma.sync ...")`, a WMMA
fragment or a library kernel all end up here, whatever macros spelled them. The
tools come from the CUDA toolkit that compiled the object (next to nvcc) or, where
that toolkit has none (CI's), from the `nvidia-cuda-cuobjdump` and
`nvidia-cuda-nvdisasm` wheels that pyproject.toml installs.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from grader.core.captured import run_captured
from grader.trust.object_facts import ToolError, demangle

_TOOL_TIMEOUT_S = 120
_NO_DEVICE_CODE = "does not contain device code"
# `/*0130*/  @!P0 HMMA.16816.F32 R16, ...`: the opcode, after any predicate.
_SASS = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.\w+)*)")
_SASS_FUNCTION = re.compile(r"^\s+Function : (\S+)")
# A row of `-symbols`: `FUNC  LOCAL  DEFAULT  ENTRY  name`.
_ELF_SYMBOL = re.compile(r"^(?:FUNC|OBJECT|NOTYPE)\s+\w+\s+\w+\s+\S+\s+(\S+)$")
_PTX_FUNCTION = re.compile(r"^(?:\.\w+\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)")
# A PTX instruction: an optional guard (`@%p1`, `@!%p1`), then the opcode's words.
_PTX = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\b")


@dataclass(frozen=True)
class DeviceFacts:
    """Every device function's name (mangled, demangled) and the instructions each
    holds: SASS opcodes (`HMMA.16816.F32`) and PTX ones (`mma.sync.aligned...`)."""

    names: tuple[tuple[str, str], ...] = ()
    sass: tuple[tuple[str, str], ...] = ()  # (function, opcode), one row per opcode met
    ptx: tuple[tuple[str, str], ...] = ()  # (function, instruction)


def _bundled(tool: str) -> Path | None:
    """`tool` from its PyPI wheel (`nvidia/cu13/bin/cuobjdump`), if installed."""
    try:
        files = metadata.files(f"nvidia-cuda-{tool}") or []
    except metadata.PackageNotFoundError:
        return None
    found = [f for f in files if f.name == tool and f.parent.name == "bin"]
    return Path(str(found[0].locate())) if found else None


@functools.cache
def device_tools() -> tuple[Path, Path]:
    """cuobjdump and the nvdisasm it needs for SASS: the toolkit's beside nvcc, else
    the wheels' (a toolkit may ship neither: CI's minimal one)."""
    nvcc = shutil.which("nvcc")
    found = []
    for tool in ("cuobjdump", "nvdisasm"):
        beside = Path(nvcc).resolve().parent / tool if nvcc else None
        path = beside if beside and beside.is_file() else _bundled(tool)
        if path is None or not os.access(path, os.X_OK):
            raise ToolError(
                f"{tool} not found beside nvcc or as the nvidia-cuda-{tool} wheel "
                "(bash scripts/setup.sh installs it)"
            )
        found.append(path)
    return found[0], found[1]


def parse_device(text: str) -> DeviceFacts:
    """`cuobjdump -symbols -sass -ptx` output."""
    names: dict[str, None] = {}
    sass: dict[tuple[str, str], None] = {}
    ptx: dict[tuple[str, str], None] = {}
    mode, function = "", ""
    for line in text.splitlines():
        if line.startswith("Fatbin "):
            mode, function = line.split()[1], ""
            continue
        if mode == "elf":
            if match := _SASS_FUNCTION.match(line):
                function = match[1]
                names[function] = None
            elif match := _SASS.match(line):
                sass[(function, match[1])] = None
            elif match := _ELF_SYMBOL.match(line.strip()):
                names.update(dict.fromkeys(n for n in match[1].split("$") if n))
        elif mode == "ptx":
            if match := _PTX_FUNCTION.match(line.strip()):
                function = match[1]
                names[function] = None
            elif function and (match := _PTX.match(line)):
                ptx[(function, match[1])] = None
    shown = demangle(list(names))
    return DeviceFacts(tuple(zip(names, shown)), tuple(sass), tuple(ptx))


def read_device(path: Path, instructions: bool = True) -> DeviceFacts:
    """The device code of one object (empty for an object without any); without
    `instructions`, its names and PTX only (SASS is most of the time: 9 s of Thrust's sort)."""
    cuobjdump, nvdisasm = device_tools()
    env = {**os.environ, "PATH": f"{nvdisasm.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    argv = [str(cuobjdump), "-symbols", "-ptx", *(["-sass"] * instructions), str(path)]
    try:
        proc = run_captured(argv, _TOOL_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"cuobjdump {path.name} did not finish") from exc
    if proc.returncode != 0:
        if _NO_DEVICE_CODE in proc.stderr:
            return DeviceFacts()
        raise ToolError(f"cuobjdump {path.name}: {proc.stderr.strip() or 'failed'}")
    return parse_device(proc.stdout)
