"""Pairs of submissions whose kernels are suspiciously alike: one copydetect run (PyPI).

copydetect fingerprints pygments tokens with identifiers, literals and comments
normalised (k-grams, winnowed), so renaming, reformatting and comments do not hide a
copy. The skeletons are its boilerplate: what every student was handed counts for no
one. A file is compared only with the same file of other students (`same_name_only`).
A score is a lead for a human to read, never a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.errors import GraderUsageError

SOURCE_EXTENSIONS = ["cu", "cuh", "cpp", "hpp", "h", "cc"]


@dataclass(frozen=True)
class Pair:
    """Two students' copies of one lab file and how much of each the other holds."""

    file: str  # labN_topic/name.cu
    first: str
    second: str
    share_first: float
    share_second: float
    tokens: int

    @property
    def score(self) -> float:
        return max(self.share_first, self.share_second)


def _copydetect() -> Any:
    try:
        import copydetect
    except ImportError as exc:
        raise GraderUsageError(
            "similarity needs copydetect: install the project's `similarity` extra "
            "(pip install -e '.[similarity]'; scripts/setup.sh does in this repository)"
        ) from exc
    return copydetect


def compare_class(
    class_dir: Path,
    students: Sequence[str],
    skeletons: Path,
    lab_dirs: Sequence[str],
    threshold: float,
    html: Path,
) -> list[Pair]:
    """The pairs at or above `threshold`, best first; copydetect's report written to `html`."""
    folders = [class_dir / s / lab for s in students for lab in lab_dirs]
    detector = _copydetect().CopyDetector(
        test_dirs=[str(f) for f in folders if f.is_dir()],
        boilerplate_dirs=[str(skeletons / lab) for lab in lab_dirs],
        extensions=SOURCE_EXTENSIONS,
        display_t=threshold,
        same_name_only=True,
        out_file=str(html),
        autoopen=False,
        silent=True,
    )
    detector.run()
    detector.generate_html_report()
    pairs = []
    for share_a, share_b, file_a, file_b, _, _, tokens in detector.get_copied_code_list():
        a, b = Path(file_a).relative_to(class_dir), Path(file_b).relative_to(class_dir)
        if b.parts[0] < a.parts[0]:  # in name order: copydetect's follows the folder listing
            (a, share_a), (b, share_b) = (b, share_b), (a, share_a)
        pairs.append(
            Pair("/".join(a.parts[1:]), a.parts[0], b.parts[0], share_a, share_b, int(tokens))
        )
    return sorted(pairs, key=lambda p: (-p.score, p.file, p.first, p.second))


def markdown(pairs: Sequence[Pair], threshold: float) -> str:
    """The ranked table of the pairs at or above `threshold`."""
    lines = [
        "## Similarity",
        "",
        f"{len(pairs)} pairs share at least {threshold:.0%} of a file (the skeleton's code "
        "excluded; side by side in similarity.html). A lead to read, not a verdict.",
        "",
        "| rank | file | student | student | share of first | share of second | tokens |",
        "| ---: | --- | --- | --- | ---: | ---: | ---: |",
    ]
    for rank, p in enumerate(pairs, 1):
        lines.append(
            f"| {rank} | {p.file} | {p.first} | {p.second} | "
            f"{p.share_first:.0%} | {p.share_second:.0%} | {p.tokens} |"
        )
    return "\n".join(lines) + "\n"
