"""A stand-in for a lab's GoogleTest program, one behaviour per MODE.

    fake_gtest.py MODE [--gtest_filter=Suite.Test] [--gtest_output=xml:PATH]

It writes the XML report the way GoogleTest does and, as the harness's main
does after RUN_ALL_TESTS, the end marker (`<nonce> <result>` at $LAB_RUN_MARKER),
so the grader can be tested on every way a student's test can end, without a
GPU or a compiler. Modes in EARLY_EXITS end the way student code ending the
process would: without a marker.

MODE `by_name` runs every case of a `:`-joined filter in one process, as
GoogleTest does, each behaving as the mode its name starts with
(`Suite.fail__3` fails): see CASE_MODES. Arguments other than the gtest flags
are ignored, so `prog=NAME` tells programs apart.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from xml.sax.saxutils import quoteattr

NO_DEVICE = (
    "cuda-labs: skipped: no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)"
)
# Before the harness finished: no GPU (exit 77 before any test), a student's exit(),
# a report forged by the student before ending the process.
EARLY_EXITS = ("no_gpu", "exit0_no_xml", "cuda_crash", "forged_report")
# A marker the student forged: another nonce, or a result the exit status does not match.
FORGED_MARKERS: dict[str, tuple[int, str | None]] = {
    "wrong_nonce": (0, "0123456789abcdef0123456789abcdef"),
    "status_mismatch": (1, None),
    "forged_figure": (0, "0123456789abcdef0123456789abcdef"),
}
# What harness::report_timing records (labs/common/src/timing_report.cpp).
FIGURE = {
    "timing_figure": "fastest variant / copy ceiling",
    "timing_value": "0.912346",
    "timing_needed": "0.85",
}
CUDA_EXCEPTION = (
    'unknown file\nC++ exception with description "histogram.cu:88 '
    "cudaDeviceSynchronize(): cudaErrorIllegalAddress (an illegal memory access "
    'was encountered)" thrown in the test body.'
)


def _args() -> tuple[str, str, str | None]:
    mode, name, xml = sys.argv[1], "Suite.Test", None
    for arg in sys.argv[2:]:
        if arg.startswith("--gtest_filter="):
            name = arg.split("=", 1)[1]
        elif arg.startswith("--gtest_output=xml:"):
            xml = arg.split(":", 1)[1]
    return mode, name, xml


def write_xml(
    path: str | None,
    name: str,
    *,
    failure: str | None = None,
    skipped: str | None = None,
    properties: dict[str, str] | None = None,
) -> None:
    """A GoogleTest-style report: one test case per name of a `:`-separated filter."""
    write_cases(path, [(one, failure, skipped, properties) for one in name.split(":")])


Case = tuple[str, str | None, str | None, dict[str, str] | None]


def write_cases(path: str | None, cases: list[Case]) -> None:
    """A GoogleTest-style report of (name, failure, skip message, properties) cases."""
    if path is None:
        return
    suites = []
    for one, failure, skipped, properties in cases:
        result = "skipped" if skipped is not None else "completed"
        inner = ""
        if failure is not None:
            inner = f'<failure message={quoteattr(failure)} type=""><![CDATA[{failure}]]></failure>'
        if skipped is not None:
            inner = f"<skipped message={quoteattr(skipped)}/>"
        if properties:
            inner += (
                "<properties>"
                + "".join(
                    f"<property name={quoteattr(k)} value={quoteattr(v)}/>"
                    for k, v in properties.items()
                )
                + "</properties>"
            )
        failures = 1 if failure is not None else 0
        suite, _, test = one.partition(".")
        suites.append(
            f'  <testsuite name="{suite}" tests="1" failures="{failures}" disabled="0"'
            ' skipped="0" errors="0">\n'
            f'    <testcase name="{test}" status="run" result="{result}" time="0.01"\n'
            f'              classname="{suite}">{inner}</testcase>\n'
            "  </testsuite>\n"
        )
    count = len(suites)
    failed = sum(1 for case in cases if case[1] is not None)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="{count}" failures="{failed}" disabled="0" errors="0" name="AllTests">
{"".join(suites)}</testsuites>
""")


