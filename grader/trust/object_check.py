"""The object check: what a student's compiled objects import, define, run before
`main`, include and execute, judged against the lab's contract.

This is the defence the source check cannot be: whatever macros, aliases,
token pasting or assembler labels a submission uses, the linker sees these
names. Every grading path (`grade`, `batch`, `check`) runs it on the objects of
each lab's `labN_impl` target before any test. Needs binutils (and Ninja's
dependency log for the include check), no GPU.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.core.lab_file import read_lab_file
from grader.trust import object_rules as rules
from grader.trust.object_facts import ElfSymbol, ObjectFacts, ToolError, read_object
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
_ANONYMOUS = "_GLOBAL__N_"
_STUB = "__device_stub_"


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

    def allows_import(self, name: str) -> bool:
        if rules.ALLOWED_IMPORT_PATTERN.fullmatch(name):
            return True
        return any(re.fullmatch(p, name) for p in self.imports)


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
    return ObjectPolicy(
        lab,
        contract,
        headers[0].name,
        tuple(extra.get("imports", ())),
        only_in,
        tuple(student_files),
        tuple(str(f) for f in extra.get("relocatable", ())),
    )


def qualified_name(demangled: str) -> str:
    """`void lab5::matmul_tiled<16>(float...)` -> `lab5::matmul_tiled`."""
    depth, head = 0, demangled
    for i, c in enumerate(demangled):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0 and not demangled.startswith("(anonymous", i):
            head = demangled[:i]
            break
    out, depth = [], 0
    for c in head:
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
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


def _in_comdat(symbol: ElfSymbol, facts: ObjectFacts) -> bool:
    section = facts.section_by_index(symbol.section)
    return section is not None and "G" in section.flags


def check_definitions(facts: ObjectFacts, policy: ObjectPolicy, where: str) -> list[Finding]:
    """Every symbol the object offers the linker must be the contract's, the
    student's own anonymous helpers, or a header's inline/template instance."""
    findings = []
    for symbol in facts.symbols:
        if not symbol.defined or symbol.bind == "LOCAL" or symbol.kind in ("SECTION", "FILE"):
            continue
        name = symbol.name[len(_STUB) :] if symbol.name.startswith(_STUB) else symbol.name
        qualified = qualified_name(symbol.demangled)
        if name.startswith("DW.ref.") or _own_anonymous(name, policy):  # DW.ref: unwind data
            continue
        templated = "<" in symbol.demangled.split("(")[0]
        header_instance = (
            symbol.bind in ("WEAK", "UNIQUE")
            and name.startswith("_Z")
            and _in_comdat(symbol, facts)
        )
        if rules.RESERVED_DEFINITION.match(qualified) and not (
            templated and header_instance and qualified.startswith("cuda")
        ):
            findings.append(
                Finding(
                    where,
                    0,
                    "replaces-symbol",
                    f"defines {symbol.demangled}, a function of the CUDA runtime, "
                    "the harness, the test framework or the system: a submission "
                    "may not replace it; remove that definition",
                )
            )
        elif qualified in policy.contract:
            continue
        elif header_instance and not qualified.startswith(f"{policy.lab}::"):
            continue  # inline functions and template instances from headers
        else:
            findings.append(
                Finding(
                    where,
                    0,
                    "extra-symbol",
                    f"defines {symbol.demangled} visibly to the linker, and "
                    f"{policy.contract_header} declares no such function: put "
                    "helpers in an anonymous namespace or make them static",
                )
            )
    return findings


def check_imports(facts: ObjectFacts, policy: ObjectPolicy, where: str) -> list[Finding]:
    """Every symbol the object needs from elsewhere must be on the allowlist."""
    findings = []
    seen = set()
    for symbol in facts.symbols:
        if symbol.defined or not symbol.name or symbol.name in seen:
            continue
        seen.add(symbol.name)
        if policy.allows_import(symbol.name):
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
        findings.append(
            Finding(where, 0, "forbidden-import", f"uses {symbol.demangled}, which {what}: {fix}")
        )
    return findings


def check_libraries(facts: ObjectFacts, where: str) -> list[Finding]:
    """Any symbol of CUB, Thrust or CUTLASS in the object, however it was reached."""
    for symbol in facts.symbols:
        if rules.LIBRARY_SYMBOL.search(symbol.demangled) or rules.LIBRARY_SYMBOL.search(
            symbol.name
        ):
            return [
                Finding(
                    where,
                    0,
                    "library-code",
                    f"contains {symbol.demangled[:160]}, code of a library that computes "
                    "the answer for you (CUB, Thrust, CUTLASS): write the kernel yourself",
                )
            ]
    return []


def check_startup(facts: ObjectFacts, where: str) -> list[Finding]:
    """No code before `main` or after it, except nvcc's kernel registration."""
    findings = []
    for name in rules.CONSTRUCTOR_SECTIONS:
        if facts.section_named(name) is not None:
            findings.append(
                Finding(
                    where,
                    0,
                    "constructor",
                    f"has a {name} section: code that runs before or after main; "
                    "a submission runs only when the harness calls it",
                )
            )
    init = facts.section_named(".init_array")
    if init is not None:
        entries = [r for r in facts.relocations if r.section == ".init_array"]
        targets = []
        for entry in entries:
            target = facts.function_at(entry.target, entry.addend)
            targets.append(qualified_name(target.demangled) if target else entry.target)
        # nvcc registers the kernels with exactly one entry; anything else is the student's.
        extra = list(targets)
        if rules.NVCC_REGISTRATION in extra:
            extra.remove(rules.NVCC_REGISTRATION)
        if extra or init.size != 8 * len(entries):
            shown = ", ".join(extra) or "entries without a relocation"
            findings.append(
                Finding(
                    where,
                    0,
                    "constructor",
                    f"runs code before main ({shown}): a global object with a "
                    "constructor, __attribute__((constructor)) or <iostream>; "
                    "use plain data and printf",
                )
            )
    for section in facts.sections:
        if "W" in section.flags and "X" in section.flags:
            findings.append(
                Finding(
                    where,
                    0,
                    "writable-code",
                    f"section {section.name} is both writable and executable",
                )
            )
    return findings


