"""When hidden-data results are released: one decision for every report and class command.

Results on public data are the student's to see at once. Results on hidden data
(graded with the instructor's secret) are held back from everything students or
an LMS export see until no student can still hand in: the latest due time of the
class, that is the deadline policy's due time plus the longest extension plus the
late window (`collect` takes commits up to each student's due time plus
`late_days`). One student's extension therefore holds everyone's results: seeing
which hidden cases fail would help whoever may still submit.

`--release-hidden` releases them earlier, `--hold-hidden` holds them later; without
a policy (`--deadline-policy FILE`, the JSON file `collect` reads) and without a
flag they are held, so nothing is shown by mistake. Held or not, the instructor's
copies (the `instructor/` folders) keep everything.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.core.errors import GraderUsageError

if TYPE_CHECKING:
    # Instructor-only (collect's), absent from the students' export, which grades
    # on public data and never needs a policy; imported where a policy is read.
    from grader.core.deadline import LatePolicy

RELEASE = "release"
HOLD = "hold"


@dataclass(frozen=True)
class Release:
    """Whether hidden-data results may be shown, why, and when they will be."""

    released: bool
    why: str
    at: dt.datetime | None = None  # the release time the policy gives; None without one

    def until(self) -> str:
        """What a held report says the results wait for."""
        if self.at is None:
            return "until after the deadline"
        return f"until after the deadline ({self.at.isoformat()})"


# What a report is given when no decision was made: held, as decide() holds without a policy.
NOT_RELEASED = Release(False, "held: not released")


def release_time(policy: LatePolicy) -> dt.datetime:
    """The last moment any student may still hand in."""
    return policy.last_accepted()


def decide(policy: LatePolicy | None, now: dt.datetime, forced: str | None = None) -> Release:
    """Release when forced to, or once `now` is past the policy's release time; else hold.

    `now` must carry a UTC offset, as the policy's due time does.
    """
    at = release_time(policy) if policy is not None else None
    if forced == RELEASE:
        return Release(True, "released by --release-hidden", at)
    if forced == HOLD:
        return Release(False, "held by --hold-hidden", at)
    if at is None:
        return Release(
            False,
            "held: no --deadline-policy says when the deadline is (--release-hidden releases them)",
        )
    if now > at:
        return Release(
            True, f"released: the class's last due time, {at.isoformat()}, has passed", at
        )
    return Release(False, f"held until {at.isoformat()}, the class's last due time", at)


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def release_from_args(
    args: argparse.Namespace, now: Callable[[], dt.datetime] = _utc_now
) -> Release:
    """The decision the command line asks for (grader/options.py's add_release_arguments)."""
    path = args.deadline_policy
    if path is None:
        return decide(None, now(), args.hidden_results)
    # The student export leaves deadline.py out. Look beside this file, not on the
    # import path, where an installed copy of the instructor's grader may answer.
    if not (Path(__file__).with_name("deadline.py")).is_file():
        raise GraderUsageError(
            "--deadline-policy is for grading on hidden data, in the instructor's repository"
        )
    from grader.core.deadline import load_policy

    return decide(load_policy(path), now(), args.hidden_results)
