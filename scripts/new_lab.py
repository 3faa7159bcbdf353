"""Start a new lab from the template lab in templates/lab/.

    python3 scripts/new_lab.py TOPIC [--number N]

writes labs/labN_TOPIC/, solutions/labN_TOPIC/ and skeletons/labN_TOPIC/ (N: the next
free lab number unless given) and adds the lab's test presets labN, labN-correctness,
labN-timing, labN-tables and TOPIC (labN's tests, by the lab's topic) to
CMakePresets.json. The template is a small working lab (SAXPY: one kernel, exact
correctness cases, one timing bar against the copy ceiling); the new lab builds and
passes its tests as it is, and is then rewritten into the real exercise.

In the template's paths and texts, `labN` stands for the lab's id (lab7), `TOPIC` for
the topic (matrix_transpose) and `TITLE` for its title (Matrix transpose). The C++
files are formatted with clang-format once the names are in, and the skeleton's
sources are generated from their masters in solutions/ with unifdef, as
scripts/make_skeletons.sh does. Nothing is written until all of that has succeeded,
and nothing that exists is ever overwritten: a lab number or folder already taken is
refused. See CONTRIBUTING.md for what a new lab needs next.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = Path("templates") / "lab"
PRESETS = Path("CMakePresets.json")
TOPIC_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
# A file name holds at most 255 bytes; the topic names files (TOPIC_launchers.cuh), the
# lab's folders and its build's (labN_TOPIC_correctness_test.dir), and is typed in presets.
TOPIC_MAX = 64
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as grader/cli.py's
# The folders that hold one subfolder per lab, labN_topic.
LAB_ROOTS = ("labs", "solutions", "skeletons")
LAB_FOLDER = re.compile(r"lab([0-9]+)_.+")
LAB_PRESET = re.compile(r"lab([0-9]+)(?:-correctness|-timing)?")
CPP_SUFFIXES = (".cu", ".cuh", ".hpp", ".cpp")
# What scripts/make_skeletons.sh runs on each master (-x 1: exit 0 when the output
# differs from the master, as a skeleton must).
UNIFDEF_ARGS = ("-B", "-x", "1", "-DLAB_SKELETON=1")


class NewLabError(Exception):
    """A reason to write nothing, for the one line the script prints."""


@dataclass(frozen=True)
class Lab:
    number: int
    topic: str

    @property
    def id(self) -> str:
        return f"lab{self.number}"

    @property
    def folder(self) -> str:
        return f"{self.id}_{self.topic}"

    @property
    def title(self) -> str:
        words = self.topic.replace("_", " ").strip()
        return words[:1].upper() + words[1:]

    def fill(self, text: str) -> str:
        """The template's text with this lab's id, topic and title."""
        for placeholder, value in (("labN", self.id), ("TOPIC", self.topic), ("TITLE", self.title)):
            text = text.replace(placeholder, value)
        return text


def check_topic(topic: str) -> str:
    if not TOPIC_PATTERN.fullmatch(topic):
        raise NewLabError(
            f"topic {topic!r}: use lower-case letters, digits and '_', starting with a letter "
            "(it names the folders, the program and the files), e.g. matrix_transpose"
        )
    if len(topic) > TOPIC_MAX:
        raise NewLabError(
            f"topic {topic[:20]}... ({len(topic)} characters): at most {TOPIC_MAX} (it names "
            "the folders, the program and the files), e.g. matrix_transpose"
        )
    return topic


def taken_numbers(repo: Path) -> dict[int, list[str]]:
    """Lab number -> what uses it: a lab folder anywhere, or a test preset."""
    taken: dict[int, list[str]] = {}
    for root in LAB_ROOTS:
        folder = repo / root
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            match = LAB_FOLDER.fullmatch(path.name)
            if match:
                taken.setdefault(int(match.group(1)), []).append(f"{root}/{path.name}")
    presets: dict[int, list[str]] = {}
    for preset in read_presets(repo).get("testPresets", []):
        name = str(preset.get("name", ""))
        match = LAB_PRESET.fullmatch(name)
        if match:
            presets.setdefault(int(match.group(1)), []).append(name)
    for number, names in presets.items():
        taken.setdefault(number, []).append(f"{PRESETS}'s test presets {', '.join(names)}")
    return taken


def check_topic_free(repo: Path, topic: str) -> None:
    """Two labs of one topic would be told apart by their numbers alone: refused. The
    topic also names a test preset (topic_preset), which must be new."""
    same = re.compile(rf"lab[0-9]+_{re.escape(topic)}")
    for root in LAB_ROOTS:
        folder = repo / root
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            if same.fullmatch(path.name):
                raise NewLabError(
                    f"a lab of topic {topic!r} exists: {root}/{path.name}; choose another topic"
                )
    if any(p.get("name") == topic for p in read_presets(repo).get("testPresets", [])):
        raise NewLabError(f"{PRESETS} has a test preset {topic!r}: choose another topic")


def choose_number(repo: Path, requested: int | None) -> int:
    taken = taken_numbers(repo)
    if requested is None:
        return max(taken, default=0) + 1
    if requested < 1:
        raise NewLabError(f"--number {requested}: lab numbers start at 1")
    if requested in taken:
        raise NewLabError(
            f"lab{requested} exists: {', '.join(taken[requested])}; "
            "choose another --number, or leave it out for the next free one"
        )
    return requested


def read_presets(repo: Path) -> dict[str, Any]:
    path = repo / PRESETS
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NewLabError(f"cannot read {PRESETS}: {exc}") from exc
    if not isinstance(doc, dict):
        raise NewLabError(f"{PRESETS} is not a JSON object")
    return doc


# --- the presets: inserted as text, so the file keeps its hand-made layout ---------------


def _array_elements(text: str, key: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of each element of the top-level array `key` in `text`."""
    match = re.search(rf'"{re.escape(key)}"\s*:\s*\[', text)
    if match is None:
        raise NewLabError(f"{PRESETS} has no {key!r} array")
    elements: list[tuple[int, int]] = []
    depth, start, in_string, escaped = 0, -1, False, False
    for i in range(match.end(), len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            if depth == 0:
                start = i
            depth += 1
        elif c in "}]":
            if depth == 0:  # the array's own ']'
                return elements
            depth -= 1
            if depth == 0:
                elements.append((start, i + 1))
    raise NewLabError(f"{PRESETS}: the {key!r} array is not closed")


def preset_entries(lab: str) -> list[dict[str, Any]]:
    """The test presets every lab has, as the README lists them."""
    every = {"name": lab, "inherits": "student", "displayName": f"{lab}: every test"}
    return [
        {**every, "filter": {"include": {"label": f"^{lab}$"}}},
        {
            "name": f"{lab}-correctness",
            "inherits": "student",
            "displayName": f"{lab}: correctness tests",
            "filter": {"include": {"label": f"^{lab}\\.correctness$"}},
        },
        {
            "name": f"{lab}-timing",
            "inherits": "student",
            "displayName": f"{lab}: timing tests",
            "filter": {"include": {"label": f"^{lab}\\.timing$"}},
        },
        {
            "name": f"{lab}-tables",
            # Not "student", which leaves the tables out.
            "inherits": "student-every-test",
            "displayName": f"{lab}: the course's tables, printed",
            "output": {"verbosity": "verbose"},
            "filter": {"include": {"label": f"^tables\\.{lab}$"}},
        },
    ]


def topic_preset(lab: Lab) -> dict[str, Any]:
    """`ctest --preset TOPIC`: the lab's tests by its topic, for those who do not know
    its number (CI's throwaway lab, scripts/check-new-lab.sh)."""
    return {"name": lab.topic, "inherits": lab.id, "displayName": f"{lab.id}: every test"}


def _entry_text(entry: dict[str, Any], indent: str) -> str:
    """One preset in the file's layout, from its opening brace: its name, base and title
    on the first line, the filter (where it has one of its own) on the second."""
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in entry.items() if k != "filter")
    if "filter" not in entry:
        return f"{{{head}}}"
    return f"{{{head},\n{indent} {json.dumps('filter')}: {json.dumps(entry['filter'])}}}"