def check_instructions(facts: ObjectFacts, where: str) -> list[Finding]:
    """No host instruction that calls the kernel without going through an import."""
    return [
        Finding(
            where,
            0,
            "syscall",
            f"{function} executes `{instruction}`, a direct system call: a submission "
            "asks the OS for nothing",
        )
        for function, instruction in facts.os_instructions
    ]


def check_only_in(facts: ObjectFacts, policy: ObjectPolicy, where: str) -> list[Finding]:
    """Symbols the lab allows only inside named functions (lab4's copies to and
    from its symbol): any other reference, call or address taken, is refused."""
    findings = []
    restricted = {}
    for symbol in facts.symbols:
        qualified = qualified_name(symbol.demangled)
        for key, owners in policy.only_in.items():
            if key in (symbol.name, qualified):
                restricted[symbol.name] = (key, owners)
    for relocation in facts.relocations:
        if relocation.target not in restricted:
            continue
        key, owners = restricted[relocation.target]
        function = facts.function_at(relocation.section, relocation.offset)
        owner = qualified_name(function.demangled) if function else None
        if owner not in owners:
            place = f"in {function.demangled}" if function else f"from section {relocation.section}"
            findings.append(
                Finding(
                    where,
                    0,
                    "restricted-use",
                    f"refers to {key} {place}; the contract allows it only in "
                    f"{', '.join(owners) or 'no function'}",
                )
            )
    return findings


def check_facts(facts: ObjectFacts, policy: ObjectPolicy, where: str) -> list[Finding]:
    """Every object rule on one object (less nvcc's -rdc symbols in a relocatable file's)."""
    source = facts.path.name.removesuffix(".o")
    if source in policy.relocatable:
        abi = re.compile(rules.RDC_ABI.format(file=re.escape(re.sub(r"\W", "_", source))))
        facts = replace(facts, symbols=tuple(s for s in facts.symbols if not abi.fullmatch(s.name)))
    return (
        check_libraries(facts, where)
        + check_definitions(facts, policy, where)
        + check_imports(facts, policy, where)
        + check_startup(facts, where)
        + check_instructions(facts, where)
        + check_only_in(facts, policy, where)
    )


