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


_LIBRARIES = r"cub|thrust|cutlass|cute|cublas(?:Lt)?|cudnn|cusparse(?:Lt)?|cufft|cusolver|nvbench"

RULES: tuple[Rule, ...] = (
    _rule(
        "library-include",
        rf"^[ \t]*#\s*include\s*[<\"]\s*(?:{_LIBRARIES})[\w]*[/._>\"]",
        "includes a library that computes the answer for you (CUB, Thrust, cuBLAS, cuDNN, "
        "cuSPARSE, CUTLASS, ...): write the kernel yourself",
        on_includes=True,
    ),
    _rule(
        "library-call",
        r"\b(?:cub|thrust|cutlass|cute)\s*::|\b(?:cublas|cublasLt|cudnn|cusparse|cufft"
        r"|cusolver)[A-Z_]\w*",
        "calls a library that computes the answer for you (CUB, Thrust, cuBLAS, ...): "
        "write the kernel yourself",
    ),
)
