"""The live companion: capture, referee, persist and announce, off the web request threads.

Two threads do the work. The capture thread reads the source and keeps only
the newest frame (handed over through a ``threading.Condition``; a consumer that
falls behind skips frames, nothing queues up). The processing thread runs the
pipeline on that newest frame, commits every accepted move to SQLite (with a
JPEG snapshot) *before* anything is announced, then fans the event records out
to the dashboard's live clients and to the event bus that feeds the push
sinks. A source that fails is reconnected with exponential backoff and the
camera status says so. Every buffer is bounded, so memory stays flat for hours.

Control (new game, accept, correct, confirm, 3MEQ colour choice, undo, calibration) comes from the
web request threads and runs under the same lock as the pipeline.
"""

from __future__ import annotations

import hmac
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from device import game_view
from device.boards import board_rules
from device.config import OPENINGS, PLAYER_COUNTS, Config
from device.events import CAMERA_STATUS, GAME_STARTED, MOVE, UNDO, Event, EventBus
from device.open_alert import ABOUT_THE_BOARD, open_alert, repeats
from device.overlay import Overlay, camera_of, encode_jpeg
from device.sinks import Sink, SinkDispatcher
from device.sources.base import Frame, FrameSource, SourceError
from device.store import Store, StoredMove, UnknownGameError, iso_time
from rules.errors import IllegalMoveError
from rules.timevectors import Move
from rules.timevectors.moves import CHOOSE

logger = logging.getLogger(__name__)

# Camera status values of ``state()["camera"]["status"]``.
CAMERA_STARTING = "starting"
CAMERA_OK = "ok"
CAMERA_DEMO = "demo"
CAMERA_RECONNECTING = "reconnecting"
CAMERA_FAILED = "failed"  # still retrying, but it has failed many times in a row
CAMERA_ENDED = "ended"  # a video file or folder played to its end

#: Consecutive failed reconnects after which the status turns from reconnecting to failed.
FAILED_AFTER = 5
#: Seconds without a frame from a live source before it counts as gone.
STALL_SECONDS = 10.0
ALERT_HISTORY = 50
SUBSCRIBER_QUEUE = 256
HAND_STATE_EVERY_S = 10.0  # while a "hand" stays in view, phones get a fresh state this often
#: Cap of the support bundle's frame buffer (a minute of 1280x960 JPEGs at 4 fps is ~25 MiB).
RECENT_MAX_BYTES = 48 * 2**20

PipelineFactory = Callable[..., Any]


class ControlError(ValueError):
    """A control request that cannot be carried out (bad player count, opening, point, colour,
    or an action that needs a calibration when there is none). Nothing was changed."""


def default_pipeline_factory(calibration: Any, game: Any, *, palette: Any = None, game_id: str | None = None,
                             stable_frames: int = 3) -> Any:
    """The real frame pipeline (imported on first use: it pulls in the vision stack)."""
    from device.pipeline import Pipeline

    return Pipeline(calibration, game, palette=palette, game_id=game_id, stable_frames=stable_frames)


def calibration_summary(calibration: Any) -> dict[str, Any]:
    """What the dashboard shows about the calibration in use."""
    if calibration is None:
        return {"loaded": False}
    camera = camera_of(calibration)
    summary: dict[str, Any] = {"loaded": True}
    for key in ("board", "path", "rms_px", "created"):
        value = getattr(calibration, key, None)
        if isinstance(value, (str, int, float)):
            summary[key] = value
    if camera is not None:
        summary["image_size"] = list(camera.image_size)
    return summary


def calibration_record(calibration: Any) -> dict[str, Any] | None:
    """The calibration's JSON form when it has one (``to_dict``), for the store and bundles."""
    to_dict = getattr(calibration, "to_dict", None)
    return to_dict() if callable(to_dict) else None


