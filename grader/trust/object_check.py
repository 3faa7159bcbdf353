"""The object check: what a student's compiled objects import, define, run before
`main`, include and execute, judged against the lab's contract.

This is the defence the source check cannot be: whatever macros, aliases,
token pasting or assembler labels a submission uses, the linker sees these
names. Every grading path (`grade`, `batch`, `check`) runs it on the objects of
each lab's `labN_impl` target before any test. Needs binutils (and Ninja's
dependency log for the include check), no GPU.

A student file that the lab's `lab.json` lets use a library (`objects.libraries`,
grader/core/lab_file.py) may hold that library's code as its headers' weak
instances and the imports and startup its allowance names, in its own object
only; no student object may define a symbol that an object of the lab's harness
defines, unless it is the same header instance, byte for byte.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.core.captured import run_captured
from grader.core.lab_file import library_files, read_lab_file
from grader.trust import object_rules as rules
from grader.trust.device_facts import DeviceFacts, read_device
from grader.trust.object_facts import (
    ElfSymbol,
    ObjectFacts,
    Relocation,
    Section,
    ToolError,
    libstdcxx_exports,
    read_object,
    section_bytes,
)
from grader.trust.static_check import SOURCE_SUFFIXES, Finding, strip_comments

_DECLARATION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?[;{]")
_KEYWORDS = {
    "if",
    "for",
    "while",
    "switch",
    "return",
    "sizeof",
    "alignof",
    "decltype",
    "static_assert",
    "defined",
    "__attribute__",
    "__declspec",
}
# (rule, reason): what each object rule finds, which check_facts places in the object.
Refusal = tuple[str, str]
_ANONYMOUS = "_GLOBAL__N_"
_STUB = "__device_stub_"


@dataclass(frozen=True)
class LibraryAllowance:
    """What one student file may hold of a library (`objects.libraries` in lab.json)."""

    use: frozenset[str]  # the libraries' namespaces (`thrust`, `cub`)
    imports: tuple[str, ...] = ()  # extra allowed imports of that file (regexes)
    startup: frozenset[str] = frozenset()  # what its one static initialiser may refer to
    # the contract functions the file may define (the library serves those alone)
    functions: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ObjectPolicy:
    """One lab's rules: its contract and what its `lab.json` adds."""

    lab: str
    contract: frozenset[str]  # qualified names (`lab3::reduce_shuffle`)
    contract_header: str
    imports: tuple[str, ...] = ()  # extra allowed imports (mangled names, regexes)
    # symbol -> the only functions that may refer to it (`only_in` in lab.json)
    only_in: dict[str, tuple[str, ...]] = field(default_factory=dict)
    student_files: tuple[str, ...] = ()  # basenames: whose anonymous namespaces are the student's
    relocatable: tuple[str, ...] = ()  # basenames compiled with -rdc (`relocatable` in lab.json)
    libraries: dict[str, LibraryAllowance] = field(default_factory=dict)  # basename -> allowance
    # contract functions the lab compiles from its own copy (`objects.fixed`'s files)
    fixed: frozenset[str] = frozenset()
    # device instruction classes refused (`objects.device.forbid`), and why
    device_forbid: tuple[str, ...] = ()
    device_why: str = ""

    def allows_import(self, name: str, source: str = "") -> bool:
        """Whether the object of student file `source` may import `name`."""
        if rules.ALLOWED_IMPORT_PATTERN.fullmatch(name):
            return True
        allowance = self.libraries.get(source)
        extra = self.imports + (allowance.imports if allowance else ())
        return any(re.fullmatch(p, name) for p in extra)


def contract_names(header_text: str) -> set[str]:
    """Qualified names of the functions a contract header declares (`lab1::histogram_global`)."""
    code = strip_comments(header_text, blank_strings=True)
    namespace = re.search(r"\bnamespace\s+(\w+)\s*\{", code)
    prefix = f"{namespace.group(1)}::" if namespace else ""
    names = set()
    for match in _DECLARATION.finditer(code):
        name = match.group(1)
        if name not in _KEYWORDS and not code[: match.start()].rstrip().endswith(("#define", "::")):
            names.add(prefix + name)
    return names


