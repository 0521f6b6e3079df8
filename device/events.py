"""What the companion reports: event names, the :class:`Event` record and the :class:`EventBus`.

Every event is a small JSON-ready record (the same shape everywhere: ``boardcam
replay --json``, the dashboard's SSE stream, push sinks, the game database)::

    {"type": "move", "frame": 17, "point": "A3Q", "color": 0, "time": ..., "game_id": ...}

``frame`` is the frame index (``null`` for operator actions), ``time`` wall-clock
seconds, ``game_id`` only when known. The fields of each type (points in ``A3Q``
notation, colours as indices, lists of points in name order):

=================  ==========================================================
``move``           ``point``, ``color``; ``kind`` for an opening move: "swap"
                   (the first token recoloured) or "choose" (the 3MEQ colour
                   choice: ``color`` is the colour chosen, no ``point``);
                   ``hidden: true`` for a confirmed move to a hidden point,
                   ``in_line: true`` for one placed on the point the players named
``gryb``           ``color``, ``grybs`` (each as ``GrybGame.status()`` lists them),
                   ``scores``: a move on the bandanna scored a GRYB
``win``            ``color``, ``vectors`` (each a list of 4 points in line order)
``draw``           ``reason``
``illegal``        ``reasons`` (sentences), ``points`` (differing from the last
                   legal state), ``take_back`` (the change is removing the last move)
``restored``       ``points``: the board is legal again, the alert is over
``confirm_hidden`` ``color`` (the colour that must have been placed),
                   ``candidates`` (hidden points it may be on), ``points``
                   (visible differences), ``occluded`` when a token went out of view;
                   ``in_line: true`` when the camera saw the token but not which of
                   the two ``candidates`` (in line with it) holds it
``accepted``       ``points`` accepted as they are; ``moved`` (``[[from, to], ...]``)
                   when moved tokens were taken as where those moves really went
                   (the move history is rewritten), else the points are read as
                   the game has them until the camera sees them change; ``reason``
                   when the referee moved a token it now reads in front of its point
``corrected``      ``point``, ``color`` (``null``: empty), ``read`` (what the camera saw)
``undo``           ``point``, ``color`` of the move taken back; ``reason``
``camera_moved``   ``shift_px``, ``refit`` (re-fitted automatically),
                   ``recalibrate`` (too far: judging paused until fixed)
``game_started``   ``reason``
``camera_status``  fired by the runtime: the frame source's health
=================  ==========================================================

Like OctoPrint's event manager, events are fired into a queue and delivered by
one worker thread, so a slow or failing listener (a push sink with no network)
never blocks the frame pipeline and never stops the others.
"""

from __future__ import annotations

import logging
import queue
import threading
import time as _time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

# -- event names -------------------------------------------------------------
GAME_STARTED = "game_started"  # a new game began (operator, or board cleared after a finished game)
MOVE = "move"  # a legal move was read from the board (or confirmed by an operator)
WIN = "win"  # a move completed one or more vectors
GRYB = "gryb"  # a move on the bandanna scored one or more GRYBs
DRAW = "draw"  # the supplies ran out with no vector
ILLEGAL = "illegal"  # the board changed in a way the rules do not allow
RESTORED = "restored"  # the board is legal again (put back, or fixed): the alert is over
ACCEPTED = "accepted"  # an operator accepted the observed board as it is
CORRECTED = "corrected"  # an operator fixed the reading of one point
UNDO = "undo"  # the last move was taken back (operator, or an accepted take-back)
CONFIRM_HIDDEN = "confirm_hidden"  # a move must have gone to a point the camera cannot see
CAMERA_MOVED = "camera_moved"  # the camera moved against its calibration
CAMERA_STATUS = "camera_status"  # the frame source's health changed (ok, reconnecting, ...)

EVENT_TYPES: frozenset[str] = frozenset(
    {
        GAME_STARTED,
        MOVE,
        WIN,
        GRYB,
        DRAW,
        ILLEGAL,
        RESTORED,
        ACCEPTED,
        CORRECTED,
        UNDO,
        CONFIRM_HIDDEN,
        CAMERA_MOVED,
        CAMERA_STATUS,
    }
)

