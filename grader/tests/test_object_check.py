"""The object check on real compiled objects: host objects built here with g++
for each rule, and both trees of the repository compiled with nvcc. No GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.cli import main
from grader.commands.check import check_impl
from grader.commands.grade import submission_rejections
from grader.core.build import build_objects
from grader.tests.helpers import DATA
from grader.trust.object_check import (
    ObjectPolicy,
    check_includes,
    check_lab_objects,
    contract_names,
    impl_objects,
    library_first,
    load_object_policy,
    system_include_dirs,
)
from grader.trust.object_facts import parse_relocations, parse_sections, parse_symbols
from grader.trust.static_check import Finding
from grader.trust.submission_check import check_submission

REPO = Path(__file__).resolve().parents[2]
OBJECTS = DATA / "objects"
LAB1 = REPO / "labs" / "lab1_histogram"
LAB4 = REPO / "labs" / "lab4_power_array"
CUB = "/usr/local/cuda/include/cccl/cub/cub.cuh"
LAUNCHER = "float const*, float*, int, int, Launch"
needs_binutils = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("g++", "readelf", "objdump", "c++filt")),
    reason="needs g++ and binutils",
)
needs_nvcc = pytest.mark.skipif(
    shutil.which("nvcc") is None or shutil.which("ninja") is None, reason="needs nvcc and ninja"
)


def _build_object(tmp_path: Path, lab: str, source: Path) -> Path:
    """A fake build tree holding `source` compiled as the lab's student object."""
    folder = tmp_path / "labs" / f"{lab}_x" / "CMakeFiles" / f"{lab}_impl.dir" / "s"
    folder.mkdir(parents=True)
    subprocess.run(["g++", "-O2", "-c", str(source), "-o", str(folder / "k.cu.o")], check=True)
    return tmp_path


def _found(build: Path, policy: ObjectPolicy) -> list[tuple[str, str]]:
    return [(f.rule_id, f.reason) for f in check_lab_objects(build, policy, LAB1, None)]


@needs_binutils
def test_definitions_outside_the_contract_are_refused(tmp_path: Path) -> None:
    build = _build_object(tmp_path, "lab1", OBJECTS / "symbols.cpp")
    policy = load_object_policy("lab1", LAB1)
    found = _found(build, policy)
    reasons = " | ".join(reason for _, reason in found)
    assert ("replaces-symbol", "defines cudaEventElapsedTime") in [
        (rule, reason.split(",")[0]) for rule, reason in found
    ]
    assert "defines harness::time_gpu()" in reasons
    assert "defines lab1::helper_visible()" in reasons
    assert "defines lab1::lab_inline(int)" in reasons  # inline, but in the lab's namespace
    assert "header_inline" not in reasons and "helper_hidden" not in reasons
    assert "helper_static" not in reasons and "histogram_best" not in reasons


@needs_binutils
def test_imports_constructors_syscalls_and_restricted_calls(tmp_path: Path) -> None:
    build = _build_object(tmp_path, "lab4", OBJECTS / "host_side.cpp")
    found = _found(build, load_object_policy("lab4", LAB4))
    rules = {rule for rule, _ in found}
    assert rules == {"forbidden-import", "constructor", "syscall", "restricted-use"}
    text = " | ".join(reason for _, reason in found)
    assert "uses getenv, which reads or changes the environment" in text
    assert "uses puts" not in text and "uses cudaGetDevice" not in text
    assert (
        "refers to cudaMemcpyFromSymbol in lab4::power_best(float const*, float*, int, int, "
        "int); the contract allows it only in lab4::symbol_download"
    ) in text
    assert "symbol_download(float*, int) executes" not in text
    assert "prefixed_getpid() executes `syscall`" in text  # `ds syscall`: a prefix hides nothing
    assert "hidden_getpid() points into the middle of an instruction" in text
    assert "section .data.rel.local points into the middle of an instruction" in text
    assert "makes lab4::power_register() an indirect function" in text
    for section in (".init_array.00101", ".ctors.00300", ".init"):
        assert f"has a {section} section: code that runs before or after main" in text
    # Another lab's contract does not allow the copy at all.
    other = _found(build, ObjectPolicy("lab4", frozenset({"lab4::power_best"}), "x.cuh"))
    assert any("uses cudaMemcpyFromSymbol, which copies memory" in r for _, r in other)


