"""Tracker: stability counting, hands, hidden points, glitched frames (pure logic)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.observation import Observation
from vision.tracker import Tracker, steadied


def observation(
    tokens: dict[int, int],
    *,
    hidden: tuple[int, ...] = (),
    hand: bool = False,
    quality: float = 1.0,
    colours: int = 3,
    in_line: dict[int, int] | None = None,
) -> Observation:
    probs = np.zeros((256, 1 + colours))
    probs[:, 0] = 1.0
    for point, colour in tokens.items():
        probs[point] = 0.0
        probs[point, 1 + colour] = 1.0
    visibility = np.ones(256)
    visibility[list(hidden)] = 0.2
    partner = None
    if in_line is not None:
        partner = np.full(256, -1, np.int16)
        for point, other in in_line.items():
            partner[point] = other
    return Observation(
        probs=probs, visibility=visibility, hand_present=hand, quality=quality, in_line=partner
    )


def feed(tracker: Tracker, observations: list[Observation]) -> list:
    return [tracker.update(o, None, i) for i, o in enumerate(observations)]


def test_first_snapshot_after_n_stable_frames():
    out = feed(Tracker(3), [observation({})] * 3)
    assert out[:2] == [None, None]
    assert out[2] is not None and out[2].tokens == {} and out[2].frame == 2


def test_no_repeat_while_the_board_stays_the_same():
    out = feed(Tracker(2), [observation({5: 1})] * 6)
    assert sum(s is not None for s in out) == 1


def test_new_state_needs_its_own_run():
    seq = (
        [observation({})] * 2
        + [observation({5: 0})]
        + [observation({})]
        + [observation({5: 0})] * 2
    )
    out = feed(Tracker(2), seq)
    snaps = [s for s in out if s is not None]
    assert [s.tokens for s in snaps] == [{}, {5: 0}]
    assert snaps[1].frame == 5


def test_a_toss_up_in_any_frame_of_the_run_goes_with_the_snapshot():
    """Which of two points in line holds a token can be a toss-up in one frame and a narrow
    call in the next: the snapshot names it if any frame of its still run saw it."""
    seq = [observation({5: 1}), observation({5: 1}, in_line={5: 9}), observation({5: 1})]
    out = feed(Tracker(3), seq)
    assert out[2] is not None and out[2].in_line == {5: 9}


def test_a_toss_up_of_an_earlier_board_or_with_a_token_on_both_points_is_not_kept():
    seq = [
        observation({}, in_line={5: 9}),  # no token read on 5: nothing to ask about
        observation({5: 1}, in_line={5: 9}),  # another board: its run starts afresh
        observation({5: 1, 9: 0}, in_line={5: 9}),
        observation({5: 1, 9: 0}),
        observation({5: 1, 9: 0}),
    ]
    out = feed(Tracker(3), seq)
    assert out[4] is not None and out[4].tokens == {5: 1, 9: 0}
    assert out[4].in_line == {}


def test_a_hidden_partner_is_still_a_toss_up():
    out = feed(Tracker(2), [observation({5: 1}, hidden=(9,), in_line={5: 9})] * 2)
    assert out[1] is not None and out[1].in_line == {5: 9}


def test_hand_resets_the_count_and_never_snapshots():
    seq = [observation({})] * 2 + [observation({9: 2}, hand=True)] * 5 + [observation({9: 2})] * 2
    out = feed(Tracker(3), seq)
    assert all(s is None for s in out[2:7])
    assert all(s is None for s in out[7:9])  # only two calm frames since the hand left
    assert Tracker(3).update(observation({}, hand=True), None, 0) is None


def test_snapshot_after_hand_leaves():
    seq = [observation({})] * 3 + [observation({}, hand=True)] * 2 + [observation({9: 2})] * 3
    snaps = [s for s in feed(Tracker(3), seq) if s is not None]
    assert [s.tokens for s in snaps] == [{}, {9: 2}]


def test_hidden_points_keep_their_last_known_state():
    seq = [observation({10: 1, 20: 0})] * 2 + [observation({20: 0, 30: 2}, hidden=(10,))] * 2
    snaps = [s for s in feed(Tracker(2), seq) if s is not None]
    assert snaps[1].tokens == {10: 1, 20: 0, 30: 2}
    assert snaps[1].hidden == frozenset({10})


def test_hidden_point_never_seen_is_not_invented():
    snaps = [s for s in feed(Tracker(1), [observation({}, hidden=(40,))]) if s is not None]
    assert snaps[0].tokens == {} and snaps[0].hidden == frozenset({40})


def test_glitched_frames_neither_count_nor_break_a_run():
    seq = [observation({1: 0}), observation({}, quality=0.1), observation({1: 0})]
    out = feed(Tracker(2), seq)
    assert out[1] is None and out[2] is not None and out[2].tokens == {1: 0}


def test_reset_forgets_the_last_snapshot():
    tracker = Tracker(1)
    assert tracker.update(observation({}), None, 0) is not None
    assert tracker.update(observation({}), None, 1) is None
    tracker.reset()
    assert tracker.update(observation({}), None, 2) is not None


def test_stable_frames_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        Tracker(0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.integers(0, 255), st.integers(0, 2), max_size=4), st.booleans()
        ),
        max_size=25,
    ),
    st.integers(1, 4),
)
def test_property_snapshots_only_from_calm_identical_runs(frames, stable):
    """Every snapshot ends a run of `stable` calm frames with exactly its tokens; hands never snapshot."""
    tracker = Tracker(stable)
    seq = [observation(tokens, hand=hand) for tokens, hand in frames]
    for i, snap in enumerate(feed(tracker, seq)):
        if snap is None:
            continue
        assert not frames[i][1]
        run = frames[i - stable + 1 : i + 1]
        assert len(run) == stable
        assert all(not hand and tokens == snap.tokens for tokens, hand in run)


def mixed(point: int, shares: dict[int, float], colours: int = 3) -> Observation:
    """An empty board but for ``point``, read as each colour with the given probability."""
    base = observation({}, colours=colours)
    probs = base.probs.copy()
    probs[point] = 0.0
    for colour, share in shares.items():
        probs[point, 1 + colour] = share
    return Observation(probs=probs, visibility=base.visibility, hand_present=False)


def test_a_token_the_game_holds_keeps_its_colour_through_a_close_misread():
    """Orange and brown flicker on a token three plates down: while the game's colour is still
    a fair share as likely as the one read, the point reads as the game has it (each flip was
    an alarm); read clearly as another colour, the change still shows."""
    held = {40: 2}
    close = mixed(40, {0: 0.6, 2: 0.4})
    clear = mixed(40, {0: 0.95, 2: 0.05})
    assert Tracker(1).update(close, None, 0, held=held).tokens == {40: 2}
    assert Tracker(1).update(close, None, 0).tokens == {40: 0}
    assert Tracker(1).update(clear, None, 0, held=held).tokens == {40: 0}
    assert Tracker(1).update(observation({}), None, 0, held=held).tokens == {}  # taken away
    assert Tracker(1).update(close, None, 0, held={40: 7}).tokens == {40: 0}  # no such colour


def test_a_token_the_game_holds_is_not_lost_on_a_close_call():
    """A faint token's reading wavered about one half after a hand passed over it (its colour
    pixels unreadable: even odds for each colour), and the game flagged it as taken away; a
    reading that is clearly empty still shows the token gone."""
    wavering = mixed(40, {0: 0.49 / 3, 1: 0.49 / 3, 2: 0.49 / 3})
    wavering.probs[40, 0] = 0.51
    assert wavering.states()[40] == -1
    assert Tracker(1).update(wavering, None, 0, held={40: 2}).tokens == {40: 2}
    assert Tracker(1).update(wavering, None, 0, held={}).tokens == {}
    assert Tracker(1).update(wavering, None, 0, held={}, expected=2).tokens == {}
    gone = mixed(40, {2: 0.05})
    gone.probs[40, 0] = 0.95
    assert Tracker(1).update(gone, None, 0, held={40: 2}).tokens == {}


def test_a_new_token_read_in_a_close_call_is_the_colour_to_play():
    """Brown through three plates read a shade nearer orange: when the colour to play is still
    a fair share as likely, the new token is that colour (the false alarm was "wrong colour");
    a token clearly of another colour is still read as it is, for the referee to flag."""
    close = mixed(40, {0: 0.6, 2: 0.4})
    clear = mixed(40, {0: 0.95, 2: 0.05})
    assert Tracker(1).update(close, None, 0, held={}, expected=2).tokens == {40: 2}
    assert Tracker(1).update(clear, None, 0, held={}, expected=2).tokens == {40: 0}
    assert Tracker(1).update(close, None, 0, held={}).tokens == {40: 0}  # no colour to play
    # A token the game holds keeps the game's colour, not the one to play.
    assert Tracker(1).update(close, None, 0, held={40: 1}, expected=2).tokens == {40: 0}


@settings(max_examples=50, deadline=None)
@given(
    read=st.dictionaries(st.integers(0, 255), st.integers(0, 2), max_size=20),
    held=st.dictionaries(st.integers(0, 255), st.integers(0, 2), max_size=20),
    expected=st.one_of(st.none(), st.integers(0, 2)),
)
def test_steadied_never_adds_a_token_and_keeps_only_what_the_game_holds(read, held, expected):
    base = observation(read)
    out = steadied(base.probs, base.states(), held, expected)
    assert np.all(out[base.states() >= 0] >= 0), "no token is removed"
    kept = np.flatnonzero((out >= 0) & (base.states() < 0))
    assert all(p in held and out[p] == held[p] for p in kept), "only a held token is kept"
    changed = np.flatnonzero(out != base.states())
    assert all(out[p] == held.get(p, expected) for p in changed)


def test_the_current_run_is_a_board_before_it_settles_and_asking_changes_nothing():
    """``current`` is the board of the run going on, however short, with hidden points
    keeping what they last showed; a hand ends the run, and asking emits nothing."""
    tracker = Tracker(3)
    assert tracker.current(0) is None
    feed(tracker, [observation({5: 1, 9: 0})] * 3)  # a snapshot: 9 holds colour 0
    tracker.update(observation({5: 1}, hidden=(9,)), None, 3)
    tracker.update(observation({5: 1, 7: 2}, hidden=(9,)), None, 4)
    board = tracker.current(4)
    assert board.tokens == {5: 1, 7: 2, 9: 0} and board.hidden == frozenset({9})
    assert board.frame == 4 and tracker.current(4) == board
    assert tracker.update(observation({5: 1, 7: 2}, hidden=(9,)), None, 5) is None  # (2 of 3)
    assert tracker.update(observation({5: 1, 7: 2}, hidden=(9,)), None, 6).tokens == board.tokens
    tracker.update(observation({}, hand=True), None, 7)
    assert tracker.current(7) is None