def load_object_policy(lab: str, lab_dir: Path, student_files: Iterable[str] = ()) -> ObjectPolicy:
    """The lab's contract header (`labs/labN_*/*.cuh`) and its `lab.json` "objects"."""
    headers = sorted(lab_dir.glob("*.cuh"))
    if not headers:
        raise FileNotFoundError(f"no contract header {lab_dir}/*.cuh")
    contract = frozenset(contract_names(headers[0].read_text(encoding="utf-8", errors="replace")))
    extra: dict[str, Any] = (read_lab_file(lab_dir) or {}).get("objects", {})
    only_in = {str(k): tuple(str(f) for f in v) for k, v in extra.get("only_in", {}).items()}
    libraries = {
        str(name): LibraryAllowance(
            frozenset(str(u) for u in entry.get("use", ())),
            tuple(str(p) for group in entry.get("imports", {}).values() for p in group),
            frozenset(str(s) for s in entry.get("startup", ())),
            frozenset(str(f) for f in entry.get("functions", ())),
        )
        for name, entry in library_files(lab_dir).items()
    }
    # What the lab's own launcher files define of the contract: the student may not.
    fixed: set[str] = set()
    for name in extra.get("fixed", ()):
        text = (lab_dir / str(name)).read_text(encoding="utf-8", errors="replace")
        fixed |= contract & contract_names(text)
    device = extra.get("device", {})
    unknown = set(device.get("forbid", ())) - set(rules.DEVICE_CLASSES)
    if unknown:
        raise ValueError(f"{lab_dir}/lab.json: objects.device.forbid: unknown {sorted(unknown)}")
    return ObjectPolicy(
        lab,
        contract,
        headers[0].name,
        tuple(extra.get("imports", ())),
        only_in,
        tuple(student_files),
        tuple(str(f) for f in extra.get("relocatable", ())),
        libraries,
        frozenset(fixed),
        tuple(str(c) for c in device.get("forbid", ())),
        str(device.get("why", "")),
    )


def qualified_name(demangled: str) -> str:
    """`void lab5::matmul_tiled<16>(float...)` -> `lab5::matmul_tiled`."""
    # The name ends at the first `(` outside template arguments; those are left out.
    out, depth, head = [], 0, demangled
    for i, c in enumerate(demangled):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and c == "(" and not demangled.startswith("(anonymous", i):
            head = demangled[:i]
            break
        elif depth == 0:
            out.append(c)
    words = "".join(out).split()
    return words[-1] if words else head


def _own_anonymous(name: str, policy: ObjectPolicy) -> bool:
    """An anonymous-namespace name of the student's own file: nvcc spells its
    namespace `_GLOBAL__N__<hash>_<len>_<file>_cu_<hash>`, gcc `_GLOBAL__N_1`
    (local anyway). Another file's anonymous names could be spelled by hand."""
    if _ANONYMOUS not in name:
        return False
    if f"{_ANONYMOUS}1" in name:
        return True
    spelled = [re.sub(r"\W", "_", f) for f in policy.student_files]
    return any(
        re.search(rf"{_ANONYMOUS}_[0-9a-f]+_\d+_{re.escape(s)}_[0-9a-f]+", name) for s in spelled
    )


def _comdat_instance(symbol: ElfSymbol, facts: ObjectFacts) -> bool:
    """Weak (or unique) in a COMDAT group: how headers' inline functions and
    template instances are emitted, one copy kept by the linker."""
    section = facts.section_by_index(symbol.section)
    return symbol.bind in ("WEAK", "UNIQUE") and section is not None and "G" in section.flags


def check_definitions(facts: ObjectFacts, policy: ObjectPolicy) -> list[Refusal]:
    """Every symbol the object offers the linker must be the contract's, the
    student's own anonymous helpers, or a header's inline/template instance."""
    findings = []
    for symbol in facts.symbols:
        if not _offered(symbol):
            continue
        name = symbol.name[len(_STUB) :] if symbol.name.startswith(_STUB) else symbol.name
        qualified = qualified_name(symbol.demangled)
        if name.startswith("DW.ref.") or _own_anonymous(name, policy):  # DW.ref: unwind data
            continue
        templated = "<" in symbol.demangled.split("(")[0]
        header_instance = name.startswith("_Z") and _comdat_instance(symbol, facts)
        if (
            rules.RESERVED_DEFINITION.match(qualified)
            and not (templated and header_instance and qualified.startswith("cuda"))
        ) or rules.RESERVED_TYPE.search(symbol.demangled):
            rule, reason = (
                "replaces-symbol",
                f"defines {symbol.demangled}, a function of the CUDA runtime, "
                "the harness, the test framework or the system: a submission "
                "may not replace it; remove that definition",
            )
        elif qualified in policy.fixed:
            rule, reason = (
                "fixed-symbol",
                f"defines {symbol.demangled[:160]}, which the lab compiles from its own copy "
                "(objects.fixed in its lab.json): leave it out and define the kernels it launches",
            )
        elif qualified in policy.contract and not _outside_allowance(qualified, policy, facts):
            continue
        elif qualified in policy.contract:
            allowance = policy.libraries[_source(facts)]
            rule, reason = (
                "library-code",
                f"defines {qualified} in {_source(facts)}, the file whose library allowance "
                f"serves {', '.join(sorted(allowance.functions))} alone: move it to another file",
            )
        elif name in libstdcxx_exports():
            rule, reason = (
                "replaces-symbol",
                f"defines {symbol.demangled[:160]}, which the C++ library defines for "
                "every program (the harness's and GoogleTest's calls would reach this "
                "copy instead): remove that definition",
            )
        elif header_instance and not qualified.startswith(f"{policy.lab}::"):
            continue  # inline functions and template instances from headers
        else:
            rule, reason = (
                "extra-symbol",
                f"defines {symbol.demangled} visibly to the linker, and "
                f"{policy.contract_header} declares no such function: put "
                "helpers in an anonymous namespace or make them static",
            )
        findings.append((rule, reason))
    return findings


