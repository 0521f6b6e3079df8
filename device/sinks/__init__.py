"""Alert sinks: where alerts go besides the dashboard (push, webhook, MQTT, GPIO).

Every sink has one job, :meth:`Sink.deliver` of an event record, and raises
:class:`SinkError` when it cannot. :class:`SinkDispatcher` subscribes the sinks to
the event bus, so delivery happens on the bus's worker thread: a slow or dead
sink is retried a little, then logged, and never holds up the game.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from device.events import Event, EventBus

logger = logging.getLogger(__name__)


class SinkError(RuntimeError):
    """A sink could not deliver (network down, broker gone, hardware missing)."""


class Sink(ABC):
    """One destination for alerts."""

    #: Short label for logs and ``boardcam doctor``.
    name: str = "sink"

    def start(self) -> None:
        """Connect or claim hardware; raises :class:`SinkError`. Default: nothing to do."""

    @abstractmethod
    def deliver(self, record: Mapping[str, Any]) -> None:
        """Send one event record; raises :class:`SinkError` on failure."""

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """Offer the game's summary after each delivery (retained MQTT state); default: ignore."""

    def close(self) -> None:
        """Release connections or hardware; safe to call twice."""


class SinkDispatcher:
    """Delivers bus events of ``types`` to every sink, with ``retries`` extra tries each.

    ``sleep`` is injectable so tests of the retry policy do not wait.
    """

    def __init__(
        self,
        sinks: Sequence[Sink],
        types: Iterable[str],
        *,
        retries: int = 2,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        state: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self.sinks = list(sinks)
        self.types = frozenset(types)
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        self._state = state
        self.failures: dict[str, int] = {sink.name: 0 for sink in self.sinks}

    def attach(self, bus: EventBus) -> Callable[[], None]:
        """Subscribe to ``bus``; returns the unsubscribe function."""
        return bus.subscribe(self.handle, self.types)

    def handle(self, event: Event) -> None:
        """Deliver one event to every sink (the bus calls this on its worker thread)."""
        record = event.to_record()
        for sink in self.sinks:
            self.deliver_to(sink, record)
        if self._state is not None:
            summary = self._state()
            for sink in self.sinks:
                try:
                    sink.publish_state(summary)
                except Exception:
                    logger.warning("%s could not publish the game state", sink.name, exc_info=True)

    def deliver_to(self, sink: Sink, record: Mapping[str, Any]) -> bool:
        """Try ``1 + retries`` times; True when delivered. Failures are logged, never raised."""
        for attempt in range(self.retries + 1):
            try:
                sink.deliver(record)
                return True
            except SinkError as exc:
                if attempt < self.retries:
                    logger.info("%s failed (%s), retrying", sink.name, exc)
                    self._sleep(self.backoff * (2**attempt))
                else:
                    self.failures[sink.name] = self.failures.get(sink.name, 0) + 1
                    logger.warning("%s could not deliver a %s alert: %s", sink.name, record.get("type"), exc)
            except Exception:  # a bug in a sink must not stop the others
                self.failures[sink.name] = self.failures.get(sink.name, 0) + 1
                logger.exception("%s failed on a %s alert", sink.name, record.get("type"))
                return False
        return False

    def start(self) -> None:
        """Start every sink; one that cannot start is logged and left out."""
        started = []
        for sink in self.sinks:
            try:
                sink.start()
                started.append(sink)
            except SinkError as exc:
                logger.warning("%s disabled: %s", sink.name, exc)
        self.sinks = started

    def close(self) -> None:
        for sink in self.sinks:
            try:
                sink.close()
            except Exception:
                logger.exception("closing %s failed", sink.name)
