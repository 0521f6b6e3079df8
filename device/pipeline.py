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
tripod does not raise a storm of illegal-move alerts.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from device import events as ev
from device.events import Event
from device.referee import Referee
from device.sources.base import Frame
from rules.game import Game
from rules.timevectors.points import point_name
from vision.observation import Observation, Snapshot

logger = logging.getLogger(__name__)

RGB = tuple[int, int, int]


class ObserverLike(Protocol):
    def observe(self, frame_bgr: np.ndarray) -> Observation: ...


class TrackerLike(Protocol):
    def update(self, observation: Observation, frame_bgr: np.ndarray, frame_index: int) -> Snapshot | None: ...


class DriftLike(Protocol):
    shift_px: float
    ok: bool
    refit: Any


ObserverFactory = Callable[..., ObserverLike]  # (calibration, *, palette) -> observer
TrackerFactory = Callable[[], TrackerLike]
DriftCheck = Callable[[Any, np.ndarray], DriftLike]  # (calibration, frame_bgr) -> DriftResult


def _default_observer(calibration: Any, *, palette: Sequence[RGB] | None = None) -> ObserverLike:
    from vision.observer import Observer

    return Observer(calibration, palette=palette)


def _default_tracker(stable_frames: int) -> TrackerFactory:
    def make() -> TrackerLike:
        from vision.tracker import Tracker

        return Tracker(stable_frames=stable_frames)

    return make


def _default_drift_check(calibration: Any, frame_bgr: np.ndarray) -> DriftLike:
    from calibration.drift import check_drift

    return check_drift(calibration, frame_bgr)


def new_game_id() -> str:
    """A fresh, short, unique game id."""
    return uuid.uuid4().hex[:12]