def _source(facts: ObjectFacts) -> str:
    return facts.path.name.removesuffix(".o")


def _outside_allowance(qualified: str, policy: ObjectPolicy, facts: ObjectFacts) -> bool:
    """A contract function in a library's file that its allowance does not list."""
    allowance = policy.libraries.get(_source(facts))
    return allowance is not None and qualified not in allowance.functions


def check_device(device: DeviceFacts, policy: ObjectPolicy, source: str) -> list[Refusal]:
    """The object's device code: no instruction of a class the lab forbids (its SASS
    or its PTX), no library function or kernel (by name) outside a library allowance."""
    findings: list[Refusal] = []
    for forbidden in policy.device_forbid:
        sass, ptx, what = rules.DEVICE_CLASSES[forbidden]
        shown = dict(device.names)
        hit = next(
            ((f, i) for f, i in device.sass if sass.fullmatch(i)),
            next(((f, i) for f, i in device.ptx if ptx.fullmatch(i)), None),
        )
        if hit is not None:
            function, instruction = hit
            findings.append(
                (
                    "device-instruction",
                    f"{shown.get(function, function)[:160]} executes {instruction}, {what}: "
                    f"{policy.device_why or 'the lab forbids it'}",
                )
            )
    allowance = policy.libraries.get(source)
    for name, demangled in device.names:
        # nvcc names a file's internal device variables `_INTERNAL_<hash>_<file>::cub::...`
        bare = re.sub(r"^_INTERNAL_\w+::", "", demangled)
        match = rules.LIBRARY_SYMBOL.search(bare) or rules.LIBRARY_SYMBOL.search(name)
        library = next((g for g in match.groups() if g), None) if match else None
        if library and not (allowance and library in allowance.use):
            findings.append(
                (
                    "library-code",
                    f"its device code holds {demangled[:160]}, code of a library that computes "
                    "the answer for you (CUB, Thrust, CUTLASS): write the kernel yourself",
                )
            )
            break
    return findings


def check_imports(facts: ObjectFacts, policy: ObjectPolicy, source: str = "") -> list[Refusal]:
    """Every symbol the object (of student file `source`) needs from elsewhere
    must be on the allowlist."""
    findings = []
    seen = set()
    allowance = policy.libraries.get(source)
    startup = allowance.startup if allowance else frozenset()  # judged by check_startup
    for symbol in facts.symbols:
        if symbol.defined or not symbol.name or symbol.name in seen:
            continue
        seen.add(symbol.name)
        if symbol.name in startup or policy.allows_import(symbol.name, source):
            continue
        what, fix = (
            "is not among the calls this lab allows",
            (
                f"use only the runtime calls the contract allows (labs/{policy.lab}_*/lab.json "
                "and grader/trust/object_rules.py list them)"
            ),
        )
        for pattern, reason, remedy in rules.REFUSED_IMPORT_PATTERNS:
            if pattern.fullmatch(symbol.name):
                what, fix = reason, remedy
                break
        findings.append(("forbidden-import", f"uses {symbol.demangled}, which {what}: {fix}"))
    return findings


def library_of(symbol: ElfSymbol) -> str | None:
    """The library (`thrust`, `cub`, ...) whose code the symbol names, if any."""
    for text in (symbol.demangled, symbol.name):
        match = rules.LIBRARY_SYMBOL.search(text)
        if match:
            return next(g for g in match.groups() if g)
    return None


def _library_misuse(symbol: ElfSymbol, facts: ObjectFacts) -> str | None:
    """Why an allowed library's symbol is still refused: only its headers' own
    instances (local, or weak in a COMDAT group) may be in the object."""
    if not symbol.defined:
        return "refers to {}, which it does not define: that would run another object's copy"
    if symbol.bind == "LOCAL" or _comdat_instance(symbol, facts):
        return None
    return (
        "defines {} strongly, not as the library's headers do (a weak template or inline "
        "instance): a strong definition replaces the library's code everywhere it is linked"
    )


def check_libraries(facts: ObjectFacts, allowance: LibraryAllowance | None = None) -> list[Refusal]:
    """Any symbol of CUB, Thrust or CUTLASS in the object, however it was reached;
    with an allowance, its libraries' header instances are allowed."""
    for symbol in facts.symbols:
        library = library_of(symbol)
        if library is None:
            continue
        if allowance is not None and library in allowance.use:
            misuse = _library_misuse(symbol, facts)
            if misuse is None:
                continue
            reason = (
                misuse.format(symbol.demangled[:160]) + f"; use {library} through its headers only"
            )
        else:
            reason = (
                f"contains {symbol.demangled[:160]}, code of a library that computes "
                "the answer for you (CUB, Thrust, CUTLASS): write the kernel yourself"
            )
        return [("library-code", reason)]
    return []


