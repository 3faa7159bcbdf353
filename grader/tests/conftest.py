"""The grader's own tests run their fake programs unsandboxed: the fakes' Python
may live where the sandbox's user cannot reach it. test_sandbox.py turns the
sandbox on where it tests it. Nor do they write to a GitHub Actions job summary."""

from __future__ import annotations

import os

from grader.core.sandbox import MODE_ENV

os.environ[MODE_ENV] = "off"
# Under GitHub Actions, `grade` appends to the job summary: not the fakes' reports.
os.environ.pop("GITHUB_STEP_SUMMARY", None)
