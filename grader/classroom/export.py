"""Writing the student repository: the instructor's tree minus what must not leak.

What goes out is decided by an allow-by-default list of committed files with an
explicit deny list (`EXCLUDED`), so a new lab or script is exported without an
edit here, while the reference solutions, the known-wrong submissions, the
grader's instructor-only commands and the instructor's workflows never are.
Files that mention the solutions are rewritten (`CMakePresets.json`, README,
`scripts/test.sh`, the workflows) rather than shipped as they are, and the Markdown
pages lose their links to what is left out. Everything is read from the HEAD commit.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.classroom.written_answers import markdown_sections
from grader.core.errors import GraderUsageError

# Never exported, as path prefixes (folders end in "/") or fnmatch patterns.
EXCLUDED_PREFIXES = (
    "solutions/",
    "submissions/",
    ".github/",
    "grader/tests/",
    "scripts/gpu-suite.sh",
    "scripts/suite_summary.py",
    "scripts/class-batch.sh",
    "scripts/seed-sweeps.sh",
    # Rewrites labs/*/calibration.json from gradings of the reference solutions.
    "scripts/calibrate.py",
    "scripts/provision-runner.sh",
    "scripts/lock.sh",
    # The performance credit's check grades the solutions and submissions/slow/.
    "scripts/credit-check.sh",
    "scripts/credit_table.py",
    # Instructors' GPU checks: they grade solutions/ and submissions/.
    "scripts/deadline-class.sh",
    "scripts/bench-grading.sh",
    "scripts/bench_summary.py",
    "scripts/compare_verdicts.py",
    "scripts/check-verdicts.sh",
    # A class on a cluster: the one-node Slurm the tests start.
    "scripts/slurm-node.sh",
    # Writes skeletons/ from the masters in solutions/, which students do not get.
    "scripts/make_skeletons.sh",
    # Making a lab: the template (its master holds a solution), its scripts and guide.
    "templates/",
    "scripts/new_lab.py",
    "scripts/check-new-lab.sh",
    "CONTRIBUTING.md",
    # The maintainers' dated measurements of the reference and the grader.
    "docs/measurements/",
    # Students install requirements.lock: the dependencies without the maintainers' checks.
    "requirements-dev.lock",
    # The class-level tools and their commands.
    "grader/classroom/",
)
# Secrets and hidden data, wherever they are: belt and braces, none is committed.
EXCLUDED_PATTERNS = (
    "*secret*",
    "*.key",
    "*.pem",
    "*hidden*",
    "build*/*",
    "*/__pycache__/*",
    "*.pyc",
    ".pytest_cache/*",
    ".deps/*",
    ".git/*",
    ".venv/*",
    "*.egg-info/*",
    ".mypy_cache/*",
    ".ruff_cache/*",
)
# Written by the export itself (templates below or rewrites of the originals).
REWRITTEN = ("README.md", "CMakePresets.json", "scripts/test.sh")
DEFAULT_INSTRUCTOR_REPO = "INSTRUCTOR/cuda-labs"
DEFAULT_REF = "main"
REUSABLE_WORKFLOW = ".github/workflows/grade-student.yml"
# What builds and tests a new export as the students' CI does, from nothing: the setup
# its README has a newcomer run first (the virtual environment with numpy), then the preset.
STUDENT_CHECK = "bash scripts/setup.sh && cmake --workflow --preset ci-skeletons"
# The student repository's own files, as real files (linted as such): copied, with
# the instructor's repository and ref filled into the grading workflow.
STUDENT_FILES = Path("templates/student")


@dataclass(frozen=True)
class ExportResult:
    """What was written: file count, the files rewritten or added, what --force kept
    of a previous export because it was no longer a file export wrote, and from where."""

    out: Path
    copied: int
    generated: tuple[str, ...]
    kept: tuple[str, ...] = ()
    commit: str | None = None  # what was exported (None: a folder without git, as it is)
    uncommitted: tuple[str, ...] = ()  # edited files exported as committed, without the edit


def is_excluded(rel: str) -> bool:
    """True for a path (POSIX, relative to the repository) the students must not get."""
    if any(rel == p.rstrip("/") or rel.startswith(p) for p in EXCLUDED_PREFIXES):
        return True
    return any(
        fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(Path(rel).name, pat)
        for pat in EXCLUDED_PATTERNS
    )


@dataclass(frozen=True)
class Tree:
    """What export reads: the files of the checkout's HEAD commit (never its working
    copies, so an edit not committed, a build folder or a colleague's unfinished file
    never leaks), or, in a folder without git, its files as they are."""

    files: Mapping[str, bytes]  # what export writes or reads to write a student's file
    listed: frozenset[str]  # every file of the tree, exported or not
    executable: frozenset[str] = frozenset()
    commit: str | None = None
    # Tracked files whose working copy differs from the commit: not exported as edited.
    uncommitted: tuple[str, ...] = ()

    def text(self, rel: str | Path) -> str:
        name = Path(rel).as_posix()
        if name not in self.files:
            raise GraderUsageError(f"{name} is not in the tree export reads ({self.where})")
        return self.files[name].decode("utf-8")

    @property
    def where(self) -> str:
        return f"commit {self.commit[:12]}" if self.commit else "a folder without git"


def read_tree(repo: Path) -> Tree:
    """The repository's HEAD commit; a folder without git is read as it is."""
    if not (repo / ".git").exists():
        names = frozenset(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())
        files = {f: (repo / f).read_bytes() for f in sorted(names) if read_for_export(f)}
        return Tree(files, names, frozenset(f for f in files if os.access(repo / f, os.X_OK)))
    commit = _git(repo, "rev-parse", "--verify", "HEAD^{commit}").decode().strip()
    files, listed, executable = {}, set(), set()
    with tarfile.open(fileobj=io.BytesIO(_git(repo, "archive", "--format=tar", commit))) as tar:
        for member in tar.getmembers():
            listed.add(member.name)
            if member.isdir() or not read_for_export(member.name):
                continue
            if not member.isfile():  # a link: what it points to would be the instructor's
                raise GraderUsageError(
                    f"{member.name} in commit {commit[:12]} is not a regular file: "
                    "export writes files only"
                )
            source = tar.extractfile(member)
            assert source is not None  # a regular file
            files[member.name] = source.read()
            if member.mode & 0o111:
                executable.add(member.name)
    changed = _git(repo, "diff", "--name-only", "--no-renames", "-z", "HEAD", "--").decode()
    edited = tuple(n for n in changed.split("\0") if n and read_for_export(n))
    return Tree(files, frozenset(listed), frozenset(executable), commit, edited)


