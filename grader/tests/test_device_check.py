"""The device half of the object check: tensor-core instructions and library code
read from an object's SASS and PTX with cuobjdump (the wheels'). No GPU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader.tests.helpers import DATA
from grader.trust.device_facts import DeviceFacts, parse_device, read_device
from grader.trust.object_check import check_device, load_object_policy

REPO = Path(__file__).resolve().parents[2]
LAB1 = REPO / "labs" / "lab1_histogram"
LAB5 = REPO / "labs" / "lab5_matmul"
LAB6 = REPO / "labs" / "lab6_image_pipeline"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

# What `cuobjdump -symbols -sass -ptx` prints, cut to the lines it parses.
LISTING = """
Fatbin elf code:
================
arch = sm_90
\t\tFunction : _Z1kPf
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0130*/              @!P0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ ;
symbols:
FUNC          LOCAL   DEFAULT    -        $_Z1kPf$_ZN3cub6helperEi
FUNC          GLOBAL  DEFAULT    ENTRY    _Z1kPf

Fatbin ptx code:
================
.visible .entry _Z1kPf(
.param .u64 _Z1kPf_param_0
)
{
@%p1 wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2}, {%r2}, {%r10}, {%f1};
}
"""


def test_the_listing_gives_every_function_and_instruction() -> None:
    facts = parse_device(LISTING)
    assert ("_ZN3cub6helperEi", "cub::helper(int)") in facts.names
    assert ("_Z1kPf", "HGMMA.64x128x16.F32.BF16") in facts.sass
    assert ("_Z1kPf", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32") in facts.ptx


def test_tensor_cores_are_refused_where_the_lab_forbids_them() -> None:
    facts = parse_device(LISTING)
    lab5 = load_object_policy("lab5", LAB5)
    found = check_device(facts, lab5, "matmul_kernels.cu")
    assert [r for r, _ in found] == ["device-instruction", "library-code"]
    assert "k(float*) executes HGMMA" in found[0][1]
    lab1 = load_object_policy("lab1", LAB1)
    assert [r for r, _ in check_device(facts, lab1, "histogram_kernels.cu")] == ["library-code"]
    ptx_only = DeviceFacts(facts.names[:1], (), facts.ptx)
    assert [r for r, _ in check_device(ptx_only, lab5, "matmul_kernels.cu")] == [
        "device-instruction"
    ]


def test_library_device_code_only_in_the_file_allowed_it() -> None:
    facts = parse_device(LISTING)
    lab6 = load_object_policy("lab6", LAB6)
    assert check_device(facts, lab6, "thrust_pipeline.cu") == []
    assert [r for r, _ in check_device(facts, lab6, "scan_kernels.cu")] == ["library-code"]


@needs_nvcc
def test_a_compiled_object_shows_its_tensor_cores_and_library_code(tmp_path: Path) -> None:
    obj = tmp_path / "k.o"
    source = DATA / "device" / "tensor_and_cub.cu"
    arch = "-gencode=arch=compute_86,code=[sm_86,compute_86]"
    subprocess.run(["nvcc", "-c", arch, str(source), "-o", str(obj)], check=True)
    facts = read_device(obj)
    mma = {f for f, i in facts.sass if i.startswith("HMMA")}
    assert mma == {"_Z10inline_mmaPKjS0_Pf"}
    assert any(i.startswith("mma.sync") for _, i in facts.ptx)
    found = check_device(facts, load_object_policy("lab5", LAB5), "matmul_kernels.cu")
    assert [r for r, _ in found] == ["device-instruction", "library-code"]
    assert "cub::triple(int)" in found[1][1]
    names = read_device(obj, instructions=False)
    assert names.sass == () and "_ZN3cub6tripleEi" in dict(names.names)
