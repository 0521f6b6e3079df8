"""Observer on rendered scenes: accuracy against the renderer's hidden ground truth,
hidden points, colours with and without a palette, a colour cast, Q versus P, hands,
and frames that cannot be read."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calibration.spec
from calibration.calibfile import Calibration
from calibration.colours import match_distance
from calibration.plate_colour import corrected
from calibration.spec import load_spec
from device.commands.analyze import (
    BENCH_SIZES,
    _calibration,
    _Renderings,
    _with_noise,
    bench_scene,
    still_scene,
)
from device.pipeline import make_observer
from rules.timevectors.points import parse_point
from vision.change import change_evidence
from vision.explain import Selection
from vision.observation import Observation, ReferenceMissingError
from vision.observer import (
    FOREGROUND_DISTANCE,
    FrameError,
    Observer,
    analyze_image,
)
from vision.render import random_scene, render_timevectors
from vision.render_hand import HandSpec
from vision.shadow_search import could_pass_for_tokens
from vision.shadows import LIGHT_DOUBT, Shadows
from vision.stats import chroma_error, grouped_median
from vision.token_sets import CLEAR_OF_PLATES, TokenSets
from vision.tracker import steadied

SPEC = load_spec()
SIZE = (800, 600)


def noisy(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Fresh sensor noise per picture (the renderer's own noise repeats for one seed)."""
    return np.clip(image + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)


@dataclasses.dataclass
class Scene:
    camera: object
    style: object
    colours: list
    calibration: Calibration
    seed: int

    def render(self, tokens, *, hand=None, style=None, rng=None):
        rendered = render_timevectors(
            self.camera,
            SPEC,
            tokens,
            self.colours,
            hand=hand,
            scene=style or self.style,
            seed=self.seed,
        )
        rng = rng or np.random.default_rng(self.seed + len(tokens))
        return rendered, noisy(rendered.image_bgr, self.style.noise_sigma, rng)


def make_scene(seed: int) -> Scene:
    camera, style, colours = random_scene(seed, SIZE)
    empty = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    reference = noisy(empty, style.noise_sigma, np.random.default_rng(seed))
    calibration = Calibration(
        board="timevectors", spec=SPEC, camera=camera, rms_px=0.0
    ).with_reference(reference)
    return Scene(camera, style, colours, calibration, seed)


@pytest.fixture(scope="module")
def scene() -> Scene:
    return make_scene(21)


@pytest.fixture(scope="module")
def crowded(scene):
    rng = np.random.default_rng(5)
    points = rng.choice(256, 60, replace=False)
    tokens = {int(p): i % 3 for i, p in enumerate(points)}
    rendered, image = scene.render(tokens)
    return tokens, rendered, image


def truth_states(tokens: dict[int, int]) -> np.ndarray:
    truth = np.full(256, -1)
    for point, colour in tokens.items():
        truth[point] = colour
    return truth


def assert_finds_only_tokens(
    seed: int,
    size: tuple[int, int],
    cast: bool,
    names: tuple[str, ...],
    known_phantoms: tuple[str, ...] = (),
) -> None:
    """Bench still scene ``seed``: the tokens at ``names`` (visible) are read, and no visible
    empty point is but the ``known_phantoms`` (read as tokens for reasons the test is not
    about; each must still be empty in the scene)."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    for name in names:
        point = parse_point(name)
        assert point in tokens and rendered.visibility[point] >= 0.5
        assert states[point] >= 0, name
    empty = (truth_states(tokens) < 0) & (rendered.visibility >= 0.5)
    for name in known_phantoms:
        assert empty[parse_point(name)], name
        empty[parse_point(name)] = False
    assert not (states[empty] >= 0).any()


def learned_to_truth(states: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Map the observer's own colour numbers to the renderer's by majority (no palette given)."""
    mapping = {}
    for k in np.unique(states[states >= 0]):
        values, counts = np.unique(truth[states == k], return_counts=True)
        mapping[int(k)] = int(values[np.argmax(counts)])
    return np.array([mapping[int(s)] if s >= 0 else -1 for s in states])


def test_still_scene_visible_points(scene, crowded):
    tokens, rendered, image = crowded
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    truth = truth_states(tokens)
    read = learned_to_truth(observation.states(), truth)
    visible = rendered.visibility >= 0.5
    errors = int(np.sum((read != truth) & visible))
    # Not the product target (0.1 %): the bench measures a few percent over varied scenes
    # at this working resolution; this guards against regressions beyond that.
    assert errors <= 0.05 * visible.sum(), f"{errors} of {visible.sum()} visible points misread"
    assert not observation.hand_present
    assert observation.quality > 0.9


def test_hidden_points_are_reported_hidden(scene, crowded):
    _, rendered, image = crowded
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    clearly_hidden = rendered.visibility < 0.3
    clearly_seen = rendered.visibility > 0.7
    assert clearly_hidden.sum() >= 5
    assert np.mean(observation.visibility[clearly_hidden] < 0.5) >= 0.9
    assert np.mean(observation.visibility[clearly_seen] >= 0.5) >= 0.97


def test_a_calibration_without_an_empty_board_picture_is_refused(scene):
    """Every token is read as what changed against the empty board: without its picture
    there is nothing to read against, and the observer says so."""
    bare = Calibration(board="timevectors", spec=SPEC, camera=scene.camera, rms_px=0.0)
    with pytest.raises(ReferenceMissingError, match="no picture of the empty board"):
        Observer(bare)


def test_palette_fixes_the_colour_indices(scene, crowded):
    tokens, rendered, image = crowded
    order = [2, 0, 1]  # the user lists the sets in another order than the renderer
    palette = [scene.colours[i] for i in order]
    observation = Observer(scene.calibration, palette=palette).observe(
        image, compare_previous=False
    )
    states = observation.states()
    seen = [p for p in tokens if rendered.visibility[p] >= 0.5 and states[p] >= 0]
    right = sum(states[p] == order.index(tokens[p]) for p in seen)
    # Two sets of this scene are navy and blue: most, not all, lower-tier tokens keep them apart.
    assert len(seen) >= 30 and right >= 0.9 * len(seen)


def test_a_board_told_it_holds_two_sets_reads_two_colours():
    """A two-player board: the plates and the light spread one set so far that, free to find
    the reference board's three, the reader splits it (in this scene 8 tokens read as a
    third colour). Told there are two sets, it reads every visible token right."""
    scene = make_scene(48)
    rng = np.random.default_rng(48)
    tokens = {int(p): i % 2 for i, p in enumerate(rng.choice(256, 40, replace=False))}
    rendered, image = scene.render(tokens)
    truth = truth_states(tokens)
    visible = rendered.visibility >= 0.5
    reader = Observer(scene.calibration, sets=2)
    states = reader.observe(image, compare_previous=False).states()
    assert reader.colours.n_colours == 2
    assert len(set(states[states >= 0].tolist())) == 2
    read = learned_to_truth(states, truth)
    assert visible.sum() >= 30 and np.array_equal(read[visible], truth[visible])


def test_a_live_games_reader_is_told_one_set_per_player_or_team(scene):
    """The runtime's own pipeline, with the real reader: a two-player game's reads two sets."""
    from device.runtime import default_pipeline_factory
    from rules.timevectors import GameConfig, TimeVectorsGame

    for config, sets in (
        (GameConfig(), 2),
        (GameConfig(players=3), 3),
        (GameConfig(players=6, teams=True), 2),
    ):
        pipeline = default_pipeline_factory(scene.calibration, TimeVectorsGame(config))
        assert pipeline._observer.colours.max_colours == sets


@pytest.mark.parametrize("sets", [0, -1, True, 2.0, "2"])
def test_sets_must_be_a_positive_whole_number(scene, sets):
    with pytest.raises(ValueError, match="sets must be a positive whole number"):
        Observer(scene.calibration, sets=sets)


def test_under_a_bare_lamp_the_first_tokens_shadow_is_not_a_second_token():
    """The first token placed above the bottom tier casts the only shadow on the base: too
    few casters to search the light by, so the shadow read as a second new token (E7Q, the
    next player's colour) and every later move was out of turn (a whole bench game lost).
    Of the two tokens new since the hand came, one is the other's shadow; the light found
    so is kept for the stream, where the phantom on the shadow hides it from the search."""
    seed = 1307
    camera, style, colours = bench_scene(seed, (1280, 960), hard_light=True)
    rng = np.random.default_rng(seed)
    empty = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    observer = Observer(_calibration(camera, SPEC, _with_noise(empty, style.noise_sigma, rng)))

    def show(tokens: dict[int, int], hand: HandSpec | None, frames: int) -> Observation:
        for _ in range(frames):
            image = render_timevectors(
                camera, SPEC, tokens, colours, hand=hand, scene=style, seed=seed
            ).image_bgr
            observation = observer.observe(_with_noise(image, style.noise_sigma, rng))
        return observation

    board: dict[int, int] = {}
    show(board, None, 3)
    for name, colour in (("A6R", 0), ("F6Q", 1)):
        hand = HandSpec(target_point=parse_point(name))
        show(board, hand, 2)
        board[parse_point(name)] = colour
        show(board, hand, 1)
        states = show(board, None, 4).states()
        assert set(np.flatnonzero(states >= 0).tolist()) == set(board), name
        assert observer.last_shadows is not None


def _empty_board_observer(
    seed: int, *, hard_light: bool, shadows: bool = True
) -> tuple[Observer, np.ndarray]:
    """An observer whose calibration's reference is bench game ``seed``'s empty board
    (1280x960; with no shadows at all unless ``shadows``), and that scene's true light
    slope (towards the lamp, per mm of height)."""
    camera, style, colours = bench_scene(seed, (1280, 960), hard_light=hard_light)
    if not shadows:
        style = dataclasses.replace(style, shadow_strength=0.0)
    rng = np.random.default_rng(seed)
    empty = render_timevectors(camera, SPEC, {}, colours, scene=style, seed=seed).image_bgr
    observer = Observer(_calibration(camera, SPEC, _with_noise(empty, style.noise_sigma, rng)))
    v = style.light_vector()
    return observer, np.array([v[0], v[1]]) / v[2]


def test_an_observer_knows_a_bare_lamp_from_the_posts_shadow_before_any_token():
    observer, true = _empty_board_observer(10703, hard_light=True)
    assert observer.light_slope is not None
    assert np.hypot(*(np.array(observer.light_slope) - true)) < LIGHT_DOUBT


def test_an_observer_refitted_after_a_bump_keeps_the_light_found_before():
    """The lamp does not move with the camera (here the new reference shows no shadows)."""
    earlier, _ = _empty_board_observer(10703, hard_light=True)
    later, _ = _empty_board_observer(10601, hard_light=False, shadows=False)
    assert later.light_slope is None
    later.keep_learned_from(earlier)
    assert later.light_slope == earlier.light_slope


def _bench_game(
    seed: int, size: tuple[int, int], *, hard_light: bool = True
) -> tuple[Observer, np.random.Generator, Callable[..., Observation]]:
    """A camera stream's observer of the vision bench's game ``seed`` (by default under a
    bare lamp), the game's random draws (the reference's noise already drawn), and
    ``show(tokens, hand, frames)``: the observation of the last of that many noisy frames
    of that board."""
    camera, style, colours = bench_scene(seed, size, hard_light=hard_light)
    rng = np.random.default_rng(seed)
    renderings = _Renderings(camera, style, colours, seed)
    empty = renderings.get({}, None).image_bgr
    observer = Observer(_calibration(camera, SPEC, _with_noise(empty, style.noise_sigma, rng)))

    def show(tokens: dict[int, int], hand: HandSpec | None, frames: int) -> Observation:
        image = renderings.get(dict(tokens), hand).image_bgr
        for _ in range(frames):
            observation = observer.observe(_with_noise(image, style.noise_sigma, rng))
        return observation

    return observer, rng, show


def _bench_hands(rng: np.random.Generator, moves: int) -> list[HandSpec]:
    """The first ``moves`` hands of a 12-move bench game, from the game's own draws (its
    points, then its hands' sizes); ``rng`` is left where the frames' noise begins."""
    free = rng.permutation(256)
    hands = [HandSpec(target_point=free[-1 - m], scale=rng.uniform(0.8, 1.2)) for m in range(moves)]
    rng.uniform(0.8, 1.2, size=12 - moves)
    return hands


def _lay(
    show: Callable[..., Observation], board: dict[int, int], hand: HandSpec, colour: int
) -> None:
    """A bench move: the hand reaches in, lays its token and is still in view once."""
    show(board, hand, 1)
    board[hand.target_point] = colour
    show(board, hand, 1)


def _first_move_under_a_lamp(
    seed: int,
) -> tuple[Observer, Callable[..., Observation], HandSpec]:
    """Bench game ``seed`` (1280x960, bare lamp) up to its first hand coming: the observer,
    having seen the empty board, ``show`` (see :func:`_bench_game`) and that hand."""
    observer, rng, show = _bench_game(seed, (1280, 960))
    (hand,) = _bench_hands(rng, 1)
    show({}, None, 3)
    return observer, show, hand


def test_under_a_bare_lamp_the_first_tokens_shadow_is_not_a_hand_that_stays():
    """The first token of a game, laid on the top tier under a bare lamp, throws the only
    shadow on the base. The reading found the token and left its shadow unexplained; against
    the calm board before the hand came, the shadow looked like a hand still over the board,
    and the move waited for a calm board until the next hand came (a bench game lost its
    first move so). The shadow of the one new token is searched for with that token alone
    as the caster, and is no hand."""
    observer, show, hand = _first_move_under_a_lamp(1305)
    board: dict[int, int] = {}
    _lay(show, board, hand, 0)
    laid = hand.target_point
    assert laid == parse_point("D5S")
    observation = show(board, None, 3)
    assert not observation.hand_present
    assert set(np.flatnonzero(observation.states() >= 0).tolist()) == {laid}
    assert observer.last_shadows is not None


def test_a_change_that_stays_longer_than_a_hand_is_the_board_once_the_pipeline_says_so():
    """Bench game 1407 under a bare lamp: the first token's shadow on the base, three tiers
    down, was too faint for the shadow search (it is found since the search asks fewer
    samples of a disc that holds few; here the search is made to find nothing, as for any
    shadow it misses) and too big for no hand, so every frame after the move looked like a
    hand still over the board, the calm board was never taken again, and the game was lost
    to the camera to its end. Once the pipeline says the "hand" has stayed too long with the
    camera in place, the board as read is the calm board, and the move the hand made is
    read. Told so while no hand was in view, the observer forgets it: it was not about this
    "hand"."""
    observer, show, hand = _first_move_under_a_lamp(1407)
    observer._shadow_model.find = lambda *args, **kwargs: None
    board: dict[int, int] = {}
    observer.settle()  # (stale: nothing in view to settle)
    show(board, None, 1)
    _lay(show, board, hand, 0)
    laid = hand.target_point
    assert laid == parse_point("C5Q")
    assert show(board, None, 12).hand_present, "the case this guards: a hand that stays"
    observer.settle()
    observation = show(board, None, 1)
    assert not observation.hand_present
    assert set(np.flatnonzero(observation.states() >= 0).tolist()) == {laid}
    assert not show(board, None, 3).hand_present