class Runtime:
    """The running companion; see the module docstring. The web layer only uses this API.

    ``pipeline_factory(calibration, game, palette=, game_id=)`` builds the
    frame pipeline (the real one by default); ``game_factory(players, opening)``
    and ``game_loader(state)`` build and restore rules engines.
    """

    def __init__(
        self,
        source: FrameSource,
        *,
        store: Store,
        calibration: Any = None,
        sinks: Sequence[Sink] = (),
        pin: str,
        config: Config | None = None,
        palette: Sequence[Sequence[int]] | None = None,
        pipeline_factory: PipelineFactory = default_pipeline_factory,
        game_factory: Callable[[int, str], Any] = game_view.new_game,
        game_loader: Callable[[dict[str, Any]], Any] = game_view.load_game,
        backoff: tuple[float, float] = (0.5, 30.0),
        board: str = game_view.BOARD,
    ) -> None:
        if not pin:
            raise ControlError("a runtime needs a PIN for control actions")
        self.source = source
        self.store = store
        self.config = config or Config()
        self.palette = palette
        self._pin = str(pin)
        self._pipeline_factory = pipeline_factory
        self._game_factory = game_factory
        self._game_loader = game_loader
        self.board = board  # games of another board in the store are not resumed
        self._backoff_min, self._backoff_max = backoff

        self._lock = threading.RLock()  # game, pipeline, calibration, alerts
        self._subscribers_lock = threading.Lock()
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []
        self._frame_ready = threading.Condition()
        self._newest: Frame | None = None
        self._newest_count = 0  # frames captured so far; tells a new frame from a repeat
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

        seconds = self.config.storage.bundle_seconds
        self._recent_seconds = seconds
        self._recent: deque[tuple[float, bytes, int]] = deque()  # wall time, JPEG, moves played before it
        self._recent_bytes = 0
        self._latest_jpeg_raw: bytes | None = None
        self._annotated: tuple[tuple[int, int], bytes] | None = None
        self._version = 0  # bumped whenever the state changes (annotation cache key)
        self._view_key: tuple[bool, int] = (False, 0)  # hand in view, and for how long
        self._frame_times: deque[float] = deque(maxlen=20)  # capture times of the last frames
        self._processed_times: deque[float] = deque(maxlen=20)
        self._skipped = 0  # frames replaced by a newer one before the pipeline got to them
        self._is_demo = type(source).__name__ == "DemoSource"
        self._camera: dict[str, Any] = {
            "status": CAMERA_STARTING,
            "description": source.description,
            "fps": 0.0,
            "message": "",
        }

        self._bus = EventBus("boardcam-sinks")
        self._dispatcher = SinkDispatcher(sinks, self.config.sinks.events, state=self.state)

        self._calibration = calibration
        self._overlay = Overlay(calibration, palette=palette) if calibration is not None else None
        self._pipeline: Any = None
        self._alerts: deque[dict[str, Any]] = deque(maxlen=ALERT_HISTORY)
        # The operator's fixes as last stored: (game id, overrides).
        self._saved_overrides: tuple[str | None, dict[int, Any] | None] = (None, {})
        # The question a resumed game was left with, until the board says something new.
        self._reopened: dict[str, Any] | None = None
        self._resume_or_create()

    # -- game lifecycle ----------------------------------------------------
    def _resume_or_create(self) -> None:
        """Resume the latest game unless it was abandoned. A finished one is resumed too: its
        tokens are still on the table, and clearing them starts the next game as usual. The
        demo is the exception for a game in progress: its script always starts from an empty
        board, which a half-played game would call an illegal change for ever."""
        stored = self.store.latest_game()
        if stored is not None and stored.status != "abandoned" and stored.board == self.board:
            try:
                game = self._game_loader(stored.state)
            except (ValueError, KeyError, TypeError) as exc:
                logger.error("cannot resume game %s (%s); starting a new one", stored.id, exc)
            else:
                if self._is_demo and game.move_stack and not game.is_over():
                    logger.info("the demo starts from an empty board: a new game, not game %s", stored.id)
                    game_cfg = self.config.game
                    self.new_game(game_cfg.players, game_cfg.opening, list(game_cfg.names) or None)
                    return
                self._install_game(game, stored.id, stored.players, stored.opening, list(stored.names))
                self._alerts.extend(self.store.alerts(stored.id, ALERT_HISTORY))
                self._reopened = open_alert(
                    self._alerts, [move.time for move in self.store.moves(stored.id)]
                )
                logger.info("resumed game %s after %d moves", stored.id, len(game.move_stack))
                return
        game_cfg = self.config.game
        self.new_game(game_cfg.players, game_cfg.opening, list(game_cfg.names) or None)

    def _install_game(self, game: Any, game_id: str, players: int, opening: str, names: list[str]) -> None:
        self._game = game
        self._game_id = game_id
        self._players = players
        self._opening = opening
        self._names = names
        self._alerts.clear()
        self._reopened = None
        self._pipeline = self._make_pipeline()

    def _make_pipeline(self) -> Any:
        """The pipeline for the game, holding the operator's fixes stored for it: a misreading
        corrected before a restart stays corrected after it."""
        if self._calibration is None:
            return None
        pipeline = self._pipeline_factory(
            self._calibration, self._game, palette=self.palette, game_id=self._game_id
        )
        stored = self.store.overrides(self._game_id)
        referee = getattr(pipeline, "referee", None)
        if stored and referee is not None:
            try:
                referee.restore_overrides(stored)
            except ValueError as exc:
                logger.error("ignoring the stored corrections of game %s: %s", self._game_id, exc)
                stored = None  # differs from every reading: the next frame stores what holds
        self._saved_overrides = (self._game_id, stored)
        return pipeline

    def _overrides(self) -> dict[int, tuple[int | None, int | None]] | None:
        """The referee's operator overrides, or ``None`` when they are already stored as they
        are (or there is no referee)."""
        referee = getattr(self._pipeline, "referee", None)
        if referee is None:
            return None
        overrides = referee.overrides
        return None if self._saved_overrides == (self._game_id, overrides) else overrides

    def new_game(self, players: int = 2, opening: str = "none", names: Sequence[str] | None = None) -> str:
        """End the current game (kept as abandoned unless finished) and start a new one; returns its id.

        Raises :class:`ControlError` for a player count, opening or names the game cannot use.
        """
        if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYER_COUNTS:
            raise ControlError(f"players must be one of {PLAYER_COUNTS}, not {players!r}")
        if opening not in OPENINGS:
            raise ControlError(f"opening must be one of {OPENINGS}, not {opening!r}")
        names = list(names or [])
        if names and (len(names) != players or not all(isinstance(n, str) and 0 < len(n) <= 40 for n in names)):
            raise ControlError(f"names must be {players} texts of 1 to 40 characters")
        with self._lock:
            try:
                game = self._game_factory(players, opening)
            except ValueError as exc:
                raise ControlError(str(exc)) from exc
            game_id = self.store.create_game(
                game.to_dict(), board=game_view.board_of(game), players=players, opening=opening,
                names=names,
            )
            self._install_game(game, game_id, players, opening, names)
            event = Event(GAME_STARTED, {"players": players, "opening": opening, "names": names}, game_id=game_id)
            self._handle([event], snapshot=None)
        return game_id

    # -- threads -----------------------------------------------------------
    def start(self) -> None:
        """Start the sinks and the capture and processing threads (returns at once)."""
        if self._threads:
            return
        self._stop.clear()
        self._dispatcher.start()
        self._dispatcher.attach(self._bus)
        for target, name in ((self._capture_loop, "boardcam-capture"), (self._process_loop, "boardcam-process")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the threads, release the source and flush the sinks; safe to call twice."""
        self._stop.set()
        with self._frame_ready:
            self._frame_ready.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        try:
            self.source.stop()
        except Exception:
            logger.exception("stopping the source failed")
        self._bus.close()
        self._dispatcher.close()
        with self._subscribers_lock:
            subscribers = list(self._subscribers)
        for client in subscribers:  # ``None`` tells a live client's stream to end
            try:
                client.put_nowait(None)  # type: ignore[arg-type]
            except queue.Full:
                _drain(client)
                client.put_nowait(None)  # type: ignore[arg-type]

    def _set_camera(self, status: str, message: str = "") -> None:
        """Change the camera status; a change is an event (dashboard and sinks)."""
        if status == CAMERA_OK and self._is_demo:
            status = CAMERA_DEMO
        with self._lock:
            previous = self._camera["status"]
            self._camera["status"] = status
            self._camera["message"] = message
            # The first "ok" after start is no news; every later change is.
            is_first_ok = previous == CAMERA_STARTING and status in (CAMERA_OK, CAMERA_DEMO)
            if previous != status and not is_first_ok:
                data = {"status": status, "description": self.source.description, "message": message}
                self._handle([Event(CAMERA_STATUS, data, game_id=self._game_id)], snapshot=None)

    def _capture_loop(self) -> None:
        backoff = self._backoff_min
        failures = 0
        is_open = False
        last_frame = time.monotonic()
        while not self._stop.is_set():
            if not is_open:
                try:
                    self.source.start()
                except Exception as exc:  # SourceError, or a driver's own error: retry all the same
                    failures += 1
                    status = CAMERA_FAILED if failures >= FAILED_AFTER else CAMERA_RECONNECTING
                    self._set_camera(status, f"{exc}; retrying in {backoff:.0f} s")
                    logger.warning("cannot open %s: %s (retry in %.1f s)", self.source.description, exc, backoff)
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self._backoff_max)
                    continue
                is_open = True
                last_frame = time.monotonic()
            try:
                frame = self.source.read(timeout=0.5)
            except Exception as exc:  # a camera driver may raise anything: reconnect
                frame, error = None, str(exc) if isinstance(exc, SourceError) else repr(exc)
            else:
                error = ""
                if frame is None and not self.source.is_exhausted and time.monotonic() - last_frame > STALL_SECONDS:
                    error = f"no frame for {STALL_SECONDS:.0f} s"
            if error:
                logger.warning("%s failed: %s", self.source.description, error)
                try:
                    self.source.stop()
                except Exception:
                    logger.debug("stopping a failed source raised", exc_info=True)
                is_open = False
                self._set_camera(CAMERA_RECONNECTING, error)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._backoff_max)
                continue
            if frame is None:
                if self.source.is_exhausted:
                    self._set_camera(CAMERA_ENDED, "the recording has ended")
                    self._stop.wait(0.5)
                continue
            failures, backoff, last_frame = 0, self._backoff_min, time.monotonic()
            if self._camera["status"] not in (CAMERA_OK, CAMERA_DEMO):
                self._set_camera(CAMERA_OK)
            self._frame_times.append(last_frame)
            with self._frame_ready:
                self._newest = frame
                self._newest_count += 1
                self._frame_ready.notify_all()

    def _process_loop(self) -> None:
        done = 0
        while not self._stop.is_set():
            with self._frame_ready:
                self._frame_ready.wait_for(
                    lambda done=done: self._stop.is_set() or self._newest_count != done, timeout=0.5
                )
                if self._stop.is_set() or self._newest_count == done or self._newest is None:
                    continue
                self._skipped += self._newest_count - done - 1
                frame, done = self._newest, self._newest_count
            try:
                self.process_frame(frame)
            except Exception:  # e.g. a full disk: keep watching; the next commit retries the sync
                logger.exception("could not handle frame %s", frame.seq)

    def process_frame(self, frame: Frame) -> list[dict[str, Any]]:
        """Run one frame through the pipeline and announce what it found; returns the event records.

        Used by the processing thread; callable directly by tests and benchmarks.
        A pipeline error is logged and the frame skipped: one bad frame must not stop the game.
        """
        self._processed_times.append(time.monotonic())
        jpeg = encode_jpeg(frame.image, 90)
        now = time.time()
        with self._lock:
            self._remember(now, jpeg, len(self._game.move_stack))
            self._latest_frame = frame
            self._latest_jpeg_raw = jpeg
            events: list[Event] = []
            if self._pipeline is not None:
                try:
                    events = list(self._pipeline.process(frame))
                except Exception:
                    logger.exception("pipeline failed on frame %s", frame.seq)
                self._follow_pipeline_calibration()
            self._version += 1
            records = self._handle(events, snapshot=jpeg)
            self._announce_view()
            return records

    def _announce_view(self) -> None:
        """Phones follow a hand coming and going, and how long it has stayed, even when no
        event comes of it: a fresh state when that changes (every ``HAND_STATE_EVERY_S``
        while it stays). Called with the lock held."""
        hand, seconds = self._pipeline.hand_in_view() if self._pipeline is not None else (False, 0.0)
        key = (hand, int(seconds // HAND_STATE_EVERY_S))
        if key != self._view_key:
            self._view_key = key
            self._broadcast([self._state_record()])

    def _remember(self, now: float, jpeg: bytes, plies: int) -> None:
        """Keep the last ``bundle_seconds`` of frames, and never more than :data:`RECENT_MAX_BYTES`."""
        self._recent.append((now, jpeg, plies))
        self._recent_bytes += len(jpeg)
        while self._recent and (self._recent[0][0] < now - self._recent_seconds
                                or self._recent_bytes > RECENT_MAX_BYTES):
            self._recent_bytes -= len(self._recent.popleft()[1])

    @property
    def recent_bytes(self) -> int:
        """Bytes held by the support bundle's frame buffer."""
        return self._recent_bytes

    # -- announcing ----------------------------------------------------------
    def _handle(self, events: Iterable[Event], snapshot: bytes | None) -> list[dict[str, Any]]:
        """Persist, then tell the dashboard and the sinks. Called with the lock held."""
        events = list(events)
        if not events:
            overrides = self._overrides()  # no event, but a changed reading may drop a fix
            if overrides is not None:
                self.store.set_overrides(self._game_id, overrides)
                self._saved_overrides = (self._game_id, overrides)
            return []
        self._follow_pipeline_game(events)
        told = [event for event in events if not self._asked_before_restart(event)]
        self._persist(events, snapshot, told)
        records = [event.to_record() for event in told]
        for record in records:
            if record["type"] not in (MOVE, GAME_STARTED):
                self._alerts.append(record)
        for event in told:
            self._bus.fire(event)
        self._version += 1
        self._broadcast([*records, self._state_record()])
        return records

    def _asked_before_restart(self, event: Event) -> bool:
        """Is ``event`` the question the game was left with when the device stopped, raised
        again by the fresh referee? It stands (the pipeline holds it) but is not stored or
        sent twice. The first event about the board ends the wait for it either way."""
        if self._reopened is None or event.type not in ABOUT_THE_BOARD:
            return False
        same = repeats(event.to_record(), self._reopened)
        self._reopened = None
        if same:
            logger.info("the %s alert from before the restart still stands", event.type)
        return same

    def _follow_pipeline_game(self, events: list[Event]) -> None:
        """The pipeline starts a new game by itself when a finished game's board is cleared."""
        started = [e for e in events if e.type == GAME_STARTED and e.game_id and e.game_id != self._game_id]
        game = getattr(self._pipeline, "game", None)
        if not started or game is None or game is self._game:
            return
        self._game = game
        self._game_id = self.store.create_game(
            game.to_dict(), board=game_view.board_of(game), players=self._players, opening=self._opening,
            names=self._names, game_id=started[-1].game_id,
        )
        self._alerts.clear()
        logger.info("board cleared after the game: new game %s", self._game_id)

    def _follow_pipeline_calibration(self) -> None:
        """A small camera shift is re-fitted by the pipeline: draw and keep the new calibration."""
        calibration = getattr(self._pipeline, "calibration", self._calibration)
        if calibration is None or calibration is self._calibration:
            return
        self._calibration = calibration
        self._overlay = Overlay(calibration, palette=self.palette)
        record = calibration_record(calibration)
        if record is not None:
            self.store.add_calibration(record)

    def _persist(self, events: list[Event], snapshot: bytes | None, told: list[Event]) -> None:
        """Make the store match the game (covers moves, take-backs, corrections), then log the
        alerts among the ``told`` events."""
        move_times = {e.data.get("point"): (e.time, e.frame) for e in events if e.type == MOVE}
        moves = []
        for ply, move in enumerate(self._game.move_stack):
            point = getattr(move, "point", None)
            name = None if point is None else game_view.names([point])[0]
            when, frame = move_times.get(name, (time.time(), None))
            moves.append(
                StoredMove(
                    ply=ply,
                    notation=game_view.move_notation(move),
                    point=point,
                    color=getattr(move, "color", None),
                    time=when,
                    frame=frame,
                    snapshot=snapshot,
                )
            )
        outcome = self._game.outcome()
        overrides = self._overrides()
        self.store.sync_moves(
            self._game_id,
            moves,
            self._game.to_dict(),
            winner=None if outcome is None else outcome.winner,
            finished=outcome is not None,
            overrides=overrides,
        )
        if overrides is not None:
            self._saved_overrides = (self._game_id, overrides)
        for event in told:
            if event.type not in (MOVE, GAME_STARTED):
                self.store.add_alert(event.to_record(), event.game_id or self._game_id)

    def _broadcast(self, records: list[dict[str, Any]]) -> None:
        with self._subscribers_lock:
            subscribers = list(self._subscribers)
        for client in subscribers:
            for record in records:
                try:
                    client.put_nowait(record)
                except queue.Full:
                    # A client that stopped reading: drop its backlog, resync it with the state.
                    _drain(client)
                    client.put_nowait(self._state_record())
                    break

    def subscribe(self) -> tuple[queue.Queue[dict[str, Any]], Callable[[], None]]:
        """A queue of records for one live client and the function that unsubscribes it.

        The first record is ``{"type": "state", "state": state()}``; then every event
        record, each batch followed by a fresh state record; ``None`` when the runtime stops. A client that falls
        more than 256 records behind loses its backlog and gets a state record.
        """
        client: queue.Queue[dict[str, Any]] = queue.Queue(SUBSCRIBER_QUEUE)
        with self._lock:  # no event can slip in between the state and the registration
            client.put_nowait(self._state_record())
            with self._subscribers_lock:
                self._subscribers.append(client)

        def unsubscribe() -> None:
            with self._subscribers_lock:
                if client in self._subscribers:
                    self._subscribers.remove(client)

        return client, unsubscribe

    @property
    def subscriber_count(self) -> int:
        with self._subscribers_lock:
            return len(self._subscribers)

    # -- reading -----------------------------------------------------------
    def _state_record(self) -> dict[str, Any]:
        return {"type": "state", "state": self.state()}

    def state(self) -> dict[str, Any]:
        """The dashboard state (``GET /api/state``); see the README for every key."""
        with self._lock:
            state = game_view.describe(self._game)
            seen = self._pipeline.state() if self._pipeline is not None else {}
            state.update(
                game_id=self._game_id,
                alerts=list(self._alerts),
                camera={**self._camera, "fps": _rate(self._frame_times),
                        "processed_fps": _rate(self._processed_times), "skipped": self._skipped},
                mismatch=game_view.names(seen.get("mismatch", ())),
                hidden=game_view.names(seen.get("hidden", ())),
                hand=bool(seen.get("hand", False)),
                hand_seconds=float(seen.get("hand_seconds", 0.0)),
                seen=dict(seen.get("tokens", {})),
                pending=seen.get("pending"),
                players=self._players,
                names=list(self._names),
                to_act=game_view.player_to_act(self._game, self._names),
                opening=self._opening,
                calibration=calibration_summary(self._calibration),
            )
            return state

    def latest_frame(self) -> np.ndarray | None:
        """The newest raw BGR frame (do not modify it), e.g. for the calibration wizard."""
        with self._frame_ready:
            return None if self._newest is None else self._newest.image

    def latest_jpeg(self) -> bytes | None:
        """The newest processed frame as JPEG with the board annotations drawn on it.

        Drawing and encoding happen outside the lock (the pipeline keeps running);
        the result is cached until a new frame or a state change.
        """
        with self._lock:
            frame = getattr(self, "_latest_frame", None)
            if frame is None:
                return None
            key = (frame.seq, self._version)
            if self._annotated is not None and self._annotated[0] == key:
                return self._annotated[1]
            overlay = self._overlay
            if overlay is None or overlay.centres is None:  # no calibration: nothing to draw
                return self._latest_jpeg_raw
            seen = self._pipeline.state() if self._pipeline is not None else {}
            outcome = self._game.outcome()
            rules = board_rules(self._game)
            tokens = rules.position(self._game)
            mismatch = [rules.parse_location(p) for p in seen.get("mismatch", ())]
            hidden = [rules.parse_location(p) for p in seen.get("hidden", ())]
            lines = [] if outcome is None else [[rules.parse_location(p) for p in line] for line in outcome.lines]
        data = encode_jpeg(overlay.draw(frame.image, tokens, mismatch=mismatch, hidden=hidden, lines=lines))
        with self._lock:
            self._annotated = (key, data)
        return data

    def recent_frames(self) -> list[tuple[float, bytes]]:
        """The last ``bundle_seconds`` of processed frames as (wall time, JPEG)."""
        return [(when, jpeg) for when, jpeg, _ in list(self._recent)]

    # -- control -------------------------------------------------------------
    @property
    def pin(self) -> str:
        """The control PIN (``boardcam serve`` prints it)."""
        return self._pin

    @property
    def event_bus(self) -> EventBus:
        """The bus the sinks listen on; other services (games played on the phone) fire here too."""
        return self._bus

    def check_pin(self, pin: str | None) -> bool:
        """Constant-time PIN comparison."""
        return isinstance(pin, str) and hmac.compare_digest(pin.encode(), self._pin.encode())

    def _operate(self, action: str, *args: Any) -> list[dict[str, Any]]:
        with self._lock:
            if self._pipeline is None:
                raise ControlError(f"cannot {action.replace('_', ' ')}: the board is not calibrated yet")
            try:
                events = list(getattr(self._pipeline, action)(*args) or [])
            except (ValueError, IndexError) as exc:
                raise ControlError(str(exc)) from exc
            return self._handle(events, snapshot=self._latest_jpeg_raw)

    def accept(self) -> list[dict[str, Any]]:
        """Accept the board as seen (a take-back or a correction); returns the event records."""
        return self._operate("accept")

    def correct(self, point: str | int, colour: int | None) -> list[dict[str, Any]]:
        """Fix the reading of one point (``None``: empty). Raises :class:`ControlError`."""
        if colour is not None and (not isinstance(colour, int) or isinstance(colour, bool) or not 0 <= colour < 3):
            raise ControlError(f"colour must be 0, 1, 2 or null, not {colour!r}")
        return self._operate("correct", self._location(point), colour)

    def confirm_hidden(self, point: str | int) -> list[dict[str, Any]]:
        """Confirm a move to a point the camera cannot see. Raises :class:`ControlError`."""
        return self._operate("confirm_hidden", self._location(point))

    def _location(self, point: str | int) -> int:
        """A point (``A3Q``) or bandanna node (``GGBY``), by name or index, as the camera's
        index for the game being played; raises :class:`ControlError`."""
        try:
            return board_rules(self._game).parse_location(point)
        except ValueError as exc:
            raise ControlError(str(exc)) from exc

    def roll(self, face: str | None = None) -> list[dict[str, Any]]:
        """Roll the GRYB game's die: ``face`` as a physical die showed it, else the game's
        seeded virtual die. A ``move`` of kind ``roll``, stored like every move; works
        without a calibration too. Raises :class:`ControlError` when no roll is due, the
        die has no such face, or the game has no die."""
        if face is not None and not isinstance(face, str):
            raise ControlError(f"a die face is written like G or GRYB, not {face!r}")
        with self._lock:
            if self._pipeline is not None:
                return self._operate("roll", face)
            die = getattr(self._game, "die", None)
            if not callable(die) or die() is None:
                raise ControlError("no roll is due")
            try:
                move = self._game.roll(face)
            except ValueError as exc:
                raise ControlError(str(exc)) from exc
            data = board_rules(self._game).move_record(move)
            return self._handle([Event(MOVE, data, game_id=self._game_id)], snapshot=None)

    def choose_colour(self, colour: int) -> list[dict[str, Any]]:
        """The second player's colour choice of the 3MEQ opening (a ``move`` of kind ``choose``).

        Stored like every move. Works without a calibration too (no board reading is needed).
        Raises :class:`ControlError` when no choice is due or ``colour`` is not 0 or 1.
        """
        if not isinstance(colour, int) or isinstance(colour, bool) or colour not in (0, 1):
            raise ControlError(f"the colour chosen must be 0 or 1, not {colour!r}")
        with self._lock:
            if self._pipeline is not None:
                return self._operate("choose_colour", colour)
            try:
                self._game.push(Move(None, colour, CHOOSE))
            except IllegalMoveError as exc:
                raise ControlError(str(exc)) from exc
            event = Event(MOVE, {"color": colour, "kind": CHOOSE}, game_id=self._game_id)
            return self._handle([event], snapshot=None)

    def undo(self) -> list[dict[str, Any]]:
        """Take back the last move. Raises :class:`ControlError` when there is none."""
        with self._lock:
            if self._pipeline is not None:
                return self._operate("undo")
            try:
                move = self._game.pop()
            except IndexError as exc:
                raise ControlError("no move to take back") from exc
            data = {"notation": game_view.move_notation(move)}
            return self._handle([Event(UNDO, data, game_id=self._game_id)], snapshot=None)

    def set_calibration(self, calibration: Any) -> None:
        """Use a new calibration from now on (kept in the store); the game goes on."""
        with self._lock:
            record = calibration_record(calibration)
            if record is not None:
                self.store.add_calibration(record)
            self._calibration = calibration
            self._overlay = Overlay(calibration, palette=self.palette)
            if self._pipeline is not None and callable(getattr(self._pipeline, "set_calibration", None)):
                self._pipeline.set_calibration(calibration)  # keeps the referee's pending alert
            else:
                self._pipeline = self._make_pipeline()
            self._version += 1
        self._broadcast([self._state_record()])

    @property
    def calibration(self) -> Any:
        return self._calibration

    # -- history -------------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """Every game, newest first: ``[{"id", "started", "moves", "winner", "status"}]``."""
        return self.store.list_games()

    def game(self, game_id: str) -> dict[str, Any]:
        """One game with its moves and their times; raises :class:`device.store.UnknownGameError`."""
        stored = self.store.get_game(game_id)
        return {
            "id": stored.id,
            "board": stored.board,
            "started": iso_time(stored.started),
            "ended": iso_time(stored.ended),
            "status": stored.status,
            "players": stored.players,
            "opening": stored.opening,
            "names": list(stored.names),
            "winner": stored.winner,
            "moves": [
                {
                    "ply": m.ply,
                    "notation": m.notation,
                    "point": None if m.point is None else game_view.names([m.point])[0],
                    "color": m.color,
                    "time": iso_time(m.time),
                }
                for m in self.store.moves(game_id)
            ],
            "alerts": self.store.alerts(game_id, ALERT_HISTORY),
        }

    def snapshot(self, game_id: str, ply: int) -> bytes | None:
        """The JPEG stored with a move, if any."""
        return self.store.snapshot(game_id, ply)

    def export(self, game_id: str, fmt: str) -> str:
        """A game as ``pbm`` move list, ``json`` or ``ascii`` board; raises ``ValueError`` subclasses."""
        from device.export import export_game

        return export_game(self.store, game_id, fmt)

    def bundle(self) -> bytes:
        """The support bundle zip (last minute of frames, calibration, game state)."""
        from device.bundle import build_bundle

        with self._lock:
            state = self.state()
            calibration = calibration_record(self._calibration)
            game_state = self._game.to_dict()
            recent = list(self._recent)
            plies = recent[0][2] if recent else len(self._game.move_stack)
            moves = [game_view.move_notation(m) for m in self._game.move_stack]
        return build_bundle(
            [(when, jpeg) for when, jpeg, _ in recent],
            moves_at_start=moves[:plies],
            moves_during=moves[plies:],
            calibration=calibration,
            palette=self.palette,
            game=game_state,
            state=state,
            players=self._players,
            opening=self._opening,
        )

    @property
    def game_id(self) -> str:
        return self._game_id

    @property
    def game_object(self) -> Any:
        """The rules engine of the running game (read it under no expectation of stability)."""
        return self._game


def _rate(times: Sequence[float]) -> float:
    """Events per second over a window of monotonic times."""
    if len(times) < 2 or times[-1] <= times[0]:
        return 0.0
    return round((len(times) - 1) / (times[-1] - times[0]), 2)


def _drain(client: queue.Queue[Any]) -> None:
    while True:
        try:
            client.get_nowait()
        except queue.Empty:
            return


__all__ = [
    "CAMERA_DEMO",
    "CAMERA_ENDED",
    "CAMERA_FAILED",
    "CAMERA_OK",
    "CAMERA_RECONNECTING",
    "ControlError",
    "Runtime",
    "UnknownGameError",
]
