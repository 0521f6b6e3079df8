"""The frame pipeline: frame -> observer -> tracker -> referee -> events, plus drift checks.

One :class:`Pipeline` watches one board with one calibration. It is synchronous:
:meth:`Pipeline.process` does all the work for a frame and returns the events
it caused, stamped with the game id and the frame's wall-clock time. The runtime
calls it from its processing thread; operator actions arrive from request
threads, so every public method holds one lock.

Every ``drift_interval`` seconds (of frame time), on a frame with no hand in
view, the frame is compared with the calibration's reference: a small camera
shift is re-fitted (new camera model, the observer and tracker rebuilt on it)
and reported as ``camera_moved``; a shift too large to re-fit is reported once
and pauses judging until the camera is back or recalibrated, so that a bumped
tripod does not raise a storm of illegal-move alerts. The frame is also checked
before an illegal change is judged (a shifted view looks like changed tokens),
and while a "hand" stays in view for ``stuck_hand_after`` seconds (a shifted view
also looks like something over the board); as a real hand may then block the
view, only a confident re-fit is acted on in that case. When that check finds the
camera where it was, the observer is told, so that a change on the board it took
for a still hand (see ``Observer.settle``) cannot hold the game up for good. A camera
knocked by the hand placing a token is looked for sooner: once a "hand" has been in view
for ``knock_check_after`` seconds, once per visit, and acted on only if it re-fits.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import cv2
import numpy as np

from device import events as ev
from device.events import Event
from device.referee import Referee, RefereeError
from device.sources.base import Frame
from rules.game import Game
from rules.gryb.games.base import GrybGame
from vision.observation import Observation, Snapshot

logger = logging.getLogger(__name__)

RGB = tuple[int, int, int]
MIN_QUALITY = 0.5  # observations of worse frames (blank, glitched) are not used for drift checks
BLOCKED_RETRY_S = 1.0  # a stuck-hand check that could not see the board is tried again this soon
# The bandanna has no rigid model to re-fit: a shift of the picture this large (full-frame
# pixels, about a third of the smallest node spacing at 1280 px) asks for a new calibration.
BANDANNA_MOVED_PX = 6.0


def is_bandanna(calibration: Any) -> bool:
    """Whether ``calibration`` is of the GRYB bandanna (its files say ``board: "gryb"``)."""
    return getattr(calibration, "board", None) == "gryb"


class ObserverLike(Protocol):
    def observe(self, frame_bgr: np.ndarray) -> Observation: ...


class TrackerLike(Protocol):
    def update(
        self,
        observation: Observation,
        frame_bgr: np.ndarray,
        frame_index: int,
        *,
        held: Mapping[int, int] | None = None,
        expected: int | None = None,
    ) -> Snapshot | None: ...

    def current(self, frame_index: int) -> Snapshot | None: ...


class DriftLike(Protocol):
    shift_px: float
    ok: bool
    refit: Any


class DriftCheckerLike(Protocol):
    def check(self, frame_bgr: np.ndarray) -> DriftLike: ...


ObserverFactory = Callable[..., ObserverLike]  # (calibration, *, palette, sets) -> observer
TrackerFactory = Callable[[int], TrackerLike]  # stable frame count -> tracker
DriftFactory = Callable[
    [Any], DriftCheckerLike | None
]  # calibration -> detector (None: cannot check)


def reference_image(calibration: Any) -> np.ndarray | None:
    """The calibration's empty-board reference image, if it has one."""
    reference = getattr(calibration, "reference_image", None)
    return reference() if callable(reference) else reference


@dataclasses.dataclass(frozen=True)
class ObserverCalibration:
    """What the observer reads off a calibration: the camera, the board, the empty-board
    reference decoded (as stored: the observer reads frames at the reference's resolution,
    so scaling it up first would only blur it), the palette and how far the reference may lie
    off this camera's view (see ``Calibration.reference_misfit_px``)."""

    camera: Any
    spec: Any
    reference: np.ndarray | None
    palette: Sequence[RGB] | None = None
    reference_misfit_px: float = 0.0

    @classmethod
    def of(cls, calibration: Any) -> ObserverCalibration:
        reference = reference_image(calibration)
        palette = getattr(calibration, "palette_rgb", None) or getattr(calibration, "palette", None)
        misfit = float(getattr(calibration, "reference_misfit_px", 0.0))
        return cls(calibration.camera, calibration.spec, reference, palette, misfit)


