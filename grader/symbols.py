"""The symbol check of a submission's compiled object: it may define, visibly to
the linker, only the functions its lab's contract header declares.

A student who defines `cudaEventElapsedTime`, `harness::time_gpu` or any other
global function could replace the harness's code at link time. Helpers belong in
an anonymous namespace (or are `static`); nvcc's own registration symbols are
allowed. Needs `nm` (binutils), no GPU.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from grader.static_check import Finding, strip_comments

# Symbols nvcc and the C++ runtime emit in every CUDA object.
_GENERATED = re.compile(r"^(?:__device_stub|__cudaRegister|__cudaUnregister|__nv_|_GLOBAL__"
                        r"|__sti____cudaRegisterAll|__fatbinwrap|__cuda|DW\.ref\.__gxx_personality"
                        r"|__gxx_personality|typeinfo|vtable|guard variable)")
_WEAK_TYPES = set("WVu")
# Names no submission may define, even as a weak symbol or template instance.
_REPLACES = re.compile(r"^(?:cuda[A-Z]\w*|cu[A-Z]\w*|harness::|testing::|std::chrono"
                       r"|gettimeofday|clock_gettime|main)$")
_DECLARATION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?[;{]")
_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype",
             "static_assert", "defined", "__attribute__", "__declspec"}


@dataclass(frozen=True)
class Symbol:
    """One line of `nm -C --defined-only`."""

    kind: str
    name: str

    @property
    def is_global(self) -> bool:
        return self.kind.isupper() or self.kind == "u"

    @property
    def qualified_name(self) -> str:
        """`void lab5::matmul_tiled<16>(float...)` -> `lab5::matmul_tiled`."""
        head = _before_parameters(self.name)
        head = _drop_template_arguments(head).strip()
        return head.split()[-1] if head.split() else head


def _before_parameters(name: str) -> str:
    depth = 0
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0 and not name.startswith("(anonymous", i):
            return name[:i]
    return name


def _drop_template_arguments(name: str) -> str:
    out, depth = [], 0
    for c in name:
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def parse_nm(text: str) -> list[Symbol]:
    """Symbols from `nm -C --defined-only` output (`ADDR TYPE NAME` or `TYPE NAME`)."""
    symbols = []
    for line in text.splitlines():
        match = re.match(r"^\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z?])\s+(.+?)\s*$", line)
        if match:
            symbols.append(Symbol(match.group(1), match.group(2)))
    return symbols


def contract_names(header_text: str) -> set[str]:
    """Qualified names of the functions a contract header declares (`lab1::histogram_global`)."""
    code = strip_comments(header_text, blank_strings=True)
    namespace = re.search(r"\bnamespace\s+(\w+)\s*\{", code)
    prefix = f"{namespace.group(1)}::" if namespace else ""
    names = set()
    for match in _DECLARATION.finditer(code):
        name = match.group(1)
        if name not in _KEYWORDS and not code[:match.start()].rstrip().endswith(("#define", "::")):
            names.add(prefix + name)
    return names


def check_symbols(symbols: Iterable[Symbol], allowed: set[str], where: str,
                  contract: str) -> list[Finding]:
    """A finding for every linker-visible symbol outside the contract."""
    findings = []
    for symbol in symbols:
        name = symbol.qualified_name
        if not symbol.is_global or "(anonymous namespace)" in symbol.name:
            continue
        if _GENERATED.match(symbol.name) or _GENERATED.match(name):
            continue
        templated = "<" in _before_parameters(symbol.name)
        replaces = _REPLACES.match(name) and not (templated and symbol.kind in _WEAK_TYPES)
        if replaces or name.startswith(("harness::", "testing::", "std::chrono")):
            findings.append(Finding(where, 0, "replaces-symbol",
                                    f"defines {symbol.name}, a function of the CUDA runtime, "
                                    "the harness or the system: a submission may not replace it"))
        elif name in allowed:
            continue
        elif symbol.kind in _WEAK_TYPES:
            continue  # inline functions and template instances from headers
        else:
            findings.append(Finding(where, 0, "extra-symbol",
                                    f"defines {symbol.name} visibly to the linker, and {contract} "
                                    "declares no such function: put helpers in an anonymous "
                                    "namespace or make them static"))
    return findings


def impl_objects(build: Path, lab: str) -> list[Path]:
    """The object files of target `<lab>_impl` under a CMake build tree."""
    return sorted(p for d in build.rglob(f"{lab}_impl.dir") if d.is_dir()
                  for p in d.rglob("*.o"))


def run_nm(obj: Path) -> str:
    """`nm -C --defined-only OBJ`; raises OSError when nm is missing or fails."""
    nm = shutil.which("nm")
    if nm is None:
        raise OSError("nm not found on PATH (install binutils)")
    proc = subprocess.run([nm, "-C", "--defined-only", str(obj)], capture_output=True,
                          text=True, errors="replace", timeout=120, check=False)
    if proc.returncode != 0:
        raise OSError(f"nm {obj}: {proc.stderr.strip() or 'failed'}")
    return proc.stdout


def check_objects(build: Path, lab: str, contract_header: Path) -> list[Finding]:
    """Findings for every object of `<lab>_impl`, or one saying none was found."""
    objects = impl_objects(build, lab)
    if not objects:
        return [Finding(str(build), 0, "no-object",
                        f"no object files of target {lab}_impl under {build}: build it first")]
    allowed = contract_names(contract_header.read_text(encoding="utf-8", errors="replace"))
    findings = []
    for obj in objects:
        try:
            text = run_nm(obj)
        except (OSError, subprocess.TimeoutExpired) as exc:
            findings.append(Finding(str(obj), 0, "nm-failed", str(exc)))
            continue
        findings += check_symbols(parse_nm(text), allowed, str(obj), contract_header.name)
    return findings
