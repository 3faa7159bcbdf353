"""What a student's source is told early, and why: the source rules of `grader check`.

These rules teach; they are not the defence. Macros, aliases and token pasting
get past any rule over source text, so everything a submission may not do
(replace runtime or harness functions, allocate, copy to the host, time, touch
files, start threads, run code before main) is refused in its compiled objects
(`object_check.py`). What stays here names a library at the line that uses it,
which the object check can only name by symbol or header path.

Each rule is a regular expression matched against the source with comments
removed (and, except for `#include` rules, string literals blanked), so a
comment or a printf mentioning `thrust::` is never a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One forbidden pattern: its id, the regex, the student-facing reason."""

    rule_id: str
    pattern: re.Pattern[str]
    reason: str
    on_includes: bool = False  # matched against `#include` lines, strings kept


def _rule(rule_id: str, pattern: str, reason: str, *, on_includes: bool = False) -> Rule:
    return Rule(rule_id, re.compile(pattern, re.MULTILINE), reason, on_includes)


# The libraries named by the rules below; a lab may allow some in one file
# (lab.json's objects.libraries: `rules_allowing`).
LIBRARIES = (
    "cub",
    "thrust",
    "cutlass",
    "cute",
    "cublas",
    "cublasLt",
    "cudnn",
    "cusparse",
    "cusparseLt",
    "cufft",
    "cusolver",
    "nvbench",
)
# Those whose names are C++ namespaces (`thrust::`); the others are C prefixes (`cublasSgemm`).
_NAMESPACES = ("cub", "thrust", "cutlass", "cute")


def rules_allowing(allowed: frozenset[str] = frozenset()) -> tuple[Rule, ...]:
    """The source rules, less the libraries `allowed` (one file's allowance)."""
    names = [n for n in LIBRARIES if n not in allowed]
    spaces = [n for n in _NAMESPACES if n not in allowed]
    prefixes = [
        n for n in LIBRARIES if n not in _NAMESPACES and n not in allowed and n != "nvbench"
    ]
    rules = []
    if names:
        rules.append(
            _rule(
                "library-include",
                rf"^[ \t]*#\s*include\s*[<\"]\s*(?:{'|'.join(names)})[\w]*[/._>\"]",
                "includes a library that computes the answer for you (CUB, Thrust, cuBLAS, "
                "cuDNN, cuSPARSE, CUTLASS, ...): write the kernel yourself",
                on_includes=True,
            )
        )
    calls = [rf"\b(?:{'|'.join(spaces)})\s*::"] if spaces else []
    calls += [rf"\b(?:{'|'.join(prefixes)})[A-Z_]\w*"] if prefixes else []
    if calls:
        rules.append(
            _rule(
                "library-call",
                "|".join(calls),
                "calls a library that computes the answer for you (CUB, Thrust, cuBLAS, ...): "
                "write the kernel yourself",
            )
        )
    return tuple(rules)


RULES: tuple[Rule, ...] = rules_allowing()
