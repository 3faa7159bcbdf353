"""cuda-labs grader: runs each lab test in its own process, scores it, writes reports.

The grading run is a pytest session (see ``grading_suite.py`` and ``plugin.py``);
``python3 -m grader`` is the instructor's command line around it.
"""
