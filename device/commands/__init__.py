"""Subcommands of ``boardcam``; each module exposes ``register(commands, bench_targets)``.

``commands`` and ``bench_targets`` are argparse sub-parser collections; a module
adds parsers to them and sets ``func`` (``args -> exit status``) on each.
"""

import argparse


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def scene_seed(text: str) -> int:
    """argparse type of ``--seed`` for rendered scenes: a whole number 0 or more (random
    generators take no negative seeds), refused with a clear message otherwise."""
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, not {value}")
    return value


def token_sets(text: str) -> int:
    """argparse type of ``--sets``: how many token sets the stacked board holds, 1 to the
    rules' colours, refused with a clear message otherwise."""
    from rules.timevectors.config import COLORS

    value = _whole_number(text)
    if not 1 <= value <= COLORS:
        raise argparse.ArgumentTypeError(f"the board holds 1 to {COLORS} token sets, not {value}")
    return value


def _degrees(text: str, limit: float, what: str) -> float:
    """A number of degrees 0 to ``limit``; ``what`` turns, for the message."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of degrees") from None
    if not 0 <= value <= limit:  # (NaN is refused too)
        raise argparse.ArgumentTypeError(f"{what} turns 0 to {limit:g} degrees, not {text}")
    return value


def plate_twist(text: str) -> float:
    """argparse type of ``--twist``: the most a rendered plate is turned about the post,
    0 to the calibration's limit in degrees, refused with a clear message otherwise."""
    from calibration.spec import MAX_TWIST_DEG

    return _degrees(text, MAX_TWIST_DEG, "a plate")


MAX_BUMP_DEG = 2.0  # the live drift check re-fits shifts up to 8% of the width: about this turn


def camera_bump(text: str) -> float:
    """argparse type of ``--bump``: the most the bench's camera is knocked after calibration,
    0 to ``MAX_BUMP_DEG`` degrees, refused with a clear message otherwise."""
    return _degrees(text, MAX_BUMP_DEG, "a bumped camera")