def make_observer(
    calibration: Any, *, palette: Sequence[RGB] | None = None, sets: int | None = None
) -> ObserverLike:
    """The observer of the calibration's board (rings on nodes, or tokens on points);
    ``sets``: how many token sets the game can put on the stacked board (see
    :class:`vision.observer.Observer`; the bandanna's rings are always its four colours)."""
    if is_bandanna(calibration):
        from vision.gryb_observer import GrybObserver

        return GrybObserver(calibration, palette=palette)
    from vision.observer import Observer

    return Observer(ObserverCalibration.of(calibration), palette=palette, sets=sets)


def sets_in_play(game: Game) -> int | None:
    """How many token sets ``game`` puts on the board (one per player or team), if it says."""
    config = getattr(game, "config", None)
    return getattr(config, "colors_in_play", None)


def make_tracker(stable_frames: int) -> TrackerLike:
    from vision.tracker import Tracker

    return Tracker(stable_frames=stable_frames)


def make_drift_detector(calibration: Any) -> DriftCheckerLike | None:
    reference = reference_image(calibration)
    if reference is None:
        logger.info("the calibration has no empty-board reference: camera drift is not checked")
        return None
    if is_bandanna(calibration):
        return BandannaDrift(reference)
    from calibration.drift import DriftDetector

    return DriftDetector(calibration.camera, calibration.spec, reference)


@dataclasses.dataclass(frozen=True)
class BandannaShift:
    """A drift check of the bandanna: how far the picture moved; never re-fitted."""

    shift_px: float
    ok: bool
    refit: None = None


class BandannaDrift:
    """Drift check of the bandanna against its empty reference picture (phase correlation).

    Cloth has no camera model to re-fit from a shift, so a move beyond
    :data:`BANDANNA_MOVED_PX` asks for recalibration.
    """

    def __init__(self, reference_bgr: np.ndarray, limit_px: float = BANDANNA_MOVED_PX) -> None:
        from vision.gryb_observer import ShiftMeter

        self._meter = ShiftMeter(reference_bgr)
        self._limit = limit_px

    def check(self, frame_bgr: np.ndarray) -> BandannaShift:
        return self.judge(self._meter.shift_px(frame_bgr))

    def judge(self, shift_px: float) -> BandannaShift:
        """The check's result for a shift already measured (the observer's ``drift_px``)."""
        return BandannaShift(float(shift_px), float(shift_px) <= self._limit)