def _startup_allowed(function: ElfSymbol, facts: ObjectFacts, names: frozenset[str]) -> bool:
    """Whether a static initialiser refers to nothing but `names` and one place of
    its object's zeroed data (<iostream>'s object), and calls only through those."""
    section = facts.section_by_index(function.section)
    if section is None or not names:
        return False
    start, end = function.value, function.value + function.size
    inside = [r for r in facts.relocations if r.section == section.name and start <= r.offset < end]
    targets = [r.target for r in inside]
    branches_out = [
        b
        for b in facts.branches
        if b.section == section.name and start <= b.address < end and not start <= b.target <= end
    ]
    return (
        bool(set(targets) & names)
        and set(targets) <= names | {".bss"}
        and targets.count(".bss") <= 1
        and not branches_out
    )


def check_startup(facts: ObjectFacts, allowance: LibraryAllowance | None = None) -> list[Refusal]:
    """No code before `main` or after it, except nvcc's kernel registration (and
    the one initialiser an allowance's `startup` describes, whose names nothing
    else may refer to)."""
    findings: list[Refusal] = []

    def refuse(rule: str, reason: str) -> None:
        findings.append((rule, reason))

    allowed: tuple[ElfSymbol, ...] = ()
    for section in facts.sections:
        if section.name != ".init_array" and rules.STARTUP_SECTION.fullmatch(section.name):
            refuse(
                "constructor",
                f"has a {section.name} section: code that runs before or after main; "
                "a submission runs only when the harness calls it",
            )
    init = facts.section_named(".init_array")
    if init is not None:
        entries = [r for r in facts.relocations if r.section == ".init_array"]
        targets = []
        for entry in entries:
            functions = facts.functions_at(entry.target, entry.addend)
            if (
                functions
                and allowance
                and all(_startup_allowed(f, facts, allowance.startup) for f in functions)
                and not allowed  # one such initialiser: a second one is the student's
            ):
                allowed = functions
                continue
            # nvcc's only when every name at that address is nvcc's
            names = sorted({qualified_name(f.demangled) for f in functions}) or [entry.target]
            targets.append(" = ".join(names))
        # nvcc registers the kernels with exactly one entry; anything else is the student's.
        if rules.NVCC_REGISTRATION in targets:
            targets.remove(rules.NVCC_REGISTRATION)
        if targets or init.size != 8 * len(entries):
            shown = ", ".join(targets) or "entries without a relocation"
            refuse(
                "constructor",
                f"runs code before main ({shown}): a global object with a "
                "constructor, __attribute__((constructor)) or <iostream>; "
                "use plain data and printf",
            )
    # The names of that initialiser: also in the library's own instances (its
    # function-local statics' destructors), never in the student's functions.
    startup = allowance.startup if allowance else frozenset()
    use = allowance.use if allowance else frozenset()
    for name in sorted(startup):
        for ref in facts.relocations:
            if ref.target != name:
                continue
            functions = facts.functions_at(ref.section, ref.offset)
            others = [
                f
                for f in functions
                if f not in allowed
                and not (library_of(f) in use and _library_misuse(f, facts) is None)
            ]
            if functions and not others:
                continue
            place = others[0].demangled[:160] if others else f"section {ref.section}"
            refuse(
                "constructor",
                f"{place} refers to {name}, which only the "
                "library's code and the one static initialiser its lab allows "
                "(<iostream>'s) may: code that runs before or after main",
            )
            break
    for symbol in facts.symbols:
        if symbol.kind == "IFUNC":
            refuse(
                "constructor",
                f"makes {symbol.demangled[:160]} an indirect function (ifunc): its "
                "resolver runs while the program loads, before main",
            )
    for section in facts.sections:
        if "W" in section.flags and "X" in section.flags:
            refuse(
                "writable-code",
                f"section {section.name} is both writable and executable",
            )
    return findings


def check_aliases(facts: ObjectFacts) -> list[Refusal]:
    """No local second name for a function: a reference is charged to every name at
    its place, and no name but the function's own should be there. (A constructor's
    or destructor's complete and base symbols share one name: one function.)"""
    places: dict[tuple[str, int], list[ElfSymbol]] = {}
    for symbol in facts.symbols:
        if symbol.kind == "FUNC" and symbol.defined:
            places.setdefault((symbol.section, symbol.value), []).append(symbol)
    findings = []
    for symbols in places.values():
        names = sorted({qualified_name(s.demangled)[:160] for s in symbols})
        if len(names) > 1 and any(s.bind == "LOCAL" for s in symbols):
            findings.append(
                (
                    "local-alias",
                    f"gives one function the names {' and '.join(names)}, one of them "
                    "local (an assembler .set or __attribute__((alias)), or two identical "
                    "functions the compiler merged): write each function once, under its "
                    "own name",
                )
            )
    return findings


