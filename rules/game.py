"""The engine shape every game shares: push/pop/redo, outcome and judging an observed board.

Like python-chess's ``Board``: a game keeps a ``move_stack`` and a saved state
per move so that ``pop()`` restores the position exactly. Variants (Time
Vectors, the GRYB games, TSR 4D, Timeline) subclass :class:`Game` and
implement the abstract hooks; vision, the referee and the dashboard only use
this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from rules.errors import IllegalMoveError

MoveT = TypeVar("MoveT", bound=Hashable)


@dataclass(frozen=True)
class Outcome:
    """How a game ended. ``winner`` is a colour (or team) index, ``None`` for a draw.

    ``lines`` are the winning constructs (vectors, GRYBs, ...) as tuples of
    locations in line order; ``reason`` is a short sentence for players.
    """

    winner: int | None
    reason: str
    lines: tuple[tuple[Any, ...], ...] = ()


@dataclass(frozen=True)
class Judgement(Generic[MoveT]):
    """The rules' reading of an observed board against the last accepted one.

    ``moves`` are the moves the change represents, in play order (empty when the
    board is unchanged or nothing in it is a legal move). ``reasons`` say, in
    words a player understands, why the change (or the part of it after
    ``moves``) is illegal: a burst of tokens can hold a winning move followed by
    tokens placed after the end, giving both moves and reasons.
    ``changed`` lists the locations that differ from the accepted position.
    ``take_back`` is true when the change is exactly the removal of the last
    move, which an operator may accept as a take-back.
    """

    moves: tuple[MoveT, ...] = ()
    reasons: tuple[str, ...] = ()
    changed: tuple[Any, ...] = ()
    take_back: bool = False

    @property
    def is_legal(self) -> bool:
        return not self.reasons

    @property
    def is_unchanged(self) -> bool:
        return not self.changed


@dataclass
class _Saved(Generic[MoveT]):
    move: MoveT
    state: Any


class Game(ABC, Generic[MoveT]):
    """Base of every rules engine: a position, its move history and undo/redo.

    Subclasses implement :meth:`_save_state`, :meth:`_restore_state`,
    :meth:`_check`, :meth:`_apply`, :meth:`outcome` and :meth:`judge`.
    """

    board_name: ClassVar[str] = ""

    def __init__(self) -> None:
        self._stack: list[_Saved[MoveT]] = []
        self._redo: list[MoveT] = []

    # -- history ---------------------------------------------------------
    @property
    def move_stack(self) -> list[MoveT]:
        """Moves played so far, oldest first."""
        return [saved.move for saved in self._stack]

    def push(self, move: MoveT) -> None:
        """Play ``move``; raises :class:`IllegalMoveError` (nothing changes) if it is illegal."""
        reason = self._check(move)
        if reason is not None:
            raise IllegalMoveError(reason)
        self._stack.append(_Saved(move, self._save_state()))
        self._apply(move)
        self._redo.clear()

    def pop(self) -> MoveT:
        """Take back the last move and return it; raises ``IndexError`` when there is none."""
        if not self._stack:
            raise IndexError("no move to take back")
        saved = self._stack.pop()
        self._restore_state(saved.state)
        self._redo.append(saved.move)
        return saved.move

    def redo(self) -> MoveT:
        """Replay the last taken-back move; raises ``IndexError`` when there is none."""
        if not self._redo:
            raise IndexError("no move to redo")
        move = self._redo.pop()
        redo_rest = list(self._redo)
        self.push(move)
        self._redo = redo_rest
        return move

    def can_redo(self) -> bool:
        return bool(self._redo)

    def is_legal(self, move: MoveT) -> bool:
        return self._check(move) is None

    def push_all(self, moves: Iterable[MoveT]) -> None:
        """Play several moves in order (stops at the first illegal one, raising)."""
        for move in moves:
            self.push(move)

    def is_over(self) -> bool:
        return self.outcome() is not None

    # -- hooks -------------------------------------------------------------
    @abstractmethod
    def _save_state(self) -> Any:
        """Everything :meth:`_apply` may change, to restore on :meth:`pop`."""

    @abstractmethod
    def _restore_state(self, state: Any) -> None:
        """Restore what :meth:`_save_state` returned."""

    @abstractmethod
    def _check(self, move: MoveT) -> str | None:
        """``None`` if ``move`` is legal now, else the reason in words a player understands."""

    @abstractmethod
    def _apply(self, move: MoveT) -> None:
        """Apply a move already known to be legal."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game has ended, else ``None``."""

    @abstractmethod
    def judge(self, observed: Mapping[Any, int]) -> Judgement[MoveT]:
        """Read an observed board (location -> colour index) against the current position.

        Never raises for an impossible board: that is a judgement with reasons.
        """