def test_under_a_bare_lamp_a_second_token_read_on_the_new_shadow_does_not_refute_the_light():
    """Bench game 1404 under a bare lamp, second move E1Q (the first above the base): the
    reading took its shadow on the base for a second new token (G1P). The search with E1Q
    as the caster found that shadow, but the light was then judged by the tokens' tops,
    and the phantom, evenly dark, was taken as a top its own shadow crosses that shows no
    step: the light was refuted, and the phantom stayed. Nor may the change since the hand
    came give the new token's shadow back as a token (through the tinted plates it shifts
    the colour as well as darkening)."""
    observer, rng, show = _bench_game(1404, (1640, 1232))
    hands = _bench_hands(rng, 2)
    assert [hand.target_point for hand in hands] == [parse_point("B2P"), parse_point("E1Q")]
    board: dict[int, int] = {}
    show(board, None, 3)
    for colour, hand in enumerate(hands):
        _lay(show, board, hand, colour)
        observation = show(board, None, 4)
        observer.known_colours = dict(board)
    assert not observation.hand_present
    assert set(np.flatnonzero(observation.states() >= 0).tolist()) == set(board)
    assert observer.last_shadows is not None


def _bench_moves(
    seed: int, size: tuple[int, int], moves: int, *, hard_light: bool = False
) -> tuple[Observation, dict[int, int]]:
    """Bench game ``seed`` (usual light, or the bare lamp) played as the bench plays it up to
    its move ``moves``, the players telling the game each move: the observation once the
    last hand has gone (four calm frames) and the board (point: colour)."""
    observer, rng, show = _bench_game(seed, size, hard_light=hard_light)
    hands = _bench_hands(rng, moves)
    board: dict[int, int] = {}
    show(board, None, 3)
    for move, hand in enumerate(hands):
        if move % 4 == 3:  # the bench's hovering hand, over the point played next
            show(board, HandSpec(target_point=hand.target_point), 2)
            show(board, None, 4)
        observer.expected_colour = move % 3
        _lay(show, board, hand, move % 3)
        observation = show(board, None, 4)
        observer.known_colours = dict(board)
    return observation, board


def test_a_token_read_in_front_of_one_the_hand_visit_left_alone_is_that_token():
    """Bench game 1601 (usual light), ninth move G3P: laid beside H2P, it hid a little of
    H2P's top, and the reading took H2P's token for one on F4Q, in line in front of it. The
    hand visit left H2P's footprint as it was, so H2P was kept; but F4Q stayed too, and the
    referee took the game's H2P move to have gone to F4Q (then G3R, hidden behind F4Q, read
    as a token moved there: three false alerts). A token new on a point in front of a kept
    one could not have left its footprint alone: it is the kept token, read there."""
    observation, board = _bench_moves(1601, (1280, 960), 9)
    assert board[parse_point("G3P")] == 2
    kept, twin = parse_point("H2P"), parse_point("F4Q")
    assert observation.states()[twin] < 0
    assert observation.states()[kept] >= 0 or observation.visibility[kept] < 0.5  # (hidden)


def test_a_point_under_a_new_tokens_faint_shadow_is_not_read_as_a_token():
    """Bench game 1602 (usual light), tenth move E5R: its shadow fell on F5P, empty, on the
    base. The shadow search found it, too faint to be taken out of the change, and the
    colour check then matched F5P's pixels, relit out of E5R's shade, to a pale set better
    than to the board as the reference shows it, unshaded: a phantom move announced with
    E5R (it took colour 1's turn, and the next two moves were alerts). In the shadows found
    the empty board is the board darkened by them."""
    observation, board = _bench_moves(1602, (1640, 1232), 10)
    assert board[parse_point("E5R")] == 0
    read = set(np.flatnonzero(observation.states() >= 0).tolist())
    assert parse_point("F5P") not in read
    assert parse_point("E5R") in read


def test_a_token_the_colour_of_the_base_is_not_the_shadow_of_a_light_found_on_it():
    """Bench game 1803 (usual light), eighth move C7P: a brown token laid on the wooden base.
    While the hand laid it, the shadow search found a light that threw the shadow of H3Q, a
    token of the fourth move, onto it (the other casters' onto tokens, where nothing showed
    them), and the light was kept for the stream: the token was taken for that shadow to
    the end of the game (the move lost; an alert once the players' word on it met the
    camera's). H3Q and the light stood still, so its shadow was in the board before the hand
    came, and the base there was not dark then: the light is wrong."""
    observation, board = _bench_moves(1803, (1280, 960), 8)
    laid = parse_point("C7P")
    assert board[laid] == 1
    assert observation.states()[laid] == 1


def test_a_new_shadow_that_flattens_the_texture_the_post_s_shadow_made_is_no_token():
    """Bench game 1908 under a bare lamp, second move C3Q (a near-black token): its shadow
    fell on A2P, whose disc the post's own shadow crossed in the empty board. The new shadow
    darkened the rest of the disc, and the disc's brightness no longer followed the
    reference's step: the texture check took that for a token's plain top, and A2P was read
    as a token that founded the second player's colour (the game went wrong from there, six
    moves and four alerts). Pixels a modelled shadow was taken out of do not testify."""
    observation, board = _bench_moves(1908, (1640, 1232), 2, hard_light=True)
    assert board == {parse_point("G4P"): 0, parse_point("C3Q"): 1}
    assert observation.states()[parse_point("A2P")] < 0
    assert observation.states()[parse_point("C3Q")] == 1


def test_under_a_bare_lamp_the_shadows_of_tokens_laid_high_are_no_tokens():
    """Bench game 1907 under a bare lamp, a light nearly overhead. Fifth move G4R: three
    pixels of E3Q's top at the edge of the post's predicted shadow refuted the right light
    (found 0.03 off), and the shadows of G4R and E3Q were read as tokens (G2P, E2P). Eighth
    move A4S: the light kept since then threw its shadow a third of a token aside of where
    it fell (on A1P), and A1P, seen past the upper plates with less of their veil, looked
    darker than the shadows elsewhere. Fifteen false alerts; none now."""
    observation, board = _bench_moves(1907, (1280, 960), 10, hard_light=True)
    assert {parse_point(name) for name in ("G4R", "A4S", "B6Q")} <= set(board)
    read = set(np.flatnonzero(observation.states() >= 0).tolist())
    shadows = {parse_point(name) for name in ("G2P", "E2P", "A1P", "B5P")}
    assert not read & shadows
    seen = {p for p in board if observation.visibility[p] >= 0.5}
    assert seen <= read


def test_the_shadow_of_a_token_laid_on_a_hidden_point_is_no_token_in_view():
    """Bench game 2006 under a bare lamp, sixth move A4R, on a point the camera cannot see:
    its shadow fell on B3P, in view, and was read as the move, with the right colour (no
    alert: a wrong board, and the same again at the ninth move). The light was known by
    then, and B3P lay in the shadow a token on the hidden A4R would throw."""
    observation, board = _bench_moves(2006, (1640, 1232), 6, hard_light=True)
    laid = parse_point("A4R")
    assert board[laid] == 2 and observation.visibility[laid] < 0.5
    read = set(np.flatnonzero(observation.states() >= 0).tolist())
    assert parse_point("B3P") not in read
    assert {p for p in board if observation.visibility[p] >= 0.5} <= read


@pytest.mark.parametrize(
    "seed, size, moves, shadows",
    [(2207, (1280, 960), 7, ("C5Q", "B5Q")), (2306, (1640, 1232), 7, ("D1P",))],
)
def test_under_a_bare_lamp_shadows_past_the_base_show_the_light(seed, size, moves, shadows):
    """Bench games 2207 and 2306 under a bare lamp (seeds 1201 and 1301, which the bench had
    never run before). 2207: the shadows of the first tokens above the bottom tier fell
    past the base, onto the table, and the light searched on the base alone was found where
    one of them would lie on a dark patch by a token there (slope -0.70, -0.47 against the
    lamp's 0.45, -0.16). Kept for the stream, it threw every later shadow elsewhere; D1S's
    and B1S's, on the table behind C5Q and B5Q, read as tokens there (8 false alerts, six
    moves lost). 2306: with five casters the base showed three of their discs under a
    wrong light, but only one of them dark; the seventh move's shadow on D1P read as a
    token (5 alerts). With so few shadows seen dark on the base, those on the table tell
    the light too."""
    observation, board = _bench_moves(seed, size, moves, hard_light=True)
    read = set(np.flatnonzero(observation.states() >= 0).tolist())
    assert not read & {parse_point(name) for name in shadows}
    assert {p for p in board if observation.visibility[p] >= 0.5} <= read

def test_an_empty_board_dense_with_printed_lines_shows_no_token():
    """Bench game 3104 under a bare lamp (seed 2101, which the bench had never run before):
    the first frame, the empty board with fresh sensor noise, read a token on B2P, where the
    lines of three plates cross densely. The reference is a small JPEG: its error there was
    three to four grey levels, against one or two on the plain table where the noise is
    measured, and half of B2P's core stood "out of the noise" and outlined a token. The
    phantom founded colour 0 and shifted every later colour (six moves wrong). Differences
    from the reference are judged against the noise of pixels with as much detail around
    them. (Each picture the first frame of a stream of its own: two of four showed B2P.)"""
    size = (1640, 1232)
    camera, style, colours = bench_scene(3104, size, hard_light=True)
    rng = np.random.default_rng(3104)
    empty = _Renderings(camera, style, colours, 3104).get({}, None).image_bgr
    calibration = _calibration(camera, SPEC, _with_noise(empty, style.noise_sigma, rng))
    for _ in range(4):
        picture = _with_noise(empty, style.noise_sigma, rng)
        assert Observer(calibration).observe(picture).tokens() == {}


def test_the_first_tokens_shadow_where_the_samples_are_sparse_is_no_hand():
    """Bench game 2707 under a bare lamp, first move E6R: the only shadow on the base fell
    near its near edge, past the plates' markings, where the camera's samples are sparse:
    its disc held 20 of them, all seen dark, fewer than a light is believed on. The shadow
    stayed in the change since the calm board and read as a hand until the next visit
    (the players told the move). One caster's disc tells its light when most of the samples
    it holds are seen."""
    observation, board = _bench_moves(2707, (1280, 960), 1, hard_light=True)
    laid = parse_point("E6R")
    assert board == {laid: 0}
    assert not observation.hand_present
    assert observation.states()[laid] == 0


def test_under_a_low_lamp_whose_shadows_all_fall_past_the_base_the_new_token_is_read():
    """Bench game 2902 under a bare lamp (seed 1901, which the bench had never run before):
    the lamp, 46 degrees up, threw the shadows of the first tokens on the top tier past the
    base, onto the table; the base showed none, the light was searched there alone and was no
    light, and the third move B7S's shadow, new on the table, read as a hand that stayed until
    the next visit (the players told the move). The table shows the light then."""
    observation, board = _bench_moves(2902, (1640, 1232), 3, hard_light=True)
    laid = parse_point("B7S")
    assert board[laid] == 2 and observation.visibility[laid] >= 0.5
    assert not observation.hand_present
    assert observation.states()[laid] >= 0


def test_a_new_tokens_shadow_on_the_table_past_the_base_is_no_hand():
    """Bench game 2707 under a bare lamp (seed 1701, which the bench had never run before),
    tenth move E5S: its shadow fell past the base's near edge, onto the table, where the
    camera's samples are sparse: too few of them to tell that shadow's look, so it was not
    taken out of the change, and the change since the calm board read as a hand that stayed
    until the next visit (four moves lost so: the players told them). Under a light found,
    every token's shadow disc, on the base or on the table, is no hand."""
    observation, board = _bench_moves(2707, (1280, 960), 10, hard_light=True)
    laid = parse_point("E5S")
    assert board[laid] == 0 and observation.visibility[laid] >= 0.5
    assert not observation.hand_present
    assert observation.states()[laid] == 0


def test_a_pale_token_on_a_pale_base_is_found_by_the_hand_visit():
    """Bench game 3003 under a bare lamp (seed 2001), second move E2R: a near-white token on
    the third tier over a pale green-lit base changed its pixels by less than a sure change
    (1.4 feature units against the empty board, the same since the hand came) but every one
    of them far beyond the noise. Nothing read it: the camera never learned colour 1, read
    the next two players' tokens with each other's colour, and four false alerts followed.
    A change that brightens or tints beyond a faint one and beyond the noise is a token's
    (no shadow brightens)."""
    observation, board = _bench_moves(3003, (1280, 960), 2, hard_light=True)
    laid = parse_point("E2R")
    assert board[laid] == 1 and observation.visibility[laid] >= 0.5
    assert observation.states()[laid] == 1


def test_a_white_token_a_little_paler_than_the_base_is_found_by_its_outline():
    """Bench game 3707 under a bare lamp (seed 2701, which the bench had never run before),
    first move E8R: a white token on a pale green base brightened it by only a sixth (0.6
    feature units, under a faint change), though beyond the noise, and drew its rim and its
    shaded wall plainly. Unread, the players told the move, and the token laid under it
    later read with its colour (a false alert). A change since the hand came beyond the
    noise that fills a point's core adds a token where the point shows its outline."""
    observation, board = _bench_moves(3707, (1280, 960), 1, hard_light=True)
    laid = parse_point("E8R")
    assert board == {laid: 0}
    assert observation.states()[laid] == 0


def test_a_faint_change_in_a_shadow_draws_no_token():
    """Bench game 2905 under a bare lamp (seed 1901), eighth move G5Q: E7P, empty, in a deep
    shadow before and after the visit, changed colour since the hand came by more than the
    empty board's noise (its pixels, a quarter as bright, are four times as noisy in colour
    as the board's own), filled its core and drew an outline at the fainter bar: a phantom
    token and a false alert. A pixel darker than the empty board is judged by its own noise."""
    observation, board = _bench_moves(2905, (1280, 960), 8, hard_light=True)
    laid = parse_point("G5Q")
    assert board[laid] == 1
    read = observation.states()
    assert read[parse_point("E7P")] < 0
    assert read[laid] == 1


