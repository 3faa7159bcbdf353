"""The grading run as pytest tests: one per lab test the build registered.

Collected only on purpose (with `-p grader.core.plugin`, see plugin.py); its name
keeps it out of the grader's own unit tests.
"""

from __future__ import annotations

import pytest

from grader.core.model import LabTest, Status
from grader.core.plugin import grading_session


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `lab_test` with the session's tests, named as ctest names them."""
    if "lab_test" in metafunc.fixturenames:
        tests = grading_session(metafunc.config).tests
        metafunc.parametrize("lab_test", tests, ids=[t.name for t in tests])


def test_lab(lab_test: LabTest, request: pytest.FixtureRequest) -> None:
    """Run one lab test in its own process; its reason is the failure message."""
    outcome = grading_session(request.config).run(lab_test)
    if outcome.status is Status.SKIPPED:
        pytest.skip(outcome.reason)
    if outcome.status is Status.ERROR:
        pytest.fail(f"grader error: {outcome.reason}", pytrace=False)
    if outcome.status is not Status.PASSED:
        pytest.fail(outcome.reason, pytrace=False)