#: Events that need a person's attention: they go to the push sinks and ring the phone.
ALERT_TYPES: frozenset[str] = frozenset({WIN, DRAW, ILLEGAL, CONFIRM_HIDDEN, CAMERA_MOVED, GRYB})

_RESERVED_KEYS = frozenset({"type", "frame", "time", "game_id"})


class EventError(ValueError):
    """An event that cannot be built (unknown type, or data that shadows a record key)."""


@dataclass(frozen=True)
class Event:
    """One thing that happened. ``data`` holds the type's own fields, JSON-ready
    (points in ``A3Q`` notation); ``frame`` is the frame index it was seen in (``None``
    for operator actions); ``time`` is wall-clock seconds.

    Raises :class:`EventError` for an unknown type or a ``data`` key that would
    overwrite ``type``, ``frame``, ``time`` or ``game_id`` in the record.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    frame: int | None = None
    time: float = field(default_factory=_time.time)
    game_id: str | None = None

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise EventError(f"unknown event type {self.type!r}")
        clash = _RESERVED_KEYS.intersection(self.data)
        if clash:
            raise EventError(f"event data may not use the record keys {sorted(clash)}")
        object.__setattr__(self, "data", dict(self.data))

    @property
    def is_alert(self) -> bool:
        """True for the events that should reach a person (push, sound, banner)."""
        return self.type in ALERT_TYPES

    def to_record(self) -> dict[str, Any]:
        """The flat JSON record: ``type``, ``frame``, the data fields, then ``time`` and
        ``game_id`` (the latter only when set)."""
        record: dict[str, Any] = {"type": self.type, "frame": self.frame}
        record.update(self.data)
        record["time"] = self.time
        if self.game_id is not None:
            record["game_id"] = self.game_id
        return record


Listener = Callable[[Event], None]

_STOP = object()  # queue sentinel that ends the worker


class EventBus:
    """Delivers fired events to subscribers, in firing order, from one worker thread.

    ``subscribe(callback, types=None)`` returns a function that unsubscribes. A
    listener that raises is logged and the others still get the event. ``close()``
    delivers what is queued and stops the worker; events fired after that are
    dropped with a warning (the runtime may still be shutting down its threads).
    At most ``max_queued`` events wait for delivery: behind a listener that hangs,
    newer events are dropped with a warning rather than memory growing for hours.
    """

    def __init__(self, name: str = "events", *, max_queued: int = 10_000) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max_queued + 2)  # + close/idle markers
        self._max_queued = max_queued
        self._listeners: list[tuple[Listener, frozenset[str] | None]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name=name, daemon=True)
        self._worker.start()

    def subscribe(
        self, callback: Listener, types: Iterable[str] | None = None
    ) -> Callable[[], None]:
        """Call ``callback(event)`` for every event (or only those of ``types``).

        Raises :class:`EventError` for an unknown type name in ``types``.
        """
        wanted = None if types is None else frozenset(types)
        if wanted is not None and not wanted <= EVENT_TYPES:
            raise EventError(f"unknown event types {sorted(wanted - EVENT_TYPES)}")
        entry = (callback, wanted)
        with self._lock:
            self._listeners.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._listeners:
                    self._listeners.remove(entry)

        return unsubscribe

    def fire(self, event: Event) -> None:
        """Queue ``event`` for delivery; returns at once."""
        if self._closed:
            logger.warning("event bus closed, dropping %s event", event.type)
            return
        if self._queue.qsize() >= self._max_queued:
            logger.warning(
                "%d events waiting (a listener hangs?): dropping %s event",
                self._max_queued,
                event.type,
            )
            return
        self._queue.put(event)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every event fired so far has been delivered; False on timeout."""
        if self._closed:
            self._worker.join(timeout)
            return not self._worker.is_alive()
        done = threading.Event()
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        return done.wait(timeout)

    def close(self, timeout: float | None = 5.0) -> None:
        """Deliver what is queued, then stop the worker. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            logger.warning("event bus worker is stuck; closing without delivering the rest")
            return
        self._worker.join(timeout)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):  # a wait_idle marker
                item.set()
                continue
            with self._lock:
                listeners = [
                    cb for cb, types in self._listeners if types is None or item.type in types
                ]
            for callback in listeners:
                try:
                    callback(item)
                except Exception:
                    logger.exception("event listener %r failed on %s event", callback, item.type)
