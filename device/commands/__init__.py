"""Subcommands of ``boardcam``; each module exposes ``register(commands, bench_targets)``.

``commands`` and ``bench_targets`` are argparse sub-parser collections; a module
adds parsers to them and sets ``func`` (``args -> exit status``) on each.
"""

import argparse


def scene_seed(text: str) -> int:
    """argparse type of ``--seed`` for rendered scenes: a whole number 0 or more (random
    generators take no negative seeds), refused with a clear message otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, not {value}")
    return value