def _git(repo: Path, *args: str) -> bytes:
    """git's output in `repo`; a usage error with git's first line when it fails."""
    if shutil.which("git") is None:
        raise GraderUsageError(f"{repo} is a git checkout, and git is not installed")
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if proc.returncode != 0:
        why = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[0]
        raise GraderUsageError(f"{repo}: git {args[0]}: {why}")
    return proc.stdout


def export_plan(tree: Tree) -> list[str]:
    """The files copied as they are: not excluded, not rewritten."""
    return sorted(f for f in tree.files if not is_excluded(f) and f not in REWRITTEN)


def read_for_export(rel: str) -> bool:
    """Whether export writes `rel` or reads it to write a student's file."""
    return not is_excluded(rel) or rel.startswith(f"{STUDENT_FILES.as_posix()}/")


# Written into every export: what it wrote, with each file's sha256, so --force removes
# that and nothing else, and never a file edited since (null: not written whole yet).
MARKER = ".cuda-labs-export"
MARKER_FORMAT = 2


def _forbidden_reason(out: Path, repo: Path) -> str | None:
    """Why OUTDIR (absolute, resolved) may not be written or emptied, or None."""
    if len(out.parts) <= 2:  # `/` or a top-level folder: /usr, /etc, /tmp, /home ...
        return "is the root or a top-level folder: export to a folder of its own"
    if out == repo or repo in out.parents:
        return "is inside the repository: export outside it"
    if out in repo.parents:
        return "holds the repository: export to a folder of its own"
    if out == Path(tempfile.gettempdir()).resolve():
        return "is the temporary folder itself: export to a folder inside it"
    home = _home()
    if home is not None and (out == home or out in home.parents):
        return "is your home or holds it: export to a folder of its own"
    return None


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError):  # no $HOME and no passwd entry
        return None


def check_outdir(out: Path, repo: Path) -> None:
    """Refuse an OUTDIR whose writing or emptying could destroy what export did not write.

    Both the path as given and the folder it leads to are checked: a symlink to `/`
    must be refused like `/`.
    """
    for path in dict.fromkeys((Path(os.path.abspath(out)), out.resolve())):
        reason = _forbidden_reason(path, repo)
        if reason is not None:
            raise GraderUsageError(f"{out} {reason}")


