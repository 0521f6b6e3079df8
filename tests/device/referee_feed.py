"""A referee fed hand-written snapshots, answering with event records: one driver for the
stacked board's and the bandanna's referee tests, which differ only in how a location is named."""

from __future__ import annotations

from collections.abc import Callable

from device.referee import Referee
from vision.observation import Snapshot


def records(events: list) -> list[dict]:
    """The events' records without their wall-clock time, so that tests compare them whole."""
    out = []
    for event in events:
        record = event.to_record()
        del record["time"]
        out.append(record)
    return out


def kinds(recs: list[dict]) -> list[str]:
    """The type of each record, in order."""
    return [r["type"] for r in recs]


class SnapshotFeed:
    """Feeds ``referee`` one numbered snapshot per ``see``, its pieces written as
    ``{name: colour}`` and turned into board locations by ``location``."""

    def __init__(self, referee: Referee, location: Callable[[str], int]) -> None:
        self.referee = referee
        self.location = location
        self.frame = 0

    def see(
        self,
        pieces: dict[str, int],
        hidden: tuple[str, ...] = (),
        in_line: dict[str, str] | None = None,
    ) -> list[dict]:
        """The records of the referee's answer to the next frame showing ``pieces``
        (``in_line``: a read token's location -> the one the camera could not tell it from)."""
        return records(self.referee.feed(self.snapshot(pieces, hidden, in_line)))

    def snapshot(
        self,
        pieces: dict[str, int],
        hidden: tuple[str, ...] = (),
        in_line: dict[str, str] | None = None,
    ) -> Snapshot:
        """The next frame's snapshot (see :meth:`see`)."""
        self.frame += 1
        return Snapshot(
            frame=self.frame,
            tokens={self.location(n): c for n, c in pieces.items()},
            hidden=frozenset(self.location(n) for n in hidden),
            in_line={self.location(a): self.location(b) for a, b in (in_line or {}).items()},
        )