def _spawn_sleeper() -> None:
    """A child that would outlive us; its pid goes where the test can check it."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["FAKE_PID_FILE"], "w", encoding="utf-8") as out:
        out.write(str(child.pid))


def write_marker(result: int, nonce: str | None = None) -> None:
    """What test_main.cpp writes once RUN_ALL_TESTS has returned `result`."""
    given = os.environ.pop("LAB_RUN_NONCE", None)
    path = os.environ.pop("LAB_RUN_MARKER", None)
    if given is None or path is None:
        return
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"{nonce or given} {result}\n")


CASE_FAILURE = "histogram_test.cu:42\nbin 17: expected 1024, got 0"
WATCHDOG_LINE = (
    "cuda-labs: kernel histogram timed out after 10 s: possible deadlock "
    "(a kernel that never finishes)"
)


def case_mode(name: str) -> str:
    """`fail` for `Suite.fail__3` or `Suite.P/fail__3`: what a case of `by_name` does."""
    return name.partition(".")[2].rpartition("/")[2].split("__", 1)[0]


def run_by_name(names: list[str], xml: str | None) -> int:
    """Every case of the filter in this one process, in order. The report and the
    marker come only after the last case, as in GoogleTest and test_main.cpp, so a
    case that ends the process leaves neither (or a forged pair)."""
    cases: list[Case] = []
    result = 0
    for name in names:
        mode = case_mode(name)
        print(f"[ RUN      ] {name}", flush=True)
        if mode == "pass":
            cases.append((name, None, None, None))
            print(f"[       OK ] {name}")
        elif mode == "fail":
            cases.append((name, CASE_FAILURE, None, None))
            print(f"[  FAILED  ] {name}")
            result = 1
        elif mode == "cuda_exception":  # the context is broken for every later case
            cases.append((name, CUDA_EXCEPTION, None, None))
            print(f"[  FAILED  ] {name}")
            result = 1
        elif mode == "gtest_skip":
            cases.append((name, None, "no data", None))
            print(f"[  SKIPPED ] {name}")
        elif mode == "wrong_test_xml":  # reported under another name
            cases.append(("Other.Test", None, None, None))
        elif mode == "segv":
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(5)
        elif mode == "hang":
            time.sleep(120)
        elif mode == "blaming_hang":  # a student's hang that names the group's first case
            print(f"[ RUN      ] {names[0]}", flush=True)
            time.sleep(120)
        elif mode == "watchdog":  # sync.cu's watchdog ends the process
            print(WATCHDOG_LINE, flush=True)
            os._exit(124)
        elif mode == "exit0_no_xml":  # a student's exit(0)
            print("[  PASSED  ] 1 test.", flush=True)
            os._exit(0)
        elif mode == "wrong_nonce":  # a forged report and marker, then exit(0)
            write_cases(xml, [(n, None, None, None) for n in names])
            write_marker(0, FORGED_MARKERS["wrong_nonce"][1])
            sys.stdout.flush()
            os._exit(0)
        else:
            print(f"fake_gtest.py: unknown case mode {mode}", file=sys.stderr)
            return 2
    write_cases(xml, cases)
    return result


def main() -> int:
    mode, name, xml = _args()
    if mode == "by_name":
        result = run_by_name(name.split(":"), xml)
        write_marker(result)
        return result
    result = run(mode, name, xml)
    if mode in FORGED_MARKERS:
        write_marker(*FORGED_MARKERS[mode])
        return 0
    if mode not in EARLY_EXITS:
        write_marker(result)
    return result


def run(mode: str, name: str, xml: str | None) -> int:
    """The test body: what GoogleTest prints and reports, and RUN_ALL_TESTS's result."""
    print(f"[ RUN      ] {name}", flush=True)
    if mode == "pass":
        write_xml(xml, name)
        print(f"[       OK ] {name}\n[  PASSED  ] 1 test.")
        return 0
    if mode == "fail":
        write_xml(
            xml,
            name,
            failure="histogram_test.cu:42\nbin 17: expected 1024, got 0\n"
            "bin 18: expected 977, got 0",
        )
        print(f"[  FAILED  ] {name}")
        return 1
    if mode == "pass_with_figure":
        write_xml(xml, name, properties=FIGURE)
        print(f"cuda-labs: timing: {FIGURE['timing_figure']}: 0.912 (needed >= 0.85)")
        return 0
    if mode == "fail_with_figure":
        write_xml(xml, name, failure="0.912 (needed >= 0.95)", properties=FIGURE)
        return 1
    if mode == "printed_figure":  # a student's printf, in the harness's words
        write_xml(xml, name)
        print(f"cuda-labs: timing: {FIGURE['timing_figure']}: 99 (needed >= 0.85)")
        return 0
    if mode == "forged_figure":
        write_xml(xml, name, properties={**FIGURE, "timing_value": "99"})
        return 0
    if mode == "cuda_exception":
        write_xml(xml, name, failure=CUDA_EXCEPTION)
        print(f"[  FAILED  ] {name}")
        return 1
    if mode == "cuda_crash":
        print("histogram.cu:88: an illegal memory access was encountered", flush=True)
        return 1
    if mode == "hang":
        time.sleep(120)
    if mode == "hang_with_child":
        _spawn_sleeper()
        time.sleep(120)
    if mode == "pass_leaving_child":
        _spawn_sleeper()
        write_xml(xml, name)
        return 0
    if mode in ("segv", "abort"):
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSEGV if mode == "segv" else signal.SIGABRT)
        time.sleep(5)
    if mode == "passed_text_exit1":
        print("[  PASSED  ] 1 test.")
        return 1
    if mode == "skipped_text":
        print(f"[  SKIPPED ] {name}")
        return 0
    if mode == "skipped_text_but_passed":
        write_xml(xml, name)
        print(f"[  SKIPPED ] {name} (a student's printf)\n[  PASSED  ] 1 test.")
        return 0
    if mode == "gtest_skip":
        write_xml(xml, name, skipped="no data")
        print(f"[  SKIPPED ] {name}")
        return 0
    if mode == "no_gpu":
        print(NO_DEVICE)
        return 77
    if mode == "exit0_no_xml":
        print("[  PASSED  ] 1 test.")
        return 0
    if mode in ("forged_report", *FORGED_MARKERS):
        write_xml(xml, name)
        print(f"[       OK ] {name}\n[  PASSED  ] 1 test.")
        return 0
    if mode == "marker_no_xml":
        return 0
    if mode == "wrong_test_xml":
        write_xml(xml, "Other.Test")
        return 0
    if mode in ("public_only", "public_only_crashing_grouped"):
        # A baked answer: right on the public data, wrong on hidden; the second mode's
        # process crashes when it runs several cases (a group) on the public data.
        hidden = os.environ.get("LAB_DATA_DIR", "").endswith("-hidden")
        if mode == "public_only_crashing_grouped" and ":" in name and not hidden:
            os.kill(os.getpid(), signal.SIGSEGV)
        write_xml(xml, name, failure="bin 3: expected 1, got 0" if hidden else None)
        return 1 if hidden else 0
    if mode == "control_chars":
        write_xml(xml, name, failure="bin 3: expected 1, got 0")
        sys.stdout.write("ansi \x1b[31mred\x1b[0m nul \x00 bell \x07\n")
        return 1
    if mode == "flood":
        line = "x" * 1023 + "\n"
        for _ in range(4096):
            sys.stdout.write(line)
        write_xml(xml, name)
        return 0
    print(f"fake_gtest.py: unknown mode {mode}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
