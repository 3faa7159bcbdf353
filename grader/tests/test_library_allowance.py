"""A student file that lab.json lets use a library (objects.libraries), judged by
the source rules and the object check: the library's headers and weak instances
pass in that file only; strong definitions, undefined references, other startup
code and copies of the harness's symbols never do. Host objects built with g++."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader.trust.object_check import (
    LibraryAllowance,
    ObjectPolicy,
    check_facts,
    load_object_policy,
)
from grader.trust.object_facts import read_object
from grader.trust.static_check import check_lab

needs_binutils = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("g++", "readelf", "objdump", "c++filt")),
    reason="needs g++ and binutils",
)

ALLOWED = "thrust_pipeline.cu"
POLICY = ObjectPolicy(
    "lab6",
    frozenset({"lab6::f", "lab6::g"}),
    "contract.cuh",
    libraries={
        ALLOWED: LibraryAllowance(
            frozenset({"thrust"}),
            ("cudaMalloc",),
            frozenset({"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit"})
            | {"__dso_handle"},
            frozenset({"lab6::f"}),
        )
    },
)
# A library's template, as its header would define it (kept out of line).
TEMPLATE = """
namespace thrust {
template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }
}
"""
HONEST = (
    "#include <iostream>\n"
    + TEMPLATE
    + """
extern "C" int cudaMalloc(void**, unsigned long);
namespace lab6 {
int f(int x) { void* p; cudaMalloc(&p, 4); return thrust::twice(x); }
}
"""
)


def _object(tmp_path: Path, name: str, source: str) -> Path:
    src = tmp_path / f"{name}.cpp"
    src.write_text(source)
    out = tmp_path / f"{name}.o"
    subprocess.run(["g++", "-O2", "-c", str(src), "-o", str(out)], check=True)
    return out


def _rules(tmp_path: Path, name: str, source: str, *harness: Path) -> set[str]:
    facts = read_object(_object(tmp_path, name, source))
    found = check_facts(facts, POLICY, name, [read_object(h) for h in harness])
    return {f"{f.rule_id}: {f.reason}" for f in found}


@needs_binutils
def test_the_library_in_the_file_allowed_it_and_nowhere_else(tmp_path: Path) -> None:
    assert _rules(tmp_path, ALLOWED, HONEST) == set()
    elsewhere = " | ".join(_rules(tmp_path, "scan_kernels.cu", HONEST))
    assert "library-code: contains " in elsewhere
    assert "forbidden-import: uses cudaMalloc" in elsewhere
    assert "constructor: runs code before main" in elsewhere


@needs_binutils
def test_the_library_file_defines_only_the_functions_its_allowance_serves(tmp_path: Path) -> None:
    other = HONEST + "namespace lab6 {\nint g(int x) { return thrust::twice(x + 1); }\n}\n"
    found = _rules(tmp_path, ALLOWED, other)
    assert found == {
        "library-code: defines lab6::g in thrust_pipeline.cu, the file whose library "
        "allowance serves lab6::f alone: move it to another file"
    }


@needs_binutils
def test_strong_definitions_and_undefined_references_are_refused(tmp_path: Path) -> None:
    strong = "namespace thrust { int cheat(int x) { return x + 1; } }\n"
    strong += "namespace lab6 { int f(int x) { return thrust::cheat(x); } }\n"
    assert any(
        "defines thrust::cheat(int) strongly" in r for r in _rules(tmp_path, ALLOWED, strong)
    )
    undefined = "namespace thrust { int elsewhere(int); }\n"
    undefined += "namespace lab6 { int f(int x) { return thrust::elsewhere(x); } }\n"
    found = _rules(tmp_path, ALLOWED, undefined)
    assert any("refers to thrust::elsewhere(int), which it does not define" in r for r in found)


@needs_binutils
def test_startup_beyond_iostreams_initialiser_is_refused(tmp_path: Path) -> None:
    extra = HONEST + '#include <cstdio>\nnamespace { struct S { S() { puts("x"); } } s; }\n'
    assert any(
        r.startswith("constructor: runs code before main") for r in _rules(tmp_path, ALLOWED, extra)
    )
    # The initialiser's names belong to it: the student's own code may not use them.
    own = HONEST + 'extern "C" int __cxa_atexit(void (*)(void*), void*, void*);\n'
    own += "namespace lab6 { int g() { return __cxa_atexit(nullptr, nullptr, nullptr); } }\n"
    assert any("lab6::g() refers to __cxa_atexit" in r for r in _rules(tmp_path, ALLOWED, own))


@needs_binutils
def test_a_symbol_the_harness_defines_only_as_the_same_instance(tmp_path: Path) -> None:
    harness = _object(
        tmp_path, "yardsticks.cu", TEMPLATE + "int h(int x) { return thrust::twice(x); }\n"
    )
    assert _rules(tmp_path, ALLOWED, HONEST, harness) == set()
    specialized = """
namespace thrust {
template <class T> T twice(T x);
template <> inline __attribute__((noipa)) int twice<int>(int x) { return x * 3; }
}
namespace lab6 { int f(int x) { return thrust::twice(x); } }
"""
    found = _rules(tmp_path, ALLOWED, specialized, harness)
    assert any(
        r.startswith(
            "harness-symbol: defines int thrust::twice<int>(int), which the harness's "
            "yardsticks.cu defines too"
        )
        for r in found
    )


def test_source_rules_allow_the_library_in_its_file_only(tmp_path: Path) -> None:
    folder = tmp_path / "lab6_x"
    folder.mkdir()
    code = "#include <thrust/sort.h>\n#include <cublas_v2.h>\nvoid f() { thrust::sort(a, b); }\n"
    (folder / ALLOWED).write_text(code)
    (folder / "scan_kernels.cu").write_text(code)
    found = {
        (f.path, f.line, f.rule_id)
        for f in check_lab(folder, tmp_path, {ALLOWED: frozenset({"thrust"})})
    }
    assert found == {
        (f"lab6_x/{ALLOWED}", 2, "library-include"),
        (f"lab6_x/{ALLOWED}", 2, "library-call"),
        ("lab6_x/scan_kernels.cu", 1, "library-include"),
        ("lab6_x/scan_kernels.cu", 2, "library-include"),
        ("lab6_x/scan_kernels.cu", 2, "library-call"),
        ("lab6_x/scan_kernels.cu", 3, "library-call"),
    }


def test_lab6_allowance_admits_what_other_toolchains_make_of_the_same_code() -> None:
    """libstdc++ 13 links <iostream> through ios_base_library_init and calls
    basic_string::_M_dispose out of line; _FORTIFY_SOURCE (Ubuntu's default)
    turns snprintf into __snprintf_chk. The reference's Thrust file needs them
    there, where Debian's gcc 12 needs none of them."""
    lab_dir = Path(__file__).resolve().parents[2] / "labs" / "lab6_image_pipeline"
    policy = load_object_policy("lab6", lab_dir, [ALLOWED])
    for name in (
        "__snprintf_chk",
        "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_disposeEv",
    ):
        assert policy.allows_import(name, ALLOWED)
        assert not policy.allows_import(name, "scan_kernels.cu")
    assert "_ZSt21ios_base_library_initv" in policy.libraries[ALLOWED].startup
