"""`probe`: print the GPU the build's `lab_gpu_info` program sees."""

from __future__ import annotations

import argparse
import json

from grader.command import Command
from grader.core.discovery import check_build_dir
from grader.core.errors import EXIT_NO_GPU, EXIT_OK
from grader.core.gpu import probe
from grader.options import add_build_argument


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_build_argument(parser, "CMake build directory holding bin/lab_gpu_info")
    parser.add_argument("--json", action="store_true", help="print the probe's record as JSON")


def _run(args: argparse.Namespace) -> int:
    check_build_dir(args.build)
    info = probe(args.build)
    print(json.dumps(info.as_json(), indent=2) if args.json else f"GPU: {info.describe()}")
    return EXIT_OK if info.present else EXIT_NO_GPU


COMMAND = Command(
    "probe", "print the GPU this build's probe sees (exit 3 when none)", _add_arguments, _run
)
