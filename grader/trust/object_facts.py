"""What a compiled object holds, read with binutils (readelf, objdump, c++filt).

The object check judges these facts, never the source: macros, token pasting,
aliases and assembler labels all end up here under their real names.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.captured import run_captured

_TOOL_TIMEOUT_S = 120
# An instruction's prefixes as objdump shows them (`ds`, `data16`, `rex.W`, `bnd`, ...).
_PREFIXES = r"(?:[a-z][\w.]*\s+)*?"
# Host instructions that enter the kernel directly, bypassing every import.
_OS_INSTRUCTION = re.compile(
    rf"^\s*[0-9a-f]+:\s+{_PREFIXES}(syscall|sysenter|int\s+\$?0x80)\b", re.M
)
_FUNCTION_LABEL = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_SECTION_HEADER = re.compile(r"^Disassembly of section (\S+):$")
# A call or jump to an address, or an address taken relative to the instruction
# (objdump's `# 1a0 <f>`); `objdump -r` lists the relocation that patches one on the
# next line, and then the address shown is only a placeholder.
_BRANCH = re.compile(
    rf"^\s*([0-9a-f]+):\s+(?:{_PREFIXES}(?:call|jmp|j[a-z]+|loop\w*|xbegin)\w*\s+"
    r"([0-9a-f]+)\s+<|.*#\s+([0-9a-f]+)\s+<)"
)
_PATCHED = re.compile(r"^\s+[0-9a-f]+: R_")
_INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(?!R_)\S")


@dataclass(frozen=True)
class ElfSymbol:
    """One row of the symbol table."""

    name: str  # as the linker sees it (mangled)
    demangled: str
    kind: str  # FUNC, OBJECT, NOTYPE, SECTION, FILE
    bind: str  # LOCAL, GLOBAL, WEAK, UNIQUE
    section: str  # the section's index, or UND / ABS / COM
    value: int
    size: int

    @property
    def defined(self) -> bool:
        return self.section != "UND"


@dataclass(frozen=True)
class Section:
    index: str
    name: str
    size: int
    flags: str  # readelf's letters: W write, A alloc, X execute, G group member


@dataclass(frozen=True)
class Relocation:
    """A reference from `section` at `offset` to `target` (a symbol or a section)."""

    section: str  # the section the reference sits in (".init_array", ".text", ...)
    offset: int
    target: str  # mangled symbol name, or a section name for section-relative ones
    addend: int
    kind: str = ""  # R_X86_64_PLT32, R_X86_64_64, ...


@dataclass(frozen=True)
class Branch:
    """A direct call or jump in host code, or an address it takes relative to itself,
    that the assembler resolved: where it sits and where it goes (section offsets)."""

    section: str
    address: int
    target: int


@dataclass(frozen=True)
class ObjectFacts:
    path: Path
    symbols: tuple[ElfSymbol, ...]
    sections: tuple[Section, ...]
    relocations: tuple[Relocation, ...]
    os_instructions: tuple[tuple[str, str], ...]  # (function, instruction)
    branches: tuple[Branch, ...] = ()
    # Where each instruction starts, by section, as objdump decoded the code.
    instruction_starts: dict[str, frozenset[int]] = field(default_factory=dict)

    def section_named(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def section_by_index(self, index: str) -> Section | None:
        return next((s for s in self.sections if s.index == index), None)

    def functions_at(self, section: str, offset: int) -> tuple[ElfSymbol, ...]:
        """Every function whose body holds `offset` in the section named `section`, and
        every other function symbol at the same address (an alias, whatever its size): a
        reference there belongs to each of them."""
        target = self.section_named(section)
        if target is None:
            return ()
        functions = [s for s in self.symbols if s.kind == "FUNC" and s.section == target.index]
        starts = {s.value for s in functions if s.value <= offset < s.value + max(s.size, 1)}
        return tuple(s for s in functions if s.value in starts)


class ToolError(OSError):
    """A binutils program is missing or failed on the object."""


def _run(tool: str, *args: str, stdin: str | None = None) -> str:
    path = shutil.which(tool)
    if path is None:
        raise ToolError(f"{tool} not found on PATH (install binutils)")
    try:
        proc = run_captured([path, *args], _TOOL_TIMEOUT_S, input=stdin)
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"{tool} {' '.join(args)} did not finish") from exc
    if proc.returncode != 0:
        raise ToolError(f"{tool} {' '.join(args)}: {proc.stderr.strip() or 'failed'}")
    return proc.stdout


@functools.cache
def libstdcxx_exports() -> frozenset[str]:
    """The symbols the C++ library that nvcc's host compiler links (libstdc++.so)
    defines for every program: its extern templates' members among them."""
    library = _run("g++", "-print-file-name=libstdc++.so").strip()
    rows = _run("nm", "-D", "--defined-only", library).splitlines()
    return frozenset(row.split()[-1].split("@")[0] for row in rows if row.strip())


def demangle(names: list[str]) -> list[str]:
    """c++filt over every name at once (one process per object, not per symbol)."""
    if not names:
        return []
    out = _run("c++filt", stdin="\n".join(names) + "\n").split("\n")
    return out[: len(names)] if len(out) >= len(names) else names