def presets_with(text: str, lab: Lab) -> str:
    """CMakePresets.json's text with the lab's test presets before those of the labs
    numbered above it (else after the last test preset); everything else unchanged."""
    doc = json.loads(text)
    elements = _array_elements(text, "testPresets")
    tests = doc.get("testPresets", [])
    if not elements or len(elements) != len(tests):
        raise NewLabError(f"{PRESETS}: cannot find its test presets")
    above = [
        i
        for i, preset in enumerate(tests)
        if (m := LAB_PRESET.fullmatch(str(preset.get("name", "")))) and int(m.group(1)) > lab.number
    ]
    entries = [*preset_entries(lab.id), topic_preset(lab)]
    if above:
        position = above[0]
        start = elements[position][0]
        indent = " " * (start - (text.rfind("\n", 0, start) + 1))
        added = f",\n{indent}".join(_entry_text(entry, indent) for entry in entries)
        new_text = f"{text[:start]}{added},\n{indent}{text[start:]}"
    else:
        position = len(tests)
        start, end = elements[-1]
        indent = " " * (start - (text.rfind("\n", 0, start) + 1))
        added = f",\n{indent}".join(_entry_text(entry, indent) for entry in entries)
        new_text = f"{text[:end]},\n{indent}{added}{text[end:]}"
    expected = dict(doc, testPresets=[*tests[:position], *entries, *tests[position:]])
    if json.loads(new_text) != expected:  # a layout this function does not know
        raise NewLabError(f"{PRESETS}: could not add the presets without changing the rest")
    return new_text


