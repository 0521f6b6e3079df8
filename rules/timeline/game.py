"""The Timeline referee: rook and bishop moves through space-time, capture, release, result.

Choices where the rules leave room (documented where they act):

- "Crossing" a timeline: by default (:attr:`CrossingRule.SQUARES`) a move
  crosses a timeline only by entering a square holding one of its chits. Two
  bishop paths can also cut through each other diagonally without sharing a
  square; players who count that as crossing choose :attr:`CrossingRule.DIAGONALS`.
- The draw test "neither bishop can release another piece" is read statically:
  a bishop *could* release a teammate when some chit of that teammate's captor,
  laid before the capture, lies on a square of the bishop's colour holding no
  chit of the bishop's team. Whether the bishop can reach it is not searched.
- A team to move with no legal move at all (the rules never say) draws the game.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum
from itertools import pairwise
from typing import Any

from rules.game import Game, Judgement, Outcome
from rules.timeline.moves import Move, path_of, reachable_paths
from rules.timeline.pieces import TEAM_NAMES, Kind, Piece
from rules.timeline.position import TimelinePosition, starting_position, validate_timelines
from rules.timeline.space import square_colour
from rules.timeline.timelines import Chit, captor_of, chits_on, free_pieces, truncate
from rules.timevectors.points import point_coords, point_index, point_name

logger = logging.getLogger(__name__)


class CrossingRule(Enum):
    """When a move counts as crossing a timeline (which no move may do).

    ``SQUARES`` (default): entering a square that holds a chit of it.
    ``DIAGONALS``: also a bishop step that cuts between two consecutive chits of
    a bishop's timeline, the two paths forming an X on one plane.
    """

    SQUARES = "squares"
    DIAGONALS = "diagonals"


def _corners(start: int, end: int) -> frozenset[int]:
    """The two squares beside a diagonal step ``start`` -> ``end`` (one axis changed each)."""
    a, b = point_coords(start), point_coords(end)
    corners = set()
    for axis in range(4):
        if a[axis] != b[axis]:
            corner = list(a)
            corner[axis] = b[axis]
            corners.add(point_index(*corner))
    return frozenset(corners)


class TimelineGame(Game[Move]):
    """A game of Timeline from the documented set-up or any given position.

    ``push`` raises :class:`~rules.errors.IllegalMoveError` with the rule broken.
    """

    board_name = "timeline"

    def __init__(
        self,
        position: TimelinePosition | None = None,
        *,
        crossing_rule: CrossingRule = CrossingRule.SQUARES,
    ) -> None:
        super().__init__()
        self.crossing_rule = crossing_rule
        start = starting_position() if position is None else position.copy()
        validate_timelines(start.timelines)
        # Positions are replaced, never changed in place, so caches keyed on identity stay true.
        self._position = start
        self._cache: dict[str, tuple[TimelinePosition, Any]] = {}

    def _cached(self, name: str, compute: Any) -> Any:
        hit = self._cache.get(name)
        if hit is None or hit[0] is not self._position:
            hit = (self._position, compute())
            self._cache[name] = hit
        return hit[1]

    def _squares(self) -> dict[int, dict[Piece, Chit]]:
        return self._cached("squares", lambda: chits_on(self._position.timelines))

    def _diagonal_segments(self) -> dict[frozenset[int], Piece]:
        """Consecutive chit pairs of bishop timelines -> the bishop (for ``DIAGONALS``)."""

        def build() -> dict[frozenset[int], Piece]:
            return {
                frozenset({before.point, after.point}): piece
                for piece, chits in self._position.timelines.items()
                if piece.kind is Kind.BISHOP
                for before, after in pairwise(chits)
            }

        return self._cached("segments", build)

    # -- views ------------------------------------------------------------------
    @property
    def position(self) -> TimelinePosition:
        """A copy of the current position."""
        return self._position.copy()

    @property
    def to_move(self) -> int:
        return self._position.to_move

    def pieces_on_board(self) -> dict[Piece, int]:
        """Every free piece -> its square."""
        return dict(self._cached("free", lambda: free_pieces(self._position.timelines)))

    def captor(self, piece: Piece) -> Piece | None:
        """The enemy holding ``piece`` captured, ``None`` while it is free."""
        return captor_of(piece, self._position.timelines, self._squares())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready position plus the result, for the dashboard."""
        data = self._position.to_dict()
        outcome = self.outcome()
        data["result"] = None if outcome is None else {
            "winner": None if outcome.winner is None else TEAM_NAMES[outcome.winner],
            "reason": outcome.reason,
        }
        return data

    def notation(self, move: Move) -> str:
        """``A5P-A8P``, with ``xCOLOUR`` when the move captures (in the current position)."""
        return Move(move.origin, move.target, captures=self.victim_of(move)).notation()

    def move_to_dict(self, move: Move) -> dict[str, Any]:
        """JSON-ready form of a move in the current position, for the dashboard."""
        victim = self.victim_of(move)
        return {
            "notation": self.notation(move),
            "from": point_name(move.origin),
            "to": point_name(move.target),
            "captures": None if victim is None else victim.colour,
        }

    # -- moves ------------------------------------------------------------------
    def _mover(self, origin: int) -> Piece | None:
        for piece, square in self.pieces_on_board().items():
            if square == origin and piece.team == self._position.to_move:
                return piece
        return None

    def victim_of(self, move: Move) -> Piece | None:
        """The enemy piece whose timeline holds ``move``'s target square, if any."""
        here = self._squares().get(move.target, {})
        enemies = [p for p in here if p.team != self._position.to_move]
        return enemies[0] if enemies else None

    def legal_moves(self) -> list[Move]:
        """Every legal move of the team to move."""
        return [
            move
            for piece, square in self.pieces_on_board().items()
            if piece.team == self._position.to_move
            for move in self._moves_of(piece, square)
        ]

    def legal_moves_from(self, location: int) -> list[Move]:
        """Legal moves of the team-to-move piece on ``location`` (empty if there is none)."""
        piece = self._mover(location)
        return [] if piece is None else self._moves_of(piece, location)

    def _moves_of(self, piece: Piece, origin: int) -> list[Move]:
        squares = self._squares()
        found = []
        for path in reachable_paths(piece.kind, origin):
            if self._path_problem(piece, origin, path, squares) is None:
                found.append(Move(origin, path[-1]))
        return found

    def _path_problem(
        self, piece: Piece, origin: int, path: list[int], squares: dict[int, dict[Piece, Chit]]
    ) -> str | None:
        if piece.kind is Kind.BISHOP and self.crossing_rule is CrossingRule.DIAGONALS:
            segments = self._diagonal_segments()
            for start, end in zip([origin, *path], path):
                cut = segments.get(_corners(start, end))
                if cut is not None:
                    corners = " and ".join(sorted(point_name(c) for c in _corners(start, end)))
                    return f"the move would cut across the {cut.title}'s timeline between {corners}"
        for index, point in enumerate(path):
            here = squares.get(point, {})
            own = [p for p in here if p.team == piece.team]
            if own:
                return (
                    f"{point_name(point)} holds the {own[0].title}'s timeline: a piece may not "
                    "enter a square of its own team's timelines"
                )
            if here and index < len(path) - 1:
                enemy = next(iter(here))
                return (
                    f"the move would cross the {enemy.title}'s timeline on {point_name(point)}: "
                    "a piece landing on an enemy timeline stops there"
                )
        return None

    def _check(self, move: Move) -> str | None:
        if self.outcome() is not None:
            return "the game is over"
        team = TEAM_NAMES[self._position.to_move]
        piece = self._mover(move.origin)
        if piece is None:
            return f"no {team} piece stands on {point_name(move.origin)}"
        if move.piece is not None and move.piece != piece:
            return f"the piece on {point_name(move.origin)} is the {piece.title}, not the {move.piece.title}"
        path = path_of(piece.kind, move.origin, move.target)
        if path is None:
            if piece.kind is Kind.ROOK:
                return "a rook moves one to three steps in one direction (a row, column, level or day)"
            return "a bishop moves one to three diagonal steps (two directions at once) in one line"
        problem = self._path_problem(piece, move.origin, path, self._squares())
        if problem is not None:
            return problem
        victim = self.victim_of(move)
        if move.captures is not None and move.captures != victim:
            actual = "captures nothing" if victim is None else f"captures the {victim.title}"
            return f"the move {actual}, not the {move.captures.title}"
        return None

    def _apply(self, move: Move) -> None:
        position = self._position
        piece = self._mover(move.origin)
        assert piece is not None  # _check passed
        path = path_of(piece.kind, move.origin, move.target)
        assert path is not None  # _check passed
        victim = self.victim_of(move)
        laid = position.next_laid
        timelines = dict(position.timelines)
        timelines[piece] = timelines[piece] + tuple(Chit(point, laid) for point in path)
        if victim is not None:
            # The victim's chits after the capture square vanish; that may free its captives.
            timelines[victim] = truncate(timelines[victim], move.target)
            logger.debug("%s captures the %s on %s", piece.title, victim.title, point_name(move.target))
        self._position = TimelinePosition(timelines, 1 - position.to_move, laid + 1)

    def _save_state(self) -> Any:
        return self._position

    def _restore_state(self, state: Any) -> None:
        self._position = state

    # -- result -----------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        return self._cached("outcome", self._compute_outcome)

    def _compute_outcome(self) -> Outcome | None:
        free = self.pieces_on_board()
        for team in (0, 1):
            if not any(piece.team == team for piece in free):
                return Outcome(1 - team, f"every {TEAM_NAMES[team]} piece is captured")
        if self._bishops_draw(free):
            return Outcome(None, "one bishop each on opposite colours, and neither can release a piece")
        if not self._any_legal_move():
            return Outcome(None, f"{TEAM_NAMES[self._position.to_move]} has no legal move")
        return None

    def _any_legal_move(self) -> bool:
        return any(
            self._moves_of(piece, square)
            for piece, square in self.pieces_on_board().items()
            if piece.team == self._position.to_move
        )

    def _bishops_draw(self, free: dict[Piece, int]) -> bool:
        if len(free) != 2 or any(piece.kind is not Kind.BISHOP for piece in free):
            return False
        if len({piece.team for piece in free}) != 2:
            return False
        if len({square_colour(square) for square in free.values()}) != 2:
            return False
        return not any(self._could_release(bishop, square) for bishop, square in free.items())

    def _could_release(self, bishop: Piece, square: int) -> bool:
        """Static test: a chit that would free a teammate lies on a square of the bishop's colour."""
        timelines = self._position.timelines
        squares = self._squares()
        colour = square_colour(square)
        for teammate in timelines:
            if teammate.team != bishop.team:
                continue
            captor = captor_of(teammate, timelines, squares)
            if captor is None:
                continue
            capture_square = timelines[teammate][-1].point
            for chit in truncate(timelines[captor], capture_square)[:-1]:
                here = squares[chit.point]
                if square_colour(chit.point) == colour and not any(
                    p.team == bishop.team for p in here
                ):
                    return True
        return False

    # -- judging an observed board ------------------------------------------------
    def judge(self, observed: Mapping[Any, int]) -> Judgement[Move]:
        """Explain an observed board (point -> piece colour code, :class:`Piece` values).

        Chits are not observed. The change is legal when exactly one legal move
        leads to the observed pieces; otherwise the reasons say what moved.
        """
        board, reasons = _validate_observed(observed)
        current = {square: piece.value for piece, square in self.pieces_on_board().items()}
        changed = tuple(sorted(p for p in set(current) | set(board) if current.get(p) != board.get(p)))
        if reasons:
            return Judgement(reasons=tuple(reasons), changed=changed)
        if not changed:
            return Judgement()
        take_back = bool(self._stack) and {
            square: piece.value for piece, square in free_pieces(self._stack[-1].state.timelines).items()
        } == board
        if self.outcome() is not None:
            return Judgement(reasons=("the game is already over",), changed=changed, take_back=take_back)
        for move in self.legal_moves():
            redo = list(self._redo)
            self.push(move)
            after = {square: piece.value for piece, square in self.pieces_on_board().items()}
            self.pop()
            self._redo = redo
            if after == board:
                return Judgement(moves=(move,), changed=changed)
        why = _describe_changes(current, board)
        why.append(f"no legal {TEAM_NAMES[self._position.to_move]} move explains this change")
        return Judgement(reasons=tuple(why), changed=changed, take_back=take_back)


def _validate_observed(observed: Mapping[Any, int]) -> tuple[dict[int, int], list[str]]:
    board: dict[int, int] = {}
    reasons = []
    codes = {piece.value for piece in Piece}
    for point, code in observed.items():
        if not (isinstance(point, int) and 0 <= point < 256):
            reasons.append(f"{point!r} is not a point of the board")
        elif code not in codes:
            reasons.append(f"the token on {point_name(point)} is not a known piece (code {code!r})")
        elif code in board.values():
            reasons.append(f"the {Piece(code).title} is seen on two squares")
        else:
            board[point] = code
    return board, reasons


def _describe_changes(before: Mapping[int, int], after: Mapping[int, int]) -> list[str]:
    sentences = []
    for point in sorted(set(before) | set(after)):
        was, now = before.get(point), after.get(point)
        if was == now:
            continue
        if was is not None:
            sentences.append(f"the {Piece(was).title} left {point_name(point)}")
        if now is not None:
            sentences.append(f"the {Piece(now).title} appeared on {point_name(point)}")
    return sentences