def test_a_glint_beside_a_new_white_token_is_no_token():
    """Bench game 3002 under a bare lamp, second move D7S, a white token on the top plate:
    the plate beside it, on D6S, showed 8% brighter since the hand came (beside the white
    token's edge), far beyond the noise of a pale table but a quarter of a faint change. A
    change must be more than faint for the hand visit to add a token by it."""
    observation, board = _bench_moves(3002, (1640, 1232), 2, hard_light=True)
    assert board == {parse_point("A6Q"): 0, parse_point("D7S"): 1}
    read = observation.states()
    assert read[parse_point("D6S")] < 0
    assert read[parse_point("D7S")] == 1


def test_a_faint_token_found_by_the_hand_visit_casts_its_shadow():
    """Bench game 1505 under a bare lamp (seed 501), first move F6R: a pale token the first
    reading did not see, so no light was searched for with it as a caster, and its shadow on
    the base read as a token on D7P, announced as the move (then every later colour was
    shifted: eight false alerts). Found by the change since the hand came, F6R is searched
    as the caster of the other new token's shadow, and D7P is that shadow."""
    observation, board = _bench_moves(1505, (1280, 960), 1, hard_light=True)
    laid = parse_point("F6R")
    assert board == {laid: 0}
    read = observation.states()
    assert read[parse_point("D7P")] < 0
    assert read[laid] == 0


def test_a_new_tokens_shadow_on_the_bottom_tier_draws_no_outline_of_a_token():
    """Bench game 4007 under a bare lamp (seed 3001, which the bench had never run before),
    second move F5R: its shadow fell on D6P, empty, on the bottom tier, a token-sized dark
    disc. The shadow search found it and took it out of the change, but its edge drew the
    outline of a token on D6P: announced as a move with F5R's, every colour after it was
    shifted, and the game lost eleven of its twelve moves (twenty false alerts). A point
    lying mostly on the shadows taken out is not judged by its outline."""
    observation, board = _bench_moves(4007, (1280, 960), 2, hard_light=True)
    laid = parse_point("F5R")
    assert board == {parse_point("F2Q"): 0, laid: 1}
    read = observation.states()
    assert read[parse_point("D6P")] < 0
    assert read[laid] == 1


def test_a_shadow_past_the_base_in_sparse_samples_beside_one_on_it_shows_the_light():
    """Bench game 4301 under a bare lamp (seed 3301, never run before), second move H7S: a
    lamp 50 degrees up threw the top tier's token's shadow past the base onto the table,
    where its disc held six samples, and the first token's onto the base (35). Together
    under the fixed bar of 50 samples that several casters were held to, no light was found,
    the new shadow read as a hand that stayed, and the next move was laid under it: both
    moves lost. Two discs holding few samples tell the light as one does."""
    observation, board = _bench_moves(4301, (1280, 960), 3, hard_light=True)
    assert board == {parse_point("H5R"): 0, parse_point("H7S"): 1, parse_point("G7P"): 2}
    assert not observation.hand_present
    read = observation.states()
    assert {p: int(read[p]) for p in np.flatnonzero(read >= 0)} == board


def test_a_first_shadow_whose_disc_holds_few_samples_shows_the_light():
    """Bench game 3906 under a bare lamp (seed 2901), first move G3R: under a lamp 47
    degrees up, seen from low, its shadow fell on the base's near edge, where its disc holds
    six samples, under the ten one disc was asked to show: no light, and the shadow read as
    a hand that stayed through the next move. A disc that holds fewer is asked for all of
    them (the light the next move's search keeps is then searched anew where the tokens
    refute it near there, see the low lamp test above)."""
    observation, board = _bench_moves(3906, (1640, 1232), 1, hard_light=True)
    assert board == {parse_point("G3R"): 0}
    assert not observation.hand_present
    read = observation.states()
    assert {p: int(read[p]) for p in np.flatnonzero(read >= 0)} == board


def test_a_new_tokens_shadow_read_as_a_token_does_not_line_the_light_up_wrong():
    """Bench game 4801 under a bare lamp (seed 3801, never run before), fourth move G7S: the
    first reading took its shadow for a token on D4R, a second new one, which then stood as a
    caster; the search lined that phantom's shadow up with D2R's real one (one shadow bore
    its light out, where the true light's had two), the phantom stayed and was announced
    with G7S, and every later move was colour 1's out of turn (6 alerts). Where one of two
    new tokens may be the other's shadow, the light more shadows bear out wins."""
    observation, board = _bench_moves(4801, (1280, 960), 4, hard_light=True)
    assert board == {
        parse_point("F2P"): 0, parse_point("D2R"): 1, parse_point("B8P"): 2, parse_point("G7S"): 0
    }
    assert not observation.hand_present
    read = observation.states()
    assert {p: int(read[p]) for p in np.flatnonzero(read >= 0)} == board


@pytest.mark.parametrize("moves", [7, 8])
def test_a_faint_tokens_shadow_is_no_token_when_only_the_full_reading_sees_the_token(moves):
    """Bench game 2908 under a bare lamp (seed 1901), seventh move G3Q: a faint token the
    quick first reading did not see, so it cast no shadow in the search, and its shadow on
    the base read as a token on C3P (an illegal move: two colour 0 tokens). The full reading
    holds both new tokens: they are searched as caster and shadow, which finds the true
    light. At the next visit (a hovering hand, then B1P) the kept light's casters were the
    quick reading's alone, G3Q's shadow went unexplained and C3P was read again ("colour 0
    out of turn"); the last calm board's tokens cast too."""
    observation, board = _bench_moves(2908, (1640, 1232), moves, hard_light=True)
    assert board[parse_point("G3Q")] == 0
    assert not observation.hand_present
    read = observation.states()
    tokens = {p: int(read[p]) for p in np.flatnonzero(read >= 0)}
    assert parse_point("C3P") not in tokens
    assert tokens == board


def test_the_shadow_of_a_token_laid_out_of_sight_is_no_token_on_a_tier_above_the_base():
    """Bench game 4802 under a low bare lamp (seed 3801, never run before), sixth move G7Q,
    laid under G7S where the camera cannot see it: its shadow on the base, seen through the
    Q plate, read as a token on G3Q, announced as the move. A new token read in the shadow
    a hidden point's token would throw, changed the way shadows look, is that shadow on any
    tier, as on the bottom one. (Two more rules keep the light right there: the bottom
    tier's short shadows beside their tokens count in the search, and a bottom tier token,
    lying on its own shadow, still stands as one in a kept light's search.)"""
    observation, board = _bench_moves(4802, (1640, 1232), 6, hard_light=True)
    assert board[parse_point("G7Q")] == 2
    assert not observation.hand_present
    read = observation.states()
    tokens = {p: int(read[p]) for p in np.flatnonzero(read >= 0)}
    assert parse_point("G3Q") not in tokens
    assert tokens == {p: c for p, c in board.items() if p != parse_point("G7Q")}


def test_a_hands_soft_shadow_in_the_calm_frame_is_no_hand_once_it_has_lifted():
    """Bench game 4401 under a bare lamp (seed 3401, never run before), seventh move A5S: the
    hand came in at the picture's top edge, off the board, and its soft shadow over the
    board went unnoticed, so that frame was taken as the calm one. Once the hand had gone,
    the shadow lifted: a change since the calm frame, read as a hand that stayed until the
    next visit, and the move was lost. A change that brings the board back to the empty
    board's look is the calm frame's, not a hand's."""
    observation, board = _bench_moves(4401, (1280, 960), 7, hard_light=True)
    assert board[parse_point("A5S")] == 0
    assert not observation.hand_present
    read = observation.states()
    assert read[parse_point("A5S")] == 0


def test_a_new_tokens_shadow_read_as_a_token_yields_to_the_light_as_many_shadows_bear_out():
    """Bench game 3702 under a bare lamp (seed 2701), ninth move F1Q: its shadow read as a
    token on D2Q, a second new one; the search over every caster, the phantom among them,
    found a wrong light that one shadow bore out, and the pair's light (F1Q casting the
    shadow read on D2Q), the true one, had one too. The pair's light explains the phantom
    as well: it wins the tie (taking the other light, D2Q went down as a second colour 2
    token, an alert)."""
    observation, board = _bench_moves(3702, (1640, 1232), 9, hard_light=True)
    assert board[parse_point("F1Q")] == 2
    assert not observation.hand_present
    read = observation.states()
    assert read[parse_point("D2Q")] < 0
    assert read[parse_point("F1Q")] == 2


def test_a_new_tokens_shadow_on_the_table_is_no_hand_against_the_empty_board():
    """Bench game 5002 under a bare lamp (seed 4001, never run before), twelfth move D1S: a
    lamp 47 degrees up threw its shadow past the base onto the table, where too few samples
    show a shadow's look for it to be taken out of the change; it read as a hand against the
    empty board for the rest of the game, and the move was lost. The light is known: its
    tokens' shadow discs are no hand (as against the calm frame already)."""
    observation, board = _bench_moves(5002, (1640, 1232), 12, hard_light=True)
    assert board[parse_point("D1S")] == 2
    assert not observation.hand_present
    assert observation.states()[parse_point("D1S")] == 2


def test_a_light_found_while_a_hand_is_over_the_board_is_not_kept_for_the_stream():
    """Bench game 2905 under a bare lamp (seed 1901), eighth move G5Q: while the hand was
    over the board, the tokens read on it cast no shadows and it darkened the base, and the
    search (asked for fewer samples since 4301's shadows, see the test above) found a wrong
    light there. Kept for the stream, the tokens refuted it in every frame after, no light
    was taken, and G5Q's shadow read as a hand that stayed through the next move. A light
    found in a frame with a hand serves that frame only."""
    observation, board = _bench_moves(2905, (1280, 960), 8, hard_light=True)
    assert board[parse_point("G5Q")] == 1
    assert not observation.hand_present
    read = observation.states()
    assert {p: int(read[p]) for p in np.flatnonzero(read >= 0)} == board


def test_a_dark_token_in_deep_shade_keeps_its_colour_when_a_new_shadow_stirs_it():
    """Bench game 3608 under a bare lamp (seed 2601), twelfth move D6R: G5P, a near-black
    token in the post's shadow, relit from a few grey levels, read with the other set's
    colour once D6R was laid (its chroma moved by three units with nothing changed on it):
    the game's colour lost by a share under a quarter of the other's, and the referee said
    the token had changed colour. A colour read from samples that spread widely is told
    less surely, and the game's colour holds (see vision.tracker.steadied)."""
    observation, board = _bench_moves(3608, (1640, 1232), 12, hard_light=True)
    shaded = parse_point("G5P")
    assert board[shaded] == 1 and board[parse_point("D6R")] == 2
    held = steadied(observation.probs, observation.states(), board)
    assert held[shaded] == 1


def test_a_wrong_light_refuted_leaves_the_new_tokens_shadow_to_be_found():
    """Bench game 3302 under a bare lamp (seed 2301, which the bench had never run before),
    second move A6Q: its shadow on the base read as a second new token on B6P. The search
    over every caster found a wrong light, which the tokens refuted; the search that takes
    each of two new tokens as the caster of the other's shadow was never asked, B6P went
    down as a move with the next player's colour, and the game lost eleven of its twelve
    moves (fifteen false alerts). A light the tokens refute is none: the new token's
    shadow is searched next."""
    observation, board = _bench_moves(3302, (1640, 1232), 2, hard_light=True)
    laid = parse_point("A6Q")
    assert board[laid] == 1 and observation.visibility[laid] >= 0.5
    read = observation.states()
    assert read[parse_point("B6P")] < 0
    assert read[laid] == 1


@pytest.mark.parametrize(
    "seed, size, moves, name",
    [
        # (a brown token laid on the wooden base in a shadow: its pixels change little, but
        # all of them beyond the noise)
        (1805, (1280, 960), 12, "C7P"),
        # (a dark token laid into the old shadow of F4R: it darkens it the shadows' way)
        (1808, (1640, 1232), 2, "G7P"),
    ],
)
def test_a_token_laid_in_a_shadow_is_no_shadow(seed, size, moves, name):
    """Under a bare lamp, a token laid on the base where a shadow already lies is a token:
    only a change since the hand came within the sensor noise, or one the way a new shadow
    looks where a token laid in the same visit throws it, is a shadow's."""
    observation, board = _bench_moves(seed, size, moves, hard_light=True)
    laid = parse_point(name)
    assert laid in board and observation.visibility[laid] >= 0.5
    assert observation.states()[laid] == board[laid]


def test_a_dark_token_the_empty_board_hardly_tells_is_found_by_the_hand_visit_and_kept():
    """Under a bare lamp (a game of the vision bench), a dark purple token is laid on E1P on
    the wooden base: against the empty board the picture changes too little there, and the
    move was missed; told by the players, the token then read as taken away at the next move
    (a false alarm). The change since the hand came is the token alone: it is taken there
    (or on G3Q in line in front of it, and then the two are a toss-up for the players). And
    a token the game holds whose footprint no later hand visit changed stays, however weakly
    the picture shows it."""
    observer, _, show = _bench_game(1308, (1640, 1232))
    board: dict[int, int] = {}
    show(board, None, 3)
    laid, in_front = parse_point("E1P"), parse_point("G3Q")
    for name, colour in (("A1R", 0), ("F3S", 1), ("E1P", 2), ("G6R", 0)):
        hand = HandSpec(target_point=parse_point(name))
        show(board, hand, 2)
        board[parse_point(name)] = colour
        show(board, hand, 1)
        observation = show(board, None, 3)
        read = set(np.flatnonzero(observation.states() >= 0).tolist())
        if name == "E1P":
            if in_front in read:  # the toss-up: the players answer E1P
                assert observation.in_line[in_front] == laid
                read = read - {in_front} | {laid}
        assert read == set(board), name
        observer.known_colours = dict(board)


@pytest.mark.parametrize("seed", [24, 32])
def test_a_bare_lamps_shadows_are_not_read_as_tokens(seed):
    """Under a bare lamp each token on an upper tier throws a deep, token-sized shadow onto
    the base far below, which looked like a dark token on the point over it (four and five
    phantoms in these scenes before the shadows were modelled). The observer finds the
    lamp's direction from the shadows themselves and reads only the tokens."""
    scene = make_scene(seed)
    rng = np.random.default_rng(seed)
    tokens = {int(p): i % 3 for i, p in enumerate(rng.choice(256, 40, replace=False))}
    lamp = dataclasses.replace(scene.style, shadow_strength=0.8)
    rendered, image = scene.render(tokens, style=lamp)
    observer = Observer(scene.calibration)
    truth = truth_states(tokens)
    read = learned_to_truth(observer.observe(image, compare_previous=False).states(), truth)
    assert np.sum((read != truth) & (rendered.visibility >= 0.5)) == 0
    light = lamp.light_vector()
    found = observer.last_shadows
    assert found is not None
    assert np.hypot(*(np.array(found.slope) - light[:2] / light[2])) <= 0.05


