"""The referee on the bandanna: GRYB snapshots (node names) through the same referee as the
stacked board's; rolls typed in as a physical die showed them, or from the game's seeded die."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.boards import GRYB, TIMEVECTORS, board_rules
from device.referee import Referee, RefereeError
from rules.gryb.games import new_game
from rules.gryb.nodes import NODES, node_index, node_name
from rules.timevectors import TimeVectorsGame
from tests.device.referee_feed import SnapshotFeed, kinds, records


class Bandanna(SnapshotFeed):
    """A referee watching an EZ GRYB game, fed boards written as ``{"GR": 0}``."""

    def __init__(self, game: str = "ez-gryb", seed: int = 1) -> None:
        self.game = new_game(game, seed=seed)
        super().__init__(Referee(self.game), node_index)

    def roll(self, face: str | None = None) -> list[dict]:
        return records(self.referee.roll(face))


class TestBoardRules:
    def test_the_game_picks_its_board(self) -> None:
        assert board_rules(new_game("ez-gryb", seed=1)) is GRYB
        assert board_rules(TimeVectorsGame()) is TIMEVECTORS

    @given(st.integers(0, len(NODES) - 1))
    @settings(max_examples=60, deadline=None)
    def test_node_names_round_trip(self, index: int) -> None:
        assert node_index(NODES[index]) == index
        assert GRYB.name(index) == node_name(NODES[index])

    @pytest.mark.parametrize("location", [-1, len(NODES), True, "G", 2.0])
    def test_locations_off_the_bandanna(self, location: object) -> None:
        assert not GRYB.is_location(location)


class TestPlacement:
    def test_typed_roll_then_placement_is_a_move(self) -> None:
        b = Bandanna()
        assert b.see({}) == []
        assert b.roll("B") == [
            {
                "type": "move",
                "frame": None,
                "kind": "roll",
                "color": 0,
                "roll": "B",
                "text": "player 1 rolled B",
            }
        ]
        assert b.see({"B": 0}) == [
            {
                "type": "move",
                "frame": 2,
                "kind": "place",
                "color": 0,
                "nodes": ["B"],
                "point": "B",
                "text": "player 1 placed a ring on B",
            }
        ]
        assert b.game.position() == {"B": 0}

    def test_a_physical_roll_is_inferred_from_the_ring_placed(self) -> None:
        b = Bandanna()
        b.see({})
        out = b.see({"Y": 0})
        assert [(r["kind"], r.get("roll"), r.get("point")) for r in out] == [
            ("roll", "Y", None),
            ("place", None, "Y"),
        ]

    def test_virtual_die_replays_from_the_seed(self) -> None:
        first, second = Bandanna(seed=7), Bandanna(seed=7)
        assert first.roll() == second.roll()
        assert first.game.status()["roll"] == second.game.status()["roll"] is not None

    def test_a_hand_hiding_a_ring_changes_nothing(self) -> None:
        b = Bandanna()
        b.roll("G")
        b.see({"G": 0})
        assert b.see({}, hidden=("G",)) == []
        assert b.game.position() == {"G": 0}


class TestIllegal:
    def test_wrong_colour_for_the_roll_then_restored(self) -> None:
        b = Bandanna()
        b.see({})
        b.roll("R")
        out = b.see({"B": 0})
        assert out == [
            {
                "type": "illegal",
                "frame": 2,
                "reasons": ["the die shows red, but B is blue"],
                "points": ["B"],
                "take_back": False,
            }
        ]
        assert b.referee.mismatch_points() == [node_index("B")]
        assert b.see({"B": 0}) == []  # the same wrong board: one alert is enough
        assert b.see({}) == [{"type": "restored", "frame": 4, "points": ["B"]}]
        assert b.referee.pending is None

    def test_taking_back_the_last_ring_can_be_accepted(self) -> None:
        b = Bandanna()
        b.roll("B")
        b.see({"B": 0})
        out = b.see({})
        assert kinds(out) == ["illegal"] and out[0]["take_back"] is True
        undone = records(b.referee.accept())
        assert kinds(undone) == ["undo"] and undone[0]["point"] == "B"
        assert b.game.position() == {}

    def test_operator_correction_names_nodes(self) -> None:
        b = Bandanna()
        b.see({"GG": 1})
        out = records(b.referee.correct(node_index("GG"), None))
        assert out[0] == {"type": "corrected", "frame": 1, "point": "GG", "color": None, "read": 1}
        assert kinds(out[1:]) == ["restored"]

    def test_bad_operator_input_is_refused(self) -> None:
        b = Bandanna()
        b.see({})
        with pytest.raises(RefereeError, match="a node is an index 0..340"):
            b.referee.correct(len(NODES), 0)
        with pytest.raises(RefereeError, match="no colour choice"):
            b.referee.choose_colour(0)
        with pytest.raises(RefereeError, match="face"):
            b.roll("X")
        b.roll("G")
        with pytest.raises(RefereeError, match="no roll is due"):
            b.roll("G")

    def test_the_stacked_board_has_no_die(self) -> None:
        with pytest.raises(RefereeError, match="no roll is due"):
            Referee(TimeVectorsGame()).roll()


class TestScoring:
    def play_to_a_gryb(self, b: Bandanna) -> list[dict]:
        """Player 1 fills the top quadrangle while player 2's rolls are of no use."""
        b.see({})
        rings: dict[str, int] = {}
        for colour in "BYR":
            b.roll(colour)
            rings[colour] = 0
            assert kinds(b.see(rings)) == ["move"]
            b.roll(colour)  # player 2: the node is taken, nothing to do, the turn passes
        b.roll("G")
        rings["G"] = 0
        return b.see(rings)

    def test_a_gryb_scores_and_wins(self) -> None:
        b = Bandanna()
        out = self.play_to_a_gryb(b)
        assert kinds(out) == ["move", "gryb", "win"]
        gryb = out[1]
        assert gryb["color"] == 0 and gryb["scores"] == [1, 0]
        assert [g["nodes"] for g in gryb["grybs"]] == [["G", "R", "Y", "B"]]
        assert out[2]["color"] == 0 and out[2]["grybs"] == [["G", "R", "Y", "B"]]
        assert b.game.is_over()

    def test_undo_after_the_gryb_takes_the_score_back(self) -> None:
        b = Bandanna()
        self.play_to_a_gryb(b)
        undone = records(b.referee.undo())
        assert kinds(undone) == ["undo"] and undone[0]["nodes"] == ["G"]
        assert b.game.scores == (0, 0) and not b.game.is_over()
