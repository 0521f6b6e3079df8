"""A Time Vectors game: turns, openings, the win and draw rules, undo/redo and persistence.

Turn order: players move in turn order (see :class:`GameConfig`), one token of
their colour on any empty point. The first to complete a vector wins; every
vector completed by the winning move is reported. When the colour to move has
no token left the game is a draw.

Openings (two single players):

- ``swap``: player 0 places a colour-0 token; player 1's first move may be a
  ``swap`` that turns it into a colour-1 token, after which player 0 moves
  again (colours stay with their players).
- ``3meq``: player 0 places three tokens, two of one colour and one of the
  other (colours 0 and 1, in any order); player 1 then ``choose``\\ s a colour.
  Choosing the pair makes it player 0's turn (with the single colour),
  choosing the single token makes it player 1's turn.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from rules.errors import IllegalMoveError, NotationError, RecordError, RulesError
from rules.game import Game, Judgement, Outcome
from rules.timevectors.config import CHOOSING, COLORS, OPENING, PLAY, GameConfig
from rules.timevectors.judge import judge_observation
from rules.timevectors.moves import CHOOSE, PLACE, SWAP, Move
from rules.timevectors.points import POINTS, point_name
from rules.timevectors.position import Status, position_status
from rules.timevectors.vectors import Vector, completed_through, threats

logger = logging.getLogger(__name__)

_MEQ_COLORS = (0, 1)
DEFAULT_CONFIG = GameConfig()


@dataclass
class _State:
    """Everything a move changes; copied on push so that pop restores it exactly."""

    board: dict[int, int]
    bits: list[int]
    used: list[int]
    player_colors: tuple[int, ...]
    next_player: int
    phase: str
    outcome: Outcome | None = None
    swap_from: int | None = None
    """The first token's point while the swap opening's swap is still possible."""

    def copy(self) -> _State:
        return _State(
            dict(self.board),
            list(self.bits),
            list(self.used),
            self.player_colors,
            self.next_player,
            self.phase,
            self.outcome,
            self.swap_from,
        )


class TimeVectorsGame(Game[Move]):
    """The rules engine of one Time Vectors game (see the module docstring for the rules)."""

    board_name = "timevectors"

    def __init__(self, config: GameConfig = DEFAULT_CONFIG) -> None:
        super().__init__()
        self.config = config
        self._s = _State(
            board={},
            bits=[0] * COLORS,
            used=[0] * COLORS,
            player_colors=tuple(config.player_color(p) for p in range(config.players)),
            next_player=0,
            phase=OPENING if config.opening == "3meq" else PLAY,
        )

    # -- position ------------------------------------------------------------
    @property
    def board(self) -> dict[int, int]:
        """Point -> colour of every token on the board (a copy)."""
        return dict(self._s.board)

    @property
    def phase(self) -> str:
        """``"play"``, ``"opening"`` (3MEQ tokens being placed) or ``"choosing"`` (3MEQ choice)."""
        return self._s.phase

    @property
    def player_colors(self) -> tuple[int, ...]:
        """Colour of each player (in turn order); 3MEQ's choice can exchange them."""
        return self._s.player_colors

    def tokens_left(self, color: int) -> int:
        """Unplayed tokens of ``color``."""
        return self.config.supply - self._s.used[color]

    def turn_player(self) -> int:
        """The player (0-based, in turn order) whose turn it is (or would be)."""
        return self._s.next_player

    def turn_color(self) -> int | None:
        """The colour to move; ``None`` when the game is over or the 3MEQ opening leaves it open."""
        if self._s.outcome is not None or self._s.phase != PLAY:
            return None
        return self._s.player_colors[self._s.next_player]

    def legal_colors(self) -> frozenset[int]:
        """Colours that may be placed next (two during the 3MEQ opening, none while choosing)."""
        s = self._s
        if s.outcome is not None or s.phase == CHOOSING:
            return frozenset()
        if s.phase == OPENING:
            return frozenset(c for c in _MEQ_COLORS if s.used[c] < 2)
        return frozenset({s.player_colors[s.next_player]})

    def upcoming_colors(self, count: int) -> list[int] | None:
        """The colours of the next ``count`` placements, ``None`` while an opening leaves them open.

        Ignores the end of the game: this is the rotation, not a promise that
        the moves will be legal.
        """
        s = self._s
        if s.phase != PLAY:
            return None
        players = len(s.player_colors)
        return [s.player_colors[(s.next_player + i) % players] for i in range(count)]

    def swap_point(self) -> int | None:
        """The point whose token a first-move swap would take over now, else ``None``."""
        return self._s.swap_from if self._s.outcome is None else None

    def board_before_last_change(self) -> dict[int, int] | None:
        """The board before the last move that changed it (a choice changes nothing)."""
        for saved in reversed(self._stack):
            if saved.move.kind != CHOOSE:
                return dict(saved.state.board)
        return None

    def completes_vector(self, point: int, color: int) -> bool:
        """Whether a ``color`` token on ``point`` would complete a vector of that colour."""
        return bool(completed_through(self._s.bits[color] | 1 << point, point))

    def outcome(self) -> Outcome | None:
        return self._s.outcome

    def threats(self) -> dict[int, list[tuple[Vector, int]]]:
        """For every colour in play: vectors with three of its tokens and the fourth point empty."""
        return {c: threats(self._s.board, c) for c in range(self.config.colors_in_play)}

    def status(self) -> Status:
        """Flags for anything impossible about the position (``Status.VALID`` when none)."""
        return position_status(self._s.board, self.config)

    def copy(self) -> TimeVectorsGame:
        """A game in the same position, without the move history (for trying moves out)."""
        clone = TimeVectorsGame(self.config)
        clone._s = self._s.copy()
        return clone

    def judge(self, observed: Mapping[Any, int]) -> Judgement[Move]:
        """Read an observed board against the position; see :func:`judge_observation`."""
        return judge_observation(self, observed)

    # -- Game hooks ------------------------------------------------------------
    def _save_state(self) -> _State:
        return self._s.copy()

    def _restore_state(self, state: _State) -> None:
        self._s = state.copy()

    def _check(self, move: Move) -> str | None:
        s = self._s
        if not isinstance(move, Move):
            return f"{move!r} is not a Time Vectors move"
        if s.outcome is not None:
            return (
                "game already won" if s.outcome.winner is not None else "game already over (draw)"
            )
        if move.kind == CHOOSE:
            return self._check_choice(move)
        if move.point not in POINTS or isinstance(move.point, bool):
            return f"{move.point!r} is not a point of the board"
        if move.kind == SWAP:
            return self._check_swap(move)
        if move.kind != PLACE:
            return f"unknown kind of move {move.kind!r}"
        name = self.config.color_name(move.color)
        if s.phase == CHOOSING:
            return "the second player must choose a colour first (three-move equalization)"
        if move.color not in self.legal_colors():
            if s.phase == OPENING:
                return "the three-move opening is two tokens of one colour and one of the other"
            return f"{name} played out of turn"
        if move.point in s.board:
            return f"{point_name(move.point)} is already taken"
        return None

    def _check_choice(self, move: Move) -> str | None:
        if self._s.phase != CHOOSING:
            return "no colour choice is due"
        if move.color not in _MEQ_COLORS:
            return f"{self.config.color_name(move.color)} is not one of the opening's colours"
        return None

    def _check_swap(self, move: Move) -> str | None:
        point = self.swap_point()
        if point is None:
            return "a swap is only the second player's first move of a swap-opening game"
        if move.point != point:
            return f"a swap takes over the first token, on {point_name(point)}"
        if move.color != self._s.player_colors[1]:
            return f"the swap puts a {self.config.color_name(self._s.player_colors[1])} token"
        return None

    def _apply(self, move: Move) -> None:
        s = self._s
        if move.kind == CHOOSE:
            self._apply_choice(move.color)
            return
        point = cast(int, move.point)  # _check has ruled out None for place and swap
        first = not s.board
        s.swap_from = (
            point if first and move.kind == PLACE and self.config.opening == "swap" else None
        )
        if move.kind == SWAP:
            self._take_token(point)
            s.next_player = 0
        elif s.phase == OPENING:
            if sum(s.used) == 2:
                s.phase, s.next_player = CHOOSING, 1
        else:
            s.next_player = (s.next_player + 1) % len(s.player_colors)
        self._put_token(point, move.color)
        self._settle(point, move.color)

    def _apply_choice(self, color: int) -> None:
        s = self._s
        other = _MEQ_COLORS[1 - _MEQ_COLORS.index(color)]
        s.player_colors = (other, color)
        s.next_player = 0 if s.used[color] == 2 else 1
        s.phase = PLAY
        self._settle(None, color)

    def _put_token(self, point: int, color: int) -> None:
        s = self._s
        s.board[point] = color
        s.bits[color] |= 1 << point
        s.used[color] += 1

    def _take_token(self, point: int) -> None:
        s = self._s
        color = s.board.pop(point)
        s.bits[color] &= ~(1 << point)
        s.used[color] -= 1

    def _settle(self, point: int | None, color: int) -> None:
        """Decide whether the move just applied ended the game (win, then draw)."""
        s = self._s
        if point is not None:
            completed = completed_through(s.bits[color], point)
            if completed:
                name = self.config.color_name(color)
                count = "a vector" if len(completed) == 1 else f"{len(completed)} vectors"
                s.outcome = Outcome(
                    winner=color,
                    reason=f"{name} completed {count} with {point_name(point)}",
                    lines=tuple(v.points for v in completed),
                )
                logger.debug("%s", s.outcome.reason)
                return
        turn = self.turn_color()
        if turn is not None and s.used[turn] >= self.config.supply:
            s.outcome = Outcome(None, f"draw: {self.config.color_name(turn)} has no tokens left")

    # -- persistence -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """``{"board": "timevectors", "config": {...}, "moves": ["A3Q:0", ...]}`` (JSON-ready)."""
        return {
            "board": self.board_name,
            "config": self.config.to_dict(),
            "moves": [move.notation() for move in self.move_stack],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimeVectorsGame:
        """Rebuild a game from :meth:`to_dict`'s output by replaying its moves.

        Raises :class:`RecordError` naming the problem (wrong board, bad config,
        unreadable or illegal move and its number).
        """
        if not isinstance(data, Mapping):
            raise RecordError(f"a saved game is a JSON object, not {type(data).__name__}")
        if data.get("board") != cls.board_name:
            raise RecordError(f"not a Time Vectors game: board is {data.get('board')!r}")
        moves = data.get("moves", [])
        if not isinstance(moves, list):
            raise RecordError("moves must be a list of move notations")
        try:
            game = cls(GameConfig.from_dict(data.get("config", {})))
        except (RulesError, TypeError) as error:
            raise RecordError(f"bad config: {error}") from error
        for number, text in enumerate(moves, start=1):
            try:
                game.push(Move.parse(text))
            except (NotationError, IllegalMoveError) as error:
                raise RecordError(f"move {number} ({text!r}): {error}") from error
        return game
