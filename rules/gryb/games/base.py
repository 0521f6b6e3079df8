"""The engine every GRYB game shares: state, dice, turns, options, persistence and judging.

A game subclasses :class:`GrybGame` and supplies its options, its dice (if
any), the moves legal in the current state (:meth:`GrybGame._legal`), how a
move changes the state (:meth:`GrybGame._play`) and when the game ends.
Everything else is here once: rolling, passing a turn nobody can use,
``push``/``pop`` (via :class:`rules.game.Game`), ``to_dict``/``from_dict``
and :meth:`GrybGame.judge`, which explains an observed board.

Turn passing: when the player to move has no legal move (after the roll, if
the game rolls), the turn passes by itself; no "pass" move is needed, since a
camera cannot see one. When neither player can ever move again the game is a
draw. A die face that cannot be used where the manual says "roll again" is
voided and the same player rolls again.
"""

from __future__ import annotations

import dataclasses
import random
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from rules.errors import NotationError, RulesError
from rules.game import Game, Judgement, Outcome
from rules.gryb.dice import DIE_FACES, Dice, parse_face
from rules.gryb.games.moves import GrybMove, move_order, player_name
from rules.gryb.nodes import COLOUR_NAMES, children, focus, is_node, node_name, parse_node
from rules.gryb.scoring import RING_COLOURS, Gryb, Position, gryb_at
from rules.gryb.shapes import block_moves, components, hops, line_changes, shape_changes
from rules.gryb.traversal import NEIGHBOURS, REACH


class GameOptionError(RulesError):
    """An option the game does not have, or a value it cannot take."""


class GameRecordError(RulesError):
    """A saved game (``to_dict`` output) that cannot be read back."""


@dataclass(frozen=True)
class NoOptions:
    """A game without options."""


@dataclass
class GrybState:
    """Everything a move may change; copied whole for undo."""

    board: dict[str, int]
    to_move: int = 0
    phase: int = 1
    roll: str | None = None
    rolls_drawn: int = 0
    in_hand: list[int] = field(default_factory=lambda: [0, 0])
    scores: list[int] = field(default_factory=lambda: [0, 0])
    piles: list[list[int]] = field(default_factory=lambda: [[0, 0], [0, 0]])
    markers: dict[int, str] = field(default_factory=dict)
    steps_left: int = 1
    transit: str | None = None
    to_remove: int = 0
    grybs: list[Gryb] = field(default_factory=list)
    result: Outcome | None = None

    def copy(self) -> GrybState:
        return dataclasses.replace(
            self,
            board=dict(self.board),
            in_hand=list(self.in_hand),
            scores=list(self.scores),
            piles=[list(p) for p in self.piles],
            markers=dict(self.markers),
            grybs=list(self.grybs),
        )

    def own(self, player: int) -> list[str]:
        return [node for node, owner in self.board.items() if owner == player]