def warp_reference(
    reference: np.ndarray, old: Any, new: Any, spec: Any
) -> tuple[np.ndarray, float]:
    """The reference image as camera ``new`` would see it, from camera ``old``'s view, and
    how far (frame pixels) its details may still lie from where ``new`` sees them.

    A bump mostly turns the camera, which moves the image by a homography; it is
    fitted on the projections of every point centre and landmark (all tiers) and
    applied to the (possibly downscaled) reference. It cannot follow the tiers' parallax:
    what it leaves of the points' shift is the misfit, counted at the 90th percentile
    over them (the replay tests' bump: 0.8 px at the median, 1.8 at the 90th, 3.6 at most).
    """
    from calibration.refraction import through_plates

    landmarks = [xyz for tier in range(4) for xyz in spec.landmarks(tier).values()]
    points = np.vstack([spec.point_centres(), np.array(landmarks, dtype=np.float64)])
    scale = reference.shape[1] / old.image_size[0]
    before, after = (through_plates(camera, spec).project(points) for camera in (old, new))
    homography, _ = cv2.findHomography(before * scale, after * scale)
    if homography is None:
        return reference, float(np.percentile(np.linalg.norm(after - before, axis=1), 90))
    moved = cv2.perspectiveTransform((before * scale).reshape(-1, 1, 2), homography)
    misfit = np.linalg.norm(moved.reshape(-1, 2) / scale - after, axis=1)
    size = (reference.shape[1], reference.shape[0])
    warped = cv2.warpPerspective(
        reference, homography, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return warped, float(np.percentile(misfit, 90))


def refitted_calibration(
    calibration: Any,
    camera: Any,
    frame: np.ndarray | None = None,
    make_reader: Callable[[Any], Any] | None = None,
    held: Iterable[int] = (),
) -> Any:
    """``calibration`` with a re-fitted camera and its reference image moved to match, with
    the misfit that moving left (added to any left by an earlier bump). Given the ``frame``
    the camera was re-fitted from and ``make_reader`` (an observer for a calibration), the
    moved reference is also registered to that frame (see :func:`registered_calibration`;
    ``held``: the tokens the game holds)."""
    moved = dataclasses.replace(calibration, camera=camera)
    reference = reference_image(calibration)
    if reference is None or not hasattr(moved, "with_reference"):
        return moved
    warped, misfit = warp_reference(reference, calibration.camera, camera, calibration.spec)
    misfit += float(getattr(calibration, "reference_misfit_px", 0.0))
    # (keep its resolution)
    moved = moved.with_reference(warped, max_width=warped.shape[1], misfit_px=misfit)
    if frame is None or make_reader is None:
        return moved
    return registered_calibration(moved, make_reader, frame, held)


def registered_calibration(
    calibration: Any, make_reader: Callable[[Any], Any], frame: np.ndarray, held: Iterable[int]
) -> Any:
    """``calibration`` (just re-fitted, its reference moved) with that reference registered
    to the ``frame`` it was re-fitted from (see :mod:`calibration.registration`), except
    under the tokens the game holds (``held``) and those a still read of the frame finds
    (by an observer of its own, ``make_reader(calibration)``, made only when there is a
    misfit to take out: nothing that read learns stays); as it is when the frame shows a
    hand. Its misfit stays (it still holds under the tokens)."""
    from calibration.registration import misfit_disc, registered_to

    reference = reference_image(calibration)
    misfit = float(getattr(calibration, "reference_misfit_px", 0.0))
    if reference is None:
        return calibration
    misfit_px = misfit * reference.shape[1] / calibration.camera.image_size[0]
    disc = misfit_disc(misfit_px)
    if disc is None:
        return calibration
    reader = make_reader(calibration)
    if not hasattr(reader, "token_mask"):
        return calibration
    reading = reader.observe(frame, compare_previous=False)
    if reading.hand_present:
        return calibration
    size = (reference.shape[1], reference.shape[0])
    under = reader.token_mask(set(held) | set(reading.tokens()))
    keep = cv2.dilate(cv2.resize(under, size, interpolation=cv2.INTER_NEAREST), disc) > 0
    registered = registered_to(reference, frame, misfit_px, keep)
    return calibration.with_reference(registered, max_width=size[0], misfit_px=misfit)


def new_game_id() -> str:
    """A fresh, short, unique game id."""
    return uuid.uuid4().hex[:12]


class Pipeline:
    """Watches one board: ``process(frame)`` for every frame, operator actions in between.

    ``game`` is the rules engine of the game being played (it is played on:
    moves are pushed as they are read). When a finished game's board is cleared
    a new game with the same settings starts (``game_started``) and gets a new
    id, if the pipeline was given one. ``observer_factory``, ``tracker_factory``
    and ``drift_factory`` default to the vision and calibration packages' parts;
    tests pass their own.

    Two trackers read the same observations: a board that is a legal change (a
    move) is judged as soon as it has held still, with no hand and no motion, for
    ``quick_frames`` frames (the alert is out a quarter second after the hand
    leaves at 4 fps); anything else must hold for ``stable_frames`` frames before
    it is judged, so a reading that flickers for a frame never raises an alert.
    ``mid_game``: the frames start during a game (a support bundle): the first
    still board is taken as the game so far (see :meth:`Referee.adopt`).
    Raises ``ValueError`` unless ``1 <= quick_frames <= stable_frames``.
    """

    def __init__(
        self,
        calibration: Any,
        game: Game,
        *,
        palette: Sequence[RGB] | None = None,
        game_id: str | None = None,
        stable_frames: int = 3,
        quick_frames: int = 1,
        drift_interval: float = 5.0,
        stuck_hand_after: float = 3.0,
        knock_check_after: float | None = 1.0,
        observer_factory: ObserverFactory = make_observer,
        tracker_factory: TrackerFactory = make_tracker,
        drift_factory: DriftFactory | None = make_drift_detector,
        mid_game: bool = False,
    ) -> None:
        self._lock = threading.RLock()
        self._palette = list(palette) if palette is not None else None
        self._observer_factory = observer_factory
        if not 1 <= quick_frames <= stable_frames:
            raise ValueError(
                f"need 1 <= quick_frames <= stable_frames, not {quick_frames}, {stable_frames}"
            )
        self._tracker_factory = tracker_factory
        self._stable_frames = stable_frames
        self._quick_frames = quick_frames
        self._drift_factory = drift_factory
        self._drift_interval = drift_interval
        self._stuck_hand_after = stuck_hand_after
        self._knock_check_after = knock_check_after
        self._knock_checked_for: float | None = None  # (the hand visit last looked at so)
        self._hand_since: float | None = None
        self._frames_since_hand: int | None = None  # (None: no hand seen yet)
        # The board read on the first calm frame after the last hand, when the camera was
        # checked then and found in place (see _impossible_board_after_hand).
        self._board_checked: Snapshot | None = None
        self._view_blocked = False  # the last stuck-hand check saw neither board nor a shift
        self._shifted_frames = 0
        self.game_id = game_id
        self._calibration = calibration
        self._sets = sets_in_play(game)
        self._observer = observer_factory(calibration, palette=self._palette, sets=self._sets)
        self._new_trackers()
        self._drift = drift_factory(calibration) if drift_factory is not None else None
        self._referee = Referee(game, new_game=self._fresh_game_factory(game))
        self._last_observation: Observation | None = None
        self._last_frame: int | None = None
        self._last_frame_time: float | None = None
        self._last_drift_check: float | None = None
        self._last_drift_frame: int | None = None
        self._needs_recalibration = False
        self._last_shift_px: float | None = None
        self._adopt_first_board = mid_game

    # -- properties ---------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self._referee.game

    @property
    def referee(self) -> Referee:
        return self._referee

    @property
    def calibration(self) -> Any:
        """The calibration in use (it changes when a camera shift is re-fitted)."""
        return self._calibration

    # -- per frame --------------------------------------------------------------------
    def process(self, frame: Frame, *, now: float | None = None) -> list[Event]:
        """Read one frame; return the events it caused. ``now`` is the frame's wall-clock
        time for the events (default: the current time). The observer's ``ValueError``
        for a frame of the wrong size or type is passed on (nothing changes then)."""
        with self._lock:
            stamp = time.time() if now is None else now
            # The colour to play: the stacked board learns colours from the game, and its
            # trackers take a new token to be this colour when the reading is a close call.
            expected = self._referee.rules.turn_color(self._referee.game)
            if hasattr(self._observer, "expected_colour"):
                self._observer.expected_colour = expected
            held = self._referee.position()  # the game's tokens: point -> colour
            if hasattr(self._observer, "known_colours"):
                self._observer.known_colours = held
            observation = self._observer.observe(frame.image)
            self._last_observation = observation
            self._last_frame = frame.seq
            self._last_frame_time = frame.timestamp
            out = self._watch_camera(observation, frame)
            if self._needs_recalibration:
                return self._stamp(out, stamp)
            snapshot = self._settled(observation, frame, expected, held)
            drift = self._drift
            board = self._impossible_board_after_hand(frame) if snapshot is None else None
            if board is not None:
                out += self._refit_if_knocked(drift, frame, board=board)
            if (
                snapshot is not None
                and drift is not None
                and self._last_drift_frame != frame.seq
                and not self._checked_already(snapshot)
                and not self._referee.is_plausible(snapshot)
            ):
                # An illegal change is about to be judged: first make sure the camera did not move.
                calibration = self._calibration
                out += self._check_drift(drift, frame)
                if self._calibration is not calibration or self._needs_recalibration:
                    snapshot = None  # read with the old calibration; the new trackers read it again
            if snapshot is not None and self._adopt_first_board:
                self._adopt_first_board = False
                if snapshot.tokens:  # a board already in play, not a game about to start
                    try:
                        out += self._referee.adopt(snapshot)
                        snapshot = None
                    except RefereeError as exc:
                        logger.warning("cannot take the first board as the game so far: %s", exc)
            if snapshot is not None:
                game = self._referee.game
                out += self._referee.feed(snapshot)
                if self._referee.game is not game and self.game_id is not None:
                    self.game_id = new_game_id()  # the board was cleared after the end: a new game
            return self._stamp(out, stamp)

    def _watch_camera(self, observation: Observation, frame: Frame) -> list[Event]:
        """The periodic drift check, and the check when a "hand" never leaves."""
        if not observation.hand_present:
            self._hand_since = None
        elif self._hand_since is None:
            self._hand_since = frame.timestamp
        drift = self._drift
        if isinstance(drift, BandannaDrift):
            return self._watch_bandanna(drift, observation, frame)
        if drift is None or observation.quality < MIN_QUALITY:
            return []  # a blank or glitched frame says nothing about where the camera is
        if not observation.hand_present and self._drift_due(frame.timestamp):
            return self._check_drift(drift, frame)
        if self._hand_stuck(frame.timestamp):
            # A "hand" that never moves away may be the whole board seen off its calibration.
            return self._check_drift(drift, frame, refit_only=True)
        if self._knock_due(frame.timestamp):
            return self._check_for_knock(drift, frame)
        return []

    def _knock_due(self, timestamp: float) -> bool:
        """A "hand" has been in view for ``knock_check_after`` seconds and this visit has not
        been looked at for a knocked camera yet."""
        since = self._hand_since
        if self._knock_check_after is None or since is None or self._knock_checked_for == since:
            return False
        return timestamp - since >= self._knock_check_after

    def _check_for_knock(self, drift: DriftCheckerLike, frame: Frame) -> list[Event]:
        """The hand that placed a token may have knocked the camera: every read since shows
        the whole board changed, a "hand" that stays. Re-fitted 3 s later (the stuck-hand
        check), its move came after the player had looked at the phone and told it (bench
        games with ``--bump``). Only a re-fit is acted on: the view may be a real hand's, and
        the stuck-hand check keeps its own clock (nothing is settled here)."""
        self._knock_checked_for = self._hand_since
        return self._refit_if_knocked(drift, frame)

    def _impossible_board_after_hand(self, frame: Frame) -> Snapshot | None:
        """The board of this frame (not settled yet) if it is the first calm frame after a
        hand and no legal change of the game. The hand may have knocked the camera: in bench
        game 1011 (``--bump 1``) the knocking hand stayed under a second, the moved view read
        a phantom beside the new token, and the move waited for the camera check that an
        illegal board gets once it has settled; its player had looked at the phone and told
        it by then. One drift check then, acted on only if it re-fits."""
        drift = self._drift
        if drift is None or isinstance(drift, BandannaDrift) or self._frames_since_hand != 1:
            return None
        if self._last_drift_frame == frame.seq:
            return None
        board = self._quick.current(frame.seq)
        return board if board is not None and not self._referee.is_plausible(board) else None

    def _checked_already(self, snapshot: Snapshot) -> bool:
        """Was the camera found in place on the first calm frame after the last hand, with
        this very board in view? Then the illegal board needs no second check when it has
        settled (a drift check costs a Raspberry Pi most of a second)."""
        return snapshot.same_board(self._board_checked)

    def _refit_if_knocked(
        self, drift: DriftCheckerLike, frame: Frame, *, board: Snapshot | None = None
    ) -> list[Event]:
        """A drift check whose verdict counts only when it re-fits the calibration; the
        ``board`` in view when it found the camera in place is remembered."""
        result = self._drift_result(drift, frame)
        if result is not None and result.ok and result.refit is None:
            self._board_checked = board
        if result is None or result.refit is None:
            return []
        self._last_drift_frame = frame.seq
        self._last_drift_check = frame.timestamp
        return self._on_drift(result, frame)

    def _watch_bandanna(
        self, drift: BandannaDrift, observation: Observation, frame: Frame
    ) -> list[Event]:
        """The bandanna's observer measures its shift on every frame (``drift_px``); a shift
        that holds for ``stable_frames`` frames is acted on like a drift check's."""
        result = drift.judge(observation.drift_px)
        self._shifted_frames = 0 if result.ok else self._shifted_frames + 1
        if not result.ok and self._shifted_frames < self._stable_frames:
            return []
        self._last_drift_frame = frame.seq
        self._last_drift_check = frame.timestamp
        return self._on_drift(result, frame)

    def _new_trackers(self) -> None:
        self._quick = self._tracker_factory(self._quick_frames)
        self._tracker = self._tracker_factory(self._stable_frames)

    def _settled(
        self,
        observation: Observation,
        frame: Frame,
        expected: int | None,
        position: dict[int, int],
    ) -> Snapshot | None:
        """The board to judge now, if any: a legal change as soon as it has held still for
        ``quick_frames`` frames, anything else once it has for ``stable_frames``
        (``expected``: the colour to play; ``position``: the game's tokens). The quick way
        is for the board a hand (or motion) just left, within ``stable_frames`` frames of
        it: a token is placed by a hand. A change no hand came before waits the full count,
        since it may be the first frame of a hand reaching in: fingers the table's colour,
        mostly beyond the board, showed only their tip over A1S, read as the next player's
        token and announced (bench game 7802; the hand was seen the next frame)."""
        if observation.hand_present:
            self._frames_since_hand = 0
            self._board_checked = None
        elif self._frames_since_hand is not None:
            self._frames_since_hand += 1
        after_hand = (
            self._frames_since_hand is not None and self._frames_since_hand <= self._stable_frames
        )
        # The tokens the game already has keep their colours, and a new one is the colour to
        # play, through a misread between two close sets (see vision.tracker.steadied): the
        # rules engine as a filter.
        held = position if not observation.hand_present else None
        quick = self._quick.update(
            observation, frame.image, frame.seq, held=held, expected=expected
        )
        steady = self._tracker.update(
            observation, frame.image, frame.seq, held=held, expected=expected
        )
        if quick is not None and after_hand and self._referee.is_plausible(quick):
            return quick
        return steady

    def _drift_due(self, timestamp: float) -> bool:
        if self._last_drift_check is None:
            self._last_drift_check = timestamp  # the first frame defines the clock; check later
            return False
        return timestamp - self._last_drift_check >= self._drift_interval

    def _hand_stuck(self, timestamp: float) -> bool:
        """A hand has been reported for ``stuck_hand_after`` seconds and no check was made
        since; or the last such check could not see the board (a real hand over it, most
        likely, which will move): then a second is long enough to wait."""
        if self._hand_since is None or timestamp - self._hand_since < self._stuck_hand_after:
            return False
        wait = BLOCKED_RETRY_S if self._view_blocked else self._stuck_hand_after
        return self._last_drift_check is None or timestamp - self._last_drift_check >= wait

    @staticmethod
    def _drift_result(drift: DriftCheckerLike, frame: Frame) -> DriftLike | None:
        """The drift check of ``frame``, or None (logged) if it failed: a drift check must
        never stop the game being watched."""
        try:
            return drift.check(frame.image)
        except Exception:
            logger.exception("drift check failed on frame %d", frame.seq)
            return None

    def _check_drift(
        self, drift: DriftCheckerLike, frame: Frame, *, refit_only: bool = False
    ) -> list[Event]:
        """Compare the frame with the reference and act on it. ``refit_only``: the view may be
        blocked by a real hand, so only a confident re-fit counts, never "camera lost"."""
        self._last_drift_frame = frame.seq
        self._last_drift_check = frame.timestamp
        result = self._drift_result(drift, frame)
        if result is None:
            return []
        self._view_blocked = refit_only and result.refit is None and not result.ok
        if refit_only and result.refit is None:
            if result.ok and hasattr(self._observer, "settle"):
                # The camera is where it was: what the observer took for a hand all that time
                # may be a change on the board itself (it decides).
                self._observer.settle()
            return []
        return self._on_drift(result, frame)

    def _on_drift(self, result: DriftLike, frame: Frame) -> list[Event]:
        """Re-fit, pause for recalibration, or resume, as the drift check's ``result`` says."""
        self._last_shift_px = float(result.shift_px)
        if result.refit is not None:
            logger.info("camera moved %.1f px; re-fitted the calibration", result.shift_px)
            moved = refitted_calibration(
                self._calibration,
                result.refit,
                frame.image,
                self._reader_for,
                self._referee.position(),
            )
            self._set_calibration(moved, moved_only=True)
            self._needs_recalibration = False
            return [
                Event(
                    ev.CAMERA_MOVED,
                    {
                        "shift_px": round(float(result.shift_px), 1),
                        "refit": True,
                        "recalibrate": False,
                    },
                    frame=frame.seq,
                )
            ]
        if result.ok:
            if self._needs_recalibration:
                logger.info("camera is back where it was calibrated")
                self._needs_recalibration = False
                self._new_trackers()
            return []
        if self._needs_recalibration:
            return []  # said once; the dashboard shows it until it is fixed
        logger.warning("camera moved %.1f px, too far to re-fit: recalibrate", result.shift_px)
        self._needs_recalibration = True
        return [
            Event(
                ev.CAMERA_MOVED,
                {"shift_px": round(float(result.shift_px), 1), "refit": False, "recalibrate": True},
                frame=frame.seq,
            )
        ]

    def _stamp(self, events: list[Event], now: float) -> list[Event]:
        return [dataclasses.replace(event, time=now, game_id=self.game_id) for event in events]

    # -- state ----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What the camera sees now, for the dashboard: the board, tokens read in the last
        frame (names -> colour), hidden points (nodes on the bandanna), whether a hand is in
        view, the points that differ from the last legal state, the pending alert, and the
        camera's calibration status."""
        with self._lock:
            obs = self._last_observation
            hand, seconds = self.hand_in_view()
            pending = self._referee.pending_record()
            name = self._referee.rules.name
            return {
                "board": self._referee.rules.board,
                "game_id": self.game_id,
                "tokens": {name(p): c for p, c in sorted(obs.tokens().items())} if obs else {},
                "hidden": [name(p) for p in obs.hidden()] if obs else [],
                "hand": hand,
                "hand_seconds": seconds,
                "mismatch": [name(p) for p in self._referee.mismatch_points()],
                "pending": pending,
                "observation": None
                if obs is None
                else {
                    "frame": self._last_frame,
                    "quality": round(float(obs.quality), 3),
                    "drift_px": round(float(obs.drift_px), 2),
                    "tokens": len(obs.tokens()),
                },
                "camera": {
                    "needs_recalibration": self._needs_recalibration,
                    "last_shift_px": self._last_shift_px,
                },
            }

    def hand_in_view(self) -> tuple[bool, float]:
        """Whether the last frame showed a "hand", and for how long one has been in view
        without a break, in frame time (0.0: none). Cheap: the runtime asks every frame."""
        with self._lock:
            hand = bool(self._last_observation.hand_present) if self._last_observation else False
            if self._hand_since is None or self._last_frame_time is None:
                return hand, 0.0
            return hand, round(max(0.0, self._last_frame_time - self._hand_since), 1)

    # -- operator actions ---------------------------------------------------------------------
    def accept(self) -> list[Event]:
        """See :meth:`Referee.accept`; raises :class:`~device.referee.RefereeError`."""
        return self._act(self._referee.accept)

    def correct(self, point: int, color: int | None) -> list[Event]:
        """See :meth:`Referee.correct`; raises :class:`~device.referee.RefereeError`."""
        return self._act(lambda: self._referee.correct(point, color))

    def confirm_hidden(self, point: int) -> list[Event]:
        """See :meth:`Referee.confirm_hidden`; raises :class:`~device.referee.RefereeError`."""
        return self._act(lambda: self._referee.confirm_hidden(point))

    def undo(self) -> list[Event]:
        """See :meth:`Referee.undo`; raises :class:`~device.referee.RefereeError`."""
        return self._act(self._referee.undo)

    def choose_colour(self, color: int) -> list[Event]:
        """See :meth:`Referee.choose_colour`; raises :class:`~device.referee.RefereeError`."""
        return self._act(lambda: self._referee.choose_colour(color))

    def roll(self, face: str | None = None) -> list[Event]:
        """See :meth:`Referee.roll`; raises :class:`~device.referee.RefereeError`."""
        return self._act(lambda: self._referee.roll(face))

    def new_game(self, game: Game, game_id: str | None = None) -> list[Event]:
        """Watch a new game from now on (operator's "new game"): its ``game_started``, then what
        the board last seen means for it (tokens still on the board are an illegal change)."""
        with self._lock:
            self.game_id = game_id
            sets = sets_in_play(game)
            if sets != self._sets:  # (the colours learned were capped for the old one)
                self._sets = sets
                self._observer = self._observer_factory(
                    self._calibration, palette=self._palette, sets=self._sets
                )
            started = Event(ev.GAME_STARTED, {"reason": "new game"}, frame=self._last_frame)
            judged = self._referee.reset(game, new_game=self._fresh_game_factory(game))
            return self._stamp([started, *judged], time.time())

    def set_calibration(self, calibration: Any) -> None:
        """Use a new calibration (wizard, recalibration); the tracker starts over."""
        with self._lock:
            self._set_calibration(calibration)
            self._needs_recalibration = False

    def _reader_for(self, calibration: Any) -> Any:
        """An observer of ``calibration`` (the camera re-fitted) that knows what the current
        one learned: for a read whose lessons are not kept, and for the next observer."""
        reader = self._observer_factory(calibration, palette=self._palette, sets=self._sets)
        if hasattr(reader, "keep_learned_from"):
            reader.keep_learned_from(self._observer)
        return reader

    def _set_calibration(self, calibration: Any, *, moved_only: bool = False) -> None:
        """Use ``calibration``; ``moved_only``: it is the last one re-fitted after the camera
        moved, so what the observer learned of this camera's colours still holds."""
        self._calibration = calibration
        self._observer = (
            self._reader_for(calibration)
            if moved_only
            else self._observer_factory(calibration, palette=self._palette, sets=self._sets)
        )
        self._new_trackers()
        self._drift = self._drift_factory(calibration) if self._drift_factory is not None else None
        self._board_checked = None  # (a check against the old calibration says nothing now)

    def _act(self, action: Callable[[], list[Event]]) -> list[Event]:
        with self._lock:
            return self._stamp(action(), time.time())

    @staticmethod
    def _fresh_game_factory(game: Game) -> Callable[[], Game] | None:
        """A maker of new games with ``game``'s settings (a GRYB game's name and options with
        a new seed; a stacked-board game's ``config``), else ``None``."""
        if isinstance(game, GrybGame):
            gryb_kind, options = type(game), game.options
            return lambda: gryb_kind(options)
        config = getattr(game, "config", None)
        if config is None:
            return None
        kind = type(game)
        return lambda: kind(config)  # type: ignore[call-arg]