def check_instructions(facts: ObjectFacts) -> list[Refusal]:
    """No host instruction that calls the kernel without going through an import, and
    no jump into the middle of an instruction, where bytes that disassemble as one
    instruction (a `mov` whose immediate is 0f 05) run as another (`syscall`)."""
    findings: list[Refusal] = [
        (
            "syscall",
            f"{function} executes `{instruction}`, a direct system call: a submission "
            "asks the OS for nothing",
        )
        for function, instruction in facts.os_instructions
    ]
    for source, offset, _, section, target, relative in _references(facts):
        code = facts.section_named(section)
        if code is None or "X" not in code.flags or (relative and "X" not in source.flags):
            continue  # data, and jump tables (offsets, not addresses)
        if target < code.size and target not in facts.instruction_starts.get(section, ()):
            functions = facts.functions_at(source.name, offset)
            place = functions[0].demangled[:160] if functions else f"section {source.name}"
            findings.append(
                (
                    "syscall",
                    f"{place} points into the middle of an instruction ({section}+{target:#x}): "
                    "bytes that run as other instructions than the ones the code shows",
                )
            )
    return findings


def _reached(
    facts: ObjectFacts, relocation: Relocation, defined: dict[str, ElfSymbol]
) -> tuple[str, int, bool]:
    """The section and offset of the object's own code or data that a relocation points
    at ("" for another object's symbol): a symbol's or a section's address plus the
    addend; and whether the field is relative to its place (PC32, PLT32, ...), which
    in code counts from the field's end, 4 bytes on."""
    symbol = defined.get(relocation.target)
    section = facts.section_by_index(symbol.section) if symbol else None
    section = section or facts.section_named(relocation.target)
    source = facts.section_named(relocation.section)
    relative = re.search(r"PC|PLT", relocation.kind) is not None
    if section is None or source is None:
        return "", 0, relative
    offset = (symbol.value if symbol else 0) + relocation.addend
    return section.name, offset + 4 * (relative and "X" in source.flags), relative


def _references(facts: ObjectFacts) -> list[tuple[Section, int, str, str, int, bool]]:
    """Every reference of the object from a section the program loads, the unwind tables
    aside (they call nothing): where it sits (section, offset), the symbol it names (""
    for a jump the assembler resolved), and what `_reached` makes of it."""
    defined = {s.name: s for s in facts.symbols if s.defined and s.kind != "SECTION"}
    places = [
        (r.section, r.offset, r.target, *_reached(facts, r, defined)) for r in facts.relocations
    ]
    places += [(b.section, b.address, "", b.section, b.target, True) for b in facts.branches]
    return [
        (source, offset, named, section, target, relative)
        for where, offset, named, section, target, relative in places
        if where != ".eh_frame"
        and (source := facts.section_named(where)) is not None
        and "A" in source.flags
    ]


def check_only_in(facts: ObjectFacts, policy: ObjectPolicy) -> list[Refusal]:
    """Symbols the lab allows only inside named functions (lab4's copies to and
    from its symbol): any other reference, call or address taken, is refused.

    A reference counts for every function at its place, so an alias cannot take it
    from the function it sits in. A restricted function of the object is also reached
    through any other name or none: from code, anything into its body (an alias, an
    assembler-local label, a jump the assembler resolved); from data, an address into
    its body, or an offset relative to the data's place (a jump table's) to its start."""
    restricted = {}
    for symbol in facts.symbols:
        qualified = qualified_name(symbol.demangled)
        for key, owners in policy.only_in.items():
            if key in (symbol.name, qualified):
                restricted[symbol.name] = (key, owners)
    bodies = [
        (section.name, s.value, s.value + max(s.size, 1), restricted[s.name])
        for s in facts.symbols
        if s.name in restricted and s.defined and s.kind == "FUNC"
        for section in [facts.section_by_index(s.section)]
        if section is not None
    ]
    findings: list[Refusal] = []
    for source, offset, named, section, target, relative in _references(facts):
        anywhere = "X" in source.flags or not relative
        hit = restricted.get(named) or next(
            (
                r
                for name, a, b, r in bodies
                if name == section and (a <= target < b if anywhere else a == target)
            ),
            None,
        )
        if hit is None:
            continue
        key, owners = hit
        functions = facts.functions_at(source.name, offset)
        others = [f for f in functions if qualified_name(f.demangled) not in (*owners, key)]
        if functions and not others:
            continue
        place = f"in {others[0].demangled}" if others else f"from section {source.name}"
        refusal = (
            "restricted-use",
            f"refers to {key} {place}; the contract allows it only in "
            f"{', '.join(owners) or 'no function'}",
        )
        if refusal not in findings:
            findings.append(refusal)
    return findings