def test_a_stream_finds_the_light_again_only_when_the_tokens_change(scene, crowded, monkeypatch):
    """In a camera stream the light stays: the same tokens cast the same shadows, and the
    search is not run again for them. Still pictures are each searched."""
    _, _, image = crowded
    observer = Observer(scene.calibration)
    searches = []
    find = observer._shadow_model.find
    monkeypatch.setattr(
        observer._shadow_model, "find", lambda *a, **k: searches.append(1) or find(*a, **k)
    )
    feats, difference = observer._change(observer._sampler.sample(image))

    def read(difference, *, stream):
        evidence = change_evidence(difference.distances()[0])
        observer._without_shadows(feats, difference, evidence, stream=stream)

    def searched(difference, *, stream) -> int:
        before = len(searches)
        read(difference, stream=stream)
        return len(searches) - before

    # (the first stream read may search twice: at the light the post's shadow showed, and
    # anywhere when the tokens refute it)
    assert searched(difference, stream=True) >= 1
    assert searched(difference, stream=True) == 0
    assert searched(difference, stream=False) == 1
    assert searched(difference, stream=False) == 1
    emptier = dataclasses.replace(difference, significant=np.zeros_like(difference.significant))
    assert searched(emptier, stream=True) >= 1  # (other tokens read)


def test_only_shadows_deep_enough_to_pass_for_tokens_are_taken_out():
    """A shadow is taken out only when its pixels, weighed as every change is (darkening at
    half), would argue for a token (evidence of at least one half: 1.5 feature units); a
    fainter one argues against a token by itself, and taking it out would only lose the
    near-black tokens lying in it (a bench scene: three of them)."""
    mask = np.ones(1, bool)
    faint = Shadows(mask=mask, shift=np.array([0.0, 1.2, -1.6], np.float32), slope=(0.0, 0.0))
    deep = Shadows(mask=mask, shift=np.array([0.0, 1.2, -2.4], np.float32), slope=(0.0, 0.0))
    assert not could_pass_for_tokens(faint)  # 1.2 and 0.8: 1.44 units
    assert could_pass_for_tokens(deep)  # 1.2 and 1.2: 1.70 units


def test_tokens_in_the_shadow_of_tokens_above_read_their_own_colour():
    """Bench scene 2057: a white and a grey set, and a lamp 76 degrees up whose shadows take
    half the light. Five white tokens lie in the shadows of tokens on higher tiers and look
    grey (four were read as grey before the shadows on token tops were undone). Every visible
    white token reads white now, and no grey one reads white."""
    tokens, rendered, image, calibration = still_scene(2057, BENCH_SIZES[0], cast=False)
    observer = Observer(calibration)
    states = observer.observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    read = learned_to_truth(states, truth)
    shaded_whites = [parse_point(n) for n in ("D4P", "D3Q", "F7Q", "E4Q", "F5P")]
    assert all(truth[p] == 0 and rendered.visibility[p] >= 0.5 for p in shaded_whites)
    seen = (truth >= 0) & (rendered.visibility >= 0.5) & (states >= 0)
    assert (read[seen & (truth == 0)] == 0).all()
    assert (read[seen & (truth == 2)] == 2).all()


@pytest.mark.parametrize("seed, name", [(13, "C2R"), (451, "B2R")])
def test_a_token_the_shade_makes_look_like_the_table_is_found(seed, name):
    """Bench scenes where a token lies in the shade of tokens above and, darkened, changes
    its pixels little from the empty board's: matched to the known sets as relit out of the
    shade, its pixels are a token's (both were missed before), and no visible empty point
    is read."""
    assert_finds_only_tokens(seed, BENCH_SIZES[0], False, (name,))


@pytest.mark.parametrize(
    "seed, size, cast, name",
    [
        (416, BENCH_SIZES[1], True, "H4S"),
        (643, BENCH_SIZES[0], False, "H1R"),
        (59, BENCH_SIZES[0], False, "E1S"),
        (208, BENCH_SIZES[1], True, "C4Q"),
        (649, BENCH_SIZES[0], False, "E3R"),
        (751, BENCH_SIZES[0], False, "E3Q"),
        (2113, BENCH_SIZES[0], False, "E1R"),
    ],
)
def test_a_token_in_front_of_farther_tokens_of_another_colour_is_read(seed, size, cast, name):
    """Bench scenes where a token's whole core lies in front of tokens on lower tiers (H4S
    over E8Q, F5R and F6R): the change it makes is all inside their silhouettes, so it was
    never judged (missed), and the farther tokens' colours were read from its pixels (two
    of them wrong in 416). In 208 a nearer token (B2R) hides nearly half of C4Q's core: the
    third of it in front of D5P's token still tells. In 649 E2S hides half of E3R's top and
    printed lines cross much of the rest: 12 of its 42 core pixels lie in front of E4Q and
    can tell (751 E3Q and 2113 E1R alike). Now every visible point reads right."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    visible = rendered.visibility >= 0.5
    assert truth[parse_point(name)] >= 0 and visible[parse_point(name)]
    assert (learned_to_truth(states, truth)[visible] == truth[visible]).all()


@pytest.mark.parametrize(
    "seed, size, cast, nearer, farther",
    [(214, BENCH_SIZES[1], True, "B8Q", "A7P"), (2138, BENCH_SIZES[1], True, "F5S", "F3R")],
)
def test_a_toss_up_in_line_leans_to_the_nearer_point_its_lighter_wash_fits(
    seed, size, cast, nearer, farther
):
    """Bench scenes where a token's change fits the point in line behind it as well (within
    the toss-up margin), and the farther point was read. The token's colour fits the nearer
    point's lighter wash better, by less than the margin that decides a toss-up: the token
    is now read there, and the pair is still reported as a toss-up."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    observation = Observer(calibration).observe(image, compare_previous=False)
    near, far = parse_point(nearer), parse_point(farther)
    assert near in tokens and far not in tokens and rendered.visibility[near] >= 0.5
    states = observation.states()
    assert states[near] >= 0 and states[far] < 0
    assert observation.in_line[near] == far


def test_a_farther_token_of_the_same_colour_is_not_taken_for_a_nearer_one():
    """Bench scene 2156: the core of the empty C5R lies in front of the token on A6Q, and its
    pixels there match A6Q's set (a little brighter than the rest of A6Q). Pixels that show
    the colour of the token behind them cannot tell a nearer token of that set, so C5R is
    not taken (it was, and A6Q dropped, while they could vote)."""
    assert_finds_only_tokens(2156, BENCH_SIZES[1], True, ("A6Q",))


def test_a_light_the_tokens_do_not_show_is_not_undone_on_them():
    """The tops the found light's shadows cross in part are darker where crossed (bench
    scene 2057); under a light from elsewhere they are not: such a light is refuted (its
    shadows are neither taken out of the change nor undone on the tokens)."""
    tokens, _, image, calibration = still_scene(2057, BENCH_SIZES[0], cast=False)
    observer = Observer(calibration)
    accepted = observer.observe(image, compare_previous=False).states() >= 0
    found = observer._shade.found
    assert found is not None
    feats, _ = observer._change(observer._sampler.sample(image))
    assert observer._shade.verdict(feats, found, accepted, accepted) is True
    for slope in ((0.6, 0.3), (-0.5, 0.5), (0.0, 0.9)):
        elsewhere = dataclasses.replace(found, slope=slope)
        assert observer._shade.verdict(feats, elsewhere, accepted, accepted) is False, slope
    # With no top crossed in part the tokens cannot tell.
    alone = np.zeros(256, bool)
    alone[parse_point("A1P")] = True
    assert observer._shade.verdict(feats, found, alone, alone) is None


def test_colour_cast_change_after_calibration(scene):
    tokens = {
        parse_point(n): i % 3 for i, n in enumerate(["B2S", "G7S", "C6R", "F3R", "A8Q", "H1P"])
    }
    warm = dataclasses.replace(scene.style, white_balance=(1.25, 1.0, 0.75), exposure=0.85)
    rendered, image = scene.render(tokens, style=warm)
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    truth = truth_states(tokens)
    read = learned_to_truth(observation.states(), truth)
    visible = rendered.visibility >= 0.5
    assert np.sum((read != truth) & visible) == 0


def _stacked_pair(observer: Observer) -> tuple[int, int]:
    """A point on P and one on Q whose tokens cover nearly the same image area."""
    fp = observer.footprints
    for far, near, fraction in sorted(fp.overlap.tolist(), key=lambda row: -row[2]):
        far, near = int(far), int(near)
        if fp.tier[far] == 0 and fp.tier[near] == 1 and fraction >= 0.7 and fp.in_image[far] == 1:
            return far, near
    pytest.skip(
        "this camera sees no P/Q pair in line"
    )  # pragma: no cover - geometry guarantees one


def test_light_that_changed_unevenly_after_calibration_is_undone(scene):
    """Light that now falls off the other way across the board (a lamp switched on at one
    side) changes the two ends' brightness in opposite directions; the observer undoes it,
    so two tokens of one set at opposite corners still read nearly as alike as under the
    calibration's light (with channel gains alone their brightness difference moved by
    more than one feature unit, the distance that tells two sets apart)."""
    ends = (parse_point("A1S"), parse_point("H8S"))
    tokens = dict.fromkeys(ends, 0)
    turned = dataclasses.replace(
        scene.style, gradient=0.35, gradient_angle_deg=scene.style.gradient_angle_deg + 180
    )
    differences = []
    for style in (scene.style, turned):
        image = scene.render(tokens, style=style)[1]
        observer = Observer(scene.calibration)
        assert observer.observe(image, compare_previous=False).tokens() == tokens
        feats, difference = observer._change(observer._sampler.sample(image))
        change, _ = difference.distances()
        colour, _, _ = observer._sets.measure(
            feats,
            change > FOREGROUND_DISTANCE,
            np.isin(np.arange(256), ends),
            before_accepted=None,
        )
        differences.append(colour[ends[0], 2] - colour[ends[1], 2])
    assert abs(differences[1] - differences[0]) < 0.5


def test_token_on_q_versus_p_at_the_same_image_position(scene):
    observer = Observer(scene.calibration)
    far, near = _stacked_pair(observer)
    for placed, other in ((far, near), (near, far)):
        _, image = scene.render({placed: 0})
        states = Observer(scene.calibration).observe(image, compare_previous=False).states()
        assert states[placed] == 0, f"token at {placed} not read"
        assert states[other] == -1, f"token at {placed} also read at {other}"


def test_hand_is_seen_and_hides_what_it_covers(scene):
    target = parse_point("D5R")
    rendered, image = scene.render({}, hand=HandSpec(target_point=target))
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    assert observation.hand_present
    covered = rendered.visibility < 0.2
    assert np.mean(observation.visibility[covered] < 0.5) > 0.8


def test_empty_board_reads_empty(scene):
    _, image = scene.render({})
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    assert observation.tokens() == {} and not observation.hand_present


def test_blank_frame_has_no_quality(scene):
    observer = Observer(scene.calibration)
    for value in (0, 128, 255):
        blank = np.full((SIZE[1], SIZE[0], 3), value, np.uint8)
        observation = observer.observe(blank)
        assert observation.quality == 0.0 and observation.tokens() == {}


def test_truncated_picture_does_not_crash(scene, crowded):
    """A JPEG cut short decodes (with some decoders) to the top rows and flat grey below."""
    _, _, image = crowded
    cut = image.copy()
    cut[SIZE[1] // 3 :] = 128
    observer = Observer(scene.calibration)
    observation = observer.observe(cut)
    assert observation.probs.shape[0] == 256 and observation.visibility.shape == (256,)
    assert observation.quality < 0.5 or observation.hand_present
    assert observer.observe(image).probs.shape[0] == 256  # and the next good frame is read


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros((100, 100, 3), np.uint8), "calibration is for"),
        (np.zeros((SIZE[1], SIZE[0]), np.uint8), "colour image"),
        (np.zeros((SIZE[1], SIZE[0], 3), np.float32), "8-bit"),
        (None, "colour image"),
    ],
)
def test_unusable_frames_raise_frame_error(scene, bad, message):
    with pytest.raises(FrameError, match=message):
        Observer(scene.calibration).observe(bad)


def test_analyze_image_names_points(scene):
    tokens = {parse_point("C3S"): 0, parse_point("F6R"): 1}
    _, image = scene.render(tokens)
    result = analyze_image(scene.calibration, image)
    assert set(result) == {"tokens", "hidden", "hand"}
    assert set(result["tokens"]) == {"C3S", "F6R"}
    assert len(set(result["tokens"].values())) == 2
    assert all(len(name) == 3 for name in result["hidden"])
    assert result["hand"] is False


def test_half_covered_tokens_read_their_own_colour(scene):
    """A token partly behind a nearer one of another colour: only its own pixels count."""
    fp = Observer(scene.calibration).footprints
    pairs = [
        (int(far), int(near))
        for far, near, fraction in fp.overlap.tolist()
        if 0.2 <= fraction <= 0.5 and fp.tier[int(near)] > fp.tier[int(far)]
    ]
    tokens: dict[int, int] = {}
    for far, near in pairs:  # pairs sharing no point, each far token under another colour
        if far not in tokens and near not in tokens and len(tokens) < 24:
            colour = len(tokens) // 2 % 3
            tokens[far], tokens[near] = colour, (colour + 1) % 3
    rendered, image = scene.render(tokens)
    observation = Observer(scene.calibration).observe(image, compare_previous=False)
    truth = truth_states(tokens)
    read = learned_to_truth(observation.states(), truth)
    covered = [p for p in tokens if 0.5 <= rendered.visibility[p] < 0.9 and read[p] >= 0]
    assert len(covered) >= 4  # (whether each is found at all is the other tests' business)
    assert [int(read[p]) for p in covered] == [int(truth[p]) for p in covered]


