"""A stand-in for compute-sanitizer: runs the program after its options and, like
the real tool with `--error-exitcode`, exits with that code and prints a report
when it "finds" an error.

    fake_sanitizer.py --tool T --error-exitcode N --log PATH --faulty WORD
                      PROGRAM ARGS...

It finds one when the program's --gtest_filter names a case containing WORD, or,
with WORD `*together*`, when the filter names more than one variant. Each filter
it was given is appended to PATH, so a test can see which runs were made.
"""

from __future__ import annotations

import subprocess
import sys


def main() -> int:
    args = sys.argv[1:]
    options: dict[str, str] = {}
    while args and args[0].startswith("--"):
        options[args[0][2:]] = args[1]
        args = args[2:]
    gtest_filter = next((a.split("=", 1)[1] for a in args if a.startswith("--gtest_filter=")), "")
    with open(options["log"], "a", encoding="utf-8") as log:
        log.write(gtest_filter + "\n")
    status = subprocess.run(args, check=False).returncode
    names = gtest_filter.split(":")
    variants = {n.rpartition("/")[2].split("__")[0] for n in names}
    faulty = options["faulty"]
    found = len(variants) > 1 if faulty == "*together*" else any(faulty in n for n in names)
    if not found:
        print("========= ERROR SUMMARY: 0 errors")
        return status
    print(
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Race reported between Write access at kernel+0x10\n"
        "=========     and Read access at kernel+0x20 [4 hazards]\n"
        "========= ERROR SUMMARY: 1 error"
    )
    return int(options["error-exitcode"])


if __name__ == "__main__":
    raise SystemExit(main())