def _offered(symbol: ElfSymbol) -> bool:
    """A definition the linker sees from other objects."""
    return symbol.defined and symbol.bind != "LOCAL" and symbol.kind not in ("SECTION", "FILE")


def _own_data(facts: ObjectFacts, target: str) -> bool:
    """Whether a reference goes to the object's own data (a data section, or a local
    label in one, such as a string literal's `.LC3`), never to code."""
    section = facts.section_named(target)
    if section is None:
        local = next((s for s in facts.symbols if s.name == target and s.bind == "LOCAL"), None)
        if local is None or local.kind == "FUNC":
            return False
        section = facts.section_by_index(local.section)
    return section is not None and "X" not in section.flags


def _section_code(facts: ObjectFacts, index: str) -> tuple[bytes, list[tuple[int, str]]]:
    """A section's bytes and its references (offset, target); a reference to the
    object's own data is kept only as `data`: where each object puts its string
    literals, and what it names them, differs between objects."""
    section = facts.section_by_index(index)
    if section is None:
        return b"", []
    refs = [
        (r.offset, "data" if _own_data(facts, r.target) else r.target)
        for r in facts.relocations
        if r.section == section.name
    ]
    return section_bytes(facts.path, index), sorted(refs)


def _same_instance(
    ours: ElfSymbol, facts: ObjectFacts, theirs: ElfSymbol, other: ObjectFacts
) -> bool:
    """Both copies are one header's instance: weak in a COMDAT group, the same
    size, the same bytes and references (an explicit specialization is not)."""
    return (
        _comdat_instance(ours, facts)
        and _comdat_instance(theirs, other)
        and (ours.kind, ours.size) == (theirs.kind, theirs.size)
        and _section_code(facts, ours.section) == _section_code(other, theirs.section)
    )


def check_harness_symbols(facts: ObjectFacts, harness: Sequence[ObjectFacts]) -> list[Refusal]:
    """No symbol that an object of the lab's harness also defines, unless both are
    the same header instance: the linker keeps one copy for both, maybe the student's."""
    offered = {s.name: s for s in facts.symbols if _offered(s) and not s.name.startswith("DW.ref.")}
    findings = []
    for other in harness:
        for theirs in other.symbols:
            ours = offered.get(theirs.name)
            if ours is None or not _offered(theirs) or _same_instance(ours, facts, theirs, other):
                continue
            del offered[ours.name]
            findings.append(
                (
                    "harness-symbol",
                    f"defines {ours.demangled[:160]}, which the harness's "
                    f"{other.path.name.removesuffix('.o')} defines too, otherwise: the linker "
                    "keeps one copy for both, maybe this one; remove the definition or "
                    "specialization",
                )
            )
    return findings


def check_facts(
    facts: ObjectFacts,
    policy: ObjectPolicy,
    where: str,
    harness: Sequence[ObjectFacts] = (),
    device: DeviceFacts | None = None,
) -> list[Finding]:
    """Every object rule on one object (less nvcc's -rdc symbols in a relocatable file's),
    against the objects of the lab's harness that the build holds, and on its device code."""
    source = _source(facts)
    if source in policy.relocatable:
        abi = re.compile(rules.RDC_ABI.format(file=re.escape(re.sub(r"\W", "_", source))))
        facts = replace(facts, symbols=tuple(s for s in facts.symbols if not abi.fullmatch(s.name)))
    allowance = policy.libraries.get(source)
    found = (
        check_libraries(facts, allowance)
        + check_definitions(facts, policy)
        + check_imports(facts, policy, source)
        + check_startup(facts, allowance)
        + check_instructions(facts)
        + check_aliases(facts)
        + check_only_in(facts, policy)
        + check_harness_symbols(facts, harness)
        + (check_device(device, policy, source) if device is not None else [])
    )
    return [Finding(where, 0, rule, reason) for rule, reason in found]


def impl_objects(build: Path, lab: str) -> list[Path]:
    """The object files of targets `<lab>_impl` and `<lab>_impl_rdc` (the student's
    files compiled with relocatable device code) under a CMake build tree.

    A Ninja build names them in build.ninja, built or not (see `unbuilt_objects`), so
    a build folder reused for another submission never offers the last one's objects;
    other generators' are searched by folder."""
    ninja_file = build / "build.ninja"
    if ninja_file.is_file():
        rule = re.compile(rf"^build (\S+\.o): \w+_COMPILER__{re.escape(lab)}_impl_", re.M)
        text = ninja_file.read_text(encoding="utf-8", errors="replace")
        return sorted(build / m for m in rule.findall(text))
    dirs = [d for name in (f"{lab}_impl", f"{lab}_impl_rdc") for d in build.rglob(f"{name}.dir")]
    return sorted(p for d in dirs if d.is_dir() for p in d.rglob("*.o"))


