"""The grader's own tests run their fake programs unsandboxed: the fakes' Python
may live where the sandbox's user cannot reach it. test_sandbox.py turns the
sandbox on where it tests it."""

from __future__ import annotations

import os

from grader.sandbox import MODE_ENV

os.environ[MODE_ENV] = "off"
