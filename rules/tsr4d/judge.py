"""Reading an observed TSR "4D" board against the accepted position.

The camera reports each occupied space as a :func:`~rules.tsr4d.pieces.token_code`
(player and kind). A change is explained by the shortest sequence of legal
actions (at most :data:`MAX_ACTIONS`, crossing at most one end of turn) that
turns the accepted board into the observed one; only actions that touch a
changed space are tried, so the search stays small. Markers and the Time-warp
circles are not on the board and are not observed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rules.game import Judgement
from rules.tsr4d.actions import (
    Action,
    BeamDown,
    Capture,
    EndTurn,
    Linger,
    Step,
    SuicideCapture,
    Warp,
)
from rules.tsr4d.board import SPACE_COUNT, space_name
from rules.tsr4d.pieces import PLAYER_NAMES, token_code, token_from_code
from rules.tsr4d.position import Position

if TYPE_CHECKING:
    from rules.tsr4d.game import Tsr4dGame

MAX_ACTIONS = 8


def board_codes(position: Position) -> dict[int, int]:
    """Space -> token code of every piece on the board."""
    return {space: token_code(owner, kind) for space, (owner, kind) in position.pieces.items()}


def _token_text(code: int) -> str:
    player, kind = token_from_code(code)
    return f"{PLAYER_NAMES[player]} {kind.title}"


def describe_changes(before: Mapping[int, int], after: Mapping[int, int]) -> list[str]:
    """One sentence per changed space, in board order."""
    sentences = []
    for space in sorted(set(before) | set(after)):
        was, now = before.get(space), after.get(space)
        if was == now:
            continue
        where = space_name(space)
        if was is None:
            sentences.append(f"a {_token_text(now)} appeared on {where}")  # type: ignore[arg-type]
        elif now is None:
            sentences.append(f"the {_token_text(was)} left {where}")
        else:
            sentences.append(f"the {_token_text(was)} on {where} became a {_token_text(now)}")
    return sentences


def _gone(capture: Capture | None, player: int, observed: Mapping[int, int]) -> bool:
    return capture is None or observed.get(capture.space) != token_code(1 - player, capture.kind)


def is_relevant(action: Action, player: int, observed: Mapping[int, int]) -> bool:
    """Whether ``action`` could be part of the change to ``observed`` (prunes the search)."""
    if isinstance(action, SuicideCapture):
        return _gone(action.victim, player, observed)
    if isinstance(action, (Step, BeamDown)):
        # (A step's origin may show the same piece again: another one can step or beam down
        # there later in the turn, so where it left says nothing.)
        code = token_code(player, action.kind)
        return observed.get(action.target) == code and _gone(action.capture, player, observed)
    if isinstance(action, Warp):
        return observed.get(action.origin) != token_code(player, action.kind)  # type: ignore[arg-type]
    return isinstance(action, (Linger, EndTurn))


def validate_observed(observed: Mapping[Any, int]) -> tuple[dict[int, int], list[str]]:
    """Observed board as ``{space: code}`` plus the reasons it cannot be a board at all."""
    board: dict[int, int] = {}
    reasons = []
    for space, code in observed.items():
        if not (isinstance(space, int) and 0 <= space < SPACE_COUNT):
            reasons.append(f"{space!r} is not a space of the board")
        elif not (isinstance(code, int) and 0 <= code < 8):
            reasons.append(f"the token on {space_name(space)} is not a known piece (code {code!r})")
        else:
            board[space] = code
    return board, reasons


def explain(game: Tsr4dGame, observed: Mapping[int, int]) -> list[Action] | None:
    """Shortest legal action sequence from the game's position to ``observed``, else ``None``.

    The game is left exactly as it was (every trial action is popped again).
    """
    for depth in range(1, MAX_ACTIONS + 1):
        found = _search(game, observed, depth, ends_left=1)
        if found is not None:
            return found
    return None


def _search(game: Tsr4dGame, observed: Mapping[int, int], depth: int, ends_left: int) -> list[Action] | None:
    if depth == 0:
        return [] if board_codes(game.position) == dict(observed) else None
    player = game.to_move
    for action in game.legal_moves():
        if not is_relevant(action, player, observed):
            continue
        is_end = isinstance(action, EndTurn)
        if is_end and ends_left == 0:
            continue
        game.push_trial(action)
        try:
            rest = _search(game, observed, depth - 1, ends_left - is_end)
        finally:
            game.pop_trial()
        if rest is not None:
            return [action, *rest]
    return None


def judge_observed(game: Tsr4dGame, observed: Mapping[Any, int]) -> Judgement[Action]:
    """The :meth:`~rules.game.Game.judge` of TSR 4D; never raises for an impossible board."""
    board, reasons = validate_observed(observed)
    current = board_codes(game.position)
    changed = tuple(sorted(s for s in set(current) | set(board) if current.get(s) != board.get(s)))
    if reasons:
        return Judgement(reasons=tuple(reasons), changed=changed)
    if not changed:
        return Judgement()
    previous = game.previous_position()
    take_back = previous is not None and board_codes(previous) == board
    if game.outcome() is not None:
        return Judgement(reasons=("the game is already over",), changed=changed, take_back=take_back)
    actions = explain(game, board)
    if actions is not None:
        return Judgement(moves=tuple(actions), changed=changed)
    player = PLAYER_NAMES[game.to_move]
    why = describe_changes(current, board)
    why.append(f"no legal sequence of {player}'s actions explains this change")
    return Judgement(reasons=tuple(why), changed=changed, take_back=take_back)
