"""A stand-in for a dataset setup step (plain program, no GoogleTest).

    fake_setup.py ok|fail COUNT_FILE

`ok` appends a line to COUNT_FILE, so a test can check it ran exactly once.
"""

import sys


def main() -> int:
    mode, count_file = sys.argv[1], sys.argv[2]
    with open(count_file, "a", encoding="utf-8") as out:
        out.write("ran\n")
    if mode == "ok":
        print("wrote 3 cases")
        return 0
    print("generate.py: ModuleNotFoundError: No module named 'numpy'", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
