"""What every GRYB game shares: registry, options, undo, persistence and judging."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import IllegalMoveError, NotationError
from rules.game import Game
from rules.gryb.dice import UnknownDieError
from rules.gryb.games import (
    GAMES,
    GameOptionError,
    GameRecordError,
    GrybGame,
    GrybMove,
    MoveFormatError,
    UnknownGameError,
    new_game,
)
from tests.rules.gryb_play import play_random

NAMES = sorted(GAMES)


def test_all_eleven_games_by_kebab_case_name():
    assert sorted(GAMES) == sorted([
        "ez-gryb", "squirrel-race", "drangles", "hyper-drangles", "fourth-level", "interrupt",
        "connection", "blobs", "borg", "square-deal", "25-mens-gryb",
    ])
    for name, game in GAMES.items():
        assert issubclass(game, GrybGame) and issubclass(game, Game)
        assert game.name == name and game.title
        assert game.__doc__ and (game.__module__ and __import__(game.__module__, fromlist=["x"]).__doc__)


def test_new_game_and_options():
    game = new_game("ez-gryb", {"pieces-per-player": 5}, seed=3)
    assert game.options.pieces_per_player == 5 and game.seed == 3
    assert new_game("ez-gryb", {"pieces_per_player": 5}).options == game.options
    with pytest.raises(UnknownGameError, match="ez-gryb"):
        new_game("chess")
    with pytest.raises(GameOptionError, match="no option 'colour'"):
        new_game("ez-gryb", {"colour": 1})
    with pytest.raises(GameOptionError, match="must be a int"):
        new_game("ez-gryb", {"pieces-per-player": "5"})
    with pytest.raises(GameOptionError, match="1..170"):
        new_game("ez-gryb", {"pieces-per-player": 0})
    with pytest.raises(GameOptionError, match="must be a mapping"):
        new_game("ez-gryb", 5)


@pytest.mark.parametrize("name", NAMES)
def test_a_seed_replays_the_same_game(name):
    first, second = GAMES[name](seed=5), GAMES[name](seed=5)
    play_random(first, 60, seed=1)
    play_random(second, 60, seed=1)
    assert first.move_stack == second.move_stack and first.position() == second.position()


@pytest.mark.parametrize("name", NAMES)
def test_push_pop_restores_and_redo_replays(name):
    game = GAMES[name](seed=9)
    history = []
    for _ in range(80):
        if game.is_over():
            break
        history.append((game.position(), game.status()))
        play_random(game, 1, seed=len(history))
    after = (game.position(), game.status(), list(game.move_stack))
    for before in reversed(history):
        game.pop()
        assert (game.position(), game.status()) == before
    while game.can_redo():
        game.redo()
    assert (game.position(), game.status(), game.move_stack) == after


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.integers(0, 10_000), st.integers(1, 120))
def test_push_then_pop_restores_any_position(name, seed, length):
    game = GAMES[name](seed=seed)
    play_random(game, length, seed=seed)
    position, status = game.position(), game.status()
    for move in game.legal_moves()[:5]:
        game.push(move)
        game.pop()
        assert game.position() == position and game.status() == status


@pytest.mark.parametrize("name", NAMES)
def test_to_dict_from_dict_round_trip(name):
    game = GAMES[name](seed=21)
    play_random(game, 90, seed=4)
    record = json.loads(json.dumps(game.to_dict()))
    again = GrybGame.from_dict(record)
    assert type(again) is type(game)
    assert again.move_stack == game.move_stack
    assert again.position() == game.position() and again.status() == game.status()
    assert GAMES[name].from_dict(record).position() == game.position()


def test_bad_records():
    with pytest.raises(GameRecordError, match="not a saved"):
        GrybGame.from_dict({"game": "chess"})
    record = new_game("drangles", seed=1).to_dict()
    with pytest.raises(GameRecordError, match="not a saved"):
        GAMES["blobs"].from_dict(record)
    record["moves"] = [{"kind": "move", "player": 0, "from": ["G"], "to": ["GG"]}]
    with pytest.raises(GameRecordError, match="cannot be replayed"):
        GrybGame.from_dict(record)
    record["moves"] = [{"kind": "jump", "player": 0}]
    with pytest.raises(GameRecordError, match="jump"):
        GrybGame.from_dict(record)


def test_move_sentences():
    assert GrybMove.step(0, "RGYY", "YGYY").describe() == "player 1 moved RGYY to YGYY (hyperspace)"
    assert GrybMove.step(1, "G", "GG").describe() == (
        "player 2 moved G to GG (down, interjection, limited-interjection)"
    )
    assert GrybMove.step(0, "R", "YGB").describe() == "player 1 moved R to YGB"
    assert GrybMove.place(1, "GGGG", "YYYY").describe() == "player 2 placed rings on GGGG, YYYY"
    assert GrybMove.roll(0, "").describe() == "player 1 rolled 0"
    assert GrybMove.remove(0, "R", "GG").describe() == "player 1 removed GG, R"
    assert GrybMove("resign", 1).describe() == "player 2 resigned"


@pytest.mark.parametrize("name", NAMES)
def test_notation_round_trips_over_played_and_legal_moves(name):
    game = GAMES[name](seed=12)
    play_random(game, 80, seed=12)
    for move in game.move_stack + game.legal_moves()[:50]:
        assert GrybMove.from_notation(move.notation(), move.player) == move


def test_notation_examples_and_errors():
    assert GrybMove.from_notation(" [bry, brr]-[BGY, BGR] ", 1) == GrybMove.block(
        1, ("BRY", "BRR"), ("BGY", "BGR"))
    assert GrybMove.from_notation("+[GGGG, YYYY]", 0) == GrybMove.place(0, "GGGG", "YYYY")
    assert GrybMove.from_notation("0-g", 0) == GrybMove.step(0, "", "G")
    assert GrybMove.from_notation("x[R, RR]", 1) == GrybMove.remove(1, "R", "RR")
    assert GrybMove.from_notation("Roll 0", 1) == GrybMove.roll(1, "")
    assert GrybMove.from_notation("RESIGN", 1) == GrybMove("resign", 1)
    for bad, words in (("", "written like"), ("G-GR-GRR", "not a move"), ("[G]-R", "a block move is written like"),
                       ("[G, R]-[GG]", "as many"), ("G-Q", "'Q'")):
        with pytest.raises(NotationError, match=words):
            GrybMove.from_notation(bad, 0)


def test_move_records():
    move = GrybMove.block(0, ("BRY", "BRR"), ("BGY", "BGR"))
    assert move == GrybMove.block(0, ("BRR", "BRY"), ("BGR", "BGY"))
    assert move.notation() == "[BRR, BRY]-[BGR, BGY]"
    assert GrybMove.from_dict(json.loads(json.dumps(move.to_dict()))) == move
    for other in (GrybMove.roll(1, ""), GrybMove.place(0, ""), GrybMove.remove(1, "GG", "R"),
                  GrybMove("resign", 0), GrybMove.step(0, "", "G")):
        assert GrybMove.from_dict(other.to_dict()) == other
    assert str(GrybMove.roll(1, "")) == "roll 0" and str(GrybMove.place(0, "")) == "+0"
    with pytest.raises(MoveFormatError):
        GrybMove("move", 0, ("G",), ())
    with pytest.raises(MoveFormatError):
        GrybMove("place", 2, to=("G",))
    with pytest.raises(MoveFormatError):
        GrybMove("pass", 0, to=("G",), value="G")


@pytest.mark.parametrize("name", NAMES)
def test_judge_follows_a_playout(name):
    """A referee told only the rolls explains every board the players make."""
    game = GAMES[name](seed=33)
    referee = GAMES[name](game.options, seed=33)
    for step in range(70):
        if game.is_over():
            break
        play_random(game, 1, seed=step)
        move = game.move_stack[-1]
        if move.kind == "roll":
            referee.push(move)
            continue
        if game.position() == referee.position():
            continue  # a ring over one of its own colour (Drangles): seen with the next step
        judgement = referee.judge(game.position())
        assert judgement.is_legal, (move, judgement.reasons)
        assert move in judgement.moves or len(judgement.moves) > 1  # rings look alike
        referee.push_all(judgement.moves)
        assert referee.position() == game.position()
        assert referee.status() == game.status()


@pytest.mark.parametrize("name", [n for n in NAMES if GAMES[n](seed=1).die()])
def test_judge_infers_the_roll_of_a_physical_die(name):
    """Nobody enters the roll: the referee reads it from the move the players made."""
    game = GAMES[name](seed=8)
    referee = GAMES[name](game.options, seed=8)
    checked = 0
    for step in range(60):
        if game.is_over():
            break
        play_random(game, 1, seed=step)
        if game.move_stack[-1].kind == "roll":
            if game.die() is None:
                continue  # the players move next
            # a roll that voided itself or passed the turn leaves no trace on the board:
            # the operator enters it
            referee = GrybGame.from_dict(game.to_dict())
            continue
        judgement = referee.judge(game.position())
        assert judgement.is_legal, judgement.reasons
        if game.move_stack[-2].kind == "roll":
            assert judgement.moves[0] == game.move_stack[-2]
        referee.push_all(judgement.moves)
        assert referee.position() == game.position() and referee.status() == game.status()
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", NAMES)
def test_judge_unchanged_and_take_back(name):
    game = GAMES[name](seed=2)
    assert game.judge(game.position()).is_unchanged
    play_random(game, 40, seed=2)
    last_board_move = next((i for i in range(len(game.move_stack) - 1, -1, -1)
                            if game.move_stack[i].kind != "roll"), None)
    if last_board_move is None:
        pytest.skip("no board move in this playout")
    probe = GrybGame.from_dict(game.to_dict())
    while probe.move_stack and len(probe.move_stack) > last_board_move:
        probe.pop()
    earlier = probe.position()
    if earlier == game.position():
        return
    judgement = game.judge(earlier)
    assert judgement.take_back and not judgement.is_legal
    assert "taken back" in judgement.reasons[0]


def test_judge_reports_bad_observations_without_raising():
    game = new_game("ez-gryb", seed=1)
    judgement = game.judge({"GX": 0, "G": 5})
    assert not judgement.is_legal
    assert any("'X'" in r for r in judgement.reasons)
    assert any("not 0 or 1" in r for r in judgement.reasons)
    assert not game.judge(["G"]).is_legal  # type: ignore[arg-type]


def test_judge_accepts_node_indices():
    game = new_game("25-mens-gryb", seed=1)
    judgement = game.judge({1: 0})  # index 1 is node G
    assert judgement.moves == (GrybMove.place(0, "G"),)


def test_resign_and_finish():
    game = new_game("square-deal", seed=4)
    game.push(GrybMove("finish", 0))
    assert game.outcome() is not None and game.outcome().winner is None
    game.pop()
    game.push(GrybMove("resign", 0))
    assert game.outcome().winner == 1
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.roll()
    with pytest.raises(IllegalMoveError, match="does not end by agreement"):
        new_game("drangles", seed=1).push(GrybMove("finish", 0))


def test_out_of_turn_and_roll_first():
    game = new_game("ez-gryb", seed=1)
    with pytest.raises(IllegalMoveError, match="player 1's turn, not player 2's"):
        game.push(GrybMove.place(1, "G"))
    with pytest.raises(IllegalMoveError, match="roll the colour die first"):
        game.push(GrybMove.place(0, "G"))
    with pytest.raises(IllegalMoveError, match="not a face"):
        game.push(GrybMove.roll(0, "GG"))
    with pytest.raises(IllegalMoveError, match="no die"):
        new_game("drangles").push(GrybMove.roll(0, "G"))


def test_rolls_typed_in_from_a_physical_die():
    game = new_game("fourth-level", seed=1)
    move = game.roll("ggby")
    assert move == GrybMove.roll(0, "GGBY") and game.legal_moves() == [GrybMove.place(0, "GGBY")]
    with pytest.raises(IllegalMoveError, match="no die"):
        game.roll("G")
    colour_game = new_game("ez-gryb", seed=1)
    with pytest.raises(UnknownDieError, match="not a face of the colour die"):
        colour_game.roll("GG")
    assert colour_game.move_stack == []