class GrybGame(Game[GrybMove]):
    """Base of the eleven games of the GRYB manual."""

    board_name: ClassVar[str] = "gryb"
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    Options: ClassVar[type] = NoOptions
    can_finish: ClassVar[bool] = False
    """Whether players may agree to end the game and let the score decide."""

    def __init__(self, options: Mapping[str, Any] | Any = None, *, seed: int | str | None = None) -> None:
        super().__init__()
        self.options = self._read_options(options)
        self.seed: int | str = random.randrange(2**32) if seed is None else seed
        self.state = GrybState(board={})
        self._setup()

    # -- options -----------------------------------------------------------
    @classmethod
    def _read_options(cls, options: Mapping[str, Any] | Any) -> Any:
        if options is None:
            return cls.Options()
        if isinstance(options, cls.Options):
            return options
        if not isinstance(options, Mapping):
            raise GameOptionError(f"options of {cls.title} must be a mapping, not {options!r}")
        fields = {f.name: f for f in dataclasses.fields(cls.Options)}
        values = {}
        for key, value in options.items():
            name = str(key).replace("-", "_")
            if name not in fields:
                known = ", ".join(f.replace("_", "-") for f in fields) or "none"
                raise GameOptionError(f"{cls.title} has no option {key!r} (options: {known})")
            default = fields[name].default
            if type(value) is not type(default):
                raise GameOptionError(
                    f"option {key!r} of {cls.title} must be a {type(default).__name__}, not {value!r}"
                )
            values[name] = value
        try:
            return cls.Options(**values)
        except ValueError as error:
            raise GameOptionError(f"{cls.title}: {error}") from None

    # -- hooks for each game ------------------------------------------------
    def _setup(self) -> None:
        """Fill in the starting state (pieces in hand, phase, steps per turn)."""

    def _dice(self) -> str | None:
        """The die this phase rolls before each move of the player to move, or ``None``."""
        return None

    def _die(self) -> str | None:
        """The die to roll before moving now: the phase's die unless already rolled."""
        return self._dice() if self.state.roll is None else None

    def _roll_is_void(self, face: str) -> bool:
        """True when the manual says to roll again on this face (an occupied node)."""
        return False

    @abstractmethod
    def _legal(self) -> list[GrybMove]:
        """Moves (other than roll, resign, finish) legal for the player to move now."""

    def _is_legal(self, move: GrybMove) -> bool:
        """Whether a place/move/remove is legal now (games with huge move sets override)."""
        return move in self._legal()

    def _has_moves(self) -> bool:
        """Whether the player to move has any move now."""
        return bool(self._legal())

    def _candidates(self, target: Mapping[str, int]) -> list[GrybMove]:
        """Legal moves that could be part of reaching ``target`` (rings land where it shows them)."""
        board = self.state.board
        return [m for m in self._legal() if _consistent(m, board, target)]

    @abstractmethod
    def _play(self, move: GrybMove) -> None:
        """Change the state for a legal place/move/remove; the base then ends the turn if due."""

    def _rule(self, move: GrybMove) -> str:
        """The rule a player broke with ``move``, in words, once the generic checks pass."""
        return f"{move} is not a legal move now"

    def _score_outcome(self) -> Outcome:
        """Outcome by score when the game ends by agreement or exhaustion."""
        s = self.state.scores
        if s[0] == s[1]:
            return Outcome(None, f"drawn at {s[0]} points each")
        winner = 0 if s[0] > s[1] else 1
        return Outcome(winner, f"{player_name(winner)} wins {s[winner]} to {s[1 - winner]}")

    def _judge_depth(self) -> int:
        """How many moves one observed change may hold (two for a whole Drangles turn)."""
        return 1

    # -- public state ----------------------------------------------------------
    @property
    def to_move(self) -> int:
        return self.state.to_move

    @property
    def scores(self) -> tuple[int, int]:
        return (self.state.scores[0], self.state.scores[1])

    def position(self) -> Position:
        """What the board should show: node -> ring colour (a ring passing over another on top)."""
        return _visible(self.state)

    def die(self) -> str | None:
        """The die to roll now (``colour``, ``node`` or ``leaf``), or ``None`` if no roll is due."""
        return None if self.state.result else self._die()

    def legal_moves(self) -> list[GrybMove]:
        """Every legal move now: the faces of the die if a roll is due, else the game's moves."""
        if self.state.result:
            return []
        die = self._die()
        if die is not None:
            return [GrybMove.roll(self.to_move, face) for face in DIE_FACES[die]]
        return self._legal()

    def outcome(self) -> Outcome | None:
        return self.state.result

    def roll(self, face: str | None = None) -> GrybMove:
        """Play a roll of the due die and return it.

        ``face`` is what a physical die showed (a colour letter or node name,
        as typed in or read from a rolls file); without it the virtual die
        rolls from the game's seed, so a seed replays the same rolls. Raises
        :class:`rules.errors.IllegalMoveError` when no roll is due and
        :class:`rules.gryb.dice.UnknownDieError` for a face the die does not have.
        """
        die = self.die()
        if die is None:
            value = ""
        elif face is not None:
            value = parse_face(die, face)
        else:
            value = Dice(random.Random(f"{self.seed}:{self.state.rolls_drawn}")).roll(die).value
        move = GrybMove.roll(self.to_move, value)
        self.push(move)
        return move

    def status(self) -> dict[str, Any]:
        """JSON-ready summary for the dashboard."""
        s = self.state
        return {
            "game": self.name,
            "title": self.title,
            "to_move": s.to_move,
            "phase": s.phase,
            "die": self.die(),
            "roll": None if s.roll is None else node_name(s.roll),
            "scores": list(s.scores),
            "in_hand": list(s.in_hand),
            "piles": [list(p) for p in s.piles],
            "grybs": [g.to_dict() for g in s.grybs],
            "markers": {str(p): node_name(n) for p, n in sorted(s.markers.items())},
            "outcome": None
            if s.result is None
            else {"winner": s.result.winner, "reason": s.result.reason},
        }

    # -- rules.game.Game hooks ---------------------------------------------------
    def _save_state(self) -> GrybState:
        return self.state.copy()

    def _restore_state(self, state: GrybState) -> None:
        self.state = state.copy()

    def _check(self, move: GrybMove) -> str | None:
        s = self.state
        if s.result is not None:
            return f"the game is over: {s.result.reason}"
        if move.player != s.to_move:
            return f"it is {player_name(s.to_move)}'s turn, not {player_name(move.player)}'s"
        if move.kind == "resign":
            return None
        if move.kind == "finish":
            return None if self.can_finish else f"{self.title} does not end by agreement"
        die = self._die()
        if move.kind == "roll":
            if die is None:
                return "no die is to be rolled now"
            if move.value not in DIE_FACES[die]:
                return f"{node_name(move.value or '')} is not a face of the {die} die"
            return None
        if die is not None:
            return f"roll the {die} die first"
        if self._is_legal(move):
            return None
        return self._explain(move)

    def _apply(self, move: GrybMove) -> None:
        s = self.state
        if move.kind == "resign":
            s.result = Outcome(1 - move.player, f"{player_name(move.player)} resigned")
            return
        if move.kind == "finish":
            s.result = self._score_outcome()
            return
        if move.kind == "roll":
            s.rolls_drawn += 1
            s.roll = None if self._roll_is_void(move.value or "") else move.value
            if s.roll is not None and not self._has_moves():
                self._pass_turn()
            return
        self._play(move)
        # A turn ends after its last step, or early when no further step is possible.
        if s.result is None and (s.steps_left <= 0 or not self._has_moves()):
            self._end_turn()

    # -- turn helpers for games ---------------------------------------------------
    def _steps_per_turn(self) -> int:
        return 1

    def _end_turn(self) -> None:
        """Hand the turn to the other player; pass on while the player to move cannot move."""
        s = self.state
        s.to_move = 1 - s.to_move
        s.roll = None
        s.steps_left = self._steps_per_turn()
        s.transit = None
        self._settle()

    def _pass_turn(self) -> None:
        s = self.state
        if self._nobody_can_move():
            s.result = Outcome(None, "drawn: neither player can move")
            return
        self._end_turn()

    def _settle(self) -> None:
        """Pass the turn of a player without a move (games without a roll to wait for)."""
        s = self.state
        if s.result is None and self._die() is None and not self._has_moves():
            if not self._can_move(1 - s.to_move):
                s.result = Outcome(None, "drawn: neither player can move")
            else:
                s.to_move = 1 - s.to_move
                s.steps_left = self._steps_per_turn()

    def _can_move(self, player: int) -> bool:
        """Whether ``player`` would have a move on some face of the die (or without one)."""
        s = self.state
        saved = (s.to_move, s.roll)
        try:
            s.to_move = player
            s.roll = None
            die = self._dice()
            faces: Iterable[str | None] = DIE_FACES[die] if die else (None,)
            for face in faces:
                s.roll = face
                if face is not None and self._roll_is_void(face):
                    continue
                if self._has_moves():
                    return True
            return False
        finally:
            s.to_move, s.roll = saved

    def _nobody_can_move(self) -> bool:
        return not self._can_move(0) and not self._can_move(1)

    def _gryb_made(self, nodes: Iterable[str], player: int) -> list[Gryb]:
        """GRYBs of ``player`` on the quadrangles of ``nodes`` (just landed on)."""
        quadrangles = {n[:-1] for n in nodes if n}
        found = (gryb_at(self.state.board, q) for q in sorted(quadrangles))
        return [g for g in found if g is not None and g.colour == player]

    def _win_by_gryb(self, player: int, nodes: Iterable[str], *, level: int | None = None) -> bool:
        """End the game if ``player`` just made a GRYB (on ``level`` only, if given); score it."""
        made = [g for g in self._gryb_made(nodes, player) if level is None or g.level == level]
        if not made:
            return False
        s = self.state
        s.grybs.extend(made)
        s.scores[player] += sum(g.points for g in made)
        names = ", ".join(node_name(g.quadrangle) for g in made)
        s.result = Outcome(
            player,
            f"{player_name(player)} got a GRYB under {names} ({sum(g.points for g in made)} points)",
            tuple(g.nodes for g in made),
        )
        return True

    def _roll_colour(self) -> str | None:
        """The colour the four-colour die shows now, if it was rolled for this move."""
        return self.state.roll if self._dice() == "colour" else None

    # -- move generators shared by several games ---------------------------------------
    def _steps(self, player: int, kinds: tuple[str, ...], *, colour: str | None = None,
               sources: Iterable[str] | None = None) -> Iterator[GrybMove]:
        """Moves of ``player``'s rings (all, or ``sources``) by ``kinds`` to free nodes (of ``colour``)."""
        board = self.state.board
        for source in self.state.own(player) if sources is None else sources:
            for kind in kinds:
                for target in REACH[kind][source]:
                    if colour is not None and focus(target) != colour:
                        continue
                    if target in board:
                        continue
                    yield GrybMove.step(player, source, target)

    def _unit_moves(self, player: int, kinds: tuple[str, ...], block_kinds: tuple[str, ...],
                    groups: Iterable[frozenset[str]]) -> set[GrybMove]:
        """Moves of single rings, lines and shapes (groups of 2 or 3) onto empty nodes.

        Lines and shapes move as a block (``block_kinds``), change, or hop.
        """
        board = self.state.board
        groups = list(groups)
        pieces = {n for group in groups for n in group}
        moves = set(self._steps(player, kinds, sources=pieces))
        for group in groups:
            if len(group) < 2:
                continue
            block = tuple(sorted(group))
            for moved in _block_moves(block, block_kinds):
                if all(t not in board or t in group for t in moved):
                    moves.add(GrybMove.block(player, block, moved))
            for source, target in _reshapes(group):
                if target not in board:
                    moves.add(GrybMove.step(player, source, target))
        return moves

    @staticmethod
    def _small_groups(nodes: Iterable[str], limit: int = 3) -> list[frozenset[str]]:
        """Every contiguous group of 1..``limit`` of ``nodes`` (lines and shapes within them)."""
        pool = set(nodes)
        found: set[frozenset[str]] = {frozenset((n,)) for n in pool}
        frontier = set(found)
        for _ in range(limit - 1):
            grown = set()
            for group in frontier:
                for node in group:
                    for neighbour in NEIGHBOURS[node] & pool:
                        if neighbour not in group:
                            grown.add(group | {neighbour})
            found |= grown
            frontier = grown
        return sorted(found, key=lambda g: (len(g), sorted(g)))

    # -- explaining an illegal move ------------------------------------------------------
    def _explain(self, move: GrybMove) -> str:
        s = self.state
        player = move.player
        if move.kind == "place":
            taken = [n for n in move.to if n in s.board]
            if taken:
                return f"{node_name(taken[0])} is already taken"
            if s.in_hand[player] < len(move.to):
                return f"{player_name(player)} has no rings left to place"
        elif move.kind == "move":
            if s.transit is not None and move.frm != (s.transit,):
                return f"the ring passing over {node_name(s.transit)} must move on first"
            missing = [n for n in move.frm if s.board.get(n) != player and n != s.transit]
            if missing:
                return f"there is no ring of {player_name(player)}'s on {node_name(missing[0])}"
        elif move.kind == "remove" and s.to_remove == 0:
            return "no rings are to be removed now"
        colour = self._roll_colour()
        targets = [n for n in move.to if n]
        if colour is not None and targets and move.kind != "remove":
            wrong = [n for n in targets if focus(n) != colour]
            if wrong:
                return (
                    f"the die shows {COLOUR_NAMES[colour]}, but {node_name(wrong[0])} "
                    f"is {COLOUR_NAMES[focus(wrong[0]) or 'G']}"
                )
        return self._rule(move)

    # -- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild the game: name, options, seed and moves."""
        return {
            "game": self.name,
            "options": {k.replace("_", "-"): v for k, v in dataclasses.asdict(self.options).items()},
            "seed": self.seed,
            "moves": [m.to_dict() for m in self.move_stack],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GrybGame:
        """Rebuild a game saved by :meth:`to_dict` by replaying its moves.

        Called on a subclass it rebuilds that game; raises :class:`GameRecordError`.
        """
        from rules.gryb.games import GAMES

        if not isinstance(data, Mapping):
            raise GameRecordError("a saved game is a JSON object")
        game_class = GAMES.get(str(data.get("game")))
        if game_class is None or (cls is not GrybGame and game_class is not cls):
            raise GameRecordError(f"{data.get('game')!r} is not a saved {cls.title or 'GRYB game'}")
        try:
            game = game_class(data.get("options") or {}, seed=data.get("seed"))
            game.push_all(GrybMove.from_dict(m) for m in data.get("moves", []))
        except RulesError as error:
            raise GameRecordError(f"saved {game_class.title} cannot be replayed: {error}") from None
        return game

    # -- judging an observed board ----------------------------------------------------------
    def judge(self, observed: Mapping[Any, int]) -> Judgement[GrybMove]:
        """Read an observed board (node name or index -> ring colour) against the position.

        Finds the move(s) that turn the accepted position into the observed one
        (inferring the die roll when the players rolled a physical die),
        else says what is wrong. Never raises.
        """
        target, bad = _read_observed(observed)
        if bad:
            return Judgement(reasons=tuple(bad))
        current = self.position()
        changed = tuple(sorted(n for n in set(target) | set(current) if target.get(n) != current.get(n)))
        if not changed:
            return Judgement()
        take_back = self._is_take_back(target)
        if self.state.result is None:
            # Shortest explanation first: one step of a Drangles turn is not read as two.
            for depth in range(1, self._judge_depth() + 1):
                found = self._search(target, depth)
                if found is not None:
                    return Judgement(moves=tuple(found), changed=changed, take_back=take_back)
        if take_back:
            last = next(m for m in reversed(self.move_stack) if m.kind != "roll")
            return Judgement(reasons=(f"the last move ({last}) was taken back",), changed=changed,
                             take_back=True)
        if self.state.result is not None:
            return Judgement(reasons=(f"the game is over: {self.state.result.reason}",), changed=changed)
        return Judgement(reasons=tuple(self._diagnose(target)), changed=changed)

    def _is_take_back(self, target: Mapping[str, int]) -> bool:
        for saved in reversed(self._stack):
            if saved.move.kind != "roll":
                return _visible(saved.state) == target
        return False

    def _differences(self, target: Mapping[str, int]) -> int:
        board = self.position()
        return sum(1 for n in set(target) | set(board) if target.get(n) != board.get(n))

    def _search(self, target: Mapping[str, int], depth: int) -> list[GrybMove] | None:
        """Moves (rolls included) that lead from the position to ``target``, depth first."""
        s = self.state
        if self.position() == target:
            return []
        if depth == 0 or s.result is not None:
            return None
        die = self._die()
        if die is not None:
            for face in self._plausible_faces(die, target):
                saved = s.copy()
                move = GrybMove.roll(s.to_move, face)
                self._apply(move)
                usable = self.state.roll is not None and self.state.to_move == saved.to_move
                rest = self._search(target, depth) if usable else None
                self.state = saved
                s = saved
                if rest is not None:
                    return [move, *rest]
            return None
        before = self._differences(target)
        for move in sorted(self._candidates(target), key=move_order):
            saved = s.copy()
            self._apply(move)
            rest = None
            if self._differences(target) <= before:
                rest = self._search(target, depth - 1)
            self.state = saved
            s = saved
            if rest is not None:
                return [move, *rest]
        return None

    def _plausible_faces(self, die: str, target: Mapping[str, int]) -> list[str]:
        if die == "colour":
            return list(DIE_FACES[die])
        board = self.position()
        changed = {n for n in set(board) | set(target) if board.get(n) != target.get(n)}
        # a ring placed where it completes a quadrangle that is then taken away leaves its
        # node empty: the rolled node may be any corner of a changed quadrangle
        corners = {c for n in changed if n for c in children(n[:-1])}
        return sorted((changed | corners) & set(DIE_FACES[die]), key=lambda n: (len(n), n))

    def _diagnose(self, target: Mapping[str, int]) -> list[str]:
        """Reasons a player understands for a change that no legal move explains."""
        board = self.position()
        player = self.state.to_move
        gone = [n for n in board if board[n] == player and target.get(n) != player]
        came = [n for n in target if target[n] == player and board.get(n) != player]
        others = [n for n in target if target[n] != player and board.get(n) != target[n]]
        if others and not came:
            return [_describe_change(n, board.get(n), target.get(n)) for n in others] + [
                f"it is {player_name(player)}'s turn"
            ]
        taken_off = [n for n in board if board[n] != player and n not in target]
        candidate = None
        if came and not gone:
            candidate = GrybMove("place", player, to=tuple(came))
        elif came and len(came) == len(gone):
            candidate = GrybMove("move", player, tuple(sorted(gone)), tuple(sorted(came)))
        elif taken_off and not came and not gone:
            candidate = GrybMove("remove", player, to=tuple(taken_off))
        if candidate is None:
            changes = [
                _describe_change(n, board.get(n), target.get(n))
                for n in sorted(set(board) | set(target), key=lambda n: (len(n), n))
                if board.get(n) != target.get(n)
            ]
            return changes if len(changes) == 1 else ["several changes at once: " + "; ".join(changes)]
        reason = self._reason_with_inferred_roll(candidate)
        if reason is not None:
            reasons = [reason]
            if len(came) > 1:
                verb = "placed" if candidate.kind == "place" else "moved"
                names = ", ".join(node_name(n) for n in sorted(came))
                reasons.insert(0, f"{len(came)} rings {verb} at once ({names})")
            if candidate.kind != "remove":
                reasons += [_describe_change(n, board[n], None) for n in taken_off]
            return reasons
        return [f"{candidate} is legal, but the rest of the board does not match it: " + "; ".join(
            self._expected_after(candidate, target)
        )]

    def _reason_with_inferred_roll(self, move: GrybMove) -> str | None:
        die = self._die()
        if die is None or move.player != self.to_move:
            return self._check(move)
        face = focus(move.to[0]) if die == "colour" else move.to[0]
        if face not in DIE_FACES[die]:
            return self._check(move)
        saved = self.state.copy()
        self._apply(GrybMove.roll(self.to_move, face or ""))
        reason = self._check(move) if self.state.roll is not None else (
            f"{node_name(face or '')} is taken: roll again")
        self.state = saved
        return reason

    def _expected_after(self, move: GrybMove, target: Mapping[str, int]) -> list[str]:
        saved = self.state.copy()
        die = self._die()
        if die is not None:
            face = focus(move.to[0]) if die == "colour" else move.to[0]
            self._apply(GrybMove.roll(self.to_move, face or ""))
        self._apply(move)
        expected = self.position()
        self.state = saved
        return [
            f"{node_name(n)} should {_state_words(expected.get(n))}"
            for n in sorted(set(expected) | set(target))
            if expected.get(n) != target.get(n)
        ]


@lru_cache(maxsize=4096)
def _block_moves(block: tuple[str, ...], kinds: tuple[str, ...]) -> list[tuple[str, ...]]:
    return block_moves(block, kinds)


@lru_cache(maxsize=4096)
def _reshapes(group: frozenset[str]) -> list[tuple[str, str]]:
    """(source, target) of every change and hop of a line or shape."""
    reshaped = line_changes(group) if len(group) == 2 else shape_changes(group) | hops(group)
    return sorted((next(iter(group - new)), next(iter(new - group))) for new in reshaped)


def _visible(state: GrybState) -> dict[str, int]:
    board = dict(state.board)
    if state.transit is not None:
        board[state.transit] = state.to_move
    return board


def _consistent(move: GrybMove, board: Mapping[str, int], target: Mapping[str, int]) -> bool:
    """Whether ``move`` can lead from ``board`` to ``target``: its rings land where ``target``
    shows the mover's rings and where there were none of the mover's before (a block may
    land on its own nodes)."""
    if move.kind == "remove":
        return all(n not in target for n in move.to)
    return all(
        target.get(n) == move.player and (board.get(n) != move.player or n in move.frm)
        for n in move.to
    )


def _state_words(colour: int | None) -> str:
    return "be empty" if colour is None else f"hold a ring of {player_name(colour)}"


def _describe_change(node: str, before: int | None, after: int | None) -> str:
    name = node_name(node)
    if before is None:
        return f"a ring of {player_name(after or 0)} appeared on {name}"
    if after is None:
        return f"the ring of {player_name(before)} was taken off {name}"
    return f"the ring on {name} changed from {player_name(before)} to {player_name(after)}"


def _read_observed(observed: Mapping[Any, int]) -> tuple[dict[str, int], list[str]]:
    board: dict[str, int] = {}
    bad: list[str] = []
    if not isinstance(observed, Mapping):
        return board, [f"the observed board must map nodes to ring colours, not {observed!r}"]
    for key, colour in observed.items():
        try:
            node = key if is_node(key) else parse_node(key)
        except NotationError as error:
            bad.append(str(error))
            continue
        if isinstance(colour, bool) or colour not in range(RING_COLOURS):
            bad.append(f"ring colour {colour!r} on {node_name(node)} is not 0 or 1")
            continue
        board[node] = colour
    return board, bad


def group_sizes(board: Mapping[str, int], player: int) -> dict[str, int]:
    """Size of the contiguous group each of ``player``'s rings belongs to."""
    sizes = {}
    for group in components(n for n, owner in board.items() if owner == player):
        for node in group:
            sizes[node] = len(group)
    return sizes
