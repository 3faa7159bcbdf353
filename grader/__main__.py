"""Entry point of `python3 -m grader`."""

from grader.cli import main

raise SystemExit(main())
