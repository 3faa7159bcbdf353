"""cuda-labs grader: runs each lab test in its own process, scores it, writes reports.

``python3 -m grader`` is the command line; every command that runs lab tests drives
one grading session (``core/session.py``).
"""