def unbuilt_objects(build: Path, objects: Sequence[Path]) -> set[Path]:
    """Those of `objects` not compiled from their sources as they are now: missing, or
    out of date for Ninja (a compile that fails leaves the last object in place); all
    of them when Ninja cannot tell."""
    present = [p for p in objects if p.is_file()]
    ninja = shutil.which("ninja")
    if not present or ninja is None or not (build / "build.ninja").is_file():
        return set(objects) - set(present)
    names = {str(p.relative_to(build)): p for p in present}
    try:
        proc = run_captured([ninja, "-C", str(build), "-n", *names], 120)
    except (OSError, subprocess.TimeoutExpired):
        return set(objects)
    if proc.returncode != 0:
        return set(objects)
    stale = {names[w] for line in proc.stdout.splitlines() for w in line.split() if w in names}
    return set(objects) - set(present) | stale


def _compile_errors(log: str, build: Path, obj: Path) -> str:
    """The compiler's first lines on `obj` in a Ninja build's output: those after its
    `FAILED:` line and the command line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("FAILED:") and str(obj.relative_to(build)) in line.split():
            errors = []
            for text in lines[i + 2 :]:
                if re.match(r"\[\d+/\d+\]|FAILED:|ninja:", text):
                    break
                errors += [text[:300]] if text.strip() else []
            return "\n".join(errors[:8])
    return ""


def harness_objects(build: Path, lab: str, lab_dir: Path) -> list[Path]:
    """The objects of the lab's fixed parts (its harness, program and tests, and the
    common library) that `build` holds, or the build it links them from
    (LAB_PREBUILT): every object of the lab's folder but `<lab>_impl`'s."""
    trees = [build]
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cache = ""
    prebuilt = re.search(r"^LAB_PREBUILT:\w+=(.+)$", cache, re.M)
    if prebuilt:
        trees.append(Path(prebuilt.group(1).strip()))
    rule = re.compile(r"^build (\S+\.o): \w+_COMPILER__(\S+)", re.M)
    folders = (f"labs/{lab_dir.name}/", "labs/common/")
    found = []
    for tree in trees:
        ninja_file = tree / "build.ninja"
        if not ninja_file.is_file():
            continue
        text = ninja_file.read_text(encoding="utf-8", errors="replace")
        for path, target in rule.findall(text):
            if path.startswith(folders) and not target.startswith(f"{lab}_impl_"):
                if (tree / path).is_file():
                    found.append(tree / path)
    return sorted(found)


def included_files(build: Path, obj: Path) -> list[str] | None:
    """Every file the compiler read for `obj`, from Ninja's dependency log (None
    when the build is not a Ninja build or Ninja is missing)."""
    ninja = shutil.which("ninja")
    if ninja is None or not (build / "build.ninja").is_file():
        return None
    try:
        proc = run_captured(
            [ninja, "-C", str(build), "-t", "deps", str(obj.relative_to(build))], 60
        )
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0 or "#deps" not in proc.stdout:
        return None
    return [line.strip() for line in proc.stdout.splitlines()[1:] if line.strip()]


def system_include_dirs(build: Path) -> list[Path]:
    """The compiler's own header folders and the CUDA toolkit's, as CMake found
    them when it configured `build` (wherever the compiler lives: /usr/lib/gcc,
    /opt/gcc, ...); empty when the build has no such record."""
    dirs: list[Path] = []
    pattern = re.compile(
        r"^set\(CMAKE_(?:CUDA|CXX)_(?:IMPLICIT|TOOLKIT)_INCLUDE_DIRECTORIES"
        r' "([^"]*)"\)',
        re.M,
    )
    for record in sorted(build.glob("CMakeFiles/*/CMake*Compiler.cmake")):
        text = record.read_text(encoding="utf-8", errors="replace")
        for match in pattern.finditer(text):
            dirs += [Path(d).resolve() for d in match.group(1).split(";") if d]
    return sorted(set(dirs))


def check_includes(
    files: Iterable[str],
    lab_dir: Path,
    student_dir: Path,
    where: str,
    system_dirs: Sequence[Path] = (),
    libraries: frozenset[str] = frozenset(),
) -> list[Finding]:
    """The student may include standard and CUDA headers, the lab's contract
    header, and source files of their own lab folder: nothing of the harness,
    the datasets, the secret or another folder, whatever macro built the name.
    `libraries`: the library folders (`thrust`, `cub`) this object may include
    from the system's headers (its lab.json allowance)."""
    findings: list[Finding] = []
    contract = {p.resolve() for p in lab_dir.glob("*.cuh")}
    own = student_dir.resolve()
    harness_roots = [lab_dir.resolve().parent.parent]  # the repository
    for name in files:
        path = Path(name)
        if not path.is_absolute():
            continue  # Ninja's own paths (the object itself), relative to the build
        resolved = path.resolve()
        library = rules.LIBRARY_INCLUDE.search(str(resolved))
        if library and not (library.group(1) in libraries and _system(resolved, system_dirs)):
            if any(f.rule_id == "library-include" for f in findings):
                continue  # the first is the one the student wrote; the rest follow from it
            rule, reason = (
                "library-include",
                f"includes {resolved}, a library that computes the answer "
                "for you: write the kernel yourself",
            )
        elif resolved in contract:
            continue
        elif resolved.is_relative_to(own):
            if resolved.suffix.lower() in SOURCE_SUFFIXES:
                continue
            rule, reason = (
                "include-not-source",
                f"includes {resolved.name}, which is not a source file",
            )
        elif any(resolved.is_relative_to(root) for root in harness_roots) or not _system(
            resolved, system_dirs
        ):
            rule, reason = (
                "include-outside",
                f"includes {resolved}: a submission includes only standard "
                "and CUDA headers, its lab's contract header and its own "
                "source files",
            )
        else:
            continue
        findings.append(Finding(where, 0, rule, reason))
    return findings


