"""A grading run as a pytest session over grading_suite.py, and the exit status its
grade gives.

Shared by `grade` and the batch's workers (grader/instructor/batch_worker.py), which grade the
same way but in a child process per student; here rather than in the `grade`
command's module so that the worker does not depend on a command. pytest itself is
imported only when a run starts: every other command loads without it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK
from grader.core.model import Status
from grader.core.release import NOT_RELEASED, Release
from grader.core.scoring import Grade
from grader.core.session import GradingSession

_PACKAGE = Path(__file__).resolve().parent
# The plugin object is handed to pytest.main ready-made, so `-p grader.core.plugin`
# (which only builds one from command-line options) is not needed here.
_PYTEST_ARGS = (
    "-c",
    str(_PACKAGE / "grading.ini"),
    "-p",
    "no:cacheprovider",
    "-v",
    "-rfEs",
    "--tb=short",
)
_NO_AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"


def run_pytest(
    session: GradingSession, report: Path, release: Release = NOT_RELEASED
) -> Grade | None:
    """The grading run is a pytest session over grading_suite.py; `release` decides
    whether its reports show hidden-data results."""
    import pytest

    from grader.core.plugin import GradingPlugin

    plugin = GradingPlugin(session, report, release)
    # Plugins installed on the runner (timeouts, xdist, ...) must not change the run.
    saved = os.environ.get(_NO_AUTOLOAD)
    os.environ[_NO_AUTOLOAD] = "1"
    try:
        pytest.main([str(_PACKAGE / "grading_suite.py"), *_PYTEST_ARGS], plugins=[plugin])
    finally:
        if saved is None:
            del os.environ[_NO_AUTOLOAD]
        else:
            os.environ[_NO_AUTOLOAD] = saved
    return plugin.grade


def exit_status(grade: Grade, allow_skips: bool) -> int:
    """0 all passed, 1 any failed, 3 skipped for lack of a GPU (unless allowed)."""
    if grade.count(Status.FAILED) or grade.count(Status.ERROR):
        return EXIT_FAILED
    skipped = grade.count(Status.SKIPPED)
    if skipped and not allow_skips:
        passed = grade.count(Status.PASSED)
        tail = "nothing graded" if not passed else f"only {passed} graded"
        print(f"grader: no GPU: {skipped} tests skipped, {tail}", file=sys.stderr)
        return EXIT_NO_GPU
    return EXIT_OK
