"""The TSR "4D" referee: turns of move, beam-down and Time-warp, captures, win and draw.

Each :mod:`~rules.tsr4d.actions` action is one entry on the move stack; a turn
is closed by :class:`~rules.tsr4d.actions.EndTurn`, where the obligations are
checked. Choices where the rules leave room (each documented where it acts):

- A move is obligatory only when some piece can move at all.
- A Time-warp is obligatory unless the player is down to the Time-Lord and one
  other piece, keeps a piece in Time-warp, or has no piece left that may warp
  (every piece already acted this turn).
- A piece in circle 3 that cannot beam down is captured when its turn ends.
- Which enemy pieces count as being in a 'suicide' position is
  :class:`SuicideRule` (a named option, players disagree): by default any enemy
  piece standing, at the start of the turn, next to one of the player's pieces
  that outranks it.
- After a beam-down the Marker stays where it is until the next Time-warp.
- On the first turns ("a move, and then a Time-warp") the two actions may come
  in either order, as in every later turn.
- The rules forbid changing an action once its piece is released; ``pop()``
  (take-back) is still offered, as an operator's correction.
- The per-method capture limits need no counting: each move or beam-down
  carries at most one capture, and a turn has one of each; 'suicide' captures
  are unlimited but only come before any other action.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from rules.errors import IllegalMoveError
from rules.game import Game, Judgement, Outcome
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
from rules.tsr4d.board import NEIGHBOURS, SPACES, WITHIN_TWO, parse_space, space_name
from rules.tsr4d.judge import judge_observed
from rules.tsr4d.notation import action_notation
from rules.tsr4d.pieces import PLAYER_NAMES, Kind, can_capture
from rules.tsr4d.position import Position, WarpSlot, starting_position, validate_position

logger = logging.getLogger(__name__)

LAST_CIRCLE = 3


class SuicideRule(Enum):
    """Which enemy pieces a player may capture as 'suicides' at the start of a turn.

    ``ADJACENT`` (default): any enemy piece standing next to one of the
    player's pieces that outranks it, whoever brought them together - the
    rules call that position a 'suicide' position. ``ARRIVED``: only pieces the
    opponent moved or beamed down next to such a piece in the turn just ended
    (a game started from a position text knows of no such arrivals yet).
    """

    ADJACENT = "adjacent"
    ARRIVED = "arrived"


@dataclass(frozen=True)
class TurnProgress:
    """What the player to move has done so far in this turn."""

    moved: bool = False
    warped: bool = False  # a piece entered Time-warp this turn
    warp_resolved: bool = False  # the piece in Time-warp since an earlier turn beamed down or stayed
    acted: frozenset[int] = frozenset()  # spaces of pieces that moved or beamed down this turn
    started: bool = False  # an action other than a 'suicide' capture was made
    arrivals: frozenset[int] = frozenset()  # spaces this player's pieces moved or beamed to


@dataclass
class _State:
    position: Position
    progress: TurnProgress = field(default_factory=TurnProgress)
    opponent_arrivals: frozenset[int] = frozenset()
    captured: tuple[tuple[int, Kind], ...] = ()

    def copy(self) -> _State:
        return _State(self.position.copy(), self.progress, self.opponent_arrivals, self.captured)


def _describe(player: int, kind: Kind) -> str:
    return f"{PLAYER_NAMES[player]} {kind.title}"


class Tsr4dGame(Game[Action]):
    """A game of TSR "4D" from the documented start or any given position.

    ``push`` raises :class:`~rules.errors.IllegalMoveError` with the rule
    broken; actions written without the piece's space (``Td1``, ``+T``) are
    resolved when only one piece fits.
    """

    board_name = "tsr4d"

    def __init__(
        self, position: Position | None = None, *, suicide_rule: SuicideRule = SuicideRule.ADJACENT
    ) -> None:
        super().__init__()
        start = starting_position() if position is None else position.copy()
        validate_position(start)
        self.suicide_rule = suicide_rule
        self._state = _State(start)

    # -- read-only views ----------------------------------------------------
    @property
    def position(self) -> Position:
        """A copy of the current position."""
        return self._state.position.copy()

    @property
    def progress(self) -> TurnProgress:
        return self._state.progress

    @property
    def to_move(self) -> int:
        return self._state.position.to_move

    @property
    def captured(self) -> tuple[tuple[int, Kind], ...]:
        """Every piece captured in this game so far, as (player, kind), in order."""
        return self._state.captured

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready position plus turn progress and result, for the dashboard."""
        data = self._state.position.to_dict()
        progress = self._state.progress
        outcome = self.outcome()
        data["turn"] = {
            "moved": progress.moved,
            "warped": progress.warped,
            "warp_resolved": progress.warp_resolved,
        }
        data["result"] = None if outcome is None else {
            "winner": None if outcome.winner is None else PLAYER_NAMES[outcome.winner],
            "reason": outcome.reason,
        }
        return data

    def notation(self, action: Action) -> str:
        return action_notation(action)

    # -- legal actions --------------------------------------------------------
    def _candidates(self) -> list[Action]:
        position = self._state.position
        player = position.to_move
        enemies = [
            (space, kind) for space, (owner, kind) in position.pieces.items() if owner != player
        ]
        found: list[Action] = [SuicideCapture(Capture(kind, space)) for space, kind in enemies]

        def with_captures(target: int) -> list[Capture | None]:
            return [None] + [Capture(k, s) for s, k in enemies if s in NEIGHBOURS[target]]

        for space in position.spaces_of(player):
            kind = position.pieces[space][1]
            found.append(Warp(kind, space))
            for target in sorted(NEIGHBOURS[space]):
                found += [Step(kind, target, space, c) for c in with_captures(target)]
        slot, marker = position.warp[player], position.markers[player]
        if slot is not None and marker is not None:
            found.append(Linger(slot.kind, slot.circle))
            for target in sorted(WITHIN_TWO[marker]):
                found += [BeamDown(slot.kind, target, c) for c in with_captures(target)]
        found.append(EndTurn())
        return found

    def legal_moves(self) -> list[Action]:
        """Every action the player to move may make now (captures as separate variants)."""
        if self.outcome() is not None:
            return []
        return [action for action in self._candidates() if self._reason(action) is None]

    def legal_moves_from(self, location: int | str) -> list[Action]:
        """Legal actions of the piece at ``location`` (a space or its name, or ``"warp"``).

        For a space: its moves and its Time-warp. For ``"warp"``: the beam-downs
        and the stay in Time-warp of the player's warped piece. Raises
        :class:`~rules.errors.NotationError` for a bad space name.
        """
        if location == "warp":
            return [a for a in self.legal_moves() if isinstance(a, (BeamDown, Linger))]
        space = parse_space(location) if isinstance(location, str) else location
        return [
            a for a in self.legal_moves() if isinstance(a, (Step, Warp)) and a.origin == space
        ]

    def _has_any_step(self) -> bool:
        return any(
            isinstance(a, Step) and a.capture is None and self._check_step(a) is None
            for a in self._candidates()
        )

    def _beam_down_possible(self) -> bool:
        position = self._state.position
        marker = position.markers[position.to_move]
        return marker is not None and any(t not in position.pieces for t in WITHIN_TWO[marker])

    # -- push with resolution of short notation --------------------------------
    def resolve(self, action: Action) -> Action:
        """Fill in the piece's space of ``Td1`` / ``+T``; raises :class:`IllegalMoveError`."""
        if isinstance(action, Step) and action.origin is None:
            origins = [
                s
                for s in self._own_unacted(action.kind)
                if action.target in NEIGHBOURS[s]
            ]
            return replace(action, origin=self._single(origins, action))
        if isinstance(action, Warp) and action.origin is None:
            return replace(action, origin=self._single(self._own_unacted(action.kind), action))
        return action

    def _own_unacted(self, kind: Kind) -> list[int]:
        position = self._state.position
        return [
            s
            for s in position.spaces_of(position.to_move, kind)
            if s not in self._state.progress.acted
        ]

    def _single(self, origins: list[int], action: Action) -> int:
        kind = action.kind  # type: ignore[union-attr]
        if len(origins) == 1:
            return origins[0]
        player = PLAYER_NAMES[self.to_move]
        if not origins:
            raise IllegalMoveError(f"{action_notation(action)}: no {player} {kind.title} can do that")
        choices = ", ".join(space_name(s) for s in origins)
        raise IllegalMoveError(
            f"{action_notation(action)}: several {player} {kind.title}s could ({choices}); "
            f"write the piece's space, like {kind.value}({space_name(origins[0])})"
        )

    def push(self, move: Action) -> None:
        """Play one action; raises :class:`IllegalMoveError` (nothing changes) if it is illegal."""
        if self.outcome() is not None:
            raise IllegalMoveError("the game is over")
        super().push(self.resolve(move))

    def push_trial(self, move: Action) -> None:
        """Push without touching the redo list (for searches that pop again)."""
        redo = list(self._redo)
        self.push(move)
        self._redo = redo

    def pop_trial(self) -> None:
        """Undo :meth:`push_trial`, leaving the redo list as it was."""
        redo = list(self._redo)
        self.pop()
        self._redo = redo

    def previous_position(self) -> Position | None:
        """The position before the last action, or ``None`` at the start."""
        return self._stack[-1].state.position.copy() if self._stack else None

    def play_turn(self, actions: list[Action] | tuple[Action, ...]) -> None:
        """Play the actions of one turn and end it (unless the game was won on the way).

        Atomic: if any action is illegal every action of the turn is taken back
        and :class:`IllegalMoveError` is raised.
        """
        depth = len(self._stack)
        try:
            for action in actions:
                self.push(action)
            if self.outcome() is None and not isinstance(
                (self.move_stack or [None])[-1], EndTurn
            ):
                self.push(EndTurn())
        except IllegalMoveError:
            while len(self._stack) > depth:
                self.pop()
            self._redo.clear()
            raise

    # -- the rules ---------------------------------------------------------------
    def _check(self, move: Action) -> str | None:
        if self.outcome() is not None:
            return "the game is over"
        return self._reason(move)

    def _reason(self, move: Action) -> str | None:
        """Why ``move`` is illegal in a game not yet over, else ``None``."""
        try:
            action = self.resolve(move)
        except IllegalMoveError as error:
            return str(error)
        if isinstance(action, SuicideCapture):
            return self._check_suicide(action.victim)
        if isinstance(action, Step):
            return self._check_step(action)
        if isinstance(action, BeamDown):
            return self._check_beam_down(action)
        if isinstance(action, Warp):
            return self._check_warp(action)
        if isinstance(action, Linger):
            return self._check_linger(action)
        return self._check_end_turn()

    def _enemy_at(self, capture: Capture) -> str | None:
        position = self._state.position
        held = position.pieces.get(capture.space)
        if held is None or held[0] == position.to_move or held[1] != capture.kind:
            return f"there is no enemy {capture.kind.title} on {space_name(capture.space)}"
        return None

    def _check_suicide(self, victim: Capture) -> str | None:
        state = self._state
        position = state.position
        if state.progress.started:
            return "'suicide' captures are made at the start of the turn, before any other action"
        missing = self._enemy_at(victim)
        if missing:
            return missing
        where = space_name(victim.space)
        if self.suicide_rule is SuicideRule.ARRIVED and victim.space not in state.opponent_arrivals:
            return f"the {victim.kind.title} on {where} did not move next to a capturing piece last turn"
        if not any(
            position.pieces.get(near, (None, None))[0] == position.to_move
            and can_capture(position.pieces[near][1], victim.kind)
            for near in NEIGHBOURS[victim.space]
        ):
            return f"no piece of yours next to {where} can capture a {victim.kind.title}"
        return None

    def _check_capture(self, captor: Kind, at: int, capture: Capture | None) -> str | None:
        """A capture by a move or beam-down: one each per turn, as each carries at most one."""
        if capture is None:
            return None
        missing = self._enemy_at(capture)
        if missing:
            return missing
        if capture.space not in NEIGHBOURS[at]:
            return f"{space_name(capture.space)} is not next to {space_name(at)}"
        if not can_capture(captor, capture.kind):
            return f"a {captor.title} cannot capture a {capture.kind.title}"
        return None

    def _check_step(self, step: Step) -> str | None:
        state = self._state
        position = state.position
        assert step.origin is not None  # resolve() filled it in
        held = position.pieces.get(step.origin)
        if held != (position.to_move, step.kind):
            return f"there is no {_describe(position.to_move, step.kind)} on {space_name(step.origin)}"
        if state.progress.moved:
            return "only one piece moves per turn"
        if step.origin in state.progress.acted:
            return "that piece beamed down this turn and may not move until a later turn"
        if step.target not in NEIGHBOURS[step.origin]:
            return (
                f"{space_name(step.target)} is not next to {space_name(step.origin)}: pieces move "
                "one space, never diagonally"
            )
        if step.target in position.pieces:
            return f"{space_name(step.target)} is occupied"
        return self._check_capture(step.kind, step.target, step.capture)

    def _check_beam_down(self, beam: BeamDown) -> str | None:
        state = self._state
        position = state.position
        slot, marker = position.warp[position.to_move], position.markers[position.to_move]
        if slot is None or slot.kind != beam.kind or marker is None:
            return f"no {beam.kind.title} of yours is in Time-warp"
        if state.progress.warped:
            return "a piece that entered Time-warp this turn beams down in a later turn"
        if beam.target not in WITHIN_TWO[marker]:
            return (
                f"{space_name(beam.target)} is more than two spaces from the Marker on "
                f"{space_name(marker)}"
            )
        if beam.target in position.pieces:
            return f"{space_name(beam.target)} is occupied"
        return self._check_capture(beam.kind, beam.target, beam.capture)

    def _check_warp(self, warp: Warp) -> str | None:
        state = self._state
        position = state.position
        assert warp.origin is not None  # resolve() filled it in
        if position.pieces.get(warp.origin) != (position.to_move, warp.kind):
            return f"there is no {_describe(position.to_move, warp.kind)} on {space_name(warp.origin)}"
        if state.progress.warped:
            return "only one piece enters Time-warp per turn"
        if position.warp[position.to_move] is not None:
            return "the piece already in Time-warp must beam down before another piece can warp"
        if warp.origin in state.progress.acted:
            return "a piece that moved or beamed down this turn may not enter Time-warp"
        return None

    def _check_linger(self, linger: Linger) -> str | None:
        state = self._state
        slot = state.position.warp[state.position.to_move]
        if slot is None or slot.kind != linger.kind or state.progress.warped:
            return f"no {linger.kind.title} of yours has been in Time-warp since an earlier turn"
        if state.progress.warp_resolved:
            return "the piece in Time-warp already went on a circle this turn"
        if slot.circle != linger.circle:
            return f"the {slot.kind.title} is in circle {slot.circle}, not {linger.circle}"
        if slot.circle >= LAST_CIRCLE:
            return "a piece in Time-warp circle 3 must beam down this turn"
        return None

    def _check_end_turn(self) -> str | None:
        state = self._state
        position = state.position
        progress = state.progress
        player = position.to_move
        if not progress.moved and self._has_any_step():
            return "a move is obligatory: move one piece before ending the turn"
        slot = position.warp[player]
        if slot is not None and not progress.warped and not progress.warp_resolved:
            if slot.circle < LAST_CIRCLE:
                return (
                    f"the {slot.kind.title} in Time-warp circle {slot.circle} must beam down or go "
                    f"on to circle {slot.circle + 1}"
                )
            if self._beam_down_possible():
                return f"the {slot.kind.title} in Time-warp circle 3 must beam down now"
        if (
            slot is None
            and not progress.warped
            and sum(position.army(player).values()) > 2
            and any(s not in progress.acted for s in position.spaces_of(player))
        ):
            return (
                "a Time-warp is obligatory while you have more than the Time-Lord and one other piece"
            )
        return None

    # -- applying ------------------------------------------------------------------
    def _remove(self, space: int) -> None:
        state = self._state
        position = state.position
        owner, kind = position.pieces.pop(space)
        state.captured += ((owner, kind),)
        logger.debug("%s captured on %s", _describe(owner, kind), space_name(space))
        self._trap_lone_time_lord(owner)

    def _trap_lone_time_lord(self, owner: int) -> None:
        """A Time-Lord in Time-warp when the last piece of its army is captured is captured too."""
        state = self._state
        slot = state.position.warp[owner]
        if slot is not None and slot.kind is Kind.TIME_LORD and not state.position.spaces_of(owner):
            state.position.warp[owner] = None
            state.captured += ((owner, Kind.TIME_LORD),)

    def _arrive(self, space: int, *, moved: bool, capture: Capture | None) -> None:
        state = self._state
        progress = state.progress
        state.progress = replace(
            progress,
            moved=progress.moved or moved,
            warp_resolved=progress.warp_resolved or not moved,
            acted=progress.acted | {space},
            arrivals=progress.arrivals | {space},
            started=True,
        )
        if capture is not None:
            self._remove(capture.space)

    def _apply(self, move: Action) -> None:
        state = self._state
        position = state.position
        player = position.to_move
        if isinstance(move, SuicideCapture):
            self._remove(move.victim.space)
        elif isinstance(move, Step):
            assert move.origin is not None  # resolve() filled it in
            position.pieces[move.target] = position.pieces.pop(move.origin)
            self._arrive(move.target, moved=True, capture=move.capture)
        elif isinstance(move, BeamDown):
            position.pieces[move.target] = (player, move.kind)
            position.warp[player] = None
            self._arrive(move.target, moved=False, capture=move.capture)
        elif isinstance(move, Warp):
            assert move.origin is not None  # resolve() filled it in
            del position.pieces[move.origin]
            position.warp[player] = WarpSlot(move.kind, 1)
            position.markers[player] = move.origin
            state.progress = replace(state.progress, warped=True, started=True)
        elif isinstance(move, Linger):
            position.warp[player] = WarpSlot(move.kind, move.circle + 1)
            state.progress = replace(state.progress, warp_resolved=True, started=True)
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        state = self._state
        position = state.position
        player = position.to_move
        slot = position.warp[player]
        if slot is not None and not state.progress.warped and not state.progress.warp_resolved:
            # Circle 3 with nowhere to beam down (checked in _check_end_turn): captured.
            position.warp[player] = None
            state.captured += ((player, slot.kind),)
        state.opponent_arrivals = state.progress.arrivals
        state.progress = TurnProgress()
        position.to_move = 1 - player

    def _save_state(self) -> Any:
        return self._state.copy()

    def _restore_state(self, state: Any) -> None:
        self._state = state

    # -- result -------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        position = self._state.position
        for player in (0, 1):
            if position.army(player)[Kind.TIME_LORD] == 0:
                return Outcome(
                    1 - player,
                    f"{PLAYER_NAMES[1 - player]} captured the {PLAYER_NAMES[player]} Time-Lord",
                )
        if all(position.army(player)[Kind.WARRIOR] == 0 for player in (0, 1)):
            return Outcome(None, "every Warrior of both sides is captured")
        return None

    def judge(self, observed: Mapping[Any, int]) -> Judgement[Action]:
        """Explain an observed board (space -> :func:`~rules.tsr4d.pieces.token_code`).

        See :func:`rules.tsr4d.judge.judge_observed`.
        """
        return judge_observed(self, observed)


__all__ = ["SPACES", "SuicideRule", "Tsr4dGame", "TurnProgress"]