def _system(path: Path, system_dirs: Sequence[Path]) -> bool:
    """Headers of the system, the compiler or the CUDA toolkit: the build's
    record of them, or the usual places."""
    if system_dirs:
        return any(path.is_relative_to(d) for d in system_dirs)
    text = str(path)
    return text.startswith(
        ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/", "/usr/lib/llvm")
    ) or bool(
        re.search(
            r"/cuda[\w.-]*/(targets/[^/]+/)?"
            r"include/",
            text,
        )
    )


def check_lab_objects(
    build: Path, policy: ObjectPolicy, lab_dir: Path, student_dir: Path | None, log: str = ""
) -> list[Finding]:
    """Findings for every object of `<lab>_impl` in `build` (a file whose object was not
    built from it as it is now did not compile: the build's `log` has the compiler's
    errors), or one saying none was built."""
    objects = impl_objects(build, policy.lab)
    if not objects:
        return [
            Finding(
                str(build),
                0,
                "no-object",
                f"no object files of target {policy.lab}_impl under {build}: it did not compile",
            )
        ]
    findings = []
    system_dirs = system_include_dirs(build)
    harness = []
    for path in harness_objects(build, policy.lab, lab_dir):
        try:
            harness.append(read_object(path))
        except ToolError as exc:
            findings.append(Finding(path.name, 0, "unreadable-object", str(exc)))
    unbuilt = unbuilt_objects(build, objects)
    for obj in objects:
        source = where = obj.name.removesuffix(".o")
        if student_dir is not None:
            source = f"{student_dir.name}/{source}"
            where = f"{source} (object)"
        if obj in unbuilt:
            errors = _compile_errors(log, build, obj) or (
                "no object was built from it as it is now (build the lab for the compiler's errors)"
            )
            findings.append(
                Finding(
                    source, 0, "does-not-compile", f"{Path(source).name} did not compile: {errors}"
                )
            )
            continue
        try:
            facts, device = read_object(obj), read_device(obj, bool(policy.device_forbid))
        except ToolError as exc:
            findings.append(Finding(where, 0, "unreadable-object", str(exc)))
            continue
        found = check_facts(facts, policy, where, harness, device)
        if student_dir is not None:
            files = included_files(build, obj)
            allowance = policy.libraries.get(obj.name.removesuffix(".o"))
            if files is not None:
                found += check_includes(
                    files,
                    lab_dir,
                    student_dir,
                    where,
                    system_dirs,
                    allowance.use if allowance else frozenset(),
                )
        findings += library_first(found)
    return findings


# A library in a file brings dozens of symbols and imports of its own: its finding
# says why first, and what merely comes with it is counted, not listed.
_LIBRARY_RULES = ("library-include", "library-code")
_FOLLOWS_LIBRARY = ("extra-symbol", "forbidden-import")
_KEPT_AFTER_LIBRARY = 3


def library_first(found: list[Finding]) -> list[Finding]:
    """One object's findings, those naming a library first; behind them at most a few
    of the symbols and imports a library brings, and a count of the rest."""
    library = [f for f in found if f.rule_id in _LIBRARY_RULES]
    if not library:
        return found
    others = [f for f in found if f.rule_id not in _LIBRARY_RULES]
    follows = [f for f in others if f.rule_id in _FOLLOWS_LIBRARY]
    rest = [f for f in others if f.rule_id not in _FOLLOWS_LIBRARY]
    kept = follows[:_KEPT_AFTER_LIBRARY]
    if len(follows) > len(kept):
        more = len(follows) - len(kept)
        kept.append(
            Finding(
                library[0].path,
                0,
                "extra-symbol",
                f"and {more} more symbols and imports of the kind above, most of them the "
                "library's own: they go once the library does",
            )
        )
    return [*library, *rest, *kept]
