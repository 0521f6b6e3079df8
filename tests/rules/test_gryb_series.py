"""Series of GRYB games: first to 21, or best total over five games."""

from __future__ import annotations

import pytest

from rules.gryb.games import Drangles
from rules.gryb.games import GrybMove as M
from rules.gryb.nodes import children
from rules.gryb.series import Series, SeriesError


def won_game(points_level: str = "GG") -> Drangles:
    """A Drangles game that player 1 wins with a GRYB beneath ``points_level``."""
    game = Drangles(seed=1)
    corners = children(points_level)
    game.state.board = {n: 0 for n in corners[:-1]}
    game.state.board[points_level] = 0
    game.push(M.step(0, points_level, corners[-1]))
    assert game.is_over()
    return game


def test_first_to_target():
    series = Series(target=5)
    series.record(won_game("GG"))  # a third-level GRYB: 4 points
    assert not series.is_over() and series.winner() is None
    series.record(won_game("R"))  # second level: 2 points
    assert series.totals == [6, 0] and series.is_over() and series.winner() == 0
    with pytest.raises(SeriesError, match="already decided"):
        series.record(won_game())


def test_best_of_games_and_records():
    series = Series(target=None, games=1)
    with pytest.raises(SeriesError, match="finished game"):
        series.record(Drangles(seed=1))
    series.record(won_game())
    assert series.is_over() and series.winner() == 0
    assert Series.from_dict(series.to_dict()) == series
    with pytest.raises(SeriesError):
        Series(target=None, games=None)
    with pytest.raises(SeriesError):
        Series(target=0)
    with pytest.raises(SeriesError, match="not a saved series"):
        Series.from_dict({"target": 21})
