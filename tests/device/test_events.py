"""Event records and the event bus (ordering, failing listeners, filtering, close)."""

from __future__ import annotations

import json
import logging
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from device import events
from device.events import Event, EventBus, EventError


class TestEventRecord:
    def test_move_record_is_flat_with_type_and_frame_first(self) -> None:
        event = Event(events.MOVE, {"point": "A3Q", "color": 0}, frame=17, time=12.5)
        assert event.to_record() == {
            "type": "move",
            "frame": 17,
            "point": "A3Q",
            "color": 0,
            "time": 12.5,
        }
        assert list(event.to_record())[:2] == ["type", "frame"]

    def test_game_id_only_when_set(self) -> None:
        record = Event(
            events.WIN,
            {"color": 0, "vectors": [["A1P", "B1P", "C1P", "D1P"]]},
            frame=40,
            time=1.0,
            game_id="g7",
        ).to_record()
        assert record["game_id"] == "g7"
        assert "game_id" not in Event(events.RESTORED, frame=3, time=1.0).to_record()

    def test_operator_events_have_null_frame(self) -> None:
        assert Event(events.UNDO, {"point": "A1P"}).to_record()["frame"] is None

    def test_time_defaults_to_wall_clock(self) -> None:
        import time

        before = time.time()
        event = Event(events.DRAW)
        assert before <= event.time <= time.time()

    def test_unknown_type_is_refused(self) -> None:
        with pytest.raises(EventError, match="unknown event type"):
            Event("moved")

    @pytest.mark.parametrize("key", ["type", "frame", "time", "game_id"])
    def test_data_cannot_shadow_record_keys(self, key: str) -> None:
        with pytest.raises(EventError, match="record keys"):
            Event(events.MOVE, {key: 1})

    def test_data_is_copied(self) -> None:
        data = {"point": "A1P"}
        event = Event(events.MOVE, data)
        data["point"] = "B1P"
        assert event.to_record()["point"] == "A1P"

    def test_alerts(self) -> None:
        assert Event(events.ILLEGAL).is_alert
        assert Event(events.WIN).is_alert
        assert not Event(events.MOVE).is_alert
        assert events.ALERT_TYPES <= events.EVENT_TYPES

    @given(
        st.sampled_from(sorted(events.EVENT_TYPES)),
        st.dictionaries(
            st.text(min_size=1).filter(lambda k: k not in {"type", "frame", "time", "game_id"}),
            st.integers() | st.text(),
            max_size=5,
        ),
        st.none() | st.integers(min_value=0),
        st.none() | st.text(min_size=1),
    )
    def test_record_is_json_round_trippable(self, type_, data, frame, game_id) -> None:
        event = Event(type_, data, frame=frame, time=1.25, game_id=game_id)
        record = event.to_record()
        assert json.loads(json.dumps(record)) == record
        assert {
            k: v for k, v in record.items() if k not in {"type", "frame", "time", "game_id"}
        } == data


class TestEventBus:
    def test_delivers_in_firing_order(self) -> None:
        bus = EventBus()
        seen: list[int] = []
        bus.subscribe(lambda e: seen.append(e.frame))
        for i in range(50):
            bus.fire(Event(events.MOVE, frame=i))
        assert bus.wait_idle(5)
        bus.close()
        assert seen == list(range(50))

    def test_delivers_on_one_worker_thread_not_the_caller(self) -> None:
        bus = EventBus()
        threads: set[int] = set()
        bus.subscribe(lambda e: threads.add(threading.get_ident()))
        for i in range(5):
            bus.fire(Event(events.MOVE, frame=i))
        bus.close()
        assert len(threads) == 1 and threading.get_ident() not in threads

    def test_failing_listener_is_logged_and_others_still_get_events(self, caplog) -> None:
        bus = EventBus()
        good: list[str] = []

        def bad(event: Event) -> None:
            raise RuntimeError("sink down")

        bus.subscribe(bad)
        bus.subscribe(lambda e: good.append(e.type))
        with caplog.at_level(logging.ERROR, logger="device.events"):
            bus.fire(Event(events.ILLEGAL, frame=1))
            bus.fire(Event(events.RESTORED, frame=2))
            bus.close()
        assert good == ["illegal", "restored"]
        failures = [r for r in caplog.records if "failed on" in r.getMessage()]
        assert len(failures) == 2 and all("sink down" in (r.exc_text or "") for r in failures)

    def test_type_filter(self) -> None:
        bus = EventBus()
        alerts: list[str] = []
        bus.subscribe(alerts.append, types=events.ALERT_TYPES)
        for kind in (events.MOVE, events.WIN, events.UNDO, events.ILLEGAL):
            bus.fire(Event(kind))
        bus.close()
        assert [e.type for e in alerts] == ["win", "illegal"]

    def test_subscribe_unknown_type_is_refused(self) -> None:
        bus = EventBus()
        with pytest.raises(EventError, match="unknown event types"):
            bus.subscribe(print, types=["moved"])
        bus.close()

    def test_unsubscribe_stops_delivery_and_is_idempotent(self) -> None:
        bus = EventBus()
        seen: list[Event] = []
        unsubscribe = bus.subscribe(seen.append)
        bus.fire(Event(events.MOVE, frame=1))
        bus.wait_idle(5)
        unsubscribe()
        unsubscribe()
        bus.fire(Event(events.MOVE, frame=2))
        bus.close()
        assert [e.frame for e in seen] == [1]

    def test_close_delivers_what_is_queued_then_drops(self, caplog) -> None:
        bus = EventBus()
        gate = threading.Event()
        seen: list[int] = []

        def slow(event: Event) -> None:
            gate.wait(5)
            seen.append(event.frame)

        bus.subscribe(slow)
        for i in range(3):
            bus.fire(Event(events.MOVE, frame=i))
        gate.set()
        bus.close()
        assert seen == [0, 1, 2]
        with caplog.at_level(logging.WARNING, logger="device.events"):
            bus.fire(Event(events.MOVE, frame=9))
        assert "dropping" in caplog.text
        assert seen == [0, 1, 2]
        bus.close()  # twice is fine
        assert bus.wait_idle(1)

    def test_fire_does_not_wait_for_a_slow_listener(self) -> None:
        bus = EventBus()
        gate = threading.Event()
        bus.subscribe(lambda e: gate.wait(5))
        bus.fire(Event(events.MOVE))
        bus.fire(Event(events.MOVE))  # returns although the first is still being delivered
        assert not bus.wait_idle(0.05)
        gate.set()
        assert bus.wait_idle(5)
        bus.close()


def test_a_hanging_listener_cannot_make_the_queue_grow_without_bound(caplog) -> None:
    bus = EventBus(max_queued=3)
    gate = threading.Event()
    seen: list[int] = []

    def hangs(event: Event) -> None:
        gate.wait(5)
        seen.append(event.frame)

    bus.subscribe(hangs)
    bus.fire(Event(events.MOVE, frame=0))  # taken by the worker, which now hangs
    assert not bus.wait_idle(0.05)  # the idle marker is queued behind it
    with caplog.at_level(logging.WARNING, logger="device.events"):
        for i in range(1, 8):
            bus.fire(Event(events.MOVE, frame=i))
    assert "dropping move event" in caplog.text
    gate.set()
    bus.close()
    assert seen[0] == 0 and len(seen) <= 4 and seen == sorted(seen)