def read_marker(out: Path) -> dict[str, str | None] | None:
    """The files a previous export listed in OUTDIR's marker, with their digests;
    None when unmarked (or marked by an older export, which kept no digests)."""
    marker = out / MARKER
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != MARKER_FORMAT:
        return None
    files = doc.get("files")
    if not isinstance(files, dict):
        return None
    return {
        f: d for f, d in files.items() if _safe_relative(f) and (d is None or isinstance(d, str))
    }


def _safe_relative(rel: str) -> bool:
    """A marker's entry that names a path inside OUTDIR (no `..`, not absolute)."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def write_marker(out: Path, files: dict[str, str | None]) -> None:
    doc = {
        "format": MARKER_FORMAT,
        "written_by": "python3 -m grader.classroom export",
        "files": dict(sorted(files.items())),
    }
    (out / MARKER).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def remove_export(out: Path, files: Iterable[str]) -> list[str]:
    """Delete the regular files a previous export listed, then the folders it left empty.

    Works through folder descriptors opened with O_NOFOLLOW, so a symlink that
    replaced one of the export's folders is never followed out of OUTDIR. Returns
    the entries kept (changed into something the export did not write).
    """
    kept: list[str] = []
    root = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for rel in files:
            if not _remove_file(root, rel.split("/")):
                kept.append(rel)
        folders = {
            "/".join(rel.split("/")[:i]) for rel in files for i in range(1, rel.count("/") + 1)
        }
        for folder in sorted(folders, key=lambda f: -f.count("/")):  # deepest first
            _remove_empty_folder(root, folder.split("/"))
        _remove_file(root, [MARKER])
    finally:
        os.close(root)
    return kept


def _open_folder(root: int, parts: list[str]) -> int | None:
    """A descriptor of the folder root/parts, or None if a part is missing or a symlink."""
    fd = os.dup(root)
    for part in parts:
        try:
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        fd = child
    return fd


def _remove_file(root: int, parts: list[str]) -> bool:
    """Unlink root/parts if it is a regular file; True when it is gone or was never there."""
    fd = _open_folder(root, parts[:-1])
    if fd is None:
        return True
    try:
        info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode):
            return False
        os.unlink(parts[-1], dir_fd=fd)
        return True
    except FileNotFoundError:
        return True
    finally:
        os.close(fd)


def _remove_empty_folder(root: int, parts: list[str]) -> None:
    fd = _open_folder(root, parts[:-1])
    if fd is None:
        return
    try:
        os.rmdir(parts[-1], dir_fd=fd)
    except OSError:
        pass  # not empty (files the export did not write), missing, or not a folder: keep
    finally:
        os.close(fd)


def _foreign_entry(out: Path, rel: str) -> str | None:
    """Why out/rel is no longer what export wrote (a symlink on its way, not a regular
    file), or None when it is a regular file reached through real folders, or missing."""
    path = out
    for part in rel.split("/"):
        path = path / part
        if path.is_symlink():
            return f"{path} is a symlink"
        if not path.exists():
            return None
    return None if path.is_file() else f"{path} is not a regular file"


def _refuse_foreign_entries(out: Path, rels: Iterable[str]) -> None:
    """Refuse, before touching anything, an export in which a listed path was replaced."""
    for rel in rels:
        reason = _foreign_entry(out, rel)
        if reason is not None:
            raise GraderUsageError(
                f"{reason}, not the file a previous export wrote: refusing "
                "to delete or write through it; remove it yourself or "
                "export to a new folder"
            )


def _digest(path: Path) -> str | None:
    """sha256 of a regular file; None when it is missing or not a regular file."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _refuse_to_overwrite(out: Path, files: dict[str, str | None], targets: list[str]) -> None:
    """Refuse, before touching anything, to delete or overwrite a file edited since the
    previous export wrote it, or one it did not write that this export would write."""
    changed = [
        rel for rel, digest in files.items() if digest and _digest(out / rel) not in (None, digest)
    ]
    foreign = [rel for rel in targets if rel not in files and os.path.lexists(out / rel)]
    for rels, why in (
        (changed, "changed since export wrote it"),
        (foreign, "not written by export"),
    ):
        if rels:
            more = f" (and {len(rels) - 1} more)" if len(rels) > 1 else ""
            raise GraderUsageError(
                f"{out / rels[0]}{more} {why}: refusing to overwrite it, even with --force; "
                "move it out of the export or export to a new folder"
            )