@needs_binutils
def test_a_reference_counts_for_every_name_at_its_place(tmp_path: Path) -> None:
    build = _build_object(tmp_path, "lab4", OBJECTS / "aliases.cpp")
    found = _found(build, load_object_policy("lab4", LAB4))
    restricted = {reason.split(";")[0] for rule, reason in found if rule == "restricted-use"}
    # A copy in a helper is the helper's, whatever its second name says.
    assert "refers to cudaMemcpyFromSymbol in fetch" in restricted
    # symbol_download reached through its alias, a tail call the assembler resolved, a
    # label from another section, and its address in data: no relocation names it.
    for caller in ("power_global", "power_register", "power_best", "power_shared"):
        assert f"refers to lab4::symbol_download in lab4::{caller}({LAUNCHER})" in restricted
    assert "refers to lab4::symbol_download from section .data.rel.local" in restricted
    assert sorted(reason.split(",")[0] for rule, reason in found if rule == "local-alias") == [
        "gives one function the names download_alias and lab4::symbol_download",
        "gives one function the names fetch and lab4::symbol_download",
    ]
    # Honest code: a constructor's two symbols at one address, a switch's jump table.
    text = " | ".join(reason for _, reason in found)
    assert "Guard" not in text and ".rodata" not in text and "power_symbol_global" not in text
    # The address 4 bytes in is also inside an instruction, unless that is past an endbr64.
    split = [reason for rule, reason in found if rule == "syscall"]
    assert all(r.startswith("section .data.rel.local points into the middle") for r in split)
    assert {rule for rule, _ in found} - {"syscall"} == {"restricted-use", "local-alias"}


@needs_binutils
@needs_nvcc
def test_relocatable_code_symbols_only_in_the_file_lab_json_names(tmp_path: Path) -> None:
    lab3 = REPO / "labs" / "lab3_reduction"
    source = tmp_path / "nested_kernels.cu"
    source.write_text(
        '#include "reduction.cuh"\n'
        "namespace lab3 {\nnamespace {\n__global__ void child(int* p) { *p = 1; }\n"
        "__global__ void parent(int* p) { child<<<1, 1, 0, cudaStreamTailLaunch>>>(p); }\n"
        "}  // namespace\n"
        "void nested_reduce(int* d, int, int*, Launch) { parent<<<1, 1>>>(d); }\n"
        "}  // namespace lab3\n"
    )
    folder = tmp_path / "build" / "CMakeFiles" / "lab3_impl_rdc.dir" / "s"
    folder.mkdir(parents=True)
    obj = folder / "nested_kernels.cu.o"
    subprocess.run(
        ["nvcc", "-rdc=true", "-c", f"-I{lab3}", str(source), "-o", str(obj)], check=True
    )
    policy = load_object_policy("lab3", lab3, ["nested_kernels.cu", "reduce_kernels.cu"])
    assert policy.relocatable == ("nested_kernels.cu",)
    assert check_lab_objects(tmp_path / "build", policy, lab3, None) == []
    # The same object under the name of a whole-program file: its -rdc symbols are refused.
    obj.rename(folder / "reduce_kernels.cu.o")
    rules = {f.rule_id for f in check_lab_objects(tmp_path / "build", policy, lab3, None)}
    assert rules == {"extra-symbol", "forbidden-import"}


