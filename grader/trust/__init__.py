"""What judges a submission's code before any of it runs: the static check of its
sources and the object check of its compiled objects (grader/README.md, "The static
check"; CONTRIBUTING.md, "The static check's rules").

Built on core/ only; `grade`, `batch`, `check` and `known-wrong` all reach these
checks through submission_check.py, so every path judges a submission alike.
"""
