"""Invariants of random GRYB games: every ring is accounted for, the board stays on the board."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.gryb.games import GAMES, GrybGame
from rules.gryb.nodes import NODE_INDEX


def per_player(game: GrybGame, player: int) -> int:
    """Rings of ``player`` on the board (a ring passing over another counted once more)."""
    s = game.state
    on_board = sum(1 for owner in s.board.values() if owner == player)
    return on_board + (1 if s.transit is not None and s.to_move == player else 0)


def accounted(game: GrybGame) -> bool:
    """Where every ring of the game is: board, hand, capture piles (as each game's rules say)."""
    s = game.state
    pieces = getattr(game.options, "pieces_per_player", None)
    name = game.name
    if name == "squirrel-race":
        nuts = sum(1 for n in s.board if len(n) == 4) + sum(map(sum, s.piles))
        in_hand_nuts = sum(s.in_hand) if s.phase == 1 else 0
        return nuts + in_hand_nuts == game.options.nuts
    if name == "borg":
        return len(s.board) + sum(s.in_hand) == 2 * pieces
    if name == "square-deal":
        return all(
            per_player(game, p) + s.in_hand[p] + s.piles[0][p] + s.piles[1][p] == pieces for p in (0, 1)
        )
    if name == "blobs":
        return all(per_player(game, p) + s.in_hand[p] + s.piles[1 - p][p] == pieces for p in (0, 1))
    if name == "25-mens-gryb":
        return all(per_player(game, p) + s.in_hand[p] + s.scores[1 - p] == pieces for p in (0, 1))
    # EZ GRYB and Interrupt (captured rings go home), Drangles, Fourth Level, Connection
    return all(per_player(game, p) + s.in_hand[p] == pieces for p in (0, 1))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 100_000), st.data())
def test_rings_are_never_created_or_lost(name, seed, data):
    game = GAMES[name](seed=seed)
    for _ in range(data.draw(st.integers(1, 150), label="moves")):
        if game.is_over():
            break
        if game.die():
            game.roll()
        else:
            game.push(data.draw(st.sampled_from(game.legal_moves()), label="move"))
        assert accounted(game), game.status()
        assert all(node in NODE_INDEX and colour in (0, 1) for node, colour in game.position().items())
        assert game.is_over() or game.die() or game.legal_moves()  # a player without moves passes


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_listed_move_is_legal(name):
    game = GAMES[name](seed=17)
    for _ in range(40):
        if game.is_over():
            break
        for move in game.legal_moves()[:30]:
            assert game.is_legal(move), move
        if game.die():
            game.roll()
        else:
            game.push(game.legal_moves()[len(game.move_stack) % len(game.legal_moves())])
