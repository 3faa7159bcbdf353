"""Errors and exit statuses shared by the command line and the pytest plugin.

A usage error is the caller's mistake (unknown lab, empty build directory, ...):
it is reported as one line and exit status 2, never as a traceback.
"""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_GPU = 3


class GraderUsageError(Exception):
    """A problem with what the grader was asked to do, explained in one line."""
