"""Hidden-data results wait for their release: the rule (grader/release.py) on an
injected clock, then every output, held and released, on small made-up grades."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

import pytest

from grader.deadline import LatePolicy
from grader.errors import GraderUsageError
from grader.release import (
    HOLD,
    RELEASE,
    add_release_arguments,
    decide,
    release_from_args,
    release_time,
)

UTC = dt.timezone.utc
DUE = dt.datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
# bob's 3 days of extension and the 2 late days: nobody hands in after 6 December.
POLICY = LatePolicy(DUE, late_days=2, penalty_per_day=0.1, extensions={"ann": 1, "bob": 3})
LAST = dt.datetime(2026, 12, 6, 23, 59, tzinfo=UTC)
MINUTE = dt.timedelta(minutes=1)
HELD = decide(POLICY, DUE - MINUTE)
RELEASED = decide(POLICY, LAST + MINUTE)
UNTIL = "until after the deadline (2026-12-06T23:59:00+00:00)"
SECRET_REASON = "bin 7: expected 9, got 8"


# --- the rule ------------------------------------------------------------------------------


def test_release_waits_for_the_last_student_who_may_still_hand_in() -> None:
    assert release_time(POLICY) == LAST
    for now in (DUE - MINUTE, DUE + MINUTE, DUE + dt.timedelta(days=3, minutes=1), LAST):
        release = decide(POLICY, now)
        assert not release.released and release.at == LAST, now
    assert decide(POLICY, LAST + MINUTE).released
    assert HELD.until() == UNTIL and "held until 2026-12-06T23:59:00+00:00" in HELD.why


def test_without_extensions_or_late_days_the_due_time_releases() -> None:
    policy = LatePolicy(DUE)
    assert release_time(policy) == DUE
    assert not decide(policy, DUE).released and decide(policy, DUE + MINUTE).released


def test_the_flags_override_the_clock() -> None:
    early = decide(POLICY, DUE - MINUTE, RELEASE)
    late = decide(POLICY, LAST + dt.timedelta(days=30), HOLD)
    assert early.released and "--release-hidden" in early.why
    assert not late.released and "--hold-hidden" in late.why and late.at == LAST


def test_without_a_policy_results_are_held_until_released_by_hand() -> None:
    held = decide(None, LAST + dt.timedelta(days=365))
    assert not held.released and held.at is None and "no --deadline-policy" in held.why
    assert held.until() == "until after the deadline"
    assert decide(None, DUE, RELEASE).released


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_release_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_line_reads_the_policy_and_the_flags(tmp_path: Path) -> None:
    policy = tmp_path / "deadline.json"
    policy.write_text(json.dumps({"due": DUE.isoformat(), "late_days": 2, "extensions": {"b": 3}}))
    args = _parse("--deadline-policy", str(policy))
    assert not release_from_args(args, now=lambda: LAST).released
    assert release_from_args(args, now=lambda: LAST + MINUTE).released
    forced = _parse("--deadline-policy", str(policy), "--hold-hidden")
    assert not release_from_args(forced, now=lambda: LAST + MINUTE).released
    assert release_from_args(_parse("--release-hidden"), now=lambda: DUE).released
    assert not release_from_args(_parse(), now=lambda: LAST + MINUTE).released
    with pytest.raises(SystemExit):
        _parse("--release-hidden", "--hold-hidden")
    policy.write_text(json.dumps({"due": "2026-12-01T23:59:00"}))
    with pytest.raises(GraderUsageError, match="needs a UTC offset"):
        release_from_args(_parse("--deadline-policy", str(policy)))


# --- one student's reports ----------------------------------------------------------------


# --- the class table, the gradebook and the leaderboard -------------------------------------


# --- the commands -----------------------------------------------------------------------