def prepare_out(out: Path, force: bool, targets: list[str]) -> list[str]:
    """Make OUTDIR ready for `targets`: new, empty, or (with --force) a marked previous
    export, which is removed unless a file was edited since or `targets` would overwrite
    one it did not write. Returns what was kept of that export. Proves OUTDIR is writable."""
    kept: list[str] = []
    if out.exists() and not out.is_dir():
        raise GraderUsageError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        files = read_marker(out)
        if files is None:
            raise GraderUsageError(
                f"{out} is not empty and holds no {MARKER} (it was not written by export): "
                "refusing to delete anything in it, even with --force; choose a new or empty "
                "folder"
            )
        if not force:
            raise GraderUsageError(
                f"{out} is not empty (a previous export): choose an empty "
                "folder or pass --force (which deletes the files that "
                "export wrote, nothing else)"
            )
        _refuse_foreign_entries(out, files)
        _refuse_to_overwrite(out, files, targets)
        kept = remove_export(out, files)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".export-probe"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise GraderUsageError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    return kept


def export_tree(
    repo: Path,
    out: Path,
    *,
    force: bool = False,
    instructor_repo: str = DEFAULT_INSTRUCTOR_REPO,
    ref: str = DEFAULT_REF,
) -> ExportResult:
    """Write the student repository of `repo` into `out`."""
    repo = repo.resolve()
    check_outdir(out, repo)
    out = out.resolve()
    if not (repo / "skeletons").is_dir() or not (repo / "labs").is_dir():
        raise GraderUsageError(f"{repo} has no labs/ and skeletons/: not a cuda-labs repository")
    if not (repo / STUDENT_FILES).is_dir() or (repo / MARKER).exists():
        raise GraderUsageError(
            f"{repo} has no {STUDENT_FILES}/ (a student repository, written by export?): "
            "export from the instructor's repository"
        )
    tree = read_tree(repo)
    generated = _generated_files(tree, instructor_repo, ref)  # refuses a bad ref first
    plan = export_plan(tree)
    targets = [*plan, *generated]
    kept = prepare_out(out, force, targets)
    try:
        # Marked before writing, so a --force after a failed export can clean it up;
        # the digests once every file is written.
        _refuse_foreign_entries(out, targets)  # never write through a symlink
        write_marker(out, dict.fromkeys(targets))
        _write_files(tree, out, plan, generated)
        write_marker(out, {rel: _digest(out / rel) for rel in targets})
    except OSError as exc:
        raise GraderUsageError(f"export to {out} failed: {exc}") from exc
    return ExportResult(
        out, len(plan), tuple(generated), tuple(kept), tree.commit, tree.uncommitted
    )


def _generated_files(tree: Tree, instructor_repo: str, ref: str) -> dict[str, str]:
    """The files written for students instead of copied: path -> text."""
    return {
        "README.md": student_readme(
            tree.text("README.md"), tree.text(STUDENT_FILES / "grading-section.md")
        ),
        "CMakePresets.json": json.dumps(
            student_presets(json.loads(tree.text("CMakePresets.json"))), indent=2
        )
        + "\n",
        "scripts/test.sh": tree.text(STUDENT_FILES / "test.sh"),
        ".github/workflows/grade.yml": student_grade_workflow(
            tree.text(STUDENT_FILES / "grade.yml"), instructor_repo, ref
        ),
        ".github/workflows/ci.yml": tree.text(STUDENT_FILES / "ci.yml"),
    }


def _write_files(tree: Tree, out: Path, plan: list[str], generated: dict[str, str]) -> None:
    shipped = {*plan, *generated}
    for rel in shipped:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
    for rel in plan:
        data = tree.files[rel]
        if rel.endswith(".md"):
            data = without_dangling_links(data.decode("utf-8"), rel, shipped, tree).encode()
        (out / rel).write_bytes(data)
        if rel in tree.executable:
            (out / rel).chmod((out / rel).stat().st_mode | 0o111)
    for rel, text in generated.items():
        if rel.endswith(".md"):
            text = without_dangling_links(text, rel, shipped, tree)
        (out / rel).write_text(text, encoding="utf-8")
    (out / "scripts" / "test.sh").chmod(0o755)


