"""Subcommands of this area (filled in as the area lands)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add this module's subcommands; none yet."""