def impl_objects(build: Path, lab: str) -> list[Path]:
    """The object files of targets `<lab>_impl` and `<lab>_impl_rdc` (the student's
    files compiled with relocatable device code) under a CMake build tree that exist.

    A Ninja build names them in build.ninja, so a build folder reused for
    another submission never offers the last one's objects; other generators
    are searched by folder."""
    ninja_file = build / "build.ninja"
    if ninja_file.is_file():
        rule = re.compile(rf"^build (\S+\.o): \w+_COMPILER__{re.escape(lab)}_impl_", re.M)
        text = ninja_file.read_text(encoding="utf-8", errors="replace")
        return sorted(p for p in (build / m for m in rule.findall(text)) if p.is_file())
    dirs = [d for name in (f"{lab}_impl", f"{lab}_impl_rdc") for d in build.rglob(f"{name}.dir")]
    return sorted(p for d in dirs if d.is_dir() for p in d.rglob("*.o"))


def included_files(build: Path, obj: Path) -> list[str] | None:
    """Every file the compiler read for `obj`, from Ninja's dependency log (None
    when the build is not a Ninja build or Ninja is missing)."""
    ninja = shutil.which("ninja")
    if ninja is None or not (build / "build.ninja").is_file():
        return None
    try:
        proc = subprocess.run(
            [ninja, "-C", str(build), "-t", "deps", str(obj.relative_to(build))],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=60,
            check=False,
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
) -> list[Finding]:
    """The student may include standard and CUDA headers, the lab's contract
    header, and source files of their own lab folder: nothing of the harness,
    the datasets, the secret or another folder, whatever macro built the name."""
    findings: list[Finding] = []
    contract = {p.resolve() for p in lab_dir.glob("*.cuh")}
    own = student_dir.resolve()
    harness_roots = [lab_dir.resolve().parent.parent]  # the repository
    for name in files:
        path = Path(name)
        if not path.is_absolute():
            continue  # Ninja's own paths (the object itself), relative to the build
        resolved = path.resolve()
        if rules.LIBRARY_INCLUDE.search(str(resolved)):
            if any(f.rule_id == "library-include" for f in findings):
                continue  # the first is the one the student wrote; the rest follow from it
            findings.append(
                Finding(
                    where,
                    0,
                    "library-include",
                    f"includes {resolved}, a library that computes the answer "
                    "for you: write the kernel yourself",
                )
            )
        elif resolved in contract:
            continue
        elif resolved.is_relative_to(own):
            if resolved.suffix.lower() not in SOURCE_SUFFIXES:
                findings.append(
                    Finding(
                        where,
                        0,
                        "include-not-source",
                        f"includes {resolved.name}, which is not a source file",
                    )
                )
        elif any(resolved.is_relative_to(root) for root in harness_roots) or not _system(
            resolved, system_dirs
        ):
            findings.append(
                Finding(
                    where,
                    0,
                    "include-outside",
                    f"includes {resolved}: a submission includes only standard "
                    "and CUDA headers, its lab's contract header and its own "
                    "source files",
                )
            )
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
    build: Path, policy: ObjectPolicy, lab_dir: Path, student_dir: Path | None
) -> list[Finding]:
    """Findings for every object of `<lab>_impl` in `build`, or one saying none was built."""
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
    for obj in objects:
        where = obj.name.removesuffix(".o")
        if student_dir is not None:
            where = f"{student_dir.name}/{where} (object)"
        try:
            facts = read_object(obj)
        except ToolError as exc:
            findings.append(Finding(where, 0, "unreadable-object", str(exc)))
            continue
        findings += check_facts(facts, policy, where)
        if student_dir is not None:
            files = included_files(build, obj)
            if files is not None:
                findings += check_includes(files, lab_dir, student_dir, where, system_dirs)
    return findings