# --- rendering -----------------------------------------------------------------------------


def tool(name: str, why: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise NewLabError(
            f"{name} not found: it {why}; install it (Debian/Ubuntu: apt-get install {name}, "
            "or bash scripts/setup.sh)"
        )
    return found


def _run(command: list[str], text: str, what: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, input=text, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise NewLabError(f"{what}: {exc}") from exc


def formatted(clang_format: str, repo: Path, rel: Path, text: str) -> str:
    """`text` as clang-format leaves it, with the repository's .clang-format."""
    done = _run(
        [clang_format, "--style=file", f"--assume-filename={repo / rel}"], text, f"format {rel}"
    )
    if done.returncode != 0:
        raise NewLabError(f"clang-format failed on {rel}: {done.stderr.strip()}")
    return done.stdout


def skeleton_of(unifdef: str, rel: Path, master: str) -> str:
    done = _run([unifdef, *UNIFDEF_ARGS], master, f"unifdef {rel}")
    if done.returncode != 0:  # 1: no LAB_SKELETON region, 2: an error
        raise NewLabError(
            f"unifdef could not make a skeleton of {rel} (exit status {done.returncode}): "
            f"{done.stderr.strip() or 'the master has no #if LAB_SKELETON region'}"
        )
    return done.stdout


def render(repo: Path, lab: Lab) -> dict[Path, str]:
    """Every file of the new lab, relative to the repository, with its text."""
    template = repo / TEMPLATE
    if not template.is_dir():
        raise NewLabError(f"no template: {TEMPLATE}/ is missing")
    clang_format = tool("clang-format", "formats the new lab's C++ files")
    unifdef = tool("unifdef", "writes the skeleton's sources from their masters")
    files: dict[Path, str] = {}
    for path in sorted(p for p in template.rglob("*") if p.is_file()):
        rel = Path(lab.fill(path.relative_to(template).as_posix()))
        text = lab.fill(path.read_text(encoding="utf-8"))
        if rel.suffix in CPP_SUFFIXES:
            text = formatted(clang_format, repo, rel, text)
        files[rel] = text
    for rel, text in list(files.items()):
        if rel.parts[0] == "solutions" and rel.suffix == ".cu":
            files[Path("skeletons", *rel.parts[1:])] = skeleton_of(unifdef, rel, text)
    return files


def create(repo: Path, lab: Lab) -> list[Path]:
    """Write the lab and its presets; refuse, writing nothing, if any of it exists. Should
    a write fail or Ctrl-C stop it, the lab's folders it made are removed again."""
    for root in LAB_ROOTS:
        if (repo / root / lab.folder).exists():
            raise NewLabError(f"{root}/{lab.folder} exists: not overwritten")
    files = render(repo, lab)
    presets = presets_with((repo / PRESETS).read_text(encoding="utf-8"), lab)
    made: list[Path] = []  # removed again should anything fail
    staged = (repo / PRESETS).with_name(f".{PRESETS.name}.new")
    try:
        for root in LAB_ROOTS:
            (repo / root / lab.folder).mkdir(parents=True)  # exist_ok=False: never merge
            made.append(repo / root / lab.folder)
        for rel, text in files.items():
            target = repo / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8", newline="\n") as out:
                out.write(text)
        with staged.open("x", encoding="utf-8") as out:
            made.append(staged)
            out.write(presets)
        os.replace(staged, repo / PRESETS)  # whole or not at all
    except BaseException as exc:
        for path in made:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            why = f"cannot write {exc.filename}: {exc.strerror}; nothing written"
            raise NewLabError(why) from exc
        raise
    return sorted(files)


def next_steps(lab: Lab) -> str:
    i, f, t = lab.id, lab.folder, lab.topic
    return f"""\
new_lab: {i} is a working SAXPY lab; make it the exercise you want:
  1. Build and test it as it is (no GPU: the GPU tests report themselves skipped):
       cmake --preset student -DLAB_ONLY={i} && cmake --build --preset student
       CUDA_LABS_EXPECT_NO_GPU=1 ctest --preset {t}   # or {i}: the same tests
     On a GPU: cmake --workflow --preset reference (add -DLAB_ONLY={i} to its configure
     to build only this lab), and the skeleton must fail every {i} test cleanly.
  2. Write the exercise: the contract labs/{f}/{t}.cuh, the launchers the lab fixes
     (labs/{f}/{t}_launchers.cuh), the harness ({i}.hpp, {i}.cu), the program
     (main.cpp), the tests (labs/{f}/tests/), the README and REPORT.md's questions
     (skeletons/{f}/REPORT.md).
  3. Write the student's file in its master, solutions/{f}/{t}_kernels.cu
     (#if LAB_SKELETON ... #else ... #endif), then: bash scripts/make_skeletons.sh
  4. Set the timing bars in labs/{f}/lab.json from the reference measured on a GPU,
     and say what they were set from in labs/{f}/calibration.json.
  5. What else a lab needs (CONTRIBUTING.md, "Adding a lab"): datasets/{i}.json if it
     reads dataset files, known-wrong submissions, the README's tables.
  6. bash scripts/test.sh, then commit the lab and CMakePresets.json."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 scripts/new_lab.py",
        description="Start a new lab (labs/, solutions/, skeletons/ and its test presets) "
        "from templates/lab/.",
    )
    parser.add_argument("topic", metavar="TOPIC", help="the lab's topic, e.g. matrix_transpose")
    parser.add_argument(
        "--number", type=int, metavar="N", help="the lab's number (default: the next free one)"
    )
    args = parser.parse_args(argv)
    try:
        topic = check_topic(args.topic)
        check_topic_free(REPO, topic)
        lab = Lab(choose_number(REPO, args.number), topic)
        written = create(REPO, lab)
    except NewLabError as exc:
        print(f"new_lab: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("new_lab: interrupted: nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    for rel in written:
        print(f"new_lab: wrote {rel}")
    print(
        f"new_lab: added the test presets {lab.id}, {lab.id}-correctness, {lab.id}-timing, "
        f"{lab.id}-tables, {lab.topic} to {PRESETS}"
    )
    print(next_steps(lab))
    return 0


if __name__ == "__main__":
    sys.exit(main())