def test_a_token_with_no_pixels_to_read_its_colour_from_has_even_odds(scene, crowded):
    """Its colour is then the game's to say (the tracker's held colour or colour to play),
    not whichever set lies nearest to a colour feature of zero."""
    tokens, rendered, image = crowded
    observer = Observer(scene.calibration)
    states = observer.observe(image, compare_previous=False).states()
    point = next(p for p in tokens if rendered.visibility[p] >= 0.9 and states[p] >= 0)
    measure = observer._sets.measure

    def nothing_to_read_at_point(*args, **kwargs):
        mean, used, error = measure(*args, **kwargs)
        mean[point], used[point] = 0.0, 0
        return mean, used, error

    observer._sets.measure = nothing_to_read_at_point
    probs = observer.observe(image, compare_previous=False).probs[point]
    assert probs[0] < 0.5 and len(probs) == 4
    assert np.allclose(probs[1:], probs[1:].mean())
    held = steadied(probs[None, :], np.array([2]), {0: 1})
    assert held.tolist() == [1]


def test_texture_hidden_is_told_from_texture_darkened(scene):
    """A shadow keeps the printed lines under it (darker); a flat token top hides them."""
    observer = Observer(scene.calibration)
    reference = scene.calibration.reference_image()
    reference = cv2.resize(reference, scene.camera.image_size, interpolation=cv2.INTER_LINEAR)
    ramp = np.linspace(0.55, 1.0, reference.shape[1], dtype=np.float32)[None, :, None]
    shaded = np.clip(reference * ramp, 0, 255).astype(np.uint8)
    flat = cv2.blur(reference, (61, 61))

    def replaced(frame: np.ndarray) -> np.ndarray:
        feats, _ = observer._change(observer._sampler.sample(frame))
        return observer._texture.replaced(feats[:, 2], observer._noise.sigma)

    (in_shadow, shadow_plain), (flattened, plain) = replaced(shaded), replaced(flat)
    assert flattened.sum() >= 20  # the board's printed squares give many textured discs
    assert in_shadow.sum() <= 0.1 * flattened.sum()
    assert plain.sum() >= 0.8 * flattened.sum() and not shadow_plain.any()


@pytest.mark.parametrize("grain", [0.3, 1.0])
def test_faint_texture_a_plain_top_hides_counts_and_busier_texture_does_not(scene, grain):
    """Texture is measured against the sensor noise, not a fixed spread: a board whose
    printed squares and grain show at ``grain`` of their strength still tells a plain top
    that hides them from a shadow that keeps them. Texture given way to busier texture (a
    token's edge crossing the disc) is no plain top."""
    full = cv2.resize(
        scene.calibration.reference_image(), scene.camera.image_size, interpolation=cv2.INTER_LINEAR
    ).astype(np.float32)
    smooth = cv2.blur(full, (61, 61))

    def picture(values: np.ndarray) -> np.ndarray:
        return np.clip(values, 0, 255).astype(np.uint8)

    reference = picture(smooth + grain * (full - smooth))
    observer = Observer(scene.calibration.with_reference(reference))
    chosen = np.zeros(256, bool)
    chosen[::5] = True
    width, height = observer.footprints.size
    discs = np.zeros(width * height, np.uint8)
    discs[observer._pixels.positions[observer._pixels.top.index[chosen[observer._pixels.top.point]]]] = 1
    discs = cv2.dilate(discs.reshape(height, width), np.ones((5, 5), np.uint8))
    discs = cv2.resize(discs, scene.camera.image_size, interpolation=cv2.INTER_NEAREST)[..., None]

    def replaced(inside_discs: np.ndarray) -> np.ndarray:
        frame = picture(np.where(discs > 0, inside_discs, reference))
        feats, _ = observer._change(observer._sampler.sample(frame))
        return observer._texture.replaced(feats[:, 2], observer._noise.sigma)[0]

    hidden = replaced(smooth)
    assert hidden[chosen].sum() >= 0.4 * chosen.sum() and hidden[~chosen].sum() <= 3
    assert not replaced(reference * np.float32(0.6)).any()
    busier = smooth + 2.0 * (np.roll(full, 9, axis=1) - smooth)
    assert not replaced(busier)[chosen].any()


def test_tokens_the_tables_colour_are_found_where_they_hide_the_texture(scene):
    """A token coloured like the table barely changes its pixels, but its plain top hides
    the printed lines and grain under it: that alone finds it."""
    table = dataclasses.replace(scene, colours=[tuple(scene.style.table_rgb)] * 3)
    tier = Observer(table.calibration).footprints.tier
    tokens = {int(p): 0 for p in np.flatnonzero(tier == 3)}
    rendered, image = table.render(tokens)
    observation = Observer(table.calibration).observe(image, compare_previous=False)
    states = observation.states()
    visible = rendered.visibility >= 0.5
    found = (states >= 0) & visible & (tier == 3)
    assert found.sum() >= 0.9 * (visible & (tier == 3)).sum()
    # Nothing below is read: a point the observer reports hidden behind the tokens on S is
    # not a reading (a plain token top in front of it hides its texture just as well).
    assert not (states[(tier != 3) & visible] >= 0).any()
    assert all(tier[p] == 3 for p in observation.tokens())


def test_a_farther_neighbours_wall_over_a_top_disc_is_no_token_there():
    """Seen from low (the bench's game 8601 camera), a token on B2S hangs its dark wall over
    the top disc of C2S, nearer on the same tier: that disc's texture is gone and it looks
    plain, which alone reads a token the table's colour. But C2S's side below the disc
    shows the plate's lines as the empty board does, and a token there would hide them."""
    from device.commands.analyze import BenchBoard

    camera, style, colours = bench_scene(8601, BENCH_SIZES[0], hard_light=True)
    spec = BenchBoard().built(8601)
    rng = np.random.default_rng(1)
    empty = render_timevectors(camera, spec, {}, colours, scene=style, seed=8601).image_bgr
    calibration = _calibration(camera, spec, _with_noise(empty, style.noise_sigma, rng))
    b2s = parse_point("B2S")
    image = render_timevectors(camera, spec, {b2s: 1}, colours, scene=style, seed=8601).image_bgr
    still = Observer(calibration).observe(
        _with_noise(image, style.noise_sigma, rng), compare_previous=False
    )
    assert list(still.tokens()) == [b2s]
    observer = Observer(calibration)
    for _ in range(3):
        streamed = observer.observe(_with_noise(image, style.noise_sigma, rng))
    assert list(streamed.tokens()) == [b2s]


def test_a_token_behind_the_printed_lines_of_the_plates_above_is_found(scene):
    """Lines printed on the plates above lie in front of a low token and keep their look:
    where they cross most of its core, those unchanged pixels must not count against it."""
    observer = Observer(scene.calibration)
    core, behind = observer._pixels.core, observer._pixels.core_behind_line
    share = np.bincount(core.point, weights=behind, minlength=256) / np.maximum(core.count, 1)
    point = int(np.argmax(np.where(core.count >= 20, share, 0.0)))
    assert share[point] >= 0.5
    width, height = observer.footprints.size
    token = np.zeros(width * height, np.uint8)
    token[observer._pixels.positions[core.index[(core.point == point) & ~behind]]] = 1
    shown = cv2.resize(token.reshape(height, width), scene.camera.image_size, cv2.INTER_NEAREST)
    frame = cv2.resize(
        scene.calibration.reference_image(), scene.camera.image_size, interpolation=cv2.INTER_LINEAR
    )
    frame[shown > 0] = (40, 40, 200)
    states = Observer(scene.calibration).observe(frame, compare_previous=False).states()
    assert states[point] >= 0
    assert (states >= 0).sum() == 1