def test_includes_are_judged_by_where_the_file_is(tmp_path: Path) -> None:
    own = tmp_path / "student" / "lab1_histogram"
    own.mkdir(parents=True)
    files = [
        "obj.o",
        str(own / "kernels.cu"),
        str(own / "helpers.cuh"),
        str(own / "table.dat"),
        str(LAB1 / "histogram.cuh"),
        str(LAB1 / "lab1.hpp"),
        "/usr/include/c++/12/cstdio",
        "/usr/local/cuda-13.0/include/cuda_runtime.h",
        CUB,
        "/usr/local/cuda/include/cublas_v2.h",
        str(tmp_path / "secret.txt"),
    ]
    found = [
        (f.rule_id, f.reason.split(",")[0].split(":")[0])
        for f in check_includes(files, LAB1, own, "k")
    ]
    assert found == [
        ("include-not-source", "includes table.dat"),
        ("include-outside", f"includes {LAB1.resolve() / 'lab1.hpp'}"),
        ("library-include", f"includes {Path(CUB).resolve()}"),
        ("include-outside", f"includes {tmp_path.resolve() / 'secret.txt'}"),
    ]


def test_parsers_read_binutils_output() -> None:
    symbols = parse_symbols(
        "   12: 0000000000000010    21 FUNC    GLOBAL DEFAULT    2 _Z1fv\n"
        "   13: 0000000000000000     0 NOTYPE  GLOBAL DEFAULT  UND exit\n"
    )
    assert symbols == [
        ("_Z1fv", "FUNC", "GLOBAL", "2", 16, 21),
        ("exit", "NOTYPE", "GLOBAL", "UND", 0, 0),
    ]
    sections = parse_sections(
        "  [13] .init_array       INIT_ARRAY       0000000000000000  "
        "00016300 000008 08  WA  0   0  8\n"
    )
    assert sections[0].name == ".init_array" and sections[0].size == 8 and sections[0].flags == "WA"
    relocations = parse_relocations(
        "Relocation section '.rela.init_array' at offset 0x1dda0 contains 1 entry:\n"
        "  Offset          Info           Type           Sym. Value    Sym. Name + Addend\n"
        "000000000000  005e00000001 R_X86_64_64       0000000000000000 .text.startup + 10\n"
    )
    assert [(r.section, r.target, r.addend) for r in relocations] == [
        (".init_array", ".text.startup", 16)
    ]


def test_contract_names_of_lab1() -> None:
    names = contract_names((LAB1 / "histogram.cuh").read_text())
    assert "lab1::histogram_global" in names and "lab1::histogram_best" in names
    assert {"lab1::histogram_banks4", "lab1::atomic_catalogue", "lab1::atomic_multiply"} <= names
    assert {"lab1::histogram_rgb", "lab1::histogram_hue"} <= names
    assert len(names) == 15  # 10 histograms, the 2 colour ones, 3 atomic operations


@needs_nvcc
def test_check_compiles_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken" / "lab2_divergence"
    broken.mkdir(parents=True)
    (broken / "divergence_kernels.cu").write_text('#include "divergence.cuh"\nint f() { return }\n')
    assert main(["check", "--impl", str(tmp_path / "broken")]) == 1
    out = capsys.readouterr().out
    assert "lab2_divergence:0: does-not-compile" in out and "divergence_kernels.cu(2): error" in out
    assert main(["check", "--impl", str(DATA / "static" / "cheater"), "--labs", "lab3"]) == 2


@needs_nvcc
def test_a_file_that_does_not_compile_is_a_finding_whatever_its_siblings_did(
    tmp_path: Path,
) -> None:
    student = tmp_path / "student" / "lab3_reduction"
    shutil.copytree(REPO / "skeletons" / "lab3_reduction", student)
    (student / "reduce_kernels.cu").write_text('#include "reduction.cuh"\nint f() { return }\n')
    build = tmp_path / "build"
    found = check_impl(student.parent, REPO, ["lab3"], None, build)["lab3"]
    assert [(f.path, f.rule_id) for f in found] == [
        ("lab3_reduction/reduce_kernels.cu", "does-not-compile")
    ]
    assert found[0].reason.startswith("reduce_kernels.cu did not compile: ")
    assert "reduce_kernels.cu(2): error" in found[0].reason  # that file's errors
    # A failed compile leaves the file's last object in place: out of date, it is no
    # object of the file as it is now, in a build checked as it stands too.
    reduce, nested = sorted(
        impl_objects(build, "lab3"), key=lambda p: p.name != "reduce_kernels.cu.o"
    )
    shutil.copyfile(nested, reduce)
    os.utime(reduce, (0, 0))
    found = check_submission(REPO, student.parent, ["lab3"], build=build)["lab3"]
    assert [(f.path, f.rule_id) for f in found] == [
        ("lab3_reduction/reduce_kernels.cu", "does-not-compile")
    ]
    assert "no object was built from it as it is now" in found[0].reason


