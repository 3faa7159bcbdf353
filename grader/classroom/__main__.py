"""Entry point of `python3 -m grader.classroom`: the instructor's commands."""

from grader.classroom.cli import main

raise SystemExit(main())