class Pipeline:
    """Watches one board: ``process(frame)`` for every frame, operator actions in between.

    ``game`` is the rules engine of the game being played (it is played on:
    moves are pushed as they are read). When a finished game's board is cleared
    a new game with the same settings starts (``game_started``) and gets a new
    id, if the pipeline was given one. ``observer_factory``, ``tracker_factory``
    and ``drift_check`` default to the vision and calibration packages' parts;
    tests pass their own.
    """

    def __init__(
        self,
        calibration: Any,
        game: Game,
        *,
        palette: Sequence[RGB] | None = None,
        game_id: str | None = None,
        stable_frames: int = 3,
        drift_interval: float = 5.0,
        observer_factory: ObserverFactory = _default_observer,
        tracker_factory: TrackerFactory | None = None,
        drift_check: DriftCheck | None = _default_drift_check,
    ) -> None:
        self._lock = threading.RLock()
        self._palette = list(palette) if palette is not None else None
        self._observer_factory = observer_factory
        self._tracker_factory = tracker_factory or _default_tracker(stable_frames)
        self._drift_check = drift_check
        self._drift_interval = drift_interval
        self.game_id = game_id
        self._calibration = calibration
        self._observer = observer_factory(calibration, palette=self._palette)
        self._tracker = self._tracker_factory()
        self._referee = Referee(game, new_game=self._fresh_game_factory(game))
        self._last_observation: Observation | None = None
        self._last_frame: int | None = None
        self._last_drift_check: float | None = None
        self._needs_recalibration = False
        self._last_shift_px: float | None = None

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
        time for the events (default: the current time)."""
        with self._lock:
            stamp = time.time() if now is None else now
            observation = self._observer.observe(frame.image)
            self._last_observation = observation
            self._last_frame = frame.seq
            out: list[Event] = []
            check = self._drift_check
            if check is not None and not observation.hand_present and self._drift_due(frame.timestamp):
                out += self._check_drift(check, frame)
            if self._needs_recalibration:
                return self._stamp(out, stamp)
            snapshot = self._tracker.update(observation, frame.image, frame.seq)
            if snapshot is not None:
                out += self._referee.feed(snapshot)
            return self._stamp(out, stamp)

    def _drift_due(self, timestamp: float) -> bool:
        if self._last_drift_check is None:
            self._last_drift_check = timestamp  # the first frame defines the clock; check later
            return False
        if timestamp - self._last_drift_check < self._drift_interval:
            return False
        self._last_drift_check = timestamp
        return True

    def _check_drift(self, check: DriftCheck, frame: Frame) -> list[Event]:
        try:
            result = check(self._calibration, frame.image)
        except Exception:  # a drift check must never stop the game being watched
            logger.exception("drift check failed on frame %d", frame.seq)
            return []
        self._last_shift_px = float(result.shift_px)
        if result.refit is not None:
            logger.info("camera moved %.1f px; re-fitted the calibration", result.shift_px)
            self._set_calibration(dataclasses.replace(self._calibration, camera=result.refit))
            self._needs_recalibration = False
            return [Event(ev.CAMERA_MOVED, {"shift_px": round(float(result.shift_px), 1), "refit": True,
                                            "recalibrate": False}, frame=frame.seq)]
        if result.ok:
            if self._needs_recalibration:
                logger.info("camera is back where it was calibrated")
                self._needs_recalibration = False
                self._tracker = self._tracker_factory()
            return []
        if self._needs_recalibration:
            return []  # said once; the dashboard shows it until it is fixed
        logger.warning("camera moved %.1f px, too far to re-fit: recalibrate", result.shift_px)
        self._needs_recalibration = True
        return [Event(ev.CAMERA_MOVED, {"shift_px": round(float(result.shift_px), 1), "refit": False,
                                        "recalibrate": True}, frame=frame.seq)]

    def _stamp(self, events: list[Event], now: float) -> list[Event]:
        stamped = []
        for event in events:
            if event.type == ev.GAME_STARTED and self.game_id is not None:
                self.game_id = new_game_id()
            stamped.append(dataclasses.replace(event, time=now, game_id=self.game_id))
        return stamped

    # -- state ----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What the camera sees now, for the dashboard: tokens read in the last frame (names
        -> colour), hidden points, whether a hand is in view, the points that differ from the
        last legal state, the pending alert, and the camera's calibration status."""
        with self._lock:
            obs = self._last_observation
            pending = self._referee.pending_record()
            return {
                "game_id": self.game_id,
                "tokens": {point_name(p): c for p, c in sorted(obs.tokens().items())} if obs else {},
                "hidden": [point_name(p) for p in obs.hidden()] if obs else [],
                "hand": bool(obs.hand_present) if obs else False,
                "mismatch": [point_name(p) for p in self._referee.mismatch_points()],
                "pending": pending,
                "observation": None if obs is None else {
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

    def new_game(self, game: Game, game_id: str | None = None) -> list[Event]:
        """Watch a new game from now on (operator's "new game"); returns its ``game_started``."""
        with self._lock:
            self._referee = Referee(game, new_game=self._fresh_game_factory(game))
            self.game_id = game_id
            event = Event(ev.GAME_STARTED, {"reason": "new game"}, game_id=game_id)
            return [event]

    def set_calibration(self, calibration: Any) -> None:
        """Use a new calibration (wizard, recalibration); the tracker starts over."""
        with self._lock:
            self._set_calibration(calibration)
            self._needs_recalibration = False

    def _set_calibration(self, calibration: Any) -> None:
        self._calibration = calibration
        self._observer = self._observer_factory(calibration, palette=self._palette)
        self._tracker = self._tracker_factory()

    def _act(self, action: Callable[[], list[Event]]) -> list[Event]:
        with self._lock:
            return self._stamp(action(), time.time())

    @staticmethod
    def _fresh_game_factory(game: Game) -> Callable[[], Game] | None:
        """A maker of new games with ``game``'s settings, when the game has a ``config``."""
        config = getattr(game, "config", None)
        if config is None:
            return None
        kind = type(game)
        return lambda: kind(config)  # type: ignore[call-arg]
