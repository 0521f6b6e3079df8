"""Judging an observed board against a game's position (what the camera saw vs. what was played).

The camera often misses the still moment between two turns ("fast play"), so
``k`` new tokens whose colours are exactly those of the next ``k`` turns are
read as ``k`` moves, in an order in which every move is legal. When tokens of
one colour can go in several orders, the order that keeps the game going
longest is chosen (a win, if any, as late as the tokens allow); if even that
order completes a vector before the last token, that player has won and the
remaining tokens are reported as placed after the end of the game (the
judgement then has both the moves up to the win and those reasons).

Everything else is illegal with every reason that applies, in words a player
understands: tokens no turn order explains, a token removed (``take_back``
when it is exactly the last move), moved, or recoloured (legal only as the
swap opening's move), a placement after the game was over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rules.errors import NotationError
from rules.game import Judgement
from rules.timevectors.config import CHOOSING, COLORS, GameConfig
from rules.timevectors.moves import SWAP, Move
from rules.timevectors.points import POINTS, parse_point, point_name

if TYPE_CHECKING:
    from rules.timevectors.game import TimeVectorsGame

SEARCH_BUDGET = 20_000
"""Most orders tried for one observation; beyond it the longest legal order found so far is used."""
_COUNT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def judge_observation(game: TimeVectorsGame, observed: Mapping[Any, Any]) -> Judgement[Move]:
    """Read ``observed`` (point or ``A3Q`` name -> colour; ``None`` means empty) against ``game``.

    Never raises: anything impossible is a judgement with reasons. ``moves``
    are the moves to push, in play order: empty when the change is illegal,
    except for tokens placed after a win inside the same observation (the
    moves up to the win are kept, the later tokens are the reasons).
    """
    config = game.config
    seen, reasons = _normalise(observed)
    board = game.board
    changed = tuple(sorted(p for p in set(board) | set(seen) if board.get(p) != seen.get(p)))
    if not changed and not reasons:
        return Judgement()
    added = {p: c for p, c in seen.items() if p not in board}
    removed = {p: c for p, c in board.items() if p not in seen}
    recolored = {p: (board[p], seen[p]) for p in board if p in seen and seen[p] != board[p]}
    previous = game.board_before_last_change()
    take_back = not reasons and previous is not None and seen == previous

    sim = game.copy()
    moves: list[Move] = []
    swap_point = game.swap_point()
    if swap_point is not None:
        swap_color = game.player_colors[1]
        if recolored == {swap_point: (board[swap_point], swap_color)}:
            moves.append(Move(swap_point, swap_color, SWAP))
            sim.push(moves[0])
            recolored = {}

    reasons.extend(_moved_reasons(removed, added))
    reasons.extend(f"token removed from {point_name(p)}" for p in sorted(removed))
    reasons.extend(
        f"token on {point_name(p)} changed from {config.color_name(a)} to {config.color_name(b)}"
        for p, (a, b) in sorted(recolored.items())
    )
    placed, place_reasons, keep = _place_all(sim, added)
    if reasons or not keep:
        moves, placed = [], []
    return Judgement(
        moves=tuple(moves + placed),
        reasons=tuple(reasons + place_reasons),
        changed=changed,
        take_back=take_back,
    )


def _normalise(observed: Mapping[Any, Any]) -> tuple[dict[int, int], list[str]]:
    """Observed board as point -> colour, and a reason for every entry that is not one."""
    seen: dict[int, int] = {}
    reasons: list[str] = []
    for key, color in observed.items():
        point = _as_point(key)
        if point is None:
            reasons.append(f"{key!r} is not a point of the board")
        elif color is None:
            continue
        elif isinstance(color, bool) or not isinstance(color, int) or not 0 <= color < COLORS:
            reasons.append(f"{point_name(point)} holds an unknown colour {color!r}")
        else:
            seen[point] = color
    return seen, reasons


def _as_point(key: Any) -> int | None:
    if isinstance(key, str):
        try:
            return parse_point(key)
        except NotationError:
            return None
    if isinstance(key, int) and not isinstance(key, bool) and key in POINTS:
        return key
    return None


def _moved_reasons(removed: dict[int, int], added: dict[int, int]) -> list[str]:
    """Pair removed and new tokens of one colour as moved tokens (taking them out of both)."""
    reasons = []
    for color in sorted(set(removed.values()) & set(added.values())):
        sources = sorted(p for p, c in removed.items() if c == color)
        targets = sorted(p for p, c in added.items() if c == color)
        for source, target in zip(sources, targets, strict=False):
            reasons.append(f"token moved from {point_name(source)} to {point_name(target)}")
            del removed[source], added[target]
    return reasons


def _place_all(sim: TimeVectorsGame, added: dict[int, int]) -> tuple[list[Move], list[str], bool]:
    """Explain new tokens as moves on ``sim``: (moves, reasons, whether the moves stand)."""
    if not added:
        return [], [], True
    if sim.outcome() is not None:
        return [], _after_end(sim, added), True
    upcoming = sim.upcoming_colors(len(added))
    if upcoming is not None:
        problems = _count_reasons(added, upcoming, sim.config)
        if problems:
            return [], problems, False
    placed = _longest_order(sim, added)
    for move in placed:
        sim.push(move)
    leftover = {p: c for p, c in added.items() if p not in {m.point for m in placed}}
    if not leftover:
        return placed, [], True
    if sim.outcome() is not None:
        return placed, _after_end(sim, leftover), True
    return [], _stuck_reasons(sim, leftover), False


def _longest_order(sim: TimeVectorsGame, added: dict[int, int]) -> list[Move]:
    """The longest sequence of legal moves placing these tokens (all of them if possible).

    Depth-first over the tokens whose colour may move next, trying tokens that
    do not complete a vector first, so a win comes as late as the tokens allow.
    ``sim`` is left as it was.
    """
    best: list[Move] = []
    path: list[Move] = []
    budget = [SEARCH_BUDGET]

    def extend(remaining: dict[int, int]) -> bool:
        nonlocal best
        if len(path) > len(best):
            best = list(path)
        if not remaining:
            return True
        if sim.outcome() is not None:
            return False
        allowed = sim.legal_colors()
        candidates = sorted(
            (p for p, c in remaining.items() if c in allowed),
            key=lambda p: (sim.completes_vector(p, remaining[p]), p),
        )
        for point in candidates:
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            move = Move(point, remaining[point])
            sim.push(move)
            path.append(move)
            done = extend({p: c for p, c in remaining.items() if p != point})
            path.pop()
            sim.pop()
            if done:
                return True
        return False

    extend(dict(added))
    return best


def _after_end(sim: TimeVectorsGame, tokens: dict[int, int]) -> list[str]:
    """One reason per token placed once ``sim``'s game had ended."""
    outcome = sim.outcome()
    if outcome is None or outcome.winner is None:
        ended = "game already over (draw)"
    else:
        ended = f"game already won by {sim.config.color_name(outcome.winner)}"
    return [f"{ended}: token placed on {point_name(p)} after the end" for p in sorted(tokens)]


def _stuck_reasons(sim: TimeVectorsGame, leftover: dict[int, int]) -> list[str]:
    """Why no legal move places any of ``leftover`` on ``sim``'s position."""
    if sim.phase == CHOOSING:
        return ["the second player must choose a colour before play goes on (three-move opening)"]
    upcoming = sim.upcoming_colors(len(leftover))
    if upcoming is None:
        return ["the three-move opening is two tokens of one colour and one of the other"]
    return _count_reasons(leftover, upcoming, sim.config)


def _count_reasons(added: dict[int, int], upcoming: list[int], config: GameConfig) -> list[str]:
    """Colours that the next turns do not account for: out of turn, or too many of one colour."""
    have, want = Counter(added.values()), Counter(upcoming)
    reasons = []
    for color in sorted(have):
        if have[color] <= want[color]:
            continue
        name = config.color_name(color)
        if want[color] == 0:
            reasons.append(f"{name} played out of turn")
        else:
            count = have[color]
            word = _COUNT_WORDS[count] if count < len(_COUNT_WORDS) else str(count)
            reasons.append(f"{word} {name} tokens placed")
    return reasons
