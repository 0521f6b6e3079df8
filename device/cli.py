"""The ``boardcam`` command line.

Each area of the product registers its own subcommands from a module in
``device.commands`` so that the dispatcher stays small and every command lives
next to the code it drives. ``boardcam bench TARGET`` is shared: modules add
their targets to it. Only this module configures logging.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "device.commands.rules",
    "device.commands.calibrate",
    "device.commands.analyze",
    "device.commands.replay",
    "device.commands.serve",
    "device.commands.gryb",
    "device.commands.play",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the full argument parser from every command module."""
    parser = argparse.ArgumentParser(
        prog="boardcam",
        description="Camera companion for the Time Vectors board and the GRYB bandanna.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    bench = commands.add_parser("bench", help="print performance and accuracy figures")
    bench_targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(commands, bench_targets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `boardcam vectors --json | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
