"""The pytest plugin that turns a pytest session into a grading run.

Load it with `-p grader.core.plugin` and collect `grader/core/grading_suite.py`:

    python3 -m pytest -p grader.core.plugin grader/core/grading_suite.py --build BUILD \\
        [--labs lab1,lab3] [--report OUT] [--timeout-scale 2] [--repo REPO]

The suite gets one pytest test per lab test; at the end of the session the
plugin scores them and writes the three reports into `--report`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.discovery import parse_lab_list
from grader.core.errors import GraderUsageError
from grader.core.release import NOT_RELEASED, Release
from grader.core.reports import write_all
from grader.core.scoring import Grade, number
from grader.core.session import GradingSession


def pytest_addoption(parser: pytest.Parser) -> None:
    """The grading options; without --build the plugin stays idle."""
    group = parser.getgroup("cuda-labs", "cuda-labs grading")
    group.addoption(
        "--build",
        dest="grader_build",
        metavar="BUILD",
        help="CMake build directory whose ctest tests are graded",
    )
    group.addoption(
        "--labs",
        dest="grader_labs",
        metavar="LABS",
        help="comma-separated labs to grade, e.g. lab1,lab3 (default: all)",
    )
    group.addoption(
        "--report",
        dest="grader_report",
        metavar="OUT",
        help="folder for junit.xml, results.json and summary.md",
    )
    group.addoption(
        "--timeout-scale",
        dest="grader_timeout_scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every test's TIMEOUT by X (default 1)",
    )
    group.addoption(
        "--repo",
        dest="grader_repo",
        metavar="REPO",
        help="repository holding labs/*/lab.json (default: this grader's)",
    )


class GradingPlugin:
    """Holds the grading session; writes the reports when pytest finishes.

    The command line creates one with a ready session and passes it to
    pytest.main; plain `pytest -p grader.core.plugin` gets one built from the options.
    """

    def __init__(
        self,
        session: GradingSession | None = None,
        report_dir: Path | None = None,
        release: Release = NOT_RELEASED,
    ) -> None:
        self.session = session
        self.report_dir = report_dir
        self.release = release  # of hidden-data results (grader/core/release.py)
        self.grade: Grade | None = None
        self.report_paths: dict[str, Path] = {}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Score what ran and write the reports, even after an interruption."""
        if self.session is None:
            return
        self.grade = self.session.grade()
        if self.report_dir is not None:
            self.report_paths = write_all(self.report_dir, self.grade, self.release)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """One line per lab, then where the reports are."""
        if self.grade is None:
            return
        terminalreporter.section("cuda-labs grading")
        for lab in self.grade.labs:
            terminalreporter.line(
                f"{lab.policy.label}: {number(lab.score)}/{number(lab.max_score)}"
            )
        terminalreporter.line(f"GPU: {self.grade.gpu.describe()}")
        for path in self.report_paths.values():
            terminalreporter.line(f"report: {path}")


def pytest_configure(config: pytest.Config) -> None:
    """Use the plugin the command line registered, else build one from the options."""
    plugin = find_plugin(config)
    if plugin is None and config.getoption("grader_build"):
        plugin = GradingPlugin()
        config.pluginmanager.register(plugin, "cuda-labs-grading")
    if plugin is None or plugin.session is not None:
        return
    labs = config.getoption("grader_labs")
    repo = config.getoption("grader_repo")
    report = config.getoption("grader_report")
    try:
        plugin.session = GradingSession.open(
            Path(config.getoption("grader_build")),
            labs=parse_lab_list(labs) if labs is not None else None,
            repo=Path(repo) if repo else None,
            timeout_scale=config.getoption("grader_timeout_scale"),
        )
    except GraderUsageError as exc:
        raise pytest.UsageError(str(exc)) from exc
    plugin.report_dir = Path(report) if report else None


def find_plugin(config: pytest.Config) -> GradingPlugin | None:
    """The grading plugin registered in this pytest session, if any."""
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, GradingPlugin):
            return plugin
    return None


def grading_session(config: pytest.Config) -> GradingSession:
    """The session the suite grades; a usage error when the plugin has none."""
    plugin = find_plugin(config)
    if plugin is None or plugin.session is None:
        raise pytest.UsageError(
            "grading needs the plugin and a build: "
            "pytest -p grader.core.plugin grader/core/grading_suite.py --build BUILD"
        )
    return plugin.session
