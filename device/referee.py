"""The referee: stable board snapshots -> the rules' judgement -> events.

The referee owns the game being watched. Each :class:`~vision.observation.Snapshot`
is read against the last accepted (legal) position with ``game.judge``: legal
moves are played and reported, anything else raises one ``illegal`` alert and
the game stays at its last legal state until the board is put back (``restored``)
or an operator steps in.

Two readings of a point are not the camera's raw word:

* a point the camera cannot see (``Snapshot.hidden``) is taken to be as the game
  has it: a hidden token can neither be removed nor placed as far as the camera
  knows;
* an operator's *override* ("the camera reads colour 1 at C2R, the truth is
  empty") holds while the camera keeps reading that point the same way; as soon
  as its reading of the point changes, the camera's word counts again. Overrides
  implement :meth:`Referee.correct`, :meth:`Referee.accept` of a change that is
  not a take-back, and :meth:`Referee.undo` of a move whose token is still there.

A move to a point the camera cannot see shows up in one of two ways, and the
referee then asks the players to confirm the point (``confirm_hidden``):

1. the readable board is unchanged but a token that was in view went out of
   view: something new stands in front of it, a token on a point the camera
   cannot read;
2. the next player's token appears and the change is only explained if the
   player before them placed a token on a hidden point (out-of-turn otherwise).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from device import events as ev
from device.boards import BoardRules, board_rules
from device.events import Event
from rules.errors import IllegalMoveError, RulesError
from rules.game import Game, Judgement
from vision.observation import Snapshot

logger = logging.getLogger(__name__)


class RefereeError(ValueError):
    """An operator action that does not apply now (nothing to accept, not a candidate point...)."""


@dataclass(frozen=True)
class Pending:
    """The unresolved difference between the board and the game.

    ``kind`` is :data:`~device.events.ILLEGAL` or :data:`~device.events.CONFIRM_HIDDEN`;
    ``observed`` the board (as the referee read it) that raised it; for a hidden
    move, ``color`` is the colour that must have been placed and ``candidates``
    the hidden points it may be on. ``in_line``: the question is which of two points in
    line with the camera a token it saw went to (the first candidate is the one it read).
    """

    kind: str
    frame: int | None
    observed: dict[int, int]
    judgement: Judgement
    color: int | None = None
    candidates: tuple[int, ...] = ()
    occluded: frozenset[int] = frozenset()
    alert: Event | None = None
    in_line: bool = False

    @property
    def points(self) -> tuple[int, ...]:
        """Points that differ from the last legal state."""
        return tuple(sorted(self.judgement.changed))


class Referee:
    """Judges snapshots for one game at a time; every method returns the events it caused.

    ``new_game`` makes a fresh game with the same settings: when given, clearing
    the board after a finished game starts a new one (``game_started``).
    Operator actions raise :class:`RefereeError` when they do not apply.

    Locations are the camera's indices (points of the stacked board, nodes of the
    bandanna); :mod:`device.boards` translates them for the game's rules and names
    them in events (``A3Q``, ``GGBY``).
    """

    def __init__(self, game: Game, *, new_game: Callable[[], Game] | None = None) -> None:
        self._game = game
        self._rules: BoardRules = board_rules(game)
        self._new_game = new_game
        self._pending: Pending | None = None
        self._overrides: dict[int, tuple[int | None, int | None]] = {}
        self._last: Snapshot | None = None

    # -- read-only views -----------------------------------------------------
    @property
    def game(self) -> Game:
        return self._game

    @property
    def rules(self) -> BoardRules:
        """The board-specific translation for the game being watched."""
        return self._rules

    @property
    def pending(self) -> Pending | None:
        """The unresolved illegal change or hidden-point question, if any."""
        return self._pending

    @property
    def overrides(self) -> dict[int, tuple[int | None, int | None]]:
        """Point -> (camera reading, value used instead) for operator-fixed readings."""
        return dict(self._overrides)

    def restore_overrides(self, overrides: Mapping[int, tuple[int | None, int | None]]) -> None:
        """Take up the operator's fixes of a game resumed after a restart (as
        :attr:`overrides` gave them); each holds while the camera reads its point the same.
        Raises :class:`RefereeError` for a location this board does not have."""
        for point in overrides:
            self._check_location(point)
        self._overrides = dict(overrides)

    def pending_record(self) -> dict[str, Any] | None:
        """The record of the alert that is still unresolved (without time), or ``None``."""
        if self._pending is None or self._pending.alert is None:
            return None
        record = self._pending.alert.to_record()
        record.pop("time", None)
        record.pop("game_id", None)
        return record

    def is_plausible(self, snapshot: Snapshot) -> bool:
        """Whether ``snapshot`` is the same board or a legal change of it and raises no
        question (no side effects): the pipeline lets anything else settle longer and checks
        the camera before it is judged."""
        observed = self._read(snapshot, drop_stale=False)
        judgement = self._read_change(observed)
        if not judgement.is_legal:
            return False
        if self._in_line_question(snapshot, observed, judgement) is not None:
            return False
        return not (judgement.is_unchanged and self._newly_hidden(snapshot))

    def _newly_hidden(self, snapshot: Snapshot) -> frozenset[int]:
        """Points holding a token that went out of view since the last snapshot."""
        previous = self._last
        if previous is None or previous is snapshot:
            return frozenset()
        board = self._rules.position(self._game)
        return frozenset(p for p in snapshot.hidden - previous.hidden if p in board)

    def mismatch_points(self) -> list[int]:
        """Points where the board differs from the last legal state (drawn red on the dashboard)."""
        return list(self._pending.points) if self._pending else []

    # -- feeding ---------------------------------------------------------------
    def feed(self, snapshot: Snapshot) -> list[Event]:
        """Judge a new stable snapshot and return the events it causes."""
        newly_hidden = self._newly_hidden(snapshot)
        self._last = snapshot
        observed = self._read(snapshot, drop_stale=True)
        if (
            self._game.is_over()
            and self._new_game is not None
            and not self._visible_tokens(snapshot)
        ):
            return self._restart(self._new_game, snapshot.frame)
        reread = self._reread(observed, snapshot.frame, newly_hidden)
        if reread:  # the moved token's old point no longer holds a token of the game
            observed = self._read(snapshot, drop_stale=False)
            newly_hidden = frozenset(newly_hidden & self.position().keys())
        return reread + self._judge(observed, snapshot.frame, newly_hidden)

    def reset(self, game: Game, *, new_game: Callable[[], Game] | None = None) -> list[Event]:
        """Watch ``game`` from now on (the operator started a new game or loaded one) and judge
        the board last seen against it: tokens left from the old game are not moves of the new
        one. ``new_game`` replaces the maker of fresh games (see the class)."""
        self._install(game, new_game)
        return self._rejudge()

    def position(self) -> dict[int, int]:
        """What the board should show now: location index -> colour."""
        return self._rules.position(self._game)

    def adopt(self, snapshot: Snapshot) -> list[Event]:
        """Take the board of ``snapshot`` as the game so far (frames that start mid-game).

        Its tokens are played as moves in turn order (a token that would end the game is
        kept for last). Raises :class:`RefereeError`, leaving the game as it was, when the
        game already has moves or the colours cannot have been placed in turn order.
        """
        if self._game.move_stack:
            raise RefereeError(
                "the game already has moves; a board can only be adopted at the start"
            )
        remaining = self._visible_tokens(snapshot)
        played = 0
        try:
            while remaining:
                color = self._rules.turn_color(self._game)
                mine = sorted(p for p, c in remaining.items() if c == color)
                if color is None or not mine:
                    raise RefereeError(
                        f"the {len(snapshot.tokens)} tokens on the board cannot have been placed "
                        "in turn order"
                    )
                point = next((p for p in mine if not self._ends_game(p, color)), mine[0])
                self._game.push(self._rules.place(point, color))
                played += 1
                del remaining[point]
        except (RefereeError, IllegalMoveError) as exc:
            for _ in range(played):
                self._game.pop()
            raise RefereeError(str(exc)) from exc
        self._last = snapshot
        return [
            self._event(
                ev.GAME_STARTED,
                snapshot.frame,
                reason=f"the board as it was taken as the game so far ({played} moves)",
            )
        ]

    def _ends_game(self, point: int, color: int) -> bool:
        """Whether placing ``color`` on ``point`` now would end the game."""
        self._game.push(self._rules.place(point, color))
        try:
            return self._game.is_over()
        finally:
            self._game.pop()

    def _install(self, game: Game, new_game: Callable[[], Game] | None) -> None:
        self._game = game
        self._rules = board_rules(game)
        self._new_game = new_game
        self._pending = None
        self._overrides.clear()

    # -- operator actions --------------------------------------------------------
    def accept(self) -> list[Event]:
        """Accept the board as it is now.

        A take-back of the last move takes the move back (``undo``). Tokens that were
        moved (each missing token of a colour is on a new point) are taken as where
        those moves really went: the move history is rewritten (``accepted`` with
        ``moved``; a ``win`` if the board now has a vector). Any other change keeps the
        game's position, and the differing points are read as the game has them until
        the camera's reading of them changes (``accepted``). Raises
        :class:`RefereeError` when nothing differs.
        """
        pending = self._require_pending()
        if pending.judgement.take_back:
            self._pending = None
            out = [
                self._event(
                    ev.UNDO,
                    pending.frame,
                    **self._undo_data(move),
                    reason="take-back accepted",
                )
                for move in self._pop_last_change()
            ]
            return out + self._rejudge()
        moved = self._moved_tokens(pending)
        relocated = self._relocate(moved, pending.frame, pending.points) if moved else None
        if relocated is not None:
            self._pending = None
            return relocated + self._rejudge()
        board = self._rules.position(self._game)
        for point in pending.points:
            self._overrides[point] = (pending.observed.get(point), board.get(point))
        self._pending = None
        return [self._event(ev.ACCEPTED, pending.frame, points=self._names(pending.points))]

    def _pop_last_change(self) -> list[Any]:
        """Take back the last move that changed the board, and the moves since that did not
        (a 3MEQ choice stands on the three tokens it was made for, a GRYB roll on the move
        before it); returns them, last first."""
        popped = []
        while self._game.move_stack:
            popped.append(self._game.pop())
            if self._rules.changes_board(popped[-1]):
                break
        return popped

    def _moved_tokens(self, pending: Pending) -> dict[int, int]:
        """Source -> target of every moved token when the change is only moved tokens."""
        board, observed = self._rules.position(self._game), pending.observed
        removed = {p: c for p, c in board.items() if p not in observed}
        added = {p: c for p, c in observed.items() if p not in board}
        if any(observed[p] != c for p, c in board.items() if p in observed) or not removed:
            return {}
        moved: dict[int, int] = {}
        for color in set(removed.values()) | set(added.values()):
            sources = sorted(p for p, c in removed.items() if c == color)
            targets = sorted(p for p, c in added.items() if c == color)
            if len(sources) != len(targets):
                return {}
            moved.update(zip(sources, targets, strict=True))
        return moved

    def _relocate(
        self, moved: Mapping[int, int], frame: int | None, points: Iterable[int], **data: Any
    ) -> list[Event] | None:
        """Rewrite the history so that the moves on the keys of ``moved`` went to its values;
        returns the ``accepted`` event (``points``, ``moved``, ``data``) and a ``win`` the board
        now shows, or ``None``, changing nothing, when that history is not legal."""
        was_over = self._game.is_over()
        if not self._rewrite_history(moved):
            return None
        name = self._rules.name
        pairs = sorted([name(a), name(b)] for a, b in moved.items())
        out = [self._event(ev.ACCEPTED, frame, points=self._names(points), moved=pairs, **data)]
        return out if was_over else out + self._outcome_events(frame)

    def _rewrite_history(self, moved: Mapping[int, int]) -> bool:
        """Replay the game with its moves' points mapped by ``moved``; restore it and return
        False if that history is not legal (it would have ended earlier, say)."""
        original = self._game.move_stack
        rewritten = [self._rules.relocated(m, moved) for m in original]
        if any(m is None for m in rewritten):
            return False
        for _ in original:
            self._game.pop()
        pushed = 0
        try:
            for move in rewritten:
                self._game.push(move)
                pushed += 1
        except IllegalMoveError:
            for _ in range(pushed):
                self._game.pop()
            self._game.push_all(original)
            return False
        return True

    def correct(self, point: int, color: int | None) -> list[Event]:
        """The operator says point ``point`` really holds ``color`` (``None``: empty).

        The camera's reading of that point is replaced until it reads something else
        than it did or than the token told (see :meth:`_override_lapsed`), and the
        board is judged again (a missed move is played, a misread clears the alert).
        On a point the camera cannot see there is no reading to replace: a player who
        put the token to play there says so, and it is played as a move to a hidden
        point (see :meth:`_tell_hidden`). A word that answers the open question of where a
        token went (a candidate, in its colour) answers it (:meth:`confirm_hidden`).
        Raises :class:`RefereeError` before any board was read, and on a hidden point for
        anything but that move.
        """
        self._check_location(point)
        if color is not None and (
            isinstance(color, bool) or not isinstance(color, int) or color < 0
        ):
            raise RefereeError(
                f"a colour is an index 0, 1, 2, ... or None for empty, not {color!r}"
            )
        last = self._last
        if last is None:
            raise RefereeError("no board has been read yet")
        if self._answers_question(point, color):
            return self.confirm_hidden(point)
        if point in last.hidden:
            return self._tell_hidden(point, color, last.frame)
        reading = last.tokens.get(point)
        if reading == color:
            self._overrides.pop(point, None)
        else:
            self._overrides[point] = (reading, color)
        out = [
            self._event(
                ev.CORRECTED,
                last.frame,
                point=self._rules.name(point),
                color=color,
                read=reading,
            )
        ]
        return out + self._rejudge()

    def _answers_question(self, point: int, color: int | None) -> bool:
        """Whether a player's word that ``point`` holds ``color`` answers the open question
        about where a token went (one of its candidates, the colour it asked about)."""
        pending = self._pending
        return (
            pending is not None
            and pending.kind == ev.CONFIRM_HIDDEN
            and pending.color == color
            and point in pending.candidates
        )

    def _tell_hidden(self, point: int, color: int | None, frame: int | None) -> list[Event]:
        """A player's word that hidden ``point`` holds ``color``. The camera cannot check it,
        so only what it cannot have seen is taken: a token of the colour to play on an empty
        point, the move the player made there. Without this a move behind the post that
        nobody asked about (it changed nothing in view) stalled the game's turn, and with
        colours learned from the game every later set took the wrong number."""
        name = self._rules.name(point)
        turn = self._rules.turn_color(self._game)
        if color is None or color != turn or point in self.position() or self._game.is_over():
            raise RefereeError(
                f"{name} is hidden from the camera: it cannot be corrected, only a token of "
                f"the colour to play ({turn}) placed on it when it is empty"
            )
        move = self._rules.place(point, color)
        try:
            self._game.push(move)
        except IllegalMoveError as exc:
            raise RefereeError(f"{name}: {exc}") from exc
        self._game.pop()
        told = self._event(ev.CORRECTED, frame, point=name, color=color, read=None, hidden=True)
        return [told, *self._play([move], frame, hidden=True), *self._rejudge()]

    def confirm_hidden(self, point: int) -> list[Event]:
        """Play the move the referee asked about on hidden point ``point``.

        Raises :class:`RefereeError` when no hidden move is waiting for confirmation
        or ``point`` is not one of its candidates.
        """
        self._check_location(point)
        pending = self._pending
        if pending is None or pending.kind != ev.CONFIRM_HIDDEN:
            raise RefereeError("no move to a hidden point is waiting for confirmation")
        if point not in pending.candidates:
            raise RefereeError(
                f"{self._rules.name(point)} is not one of the candidate "
                f"{self._rules.location_word}s "
                f"{', '.join(self._names(pending.candidates))}"
            )
        self._pending = None
        assert pending.color is not None  # a hidden-move question always names its colour
        if pending.in_line:
            self._take_in_line(pending.candidates[0], point, pending.color)
        out = self._play(
            [self._rules.place(point, pending.color)],
            pending.frame,
            hidden=not pending.in_line,
            in_line=pending.in_line,
        )
        return out + self._rejudge()

    def _take_in_line(self, read: int, chosen: int, color: int) -> None:
        """The players placed the token the camera read on ``read`` on ``chosen`` (one of two
        points in line): while the camera reads those points as it did, they are read as
        the players said, toss-up or not."""
        last = self._last
        if chosen == read or last is None:
            return
        self._overrides[read] = (last.tokens.get(read), None)
        if chosen not in last.hidden:
            self._overrides[chosen] = (last.tokens.get(chosen), color)

    def choose_colour(self, color: int) -> list[Event]:
        """The second player's colour choice of the three-move equalization opening.

        The camera cannot see a choice, so an operator reports it. The board is judged
        again afterwards: a token the next player already put down is then their move.
        Raises :class:`RefereeError` when no choice is due or ``color`` is not one of the
        opening's colours.
        """
        if isinstance(color, bool) or not isinstance(color, int):
            raise RefereeError(f"a colour is an index 0, 1, ..., not {color!r}")
        move = self._rules.choice(color)
        if move is None:
            raise RefereeError(f"there is no colour choice on the {self._rules.board} board")
        try:
            self._game.push(move)
        except IllegalMoveError as exc:
            raise RefereeError(str(exc)) from exc
        out = [self._move_event(move, None), *self._outcome_events(None)]
        return out + self._rejudge()

    def roll(self, face: str | None = None) -> list[Event]:
        """Roll the game's die: ``face`` as a physical die showed it (``Y``, ``GR``), or the
        game's seeded virtual die without it. The board is judged again afterwards (a ring
        already put down is then the move the roll allows). Raises :class:`RefereeError`
        when the game has no die, no roll is due, or the die has no such face."""
        die = getattr(self._game, "die", None)
        if not callable(die) or die() is None:
            raise RefereeError("no roll is due")
        try:
            move = self._game.roll(face)  # type: ignore[attr-defined]
        except RulesError as exc:
            raise RefereeError(str(exc)) from exc
        out = [self._move_event(move, None), *self._outcome_events(None)]
        return out + self._rejudge()

    def undo(self) -> list[Event]:
        """Take back the last move. If the camera still sees its token, that reading is
        ignored until it changes (the move was a misread). Raises :class:`RefereeError`
        when no move was played."""
        if not self._game.move_stack:
            raise RefereeError("no move to undo")
        move = self._game.pop()
        last = self._last
        for point in self._rules.placed(move):
            if last is not None and point not in last.hidden and last.tokens.get(point) is not None:
                self._overrides[point] = (last.tokens[point], None)
        self._pending = None
        out = [self._event(ev.UNDO, None, **self._undo_data(move))]
        return out + self._rejudge()

    def _undo_data(self, move: Any) -> dict[str, Any]:
        return self._rules.undo_record(move)

    def _names(self, points: Iterable[int]) -> list[str]:
        return self._rules.names(points)

    def _check_location(self, point: object) -> None:
        """Raise :class:`RefereeError` unless ``point`` is a location index of this board."""
        if not self._rules.is_location(point):
            raise RefereeError(
                f"a {self._rules.location_word} is an index 0..{self._rules.size - 1}, "
                f"not {point!r}"
            )

    # -- internals -------------------------------------------------------------
    def _require_pending(self) -> Pending:
        if self._pending is None:
            raise RefereeError("nothing to accept: the board matches the game")
        return self._pending

    def _rejudge(self) -> list[Event]:
        if self._last is None:
            return []
        return self._judge(self._read(self._last, drop_stale=False), self._last.frame, frozenset())

    def _read(self, snapshot: Snapshot, *, drop_stale: bool) -> dict[int, int]:
        """The board as the referee takes it: camera readings, hidden points as the
        game has them, operator overrides while the camera reads the same."""
        board = self._rules.position(self._game)
        observed = {p: c for p, c in snapshot.tokens.items() if p not in snapshot.hidden}
        for point in snapshot.hidden:
            if point in board:
                observed[point] = board[point]
        for point, partner in snapshot.in_line.items():
            # A toss-up between two points in line goes the game's way: the token is where
            # the players said (or the camera read it before), not a move.
            color = observed.get(point)
            if color is not None and point not in board and board.get(partner) == color:
                del observed[point]
                observed[partner] = color
        for point, (reading, value) in list(self._overrides.items()):
            if point in snapshot.hidden:
                continue
            if self._override_lapsed(snapshot.tokens.get(point), reading, value):
                if drop_stale:
                    del self._overrides[point]
                continue
            if value is None:
                observed.pop(point, None)
            else:
                observed[point] = value
        return observed

    @staticmethod
    def _override_lapsed(now: int | None, reading: int | None, value: int | None) -> bool:
        """Whether the camera's reading ``now`` ends a player's word that the point holds
        ``value`` where it read ``reading``: the board changed there. A token the camera
        comes to read as told is the same token, so the word holds should the camera lose
        it again (a faint token flickers in and out of sight). A point told empty lapses
        as soon as the camera reads it otherwise: a token placed there later is a move."""
        if now == reading:
            return False
        return value is None or now != value

    @staticmethod
    def _visible_tokens(snapshot: Snapshot) -> dict[int, int]:
        return {p: c for p, c in snapshot.tokens.items() if p not in snapshot.hidden}

    def _judge(
        self, observed: dict[int, int], frame: int | None, newly_hidden: frozenset[int]
    ) -> list[Event]:
        out: list[Event] = []
        judgement = self._read_change(observed)
        while judgement.moves:
            moves = judgement.moves
            question = self._in_line_question(self._last, observed, judgement)
            if question is not None:
                index, pending = question
                if index == 0:
                    if self._pending is not None and self._pending.observed == observed:
                        return out  # asked already
                    return out + self._raise(
                        pending, points=self._names(pending.points), in_line=True
                    )
                moves = moves[:index]  # the moves before it first
            played = self._play(moves, frame)
            if not played:
                break
            out += played
            judgement = self._read_change(observed)
        if judgement.is_unchanged:
            if self._is_still_occluded():
                return out
            if self._pending is not None:
                pending, self._pending = self._pending, None
                out.insert(0, self._event(ev.RESTORED, frame, points=self._names(pending.points)))
            elif not out and newly_hidden:
                out += self._ask_hidden(observed, frame, judgement, newly_hidden)
            return out
        if self._game.is_over() and self._only_removals(observed, judgement):
            # Clearing the board after the end is no offence; an empty board starts a new game.
            self._pending = None
            return out
        if self._pending is not None and self._pending.observed == observed:
            return out  # the same wrong board again: one alert is enough
        hidden_move = self._hidden_move(observed, frame, judgement)
        if hidden_move is not None:
            return out + self._raise(hidden_move, points=self._names(hidden_move.points))
        reasons = list(judgement.reasons) or ["the board changed in a way no move explains"]
        illegal = Pending(ev.ILLEGAL, frame, dict(observed), judgement)
        return out + self._raise(
            illegal,
            reasons=reasons,
            points=self._names(judgement.changed),
            take_back=judgement.take_back,
        )

    def _reread(
        self, observed: Mapping[int, int], frame: int | None, newly_hidden: frozenset[int]
    ) -> list[Event]:
        """The camera now reads a token of the game on a point in front of where it read it.

        Two points in line with the camera show one token in nearly the same place, and
        which of them holds it can be a close call that the tokens placed around it later
        decide the other way. When a token the game has goes out of view just as a token of
        its colour appears, out of that colour's turn, and that is the only such pair, the
        move is taken to have gone to the new point: the history is rewritten (``accepted``
        with ``moved``). That explains the board with no move at all, where reading it as a
        new token needs a move out of turn or one to a hidden point, and the game would
        count one token twice."""
        if not newly_hidden:
            return []
        board = self.position()
        turn = self._rules.turn_color(self._game)
        added = [p for p in observed if p not in board]
        pairs = [
            (source, target)
            for source in sorted(newly_hidden)
            for target in added
            if board.get(source) is not None
            and board[source] != turn
            and observed[target] == board[source]
        ]
        if len(pairs) != 1:
            return []
        source, target = pairs[0]
        out = self._relocate(
            {source: target},
            frame,
            (source, target),
            reason="the camera now reads the token on a point in line with the first",
        )
        if out is None:
            return []
        name = self._rules.name
        logger.info("the token read on %s is now read on %s", name(source), name(target))
        return out

    def _read_change(self, observed: Mapping[int, int]) -> Judgement:
        """``game.judge``, which must never raise; if it does (a rules bug), the change is
        reported as unexplained instead of stopping the game being watched."""
        try:
            return self._rules.judge(self._game, observed)
        except Exception:
            logger.exception("the rules engine failed to judge %r", observed)
            board = self._rules.position(self._game)
            changed = tuple(
                sorted(p for p in set(board) | set(observed) if board.get(p) != observed.get(p))
            )
            return Judgement(
                reasons=("the rules engine could not judge this change",), changed=changed
            )

    def _is_still_occluded(self) -> bool:
        """A case-1 hidden-move question stands while the tokens it lost sight of stay hidden."""
        pending, last = self._pending, self._last
        return (
            pending is not None
            and pending.kind == ev.CONFIRM_HIDDEN
            and bool(pending.occluded)
            and last is not None
            and bool(pending.occluded & last.hidden)
        )

    def _only_removals(self, observed: Mapping[int, int], judgement: Judgement) -> bool:
        board = self._rules.position(self._game)
        return all(p in board and p not in observed for p in judgement.changed)

    def _hidden_candidates(self, observed: Mapping[int, int], color: int) -> tuple[int, ...]:
        """Hidden empty points where a token of ``color`` makes the observed board legal."""
        last = self._last
        if last is None:
            return ()
        candidates = []
        for point in sorted(last.hidden):
            if point in observed:
                continue
            trial = self._read_change({**observed, point: color})
            if trial.is_legal and trial.moves:
                candidates.append(point)
        return tuple(candidates)

    def _in_line_question(
        self, snapshot: Snapshot | None, observed: dict[int, int], judgement: Judgement
    ) -> tuple[int, Pending] | None:
        """The first of the ``judgement``'s moves that put a token on a point the camera could
        not tell from an empty point in line with it (``snapshot.in_line``), where the same
        token there is as legal a move, with its index: the players are asked which of the
        two it went to (``confirm_hidden``), since either reading is the sensor noise's call
        and the wrong one made the game count a token where there is none."""
        if snapshot is None or not snapshot.in_line or judgement.take_back:
            return None
        board = self._rules.position(self._game)
        for index, move in enumerate(judgement.moves):
            for point in self._rules.placed(move):
                partner = snapshot.in_line.get(point)
                if partner is None or partner in observed or partner in board:
                    continue
                color = observed[point]
                there = {p: c for p, c in observed.items() if p != point}
                trial = self._read_change({**there, partner: color})
                if not (trial.is_legal and trial.moves):
                    continue
                pending = Pending(
                    ev.CONFIRM_HIDDEN,
                    snapshot.frame,
                    dict(observed),
                    judgement,
                    color,
                    (point, partner),
                    in_line=True,
                )
                return index, pending
        return None

    def _hidden_move(
        self, observed: dict[int, int], frame: int | None, judgement: Judgement
    ) -> Pending | None:
        """Case 2: the change is legal only if the player to move used a hidden point."""
        color = self._rules.turn_color(self._game)
        if color is None or self._game.is_over() or judgement.take_back:
            return None
        candidates = self._hidden_candidates(observed, color)
        if not candidates:
            return None
        return Pending(ev.CONFIRM_HIDDEN, frame, dict(observed), judgement, color, candidates)

    def _ask_hidden(
        self,
        observed: dict[int, int],
        frame: int | None,
        judgement: Judgement,
        newly_hidden: frozenset[int],
    ) -> list[Event]:
        """Case 1: a token went out of view with nothing new in view."""
        color = self._rules.turn_color(self._game)
        if color is None or self._game.is_over():
            return []
        candidates = self._hidden_candidates(observed, color)
        if not candidates:
            return []
        pending = Pending(
            ev.CONFIRM_HIDDEN, frame, dict(observed), judgement, color, candidates, newly_hidden
        )
        return self._raise(pending, points=[], occluded=self._names(newly_hidden))

    def _raise(self, pending: Pending, **data: Any) -> list[Event]:
        """Make ``pending`` the open alert and return its event."""
        if pending.kind == ev.CONFIRM_HIDDEN:
            data = {
                "color": pending.color,
                "candidates": self._names(pending.candidates),
                **data,
            }
        alert = self._event(pending.kind, pending.frame, **data)
        self._pending = dataclasses.replace(pending, alert=alert)
        return [alert]

    def _play(self, moves: Iterable[Any], frame: int | None, **marks: bool) -> list[Event]:
        """Push moves in order and report them (``marks``: see :meth:`_move_event`); stops at
        the end of the game."""
        out: list[Event] = []
        for move in moves:
            mark = self._rules.score_mark(self._game)
            try:
                self._game.push(move)
            except IllegalMoveError as exc:  # the judge and push disagree: report, never crash
                logger.error("judge proposed %r but the game refused it: %s", move, exc)
                break
            out.append(self._move_event(move, frame, **marks))
            scored = self._rules.scored(self._game, mark)
            if scored is not None:
                out.append(self._event(ev.GRYB, frame, **scored))
            outcome = self._outcome_events(frame)
            if outcome:
                out += outcome
                break
        return out

    def _move_event(self, move: Any, frame: int | None, **marks: bool) -> Event:
        """The ``move`` record of a played move: ``kind`` for an opening move (a colour
        choice has no point); the ``marks`` that are set: ``hidden`` for a confirmed move to
        a hidden point, ``in_line`` for one the players placed between two points in line."""
        data = self._rules.move_record(move)
        data.update({mark: True for mark, on in marks.items() if on})
        return self._event(ev.MOVE, frame, **data)

    def _outcome_events(self, frame: int | None) -> list[Event]:
        """``win`` or ``draw`` when the game is over, else nothing."""
        outcome = self._game.outcome()
        if outcome is None:
            return []
        if outcome.winner is None:
            return [self._event(ev.DRAW, frame, reason=outcome.reason)]
        return [self._event(ev.WIN, frame, color=outcome.winner, **self._rules.win_record(outcome))]

    def _restart(self, new_game: Callable[[], Game], frame: int) -> list[Event]:
        self._install(new_game(), new_game)
        return [self._event(ev.GAME_STARTED, frame, reason="board cleared after the game ended")]

    @staticmethod
    def _event(event_type: str, frame: int | None, **data: Any) -> Event:
        return Event(event_type, data, frame=frame)