def test_a_tokens_colour_is_read_where_it_changed_most_not_under_the_lines_above(scene):
    """Lines printed on the plates above lie in front of a token and in the reference alike:
    where they cross most of its top disc, the pixels that changed most still show it."""
    observer = Observer(scene.calibration)
    ref = observer._ref_features
    inside = observer._pixels.top.point[observer._pixels.top_inside]
    point = int(np.argmax(np.bincount(inside, minlength=256)))
    mine = observer._pixels.top.index[observer._pixels.top_inside & (observer._pixels.top.point == point)]
    token = np.array([2.0, 14.0, 16.0], np.float32)
    feats = ref.copy()
    crossed = np.arange(len(mine)) % 5 < 3  # three pixels in five show a line in front
    feats[mine[~crossed]] = token
    feats[mine[crossed]] = 0.8 * ref[mine[crossed]] + 0.2 * token
    accepted = np.zeros(256, bool)
    accepted[point] = True
    mean, used, _ = observer._sets.of_tokens(
        feats, np.ones(len(feats), bool), accepted, before_accepted=None
    )
    assert used[point] >= 3
    assert np.allclose(mean[point], token, atol=0.3)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 255), st.floats(-50, 50), st.floats(-50, 50)), max_size=300)
)
def test_grouped_median_is_each_points_median(rows):
    groups = np.array([r[0] for r in rows], np.int64)
    values = np.array([r[1:] for r in rows], np.float64).reshape(-1, 2)
    median, count = grouped_median(groups, values)
    assert count.tolist() == np.bincount(groups, minlength=256).tolist()
    for point in np.unique(groups):
        mine = np.sort(values[groups == point], axis=0)
        assert np.array_equal(median[point], mine[len(mine) // 2])  # the upper median


@pytest.mark.parametrize("samples, spread", [(5, 0.5), (16, 2.0), (40, 4.0)])
def test_a_colours_chroma_error_is_as_far_as_its_median_strays(samples, spread):
    """Every point's top read from ``samples`` pixels whose chroma scatters by ``spread``
    units: the error told matches how far the medians stray from the true colour, and grows
    with the scatter."""
    rng = np.random.default_rng(samples)
    groups = np.repeat(np.arange(256), samples)
    values = rng.normal(0.0, spread, (len(groups), 3))
    median, _ = grouped_median(groups, values)
    error = chroma_error(groups, values, median)
    strayed = np.sqrt(np.mean(median[:, 0] ** 2 + median[:, 1] ** 2))
    assert 0.75 * strayed <= np.mean(error) <= 1.33 * strayed


def _framer(scene: Scene, rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """``frame(tokens, hand_at=None)``: a fresh noisy picture of ``scene`` with those tokens
    (and a hand reaching for point ``hand_at``), each distinct board rendered once."""
    cache: dict = {}

    def frame(tokens: dict[int, int], hand_at: int | None = None) -> np.ndarray:
        key = (tuple(sorted(tokens.items())), hand_at)
        if key not in cache:
            hand = None if hand_at is None else HandSpec(target_point=hand_at)
            cache[key] = scene.render(tokens, hand=hand, rng=rng)[0].image_bgr
        return noisy(cache[key], scene.style.noise_sigma, rng)

    return frame


def test_in_a_game_a_held_token_keeps_its_colour_while_its_pixels_stay(scene):
    """The colour model can move under a token the game holds (the plates' wash learned, a
    set learning on from its tokens: bench game 9002's brown token, unchanged for thirty
    frames, came to read as the black set's). Such a token keeps the game's colour while its
    core's pixels stay as they were when it last read as that colour; a token of another
    colour put in its place changes them, and reads as it is."""
    rng = np.random.default_rng(4)
    frame = _framer(scene, rng)
    first, second = parse_point("C3R"), parse_point("F6Q")
    board = {first: 0, second: 1}
    third = {**board, parse_point("B7P"): 0}  # (a token laid elsewhere: the board is read again)

    def game_reads() -> tuple[Observer, dict[int, int]]:
        observer = Observer(scene.calibration)
        for tokens in ({}, board):
            for _ in range(3):
                read = observer.observe(frame(tokens)).tokens()
        observer.known_colours = {point: read[point] for point in board}
        for _ in range(3):
            observer.observe(frame(third))
        return observer, read

    observer, read = game_reads()
    assert read[first] != read[second]
    # The model moves: each set's colour becomes the other's; the two held tokens' pixels
    # are as they were.
    prototypes = observer.colours.prototypes
    prototypes[read[first]], prototypes[read[second]] = (
        prototypes[read[second]].copy(),
        prototypes[read[first]].copy(),
    )
    for _ in range(3):
        tokens = observer.observe(frame({**third, parse_point("G2S"): 1})).tokens()
    assert tokens[first] == read[first] and tokens[second] == read[second]
    # A token of the other colour put on the first point is read as that colour.
    observer, read = game_reads()
    for _ in range(3):
        tokens = observer.observe(frame({**third, first: 1})).tokens()
    assert tokens[first] == read[second]


def test_in_a_game_the_first_token_of_a_close_set_founds_its_own_colour():
    """Blue then navy (seed 1032's sets, on a laminate table: one hue, two brightnesses):
    clustering alone reads the navy token as the blue set; told the colour the game
    expects, the observer gives it its own."""
    scene = make_scene(1032)
    blue, navy = 0, 1  # the renderer's indices of the two sets
    first, second = parse_point("C3R"), parse_point("F6Q")
    rng = np.random.default_rng(3)
    frame = _framer(scene, rng)

    def play(observer: Observer, *, tell: bool) -> np.ndarray:
        board: dict[int, int] = {}
        for _ in range(3):
            observer.observe(frame(board))
        for colour_to_play, point, colour in ((0, first, blue), (1, second, navy)):
            observer.expected_colour = colour_to_play if tell else None
            for _ in range(2):
                observer.observe(frame(board, hand_at=point))
            board[point] = colour
            observer.observe(frame(board, hand_at=point))
            for _ in range(3):
                observation = observer.observe(frame(board))
        return observation.states()

    untold = play(Observer(scene.calibration), tell=False)
    assert untold[first] == untold[second] == 0, "the case this guards: one colour for both sets"
    told = play(Observer(scene.calibration), tell=True)
    assert (told[first], told[second]) == (0, 1)


@pytest.mark.parametrize("after_a_visit", [False, True])
def test_in_a_game_a_colour_founded_on_a_token_that_goes_untaken_is_forgotten(
    scene, monkeypatch, after_a_visit
):
    """Bench game 7802: a fingertip over the board read as a token for a frame before the
    hand was seen, and founded the colour to play; the set's real first token then lay
    nearer another set than that "colour". Here a token of set 1 shows with no hand (after
    a hand that hovered, or before any) and goes again, nobody having taken it; the first
    token the game then sees laid, of set 0, founds the colour to play. One the game took
    stays founded when it goes."""
    rng = np.random.default_rng(4)
    phantom, first = parse_point("C3R"), parse_point("F6Q")
    frame = _framer(scene, rng)

    def show(observer: Observer, tokens: dict, hand_at: int | None = None, n: int = 3):
        for _ in range(n):
            observation = observer.observe(frame(tokens, hand_at))
        return observation

    def phantom_comes_and_goes(observer: Observer, *, taken: bool) -> None:
        observer.expected_colour = 0
        show(observer, {})
        if after_a_visit:
            show(observer, {}, first, 2)
            show(observer, {})
        show(observer, {phantom: 1})
        if taken:
            observer.known_colours = {phantom: 0}
        show(observer, {})

    def first_token_read(observer: Observer) -> int:
        phantom_comes_and_goes(observer, taken=False)
        show(observer, {}, first, 2)
        return int(show(observer, {first: 0}).states()[first])

    assert first_token_read(Observer(scene.calibration)) == 0
    taken = Observer(scene.calibration)
    phantom_comes_and_goes(taken, taken=True)
    assert 0 in taken.colours.prototypes
    monkeypatch.setattr(TokenSets, "_forget_unvouched", lambda self, accepted, vouched: None)
    assert first_token_read(Observer(scene.calibration)) != 0, "the case this guards"


def test_colours_the_camera_has_not_seen_yet_are_founded_by_the_game_s_word(scene):
    """The players told the game its first two moves (the camera was blind to them, or they
    went to hidden points); the camera then sees three new tokens at once. Each set is the
    colour the game says its token is, not numbered by where its token lies."""
    rng = np.random.default_rng(8)
    told = {parse_point("F6Q"): 0, parse_point("C3R"): 1}
    new = parse_point("A2P")
    board = {**told, new: 2}
    images = [scene.render(tokens)[0].image_bgr for tokens in ({}, board)]
    hand = scene.render(board, hand=HandSpec(target_point=new))[0].image_bgr

    def play(observer: Observer, *, tell: bool) -> np.ndarray:
        observer.expected_colour = 2 if tell else None
        observer.known_colours = told if tell else {}
        for image in [images[0]] * 3 + [hand] * 2 + [images[1]] * 3:
            observation = observer.observe(noisy(image, scene.style.noise_sigma, rng))
        return observation.states()

    untold = play(Observer(scene.calibration), tell=False)
    points = sorted(board, key=lambda p: untold[p])
    assert [board[p] for p in points] != [0, 1, 2], "the case this guards: numbered otherwise"
    states = play(Observer(scene.calibration), tell=True)
    assert {p: int(states[p]) for p in board} == board


def test_a_stream_reads_again_only_what_changed(scene):
    """Frames that show the last read's board (fresh sensor noise each) keep its reading;
    a token that appears between two frames, with no hand seen, is read as soon as the
    picture is still again."""
    rng = np.random.default_rng(11)
    placed = parse_point("C4Q")
    empty = scene.render({})[0].image_bgr
    with_token = scene.render({placed: 0})[0].image_bgr
    observer = Observer(scene.calibration)
    first = observer.observe(noisy(empty, scene.style.noise_sigma, rng))
    again = [observer.observe(noisy(empty, scene.style.noise_sigma, rng)) for _ in range(3)]
    assert all(observation is first for observation in again)
    observer.observe(noisy(with_token, scene.style.noise_sigma, rng))  # seen as motion
    changed = observer.observe(noisy(with_token, scene.style.noise_sigma, rng))
    assert changed is not first
    assert changed.tokens() == {placed: 0} and not changed.hand_present
    assert observer.observe(noisy(with_token, scene.style.noise_sigma, rng)) is changed


@pytest.mark.parametrize("seed, name, hand_frames", [(13, "B7S", 1), (14, "C4Q", 2)])
def test_a_hand_in_motion_or_at_rest_is_not_read(scene, seed, name, hand_frames):
    """Motion since the last frame means "wait": the frame is not read (no reading taken in
    motion may count). A hand that then stops over the board shows no motion, but it is
    plainly a hand (a blob of change since the calm board far bigger than tokens make) and
    is not read in full either. The last reading stands, and the token the hand put down is
    read once the picture is still again."""
    rng = np.random.default_rng(seed)
    placed = parse_point(name)
    empty = scene.render({})[0].image_bgr
    hand = scene.render({placed: 0}, hand=HandSpec(target_point=placed))[0].image_bgr
    after = scene.render({placed: 0})[0].image_bgr
    observer = Observer(scene.calibration)
    calm = [observer.observe(noisy(empty, scene.style.noise_sigma, rng)) for _ in range(3)]
    reads = observer.full_reads
    for _ in range(hand_frames):
        waiting = observer.observe(noisy(hand, scene.style.noise_sigma, rng))
        assert waiting.hand_present
        assert observer.full_reads == reads, "a frame with a hand was read in full"
        assert np.array_equal(waiting.probs, calm[-1].probs) and waiting.tokens() == {}
    for _ in range(3):
        settled = observer.observe(noisy(after, scene.style.noise_sigma, rng))
    assert not settled.hand_present and settled.tokens() == {placed: 0}


def test_a_hand_that_left_is_not_kept_by_a_still_board(scene):
    """Motion marks the frame a hand leaves in as "hand"; the still frames after it must
    not keep that verdict because they look the same."""
    rng = np.random.default_rng(12)
    placed = parse_point("E5R")
    board = {placed: 1}
    hand = scene.render(board, hand=HandSpec(target_point=placed))[0].image_bgr
    after = scene.render(board)[0].image_bgr
    observer = Observer(scene.calibration)
    for image in (hand, hand, after, after, after, after):
        observation = observer.observe(noisy(image, scene.style.noise_sigma, rng))
    assert not observation.hand_present
    assert observation.tokens() == {placed: 0}


def test_a_hand_the_pipeline_asks_to_settle_is_read_in_full(scene):
    """A "hand" that stays longer than a hand does may be the board's own change (see
    Observer.settle): once the pipeline asks, the next frame is read in full, whatever it
    looks like without a reading."""
    rng = np.random.default_rng(15)
    empty = scene.render({})[0].image_bgr
    hand = scene.render({}, hand=HandSpec(target_point=parse_point("E5R")))[0].image_bgr
    observer = Observer(scene.calibration)
    for _ in range(3):
        observer.observe(noisy(empty, scene.style.noise_sigma, rng))
    for _ in range(2):
        assert observer.observe(noisy(hand, scene.style.noise_sigma, rng)).hand_present
    reads = observer.full_reads
    observer.settle()
    assert observer.observe(noisy(hand, scene.style.noise_sigma, rng)).hand_present
    assert observer.full_reads == reads + 1


def test_a_shadow_that_lifts_from_a_point_is_no_token_the_hand_visit_added(scene):
    """The before/after comparison of a hand visit counts a faint brightening of a point's
    core as a token (a pale token on a pale base): but a shade that lifts brightens too,
    back towards the empty board. In bumped bench game 1011 a hand out of view shaded H5S
    in the calm frame, and once it had gone a token was read there. A change towards the
    empty board is something gone, not something new."""
    observer = Observer(scene.calibration)
    empty = scene.render({})[0].image_bgr
    observer.observe(empty)  # (measures the noise)
    feats, _ = observer._change(observer._sampler.sample(empty))
    point = parse_point("E5P")  # on the base, in view
    core = observer._pixels.core.index[observer._pixels.core.point == point]
    none = np.zeros(len(observer.footprints.tier), bool)
    shade = feats.copy()
    shade[core, 2] -= np.float32(1.5)  # a token-sized shade, before
    added, _ = observer._added_by_the_hand(feats, shade, none, none)
    assert not added.any()
    pale = feats.copy()
    pale[core, 2] += np.float32(1.5)  # the same change away from the empty board: a token
    added, _ = observer._added_by_the_hand(pale, feats, none, none)
    assert np.flatnonzero(added).tolist() == [point]


def _point_in_front_of_another(observer: Observer) -> tuple[int, int, np.ndarray, np.ndarray]:
    """A point ``near`` most of whose core lies in the silhouette of a point ``far`` on a lower
    tier, with a few core pixels outside it; returns both and those two parts of the core."""
    core, silhouette, tier = observer._pixels.core, observer._pixels.silhouette, observer.footprints.tier
    for far, near, _ in sorted(observer.footprints.overlap.tolist(), key=lambda row: -row[2]):
        far, near = int(far), int(near)
        if tier[near] <= tier[far]:
            continue
        mine = core.index[core.point == near]
        inside = np.isin(mine, silhouette.index[silhouette.point == far])
        if inside.mean() >= 0.6 and (~inside).sum() >= 4:
            return far, near, mine[inside], mine[~inside]
    pytest.fail("the test camera sees no point mostly in front of another")


def test_a_point_taken_on_a_sliver_of_another_colour_is_dropped(scene):
    """A far token accepted, and beside it a few changed pixels of a nearer point whose core
    lies mostly over the far token: unless those pixels show the colour of the rest of its
    core, the nearer point is no token (there, the edge of a token of another colour)."""
    observer = Observer(scene.calibration)
    far, near, behind, sliver = _point_in_front_of_another(observer)
    red, green = np.array([2.0, 14.0, 16.0], np.float32), np.array([-12.0, 4.0, 12.0], np.float32)
    observer.colours.prototypes = {0: red, 1: green}
    feats = observer._ref_features.copy()
    feats[observer._pixels.silhouette.index[observer._pixels.silhouette.point == far]] = red
    feats[sliver] = green
    accepted = np.zeros(256, bool)
    accepted[[far, near]] = True
    reading = Selection(
        accepted=accepted, score=np.zeros(256), open_core=np.zeros(256), active=accepted
    )
    kept = observer._without_stray_slivers(feats, reading).accepted
    assert kept[far] and not kept[near]
    feats[sliver] = red  # a token in front of the far one: one colour over its whole core
    feats[behind] = red
    assert observer._without_stray_slivers(feats, reading).accepted[near]


def test_a_token_in_front_of_one_hidden_behind_two_asked_points_is_read():
    """Bench scene 96: B5Q (red) lies in front of B3P (teal). Measured beside every asked
    point at once (B5Q and A5R), B3P showed too few pixels of its own to read its colour, so
    B5Q's pixels in front of it could not vote. Beside B5Q alone B3P's colour is read, and
    B5Q's red in front of it is found."""
    assert_finds_only_tokens(96, (1640, 1232), True, ("B5Q",))


def test_a_token_that_changes_its_pixels_little_is_found_by_its_outline():
    """A token close to the table's colour changes its core too little to count, but its rim
    draws an edge the empty board lacks (a scene of the vision bench where it was missed)."""
    tokens, rendered, image, calibration = still_scene(6, (1640, 1232), cast=True)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    assert 27 in tokens and rendered.visibility[27] >= 0.5
    assert states[27] >= 0
    assert not (states[truth_states(tokens) < 0] >= 0).any()


def test_an_outline_counts_beyond_what_empty_rims_show_in_the_same_frame():
    """Cream tokens on a pale table under a changed light (a scene of the vision bench): their
    outlines stand out of the noise by less than three sigmas, so E1R and E3R were missed.
    Judged against the rims of the points nobody asks about in the same frame instead, they
    are found; and a strong colour cast, which moves every edge, raises that bar with it
    (see the colour-cast test above, where a lower fixed bar outlined empty points)."""
    tokens, rendered, image, calibration = still_scene(209, (1640, 1232), cast=True)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    for name in ("E1R", "E3R"):
        point = parse_point(name)
        assert tokens.get(point) == 0 and rendered.visibility[point] >= 0.5
        assert states[point] >= 0, name
    empty = (truth_states(tokens) < 0) & (rendered.visibility >= 0.5)
    assert not (states[empty] >= 0).any()


@pytest.mark.parametrize(
    "seed, size, cast, names, known_phantoms",
    [
        (441, (1280, 960), False, ("F6P",), ()),
        (2120, (1640, 1232), True, ("A7P", "E7Q"), ("E2Q",)),
        (2087, (1280, 960), False, (), ()),
        (2109, (1280, 960), False, (), ()),
    ],
)
def test_a_faint_outline_drawn_from_inside_is_a_token(seed, size, cast, names, known_phantoms):
    """Tokens close to the colour of what lies behind them draw outlines too faint for the
    usual bar (scenes of the vision bench where they were missed: 441 F6P, 2120 A7P and E7Q);
    most of their rim pairs still contrast more than nearly any empty point's do at their
    median, and it is the pixels inside that changed. Empty points crossed by the edges of
    shadows (2087 B5P, 2109 G4P) contrast as much, but as often from outside: no tokens.
    (2120 E2Q, empty, is not outlined: the colour evidence raises its core, and on its 17
    open pixels, over the edge of a white token and a faint brown one, it scores 0.103
    against the 0.08 that takes a token; most of its token probability goes to one set.)"""
    assert_finds_only_tokens(seed, size, cast, names, known_phantoms)


@pytest.mark.parametrize(
    "seed, names",
    [
        (832, ("A5Q", "F7R", "H4P", "H2Q", "A2P", "D4P")),
        (886, ()),
    ],
)
def test_a_pale_token_on_a_base_of_its_hue_is_outlined_by_its_brightening(seed, names):
    """Bench scene 832 (a colour cast): cream tokens seen through the plates on a base of
    their own hue changed its colour little and its brightness by about 15%. Their outline
    is a brightness edge, and measured with chroma (several times noisier per grey level) it
    stayed within the noise: 9 of the 22 visible cream tokens were missed. The inside's
    brightening, against the brightness noise alone, outlines them. (D6P changed too little
    anywhere in its core to be asked, and G5Q and the darker F5R are still missed.) Scene
    886: shadows' edges over a dark stone table darken one side of many rims; counted as
    brightness edges both ways they outlined six empty points, which brightening alone
    does not."""
    assert_finds_only_tokens(seed, BENCH_SIZES[1], True, names)


@pytest.mark.parametrize(
    "seed, size, cast, names",
    [(13, (1280, 960), False, ("G7Q", "D4R")), (72, (1640, 1232), True, ("E6R",))],
)
def test_a_token_behind_the_lit_edge_of_a_plate_above_is_found(
    seed, size, cast, names, flat_plates
):
    """The cut edge of a plate above glows across a low token and stays in front of it: it
    must not count as texture the token failed to hide (scenes of the vision bench where a
    token the table's colour, or a dark one on a dark table, was missed)."""
    assert_finds_only_tokens(seed, size, cast, names)


@pytest.mark.parametrize(
    "seed, size, cast, names",
    [
        (442, (1280, 960), False, ("F8P",)),
        (47, (1640, 1232), True, ("F7Q",)),
        (35, (1640, 1232), True, ("C2P",)),
    ],
)
def test_a_token_that_hides_faint_grain_is_found(seed, size, cast, names, flat_plates):
    """A brown token on a wooden table, or a dark one on a dark table, changes its pixels
    little; what gives it away is the faint grain its plain top hides. That grain is weaker
    than a printed line but far above the sensor noise, and a disc's rim and the pixels
    beside a line in front (blurred into them) correlated with the reference on their own
    (scenes of the vision bench where these tokens were missed)."""
    assert_finds_only_tokens(seed, size, cast, names)


@pytest.mark.parametrize(
    "seed, size, names", [(13, (1640, 1232), ("A3P", "A4P")), (33, (1640, 1232), ("D7Q",))]
)
def test_a_disc_whose_texture_gives_way_to_more_texture_is_not_a_token(
    seed, size, names, flat_plates
):
    """The edge of a nearer token, or the rim of a farther one, crossing an empty point's disc
    replaces its texture with texture of its own: no plain token top did that (scenes of the
    vision bench where such points were read as dark tokens under a colour cast)."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=True)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    for name in names:
        point = parse_point(name)
        assert point not in tokens and rendered.visibility[point] >= 0.5
        assert states[point] < 0, name


def test_token_coloured_pixels_another_token_explains_do_not_raise_a_point():
    """The colour check asks only about change no accepted token explains: the pink token on
    A4P matches its set's colour, and so do the pixels of the empty point C4Q in front of it
    that show it; they must not make C4Q a token that takes A4P's place (a scene of the
    vision bench where they did)."""
    tokens, rendered, image, calibration = still_scene(50, (1640, 1232), cast=True)
    far, near = parse_point("A4P"), parse_point("C4Q")
    assert far in tokens and near not in tokens
    assert rendered.visibility[far] >= 0.5 and rendered.visibility[near] >= 0.5
    states = Observer(calibration).observe(image, compare_previous=False).states()
    assert states[far] >= 0
    assert states[near] < 0


def test_a_near_token_in_line_with_a_far_one_is_judged_again_once_its_neighbours_are_explained():
    """F7Q's token hides F5P's entirely, and both points' cores see the same change; in the
    first round F7Q's ring is still full of its neighbours' change and F5P takes the pixels.
    Judged again against the tokens around them, F7Q explains the change better (a crowded
    scene of the vision bench)."""
    tokens, rendered, image, calibration = still_scene(66, (1640, 1232), cast=True)
    near, far = parse_point("F7Q"), parse_point("F5P")
    assert near in tokens and rendered.visibility[near] >= 0.5 and rendered.visibility[far] < 0.5
    observation = Observer(calibration).observe(image, compare_previous=False)
    assert observation.states()[near] >= 0
    assert observation.visibility[far] < 0.5
    empty = (truth_states(tokens) < 0) & (rendered.visibility >= 0.5)
    assert not (observation.states()[empty] >= 0).any()


def _replay_bump() -> tuple[Calibration, object, object]:
    """The replay tests' bump: the calibration (exact camera, empty-board reference), the
    camera as knocked, and a renderer of the view from there."""
    from calibration.camera import CameraModel
    from device.sources.demo import DEMO_PALETTE, ShotRenderer

    camera = CameraModel.looking_at((0.0, 0.0, 150.0), 760.0, 52.0, -30.0, (640, 480))
    moved = CameraModel.looking_at((4.0, -3.0, 150.0), 760.0, 52.6, -29.4, (640, 480))
    plain = ShotRenderer(camera, DEMO_PALETTE)
    calibration = Calibration(
        board="timevectors", spec=plain.spec, camera=camera, rms_px=0.0
    ).with_reference(plain.empty_board(), max_width=640)
    return calibration, moved, ShotRenderer(moved, DEMO_PALETTE)


def test_a_refitted_reference_a_pixel_off_does_not_make_an_empty_point_plain():
    """After a camera bump the reference is moved by one homography for all tiers, which
    leaves some printed lines a pixel or so off. Beside the lines of the plates above, the
    texture then no longer follows it; the strong verdict "a plain top hides the texture" is
    still judged over the whole disc, lines in front and all. G5Q of the replay test's bumped
    camera was read as plain, and as a token, when it was judged beside the lines only."""
    from device.pipeline import refitted_calibration

    calibration, moved, bumped = _replay_bump()
    observer = Observer(refitted_calibration(calibration, moved))
    empty = bumped.empty_board()
    feats, _ = observer._change(observer._sampler.sample(empty))
    _, plain_top = observer._texture.replaced(feats[:, 2], observer._noise.sigma)
    point = parse_point("G5Q")
    assert not plain_top[point]
    assert point not in observer.observe(empty, compare_previous=False).tokens()


@pytest.mark.parametrize(
    "degrees, axis, shift",
    [
        (0.0116, (-0.67, 0.35, 0.9), (0.02, -0.15, -0.18)),
        (0.0215, (0.78, 0.26, -0.31), (0.29, 0.39, 0.36)),
        (0.0185, (0.7, -1.18, -0.66), (-0.09, -0.23, 0.35)),
        (0.0222, (0.68, 1.0, -0.62), (0.36, -0.26, -0.13)),
    ],
)
def test_a_refitted_reference_with_its_misfit_makes_no_token_of_lines_a_pixel_off(
    degrees, axis, shift
):
    """The replay test's bump re-fitted a little off the true pose (a fiftieth of a degree,
    a third of a millimetre: as OpenCV 5.1's tracking re-fitted it). The plates' lines and
    cut edges around G8Q, moved by one homography for all tiers, then changed most of its
    core, and its outline was read as a token's. Counting the reference's misfit (what
    the homography leaves of the tiers' parallax), an empty point's core changes only where
    the frame stands out of every value the reference takes that near."""
    from device.demo_script import Script
    from device.pipeline import ObserverCalibration, refitted_calibration
    from device.sources.demo import DEMO_PALETTE

    calibration, moved, bumped = _replay_bump()
    refitted = refitted_calibration(calibration, moved.bumped(degrees, axis, shift))
    assert 1.0 < refitted.reference_misfit_px < 3.0
    observer = Observer(ObserverCalibration.of(refitted), palette=DEMO_PALETTE, sets=2)
    shot = Script(still_frames=4).still(1).place(("D2Q", 0)).shots[-1]
    frame = cv2.imdecode(np.frombuffer(bumped.encoded(shot), np.uint8), cv2.IMREAD_COLOR)
    assert set(observer.observe(frame, compare_previous=False).tokens()) == {parse_point("D2Q")}


@pytest.mark.parametrize(
    "seed, size, cast",
    [(143, (1280, 960), False), (124, (1640, 1232), True)],
)
def test_sets_the_plates_wash_towards_each_other_keep_their_colours(seed, size, cast):
    """Through strongly tinted plates a crimson set below looks like the pink one on top (scene
    143), and a navy set splits by tier while a grey one takes the green's place (scene 124):
    the plates' loss must be estimated across all tiers at once (scenes of the vision bench,
    held out from tuning, where a third of the tokens took the wrong colour)."""
    _, states, wrong = read_still(seed, size, cast)
    assert len(np.unique(states[states >= 0])) == 3
    assert wrong <= 1


@pytest.mark.parametrize("seed", [757, 2151])
def test_a_tokens_colour_is_matched_to_the_sets_as_the_plates_in_front_wash_them(seed):
    """Undoing the plates' wash as learned from one picture magnifies its error and the
    pixels' noise the more, the more plates: a dark set two and three plates down read as
    the blue one (scene 757 of the vision bench, four tokens), and two sets swapped under
    three plates (scene 2151, three tokens). Compared as the camera sees them, with the
    sets washed as the plates in front wash them, every visible point is read right."""
    _, _, wrong = read_still(seed, (1280, 960), cast=False)
    assert wrong == 0


@pytest.mark.parametrize(
    "seed, size, cast",
    [
        (665, BENCH_SIZES[0], False),
        (694, BENCH_SIZES[1], True),
        (2009, BENCH_SIZES[0], False),
        (2103, BENCH_SIZES[0], False),
    ],
)
def test_a_picture_learns_the_plates_again_with_each_token_held_to_its_set(seed, size, cast):
    """A still picture learns the plates' wash with every token free to match any token on
    another tier, then founds the sets. Learned again with each token held to the set it
    reads as, the wash lets a token the table's colour be told by its set's colour (694 C6P,
    2009 F6P, both missed, an empty point in line taken instead) and a washed token its own
    set (665 A2P); learned again while tokens change sets, a washed token one round leaves
    with another set goes back to its own (2103 D5P): every visible point of these bench
    scenes is read right."""
    _, _, wrong = read_still(seed, size, cast)
    assert wrong == 0


def test_a_still_pictures_sets_are_matched_by_their_own_spread():
    """Scene 687 of the vision bench: a white set and a grey one behind tinted plates. The
    white tokens drift towards the plates' tint the more plates lie in front of them, the
    grey ones hardly move; brightness still tells the two apart, but the fixed colour
    distance weighs hue and saturation more and matched five white tokens to the grey set.
    Weighed by each set's spread as the tokens the sets were founded on show it, every
    visible token found is read as its own set."""
    tokens, rendered, image, calibration = still_scene(687, BENCH_SIZES[0], cast=False)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    read = learned_to_truth(states, truth)
    drifted = [parse_point(name) for name in ("C5P", "D7Q", "F3P", "F2Q", "E1R")]
    assert [int(truth[p]) for p in drifted] == [1] * 5
    assert [int(read[p]) for p in drifted] == [1] * 5
    found = (rendered.visibility >= 0.5) & (truth >= 0) & (read >= 0)
    assert np.array_equal(read[found], truth[found])


def test_a_white_set_and_a_grey_one_are_told_apart_on_the_tokens_seen_unwashed():
    """White and grey tokens differ by little more than brightness; below the top tier the
    plates' wash and the shade of tokens above fill the gap between them, and the two sets
    read as one (scene 2057 of the vision bench: 17 whites read grey). Seen through no
    plate, each set is tight, and two."""
    tokens, rendered, image, calibration = still_scene(2057, (1280, 960), cast=False)
    observer = Observer(calibration)
    states = observer.observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    assert len(np.unique(states[states >= 0])) == 3
    unwashed = (observer.footprints.plates_above < CLEAR_OF_PLATES) & (rendered.visibility >= 0.5)
    assert np.array_equal(learned_to_truth(states, truth)[unwashed], truth[unwashed])


@pytest.mark.parametrize(
    "seed, size, cast, name",
    [(609, BENCH_SIZES[0], False, "G1Q"), (2134, BENCH_SIZES[1], True, "A5Q")],
)
def test_a_faint_token_below_the_plates_is_found_by_its_set_colour_as_the_plates_wash_it(
    seed, size, cast, name
):
    """A token behind two plates that changes its pixels little (G1Q of scene 609, A5Q of
    scene 2134 of the vision bench) is found by its colour: a pixel is asked whether it looks
    more like a known set's colour as the plates in front wash it than like the empty board.
    Undoing the wash on the pixel instead magnified its difference from the set, the board
    won and the token was missed."""
    _, states, wrong = read_still(seed, size, cast)
    assert states[parse_point(name)] >= 0
    assert wrong == 0


@pytest.mark.parametrize(
    "seed, size, cast, names",
    [
        (2108, BENCH_SIZES[1], True, ("B6S", "C3R")),
        (2057, BENCH_SIZES[0], False, ("F8R", "E2R")),
        (612, BENCH_SIZES[1], True, ("F1R",)),
    ],
)
def test_a_tokens_pixels_the_board_and_its_set_explain_alike_do_not_count_against_it(
    seed, size, cast, names
):
    """Grey tokens on a grey stone table in full view (B6S and C3R of scene 2108 of the vision
    bench; 2057 and 612 likewise): much of such a token's core is within the sensor noise of
    the empty board, or changed by no more than its set's colour explains, and those pixels
    counted as plain board, so the token scored under the bar with the rest of it matching
    its set. A pixel its set's colour explains as well as the board says nothing either
    way: each token is found as its own set, and every visible point is read right."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    states = Observer(calibration).observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    read = learned_to_truth(states, truth)
    for name in names:
        point = parse_point(name)
        assert truth[point] >= 0 and rendered.visibility[point] >= 0.5
        assert read[point] == truth[point], name
    visible = rendered.visibility >= 0.5
    assert np.array_equal(read[visible], truth[visible])


def read_still(seed: int, size: tuple[int, int], cast: bool) -> tuple[Observer, np.ndarray, int]:
    """Bench still scene ``seed`` read by a fresh observer: the observer, its states and how
    many visible points it read wrong (its colour numbers mapped to the renderer's)."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    observer = Observer(calibration)
    states = observer.observe(image, compare_previous=False).states()
    truth = truth_states(tokens)
    visible = rendered.visibility >= 0.5
    return observer, states, int(np.sum((learned_to_truth(states, truth) != truth) & visible))


def _bench_game_stream(seed: int, size: tuple[int, int], shots: list) -> Observation:
    """Play ``shots`` ((tokens, hand point or None), expected colour) of a scene of the vision
    bench's game streams through the live observer; returns the last observation."""
    return _BenchStream(seed, size).play(_bench_game_observer(seed, size), shots)


def _bench_game_observer(seed: int, size: tuple[int, int]) -> Observer:
    """The live observer of a scene of the vision bench's game streams."""
    camera, style, colours = random_scene(seed, size)
    rng = np.random.default_rng(seed + 1)
    spec = calibration.spec.load_spec()  # (looked up when called: see the flat_plates fixture)
    empty = render_timevectors(camera, spec, {}, colours, scene=style, seed=seed)
    reference = _with_noise(empty.image_bgr, style.noise_sigma, rng)
    return make_observer(_calibration(camera, spec, reference))


class _BenchStream:
    """The frames of a scene of the vision bench's game streams: renderings kept, fresh
    sensor noise on each."""

    def __init__(self, seed: int, size: tuple[int, int]) -> None:
        camera, self.style, colours = random_scene(seed, size)
        self.rng = np.random.default_rng(seed)
        self.renderings = _Renderings(camera, self.style, colours, seed)

    def play(self, observer: Observer, shots: list) -> Observation:
        """``shots`` ((tokens, hand point or None), expected colour) through ``observer``;
        returns the last observation."""
        for (tokens, hand_at), colour in shots:
            hand = HandSpec(target_point=hand_at) if hand_at is not None else None
            image = self.renderings.get(tokens, hand).image_bgr
            observer.expected_colour = colour
            observation = observer.observe(_with_noise(image, self.style.noise_sigma, self.rng))
        return observation

    def moves(
        self, observer: Observer, moves: list, *, tell: bool
    ) -> Iterator[tuple[dict[int, int], Observation]]:
        """``moves`` ((point name, colour), ...) of a game: a hand places each token, then
        three calm frames; with ``tell`` the observer then hears the game's tokens, as the
        pipeline tells it once the referee took the move. Yields the board and the last
        observation after each move."""
        board: dict[int, int] = {}
        for name, colour in moves:
            point = parse_point(name)
            placed = {**board, point: colour}
            shots = [((board, point), colour), ((placed, point), colour)]
            observation = self.play(observer, shots + [((placed, None), colour)] * 3)
            board = placed
            if tell:
                observer.known_colours = dict(board)
            yield board, observation


def _first_move(point: int, colour: int) -> list:
    """The shots of a game's first move: a calm empty board, a hand placing, a calm board."""
    placed = {point: colour}
    shots = [({}, None)] * 3 + [({}, point), (placed, point)] + [(placed, None)] * 4
    return [(shot, colour) for shot in shots]


def test_sensor_noise_on_a_dark_table_is_not_a_hand_that_never_leaves():
    """Against the last calm frame a weaker change counts as a hand, but on a dark, noisy
    table the noise alone crossed that line in clusters: the first frame after a move saw a
    "hand", and as the board then stayed the same, the reading stood for the rest of the game
    (a game of the vision bench that found none of its 12 moves)."""
    assert random_scene(1205, (1280, 960))[1].table_rgb == (70, 70, 75)
    point = parse_point("G7R")
    observation = _bench_game_stream(1205, (1280, 960), _first_move(point, 0))
    assert not observation.hand_present
    assert observation.states()[point] >= 0


def test_a_point_the_camera_cannot_see_teaches_no_colour():
    """On the empty board of a game's first frame a point behind the post was taken on a few
    changed pixels; its "colour", the blue cloth's, became colour 0, and every set after it
    took the wrong number (a game of the vision bench that read 4 of 12 moves wrong)."""
    point = parse_point("A1R")
    observation = _bench_game_stream(1308, (1640, 1232), _first_move(point, 0))
    assert observation.states()[point] == 0


def test_colours_founded_before_the_plates_are_learned_are_undone_with_them():
    """A game's first tokens found their colours before enough tokens lie on enough tiers to
    learn the plates' loss: founded three tiers down, a near-black teal set kept its washed
    look, while its tokens read from then on were corrected, and lay nearer the lighter teal
    set (a game of the vision bench that flagged three colour changes that never happened).
    Once the loss is known, it is undone on those colours too, and the game's word on whose
    tokens are whose teaches the loss."""
    seed, size = 1706, (1640, 1232)
    dark, teal = 0, 1  # the renderer's sets: (13, 35, 48) and (27, 140, 148)
    observer = _bench_game_observer(seed, size)
    founded: dict[int, np.ndarray] = {}
    moves = [("E7P", dark), ("G6P", teal), ("B7S", 2), ("C2Q", dark), ("G8S", teal)]
    moves += [("D7P", 2), ("H6P", dark)]
    for (_, colour), _ in zip(moves, _BenchStream(seed, size).moves(observer, moves, tell=True)):
        if colour not in founded:
            founded[colour] = observer.colours.prototypes[colour].copy()
            assert observer._sets.wash.loss is None, "the case this guards: founded before the loss"
    assert observer._sets.wash.loss is not None
    assert not observer._sets.wash.unplated
    for colour, point in ((dark, "E7P"), (teal, "G6P")):  # founded on the bottom tier
        plates = observer.footprints.plates_above[[parse_point(point)]]
        undone = corrected(founded[colour][None, :], plates, *observer._sets.wash.loss)
        now = observer.colours.prototypes[colour][None, :]
        assert (
            match_distance(now, undone)[0, 0] < match_distance(now, founded[colour][None, :])[0, 0]
        )
    # The dark set is darker than the teal one by far more than its washed first token showed.
    gap = observer.colours.prototypes[teal][2] - observer.colours.prototypes[dark][2]
    assert gap > founded[teal][2] - founded[dark][2] + 0.5


def test_a_colour_founded_washed_out_learns_from_the_tokens_the_game_says_are_its():
    """A brown set's first token, two tinted plates down, looks mauve and founds the colour
    so; its next token, on the bottom tier, reads nearer the orange set, and matched by
    distance it never teaches the brown colour what it looks like (a game of the vision
    bench that flagged a colour change that never happened). Told whose tokens are whose,
    the colour learns from them. (Since the plates' wash is also searched from tinted
    light, H1P reads as brown here even untold; before, it read as orange.)"""
    seed, size = 1808, (1640, 1232)
    moves = [("F4R", 0), ("G7P", 1), ("G6Q", 2), ("B5S", 0), ("A5Q", 1), ("H1P", 2), ("G2P", 0)]

    def play(*, tell: bool) -> dict[int, int]:
        observer = _bench_game_observer(seed, size)
        *_, (board, observation) = _BenchStream(seed, size).moves(observer, moves, tell=tell)
        states = observation.states()
        return {point: int(states[point]) for point in board if states[point] != board[point]}

    assert play(tell=False) == {}
    assert play(tell=True) == {}


def test_a_table_clipped_under_a_warmer_light_is_not_a_token():
    """A white laminate table, near clipping in the empty board's picture, clips in red under
    a warmer light: divided by the red gain, the clipped red read darker than the empty
    board and five empty points near the edge took tokens (a scene of the vision bench).
    A clipped channel only says "at least this bright"."""
    tokens, rendered, image, calibration = still_scene(73, (1640, 1232), cast=True)
    observer = Observer(calibration)
    states = observer.observe(image, compare_previous=False).states()
    assert observer._light.gain[2] > 1.2, "the case this guards: a warmer light"
    visible = rendered.visibility >= 0.5
    assert not np.any((states >= 0) & (truth_states(tokens) < 0) & visible)


_GAME_1305 = [("D5S", 0), ("F6S", 1), ("F3S", 2), ("B2R", 0), ("D8Q", 1)]


def test_a_token_the_hand_visit_moves_to_the_point_in_line_keeps_its_reading():
    """D8Q's token is first taken on A7P, in line behind it; the change since the hand came
    fits D8Q far better and moves the token there. D8Q's core had been counted as covered by
    A7P's token, and with no open core the token there read as no token at all (a game of
    the vision bench). Its core is counted again, and the change telling the two points
    apart, they are no toss-up."""
    seed, size = 1305, (1280, 960)
    observer = _bench_game_observer(seed, size)
    *_, (board, observation) = _BenchStream(seed, size).moves(observer, _GAME_1305, tell=True)
    near = parse_point("D8Q")
    assert observation.tokens() == board
    assert observation.in_line[near] == -1
    assert (observation.in_line < 0).all()


def test_a_still_picture_names_the_point_in_line_it_cannot_tell_a_token_from(flat_plates):
    """With no hand visit to compare with, D8Q's token and one on A7P behind it explain the
    picture within the sensor noise of each other (in the game of the vision bench the
    reading went back and forth between them): the point read names the other."""
    seed, size = 1305, (1280, 960)
    stream = _BenchStream(seed, size)
    board = {parse_point(name): colour for name, colour in _GAME_1305}
    image = _with_noise(
        stream.renderings.get(board, None).image_bgr, stream.style.noise_sigma, stream.rng
    )
    observation = _bench_game_observer(seed, size).observe(image, compare_previous=False)
    near, far = parse_point("D8Q"), parse_point("A7P")
    read = near if observation.states()[near] >= 0 else far
    assert observation.states()[read] >= 0
    assert observation.in_line[read] == (far if read == near else near)
    assert np.count_nonzero(observation.in_line >= 0) == 1


@pytest.mark.parametrize("seed, size, cast, read, behind", [(26, (1280, 960), False, "E3R", "H4Q")])
def test_a_toss_up_in_line_is_read_by_the_colour_the_plates_leave(
    seed, size, cast, read, behind, flat_plates
):
    """Two points in line explain the change within the noise, but on different tiers: the
    token's colour with the plates above the right point undone matches its set clearly
    better than with those above the other (a scene of the vision bench, where the token,
    taken on the farther point, went missing on the nearer one). Scene 226 (A5S before C1P)
    was a second case while each in-line pair was scored with every held token set aside at
    once; scored pair by pair, drawn with flat plates, C1P now wins it outright (A5S is
    missed), while on the shipped board, whose plates bend light, A5S reads right."""
    tokens, rendered, image, calibration = still_scene(seed, size, cast=cast)
    here, there = parse_point(read), parse_point(behind)
    assert here in tokens and there not in tokens
    observer = Observer(calibration)
    observation = observer.observe(image, compare_previous=False)
    assert observer._sets.wash.loss is not None
    assert observation.states()[here] >= 0
    assert observation.states()[there] < 0 or observation.visibility[there] < 0.5
    assert observation.in_line[here] == -1


def test_a_toss_up_on_a_point_the_game_holds_is_left_to_the_game():
    """The referee reads a toss-up on a token the game already has the game's way; a colour
    verdict against it would move a token the players placed (scene 226, read as if the
    token had been taken on C1P, behind A5S where it is: the colour moves it to A5S unless
    the game holds C1P)."""
    tokens, rendered, image, calibration = still_scene(226, (1280, 960), cast=False)
    behind, front = parse_point("C1P"), parse_point("A5S")
    observer = Observer(calibration)
    seen: dict = {}
    read = observer._probabilities

    def keep(feats, foreground, *args, **kwargs):
        seen.update(feats=feats, foreground=foreground)
        return read(feats, foreground, *args, **kwargs)

    observer._probabilities = keep
    observation = observer.observe(image, compare_previous=False)
    accepted = observation.states() >= 0
    accepted[front], accepted[behind] = False, True
    n = len(accepted)
    reading = Selection(
        accepted=accepted,
        score=np.ones(n),
        open_core=np.full(n, 10.0),
        active=accepted.copy(),
        in_line=np.array([[behind, front]]),
    )
    by_colour = observer._in_line.by_colour(seen["feats"], seen["foreground"], reading, None)
    assert by_colour.accepted[front] and not by_colour.accepted[behind]
    assert len(by_colour.in_line) == 0
    observer.known_colours = {behind: int(observation.states()[front])}
    left = observer._in_line.by_colour(seen["feats"], seen["foreground"], reading, None)
    assert left.accepted[behind] and not left.accepted[front]
    assert len(left.in_line) == 1


def test_a_navy_and_a_blue_set_merged_by_their_chroma_are_read_as_two():
    """Through the plates a navy set's washed chroma scatters over the blue set's, and the
    two merged into one colour (a scene of the vision bench: 15 wrong points). Their merged
    group spreads in brightness far more than the red set under the same light, and is
    split."""
    observer, _, wrong = read_still(88, (1280, 960), cast=False)
    assert observer.colours.n_colours == 3
    assert wrong <= 5


def test_two_odd_readings_do_not_keep_a_navy_and_a_blue_set_merged():
    """Two of the darkest navy tokens stood apart as a group of their own and took the third
    colour, so the rest of the navy set stayed merged with the blue one, with no room left
    to split them (a scene of the vision bench outside the scenes the observer was tuned on:
    10 wrong points). A group too small to show its own spread gives way to the split."""
    assert read_still(632, (1280, 960), cast=False)[2] <= 4


@pytest.mark.parametrize("seed, size, cast", [(430, (1280, 960), False), (65, (1640, 1232), True)])
def test_an_odd_reading_does_not_take_a_colour_of_its_own_and_merge_two_sets(seed, size, cast):
    """A dark token read almost black (deep shadow) stood apart from every set; counted as a
    colour of its own, it left room for two only, and pink and orange (scene 430), or a
    near-black and a grey set (scene 65), merged: 6 and 5 wrong points. The odd reading
    joins its nearest set instead."""
    assert read_still(seed, size, cast)[2] == 0


def test_a_cast_that_clips_most_of_a_pale_table_still_finds_faint_tokens():
    """A strong cast brightens a pale table past white in red and blue over most of the board
    (a scene of the vision bench). The samples left unclipped were a skewed few: the light
    measured on them came out too dim and tilted, the noise measured over the clipped
    channels hit its cap, and two brown tokens seen through the plates were missed. The
    light is measured again where the reference keeps clear of clipping, and the noise over
    channels clipped on neither side."""
    assert_finds_only_tokens(455, (1640, 1232), True, ("B2Q", "G3Q"))


def test_tokens_seen_past_the_plates_above_them_are_not_undone_as_if_behind_them():
    """Seen obliquely, a lower tier's front points are seen past the plates above it. Their
    tokens showed no wash, yet were taken as seen through every plate above their tier: the
    plates' loss learned from them came out wrong, was undone wrongly on every token, and
    tokens of one set took another's colour (a scene of the vision bench: 6 wrong points).
    The plates in front of each token come from the camera model."""
    assert read_still(418, (1280, 960), cast=False)[2] == 0


def test_a_set_streaked_by_the_plates_is_not_split_while_two_close_sets_merge():
    """Bench scene 403: a dark maroon set the plates' correction streaks from the top tier to
    three plates down, beside a tight yellow and a tight brown set. Merging the closest groups
    first split the maroon set and joined yellow with brown (25 points read wrong); grouped as
    the most likely mixture of three sets, they read as they are."""
    _, states, wrong = read_still(403, (1280, 960), False)
    assert len(np.unique(states[states >= 0])) == 3
    assert wrong <= 2


@pytest.mark.parametrize(
    "seed, size, cast, names",
    [(456, (1640, 1232), True, ("C5Q",)), (226, (1640, 1232), True, ("A5S",))],
)
def test_each_in_line_pair_is_judged_with_only_its_own_farther_token_set_aside(
    seed, size, cast, names
):
    """Judging every accepted far point against its nearer partner at once set all the far
    tokens aside together: their change then spilled into the rings of the nearer partners
    beside them, and a plain token on C5Q (scene 456, read as the empty C4R in line with it)
    or on the top tier (A5S, scene 226) lost to a farther point (scenes of the vision bench)."""
    assert_finds_only_tokens(seed, size, cast, names)


def test_a_tokens_rim_grows_more_contrast_than_its_in_line_partners(scene, crowded):
    """Two points in line see nearly the same core pixels; the outline tells them apart: the
    rim of the point holding the token contrasts more than the rim of the point in line with
    it, whose outline falls inside or outside that token."""
    tokens, rendered, image = crowded
    observer = Observer(scene.calibration)
    accepted = observer.observe(image, compare_previous=False).states() >= 0
    truth = np.zeros(256, bool)
    truth[list(tokens)] = True
    far, near = observer._pixels.in_line_far, observer._pixels.in_line_near
    pairs = (truth[far] ^ truth[near]) & (rendered.visibility[np.where(truth[far], far, near)] >= 0.5)
    held = np.where(truth[far], far, near)[pairs]
    other = np.where(truth[far], near, far)[pairs]
    growth_held = observer._rim.growth(held, accepted, held, observer._light.gain)
    growth_other = observer._rim.growth(other, accepted, held, observer._light.gain)
    judged = ~np.isnan(growth_held) & ~np.isnan(growth_other)
    assert judged.sum() >= 8  # (the others' rims lie mostly under nearby tokens)
    assert (growth_held > growth_other)[judged].mean() >= 0.9
