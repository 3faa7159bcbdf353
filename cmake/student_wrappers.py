"""Writes the wrappers through which a test program calls student code (cmake/LabCalls.cmake).

Every function of the lab's namespace that the student's objects define and the
harness's objects call (undefined there) gets one: `__wrap_<symbol>`, which holds a
harness::StudentCall while it calls `__real_<symbol>`, the student's function. The
program is linked with `--wrap=<symbol>` for each (the linker flags file), so every
call from the harness to student code, by name or through a pointer taken from it,
runs inside one: the CUDA calls it makes are judged (labs/student_calls.hpp).

    student_wrappers.py --lab lab3 --contract reduction.cuh --nm nm --cxxfilt c++filt
        --student libimpl.a ... --harness libharness.a main.o ... --source w.cpp --flags w.rsp
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

_TEXT = {"T", "W"}  # defined in a text section: strong, or weak (an inline or template)
_OPEN = "<([{"
_CLOSE = ">)]}"


def symbols(nm: str, files: list[str], undefined: bool) -> set[str]:
    """The external symbols `files` define in text (or leave undefined), as nm names them."""
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(
        [nm, "-P", "-g", flag, *files], check=True, capture_output=True, text=True
    ).stdout
    found = set()
    for line in out.splitlines():
        parts = line.split()
        # "name type value size" for each symbol; "file.o:" heads an archive member.
        if len(parts) >= 2 and (undefined or parts[1] in _TEXT):
            found.add(parts[0])
    return found


def demangle(cxxfilt: str, names: list[str]) -> list[str]:
    out = subprocess.run(
        [cxxfilt], input="\n".join(names), check=True, capture_output=True, text=True
    ).stdout
    return out.splitlines()


def split_call(signature: str) -> tuple[str, list[str]] | None:
    """`ns::f(int*, ns::Launch)` -> ("ns::f", ["int*", "ns::Launch"]); None when it
    is not a free function's name and parameters."""
    depth = 0
    start = -1
    for i, c in enumerate(signature):
        if c == "(" and depth == 0:
            start = i
            break
        depth += (c in _OPEN) - (c in _CLOSE)
    if start <= 0 or not signature.endswith(")"):
        return None
    inside = signature[start + 1 : -1]
    params: list[str] = []
    depth, begin = 0, 0
    for i, c in enumerate(inside):
        depth += (c in _OPEN) - (c in _CLOSE)
        if depth < 0:
            return None  # the name's parameters close before the end: a " const" or the like
        if c == "," and depth == 0:
            params.append(inside[begin:i].strip())
            begin = i + 1
    if depth != 0:
        return None
    if inside.strip():
        params.append(inside[begin:].strip())
    return signature[:start], params


def wrapper(index: int, symbol: str, name: str, params: list[str]) -> str:
    """The C++ of one wrapper: the student's function under `__real_`, and `__wrap_`."""
    declvals = ", ".join(f"std::declval<{p}>()" for p in params)
    typed = ", ".join(f"same<{p}> a{i}" for i, p in enumerate(params))
    forwarded = ", ".join(f"std::forward<same<{p}>>(a{i})" for i, p in enumerate(params))
    result = f"decltype({name}({declvals}))"
    return (
        f"// {name}({', '.join(params)})\n"
        f'{result} real_{index}({", ".join(params)}) __asm__("__real_{symbol}");\n'
        f'{result} wrap_{index}({typed}) __asm__("__wrap_{symbol}");\n'
        f"{result} wrap_{index}({typed}) {{\n"
        f"  harness::StudentCall in_student_code;\n"
        f"  return real_{index}({forwarded});\n"
        f"}}\n"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", required=True)
    parser.add_argument("--contract", required=True)
    parser.add_argument("--nm", required=True)
    parser.add_argument("--cxxfilt", required=True)
    parser.add_argument("--student", nargs="+", required=True)
    parser.add_argument("--harness", nargs="+", required=True)
    parser.add_argument("--source", required=True, type=Path)
    parser.add_argument("--flags", required=True, type=Path)
    args = parser.parse_args(argv)

    crossing = sorted(
        symbols(args.nm, args.student, undefined=False)
        & symbols(args.nm, args.harness, undefined=True)
    )
    blocks: list[str] = []
    wrapped: list[str] = []
    for symbol, signature in zip(crossing, demangle(args.cxxfilt, crossing)):
        if not signature.startswith(f"{args.lab}::"):
            continue  # not the lab's: a library's weak instance both define
        call = split_call(signature)
        if call is None:
            print(
                f"student_wrappers: cannot wrap {signature} ({symbol}): not a free "
                "function of the contract",
                file=sys.stderr,
            )
            return 1
        blocks.append(wrapper(len(wrapped), symbol, *call))
        wrapped.append(symbol)
    args.source.write_text(
        f"// Generated by cmake/student_wrappers.py for {args.lab}: every call from the\n"
        "// harness to these student functions holds a harness::StudentCall.\n"
        f'#include <utility>\n\n#include "{args.contract}"\n#include "labs/student_calls.hpp"\n\n'
        "namespace {\ntemplate <class T>\nusing same = T;\n}  // namespace\n\n" + "\n".join(blocks)
    )
    args.flags.write_text("".join(f"--wrap={s}\n" for s in wrapped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