# --- rewrites ---------------------------------------------------------------------------


def student_presets(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop every preset that builds the reference solutions (and those built on them)."""
    configure = doc.get("configurePresets", [])
    gone = {p["name"] for p in configure if "solutions" in json.dumps(p.get("cacheVariables", {}))}
    out = dict(doc)
    out["configurePresets"] = [p for p in configure if p["name"] not in gone]
    for key in ("buildPresets", "testPresets"):
        out[key] = [p for p in doc.get(key, []) if p.get("configurePreset") not in gone]
    out["workflowPresets"] = [
        w
        for w in doc.get("workflowPresets", [])
        if not any(step.get("name") in gone for step in w.get("steps", []))
    ]
    return out


_DROPPED_SECTIONS = ("Instructor workflow",)


def _paragraphs(lines: Iterable[str]) -> list[list[str]]:
    paras: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paras[-1].append(line)
        elif paras[-1]:
            paras.append([])
    return [p for p in paras if p]


def student_readme(text: str, grading_section: str) -> str:
    """The README without the instructor's section, the solutions or the maintainer's
    notes, with `grading_section` (how the student's work is graded) before its layout."""
    kept: list[str] = []
    for heading, lines in markdown_sections(text):
        if heading in _DROPPED_SECTIONS:
            continue
        for para in _paragraphs(lines):
            body = "\n".join(para)
            if body.startswith("Adding a lab"):
                continue
            body = body.replace(" a reference solution,", "")
            body = body.replace("`skeletons/`, `solutions/`", "`skeletons/`")
            body = body.replace(
                "the student's files, same names, compiled against the same contract",
                "your files, compiled against the lab's contract",
            )
            body = body.replace("setup, CPU tests, the GPU suite", "setup and the CPU tests")
            kept.append(body)
    # The grading section goes before `## Layout`, or at the end.
    layout = next((i for i, para in enumerate(kept) if para.startswith("## Layout")), len(kept))
    kept.insert(layout, grading_section.strip())
    return "\n\n".join(kept) + "\n"


def student_grade_workflow(template: str, instructor_repo: str, ref: str) -> str:
    """The student's grading workflow: a call to the instructor's reusable workflow at `ref`,
    which is also the harness's ref (the reusable workflow checks out its own commit)."""
    if not _REPO_NAME.fullmatch(instructor_repo):
        raise GraderUsageError(f"--instructor-repo {instructor_repo!r} is not OWNER/NAME")
    if not _REF_NAME.fullmatch(ref) or ".." in ref:
        raise GraderUsageError(f"--ref {ref!r} is not a tag, branch or commit name")
    return template.replace("{instructor_repo}", instructor_repo).replace("{ref}", ref)


# A Markdown link `[text](target)`, and a table row whose first cell is one code span.
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_PATH_ROW = re.compile(r"\| `([^`|]+)` \|.*")


def without_dangling_links(text: str, rel: str, shipped: set[str], tree: Tree) -> str:
    """`text`, the Markdown file `rel` of the export, without what points at a file the
    export leaves out: a table row naming one (a layout's `grader/classroom/` row) is
    dropped, a link to one keeps only its text."""
    folder = posixpath.dirname(rel)
    shipped_folders = {
        "/".join(f.split("/")[:i]) for f in shipped for i in range(1, f.count("/") + 1)
    }

    def resolve(target: str) -> str:
        return posixpath.normpath(posixpath.join(folder, target)).rstrip("/")

    def in_tree(path: str) -> bool:
        return path in tree.listed or any(f.startswith(f"{path}/") for f in tree.listed)

    def left_out(path: str) -> bool:
        return path not in shipped and path not in shipped_folders

    def link(match: re.Match[str]) -> str:
        target = match.group(2).split("#", 1)[0]
        if not target or re.match(r"[a-z]+:", target):  # an anchor here, a URL
            return match.group(0)
        return match.group(1) if left_out(resolve(target)) else match.group(0)

    lines = []
    for line in text.splitlines(keepends=True):
        row = _PATH_ROW.fullmatch(line.rstrip("\n"))
        if row and in_tree(path := resolve(row.group(1))) and left_out(path):
            continue
        lines.append(_LINK.sub(link, line))
    return "".join(lines)


# What GitHub accepts in a `uses:` line, so --instructor-repo or --ref cannot inject YAML.
_REPO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+")
_REF_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