def parse_symbols(text: str) -> list[tuple[str, str, str, str, int, int]]:
    """`readelf -s -W` rows: (name, type, bind, ndx, value, size)."""
    rows = []
    for line in text.splitlines():
        parts = line.split(None, 7)
        if len(parts) < 8 or not parts[0].endswith(":") or not parts[0][:-1].isdigit():
            continue
        _, value, size, kind, bind, _vis, ndx, name = parts
        size_value = int(size, 16) if size.startswith("0x") else int(size)
        rows.append((name.strip(), kind, bind, ndx, int(value, 16), size_value))
    return rows


def parse_sections(text: str) -> list[Section]:
    """`readelf -S -W` rows."""
    sections = []
    pattern = re.compile(
        r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)"
        r"\s+[0-9a-f]+\s+([A-Za-z]*)\s"
    )
    for line in text.splitlines():
        match = pattern.match(line)
        if match:
            index, name, size, flags = match.groups()
            sections.append(Section(index, name, int(size, 16), flags))
    return sections


def _under_headers(
    text: str, header: re.Pattern[str], row: re.Pattern[str], first: str
) -> Iterator[tuple[str, re.Match[str]]]:
    """Each line matching `row`, with the first group of the last line above it that
    matched `header` (`first` before any): the section or function a row belongs to."""
    current = first
    for line in text.splitlines():
        match = header.match(line)
        if match:
            current = match.group(1)
        elif match := row.match(line):
            yield current, match


def parse_relocations(text: str) -> list[Relocation]:
    """`readelf -r -W` rows, each tagged with the section it patches."""
    header = re.compile(r"^Relocation section '\.rela?(\.[^']+)'")
    row = re.compile(r"^([0-9a-f]+)\s+[0-9a-f]+\s+(\S+)\s+[0-9a-f]+\s+(\S+)\s*([+-])\s*([0-9a-f]+)")
    return [
        Relocation(section, int(m[1], 16), m[3], int(m[5], 16) * (-1 if m[4] == "-" else 1), m[2])
        for section, m in _under_headers(text, header, row, "")
        if section
    ]


def parse_os_instructions(text: str) -> list[tuple[str, str]]:
    """(function, instruction) for every syscall-like instruction in `objdump -d` output."""
    return [(f, m[1]) for f, m in _under_headers(text, _FUNCTION_LABEL, _OS_INSTRUCTION, "?")]


def parse_instruction_starts(text: str) -> dict[str, frozenset[int]]:
    """Each section's instruction addresses in `objdump -d` output."""
    starts: dict[str, set[int]] = {}
    for section, m in _under_headers(text, _SECTION_HEADER, _INSTRUCTION, ""):
        starts.setdefault(section, set()).add(int(m[1], 16))
    return {section: frozenset(found) for section, found in starts.items()}


def parse_branches(text: str) -> list[Branch]:
    """Every resolved branch and address in `objdump -d -r` output, with its section:
    one that a relocation patches is that relocation's, not the placeholder's."""
    branches: list[Branch] = []
    section, pending = "", None
    for line in text.splitlines():
        if _PATCHED.match(line):
            pending = None
            continue
        if pending is not None:
            branches.append(pending)
        header, match = _SECTION_HEADER.match(line), _BRANCH.match(line)
        section = header[1] if header else section
        pending = None
        if match and section:
            pending = Branch(section, int(match[1], 16), int(match[2] or match[3], 16))
    return branches + ([pending] if pending is not None else [])


def parse_hex_dump(text: str) -> bytes:
    """The bytes of `readelf -x` output."""
    out = bytearray()
    for line in text.splitlines():
        match = re.match(r"^\s+0x[0-9a-f]+ ((?:[0-9a-f]{2,8} ){1,4})", line)
        if match:
            out += bytes.fromhex(match.group(1).replace(" ", ""))
    return bytes(out)


def section_bytes(path: Path, index: str) -> bytes:
    """The contents of section `index` of the object (empty for one without, .bss)."""
    return parse_hex_dump(_run("readelf", "-x", index, str(path)))


def read_object(path: Path) -> ObjectFacts:
    """Everything the object check needs from one object file."""
    raw = parse_symbols(_run("readelf", "-s", "-W", str(path)))
    names = demangle([row[0] for row in raw])
    symbols = tuple(
        ElfSymbol(name, shown, kind, bind, ndx, value, size)
        for (name, kind, bind, ndx, value, size), shown in zip(raw, names)
    )
    sections = tuple(parse_sections(_run("readelf", "-S", "-W", str(path))))
    relocations = tuple(parse_relocations(_run("readelf", "-r", "-W", str(path))))
    disassembly = _run("objdump", "-d", "-r", "-C", "--no-show-raw-insn", str(path))
    libstdcxx_exports()  # what check_definitions compares with: a missing tool fails here
    return ObjectFacts(
        path,
        symbols,
        sections,
        relocations,
        tuple(parse_os_instructions(disassembly)),
        tuple(parse_branches(disassembly)),
        parse_instruction_starts(disassembly),
    )