@needs_nvcc
def test_grade_names_the_compilers_errors_of_a_file_that_did_not_compile(tmp_path: Path) -> None:
    """`grade --impl` checks the objects of the build it made, whose log has the
    compiler's errors: the finding quotes them, as `check`'s does."""
    student = tmp_path / "student" / "lab3_reduction"
    shutil.copytree(REPO / "skeletons" / "lab3_reduction", student)
    (student / "reduce_kernels.cu").write_text('#include "reduction.cuh"\nint f() { return }\n')
    build = tmp_path / "build"
    log, failure = build_objects(REPO, str(student.parent), build, ["lab3"])
    assert failure is not None and failure.stage == "build", log
    (finding,) = submission_rejections(REPO, str(student.parent), build, ["lab3"], log)["lab3"]
    assert finding.startswith(
        "lab3_reduction/reduce_kernels.cu:0: does-not-compile: reduce_kernels.cu did not compile: "
    )
    assert "reduce_kernels.cu(2): error" in finding


def test_the_compilers_own_headers_are_read_from_the_build(tmp_path: Path) -> None:
    record = tmp_path / "CMakeFiles" / "3.28.3" / "CMakeCUDACompiler.cmake"
    record.parent.mkdir(parents=True)
    record.write_text(
        'set(CMAKE_CUDA_IMPLICIT_INCLUDE_DIRECTORIES "/opt/gcc/lib/gcc/x86_64-linux'
        '-gnu/13/include;/usr/include")\n'
    )
    dirs = system_include_dirs(tmp_path)
    assert Path("/opt/gcc/lib/gcc/x86_64-linux-gnu/13/include").resolve() in dirs
    own = tmp_path / "student"
    compiler = "/opt/gcc/lib/gcc/x86_64-linux-gnu/13/include/limits.h"
    assert check_includes([compiler], LAB1, own, "k", dirs) == []
    assert [f.rule_id for f in check_includes([compiler], LAB1, own, "k")] == ["include-outside"]


def test_a_library_is_named_first_and_what_it_brings_is_counted() -> None:
    """Thrust in a file gave 100 findings with the one that says why last (issue 40)."""
    brought = [Finding("k.cu", 0, "extra-symbol", f"defines thrust_{i}") for i in range(50)]
    found = [
        *brought,
        Finding("k.cu", 0, "constructor", "runs code before main"),
        Finding("k.cu", 0, "library-include", "includes thrust/reduce.h"),
    ]
    ordered = library_first(found)
    assert [f.rule_id for f in ordered[:2]] == ["library-include", "constructor"]
    assert len(ordered) == 6 and "and 47 more" in ordered[-1].reason
    assert library_first(brought) == brought  # no library: every finding, as found


@needs_binutils
def test_a_function_the_lab_compiles_itself_is_refused_however_defined(tmp_path: Path) -> None:
    lab = tmp_path / "lab1_x"
    lab.mkdir()
    shutil.copy(LAB1 / "histogram.cuh", lab)
    (lab / "lab.json").write_text('{"objects": {"fixed": ["launchers.cu"]}}')
    (lab / "launchers.cu").write_text(
        '#include "histogram.cuh"\nnamespace lab1 {\n'
        "void histogram_best(const int* in, int n, int* bins, int bin_count) {\n"
        "  const dim3 block(256);\n}\n}  // namespace lab1\n"
    )
    policy = load_object_policy("lab1", lab)
    assert policy.fixed == {"lab1::histogram_best"}  # `block(...)` is no contract function
    build = _build_object(tmp_path / "build", "lab1", OBJECTS / "symbols.cpp")
    found = [reason for rule, reason in _found(build, policy) if rule == "fixed-symbol"]
    assert len(found) == 1 and found[0].startswith("defines lab1::histogram_best(")
