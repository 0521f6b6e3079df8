"""A stand-in for ``device.runtime.Runtime`` with the same methods, driven by the tests.

It keeps a tiny game (tokens, moves, turn, winner, mismatch) and publishes
event records to SSE subscribers exactly as the runtime does, so pages and API
can be tested without a camera, and every control call is recorded.
"""

from __future__ import annotations

import io
import json
import queue
import threading
import time
import zipfile
from typing import Any

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.refraction import through_plates
from calibration.spec import CORNERS, load_spec
from rules.timevectors.points import TIER_LETTERS, point_name

FRAME_SIZE = (800, 600)


def wizard_camera() -> CameraModel:
    """The camera the fake 'sees' the board with (the wizard test clicks its landmarks)."""
    return CameraModel.looking_at((0, 0, 160), 900, 55, 20, FRAME_SIZE)


def landmark_pixels(camera: CameraModel) -> dict[str, dict[str, list[float]]]:
    """Exact pixel positions of the 16 calibration landmarks."""
    spec = load_spec()
    clicks = {}
    for tier, letter in enumerate(TIER_LETTERS):
        marks = spec.landmarks(tier)
        pixels = camera.project(np.array([marks[c] for c in CORNERS]))
        clicks[letter] = {c: [float(u), float(v)] for c, (u, v) in zip(CORNERS, pixels)}
    return clicks


def draw_board_frame(camera: CameraModel) -> np.ndarray:
    """A plain drawing of the four tiers' outlines as the camera sees them, plus three tokens."""
    image = np.full((FRAME_SIZE[1], FRAME_SIZE[0], 3), (58, 52, 46), np.uint8)
    clicks = landmark_pixels(camera)
    for letter in TIER_LETTERS:
        corners = np.array([clicks[letter][c] for c in CORNERS], np.int32)
        cv2.polylines(image, [corners], True, (200, 200, 200), 2, cv2.LINE_AA)
    spec = load_spec()
    for point, bgr in ((0, (40, 40, 220)), (21, (220, 120, 40)), (42, (30, 200, 230))):
        u, v = camera.project(np.array([spec.point_centre(point)]))[0]
        cv2.circle(image, (int(u), int(v)), 9, bgr, -1, cv2.LINE_AA)
    return image


PHOTO_TOKENS = {0: (220, 40, 40), 21: (40, 120, 220), 42: (230, 200, 30)}  # A1P, F2Q and C3R


def photograph(runtime: FakeRuntime, twist_deg: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)):
    """Replace the fake camera's frame by a rendered photograph of the board (plates turned by
    ``twist_deg``, three tokens of :data:`PHOTO_TOKENS`): saving in the wizard refines the fit
    from the printed grid, which the fake's outline drawing does not have. Returns the board
    as built and the landmarks where the camera sees them, a pixel off as a person clicks."""
    from tests.calibration.landmarks import true_clicks
    from vision.render import random_scene, render_timevectors

    built = load_spec().twisted(twist_deg)
    _, style, _ = random_scene(3, runtime.camera_model.image_size)
    tokens = {point: k for k, point in enumerate(PHOTO_TOKENS)}
    colours = list(PHOTO_TOKENS.values())
    runtime.frame = render_timevectors(
        runtime.camera_model, built, tokens, colours, scene=style, seed=3
    ).image_bgr
    return built, true_clicks(runtime.camera_model, built, noise_px=1.0, seed=3)


def token_top_pixels(runtime: FakeRuntime, point: int) -> tuple[float, float]:
    """Where the fake camera sees the middle of the top of a token on ``point``."""
    spec = load_spec()
    top = np.array([spec.point_centre(point)]) + [0.0, 0.0, spec.token_height]
    u, v = through_plates(runtime.camera_model, spec).project(top)[0]
    return float(u), float(v)


class FakeControlError(ValueError):
    """What the real runtime raises (``ControlError``) for an action it cannot carry out."""


class UnknownFakeGame(LookupError):
    """A game id the fake does not know."""


class FakeRuntime:
    """Same public methods as ``device.runtime.Runtime``; tests drive the game with ``play`` etc."""

    def __init__(self, pin: str = "2468") -> None:
        self.pin = pin
        self.calls: list[tuple[str, tuple]] = []
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue] = []
        self.camera_model = wizard_camera()
        self.frame = draw_board_frame(self.camera_model)
        self._jpeg = cv2.imencode(".jpg", self.frame)[1].tobytes()
        self.calibration: Any = None
        self.past_games: list[dict[str, Any]] = [
            {"id": "g1", "started": "2026-11-21T20:00:00+00:00", "moves": 3, "winner": None,
             "move_list": [{"point": "A1P", "color": 0, "time": 1.0}, {"point": "B2Q", "color": 1, "time": 2.0},
                           {"point": "C3R", "color": 0, "time": 3.0}]},
        ]
        self._reset(players=2, opening="none", names=None)

    # -- test drivers ------------------------------------------------------
    def _reset(self, players: int, opening: str, names: list[str] | None) -> None:
        self.game_id = f"g{len(self.past_games) + 1}"
        self.tokens: dict[str, int] = {}
        self.moves: list[dict[str, Any]] = []
        self.players = players
        self.names = names
        self.opening = opening
        self.choice: int | None = None  # the 3MEQ colour choice, once made
        self.winner: dict[str, Any] | None = None
        self.alerts: list[dict[str, Any]] = []
        self.mismatch: list[str] = []
        self.pending: dict[str, Any] | None = None
        self.hidden: list[str] = []
        self.threats: dict[str, list[str]] = {}
        self.camera = {"status": "ok", "description": "fake camera", "fps": 4.0}
        self.hand_seconds: float | None = None  # a "hand" in view for this long (None: none)

    def publish(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one record to every subscriber, followed by a fresh state record (as the runtime does)."""
        record = {**record, "time": record.get("time", time.time()), "game_id": self.game_id}
        with self._lock:
            if record["type"] in {"win", "illegal", "confirm_hidden", "camera_moved", "draw"}:
                self.alerts.append(record)
            subscribers = list(self._subscribers)
        state = {"type": "state", "state": self.state()}
        for subscriber in subscribers:
            subscriber.put(record)
            subscriber.put(state)
        return [record]

    def play(self, point: str, color: int) -> None:
        self.tokens[point] = color
        self.moves.append({"point": point, "color": color, "time": time.time()})
        self.publish({"type": "move", "frame": len(self.moves), "point": point, "color": color})

    def swap(self, point: str, color: int) -> None:
        """The second player of a swap game takes over the first token."""
        self.tokens[point] = color
        self.moves.append({"point": point, "color": color, "time": time.time(), "notation": f"swap {point}:{color}"})
        self.publish({"type": "move", "frame": len(self.moves), "point": point, "color": color, "kind": "swap"})

    def win(self, color: int, vectors: list[list[str]]) -> None:
        self.winner = {"color": color, "vectors": vectors}
        self.publish({"type": "win", "frame": len(self.moves), "color": color, "vectors": vectors})

    def illegal(self, reasons: list[str], points: list[str]) -> None:
        self.mismatch = list(points)
        self.pending = {"type": "illegal", "frame": len(self.moves), "reasons": reasons, "points": points}
        self.publish(dict(self.pending))

    def restore(self) -> None:
        """The players put the board back."""
        points, self.mismatch, self.pending = self.mismatch, [], None
        self.publish({"type": "restored", "frame": len(self.moves), "points": points})

    def hidden_move(self, color: int, candidates: list[str]) -> None:
        """A token went out of view: the referee asks where it was played."""
        self.pending = {"type": "confirm_hidden", "frame": len(self.moves), "color": color,
                        "candidates": candidates, "points": [], "occluded": candidates}
        self.publish(dict(self.pending))

    def in_line_move(self, color: int, read: str, other: str) -> None:
        """The camera saw a new token on ``read`` but could as well have on ``other``."""
        self.mismatch = [read]
        self.pending = {"type": "confirm_hidden", "frame": len(self.moves), "color": color,
                        "candidates": [read, other], "points": [read], "in_line": True}
        self.publish(dict(self.pending))

    def _phase(self) -> str:
        """The runtime's ``phase`` for this game (the real rules decide it in the runtime)."""
        if self.winner:
            return "over"
        if self.opening == "3meq" and self.choice is None:
            return "3meq-placing" if len(self.moves) < 3 else "3meq-choice"
        if self.opening == "swap" and len(self.moves) == 1 and "notation" not in self.moves[0]:
            return "swap-available"
        return "play"

    def _turn(self) -> int | None:
        """Colours alternate; after a 3MEQ choice the colour with fewer tokens moves first."""
        if self.winner or self._phase().startswith("3meq"):
            return None
        if self.choice is None:
            return len(self.moves) % self.players
        colours = [m["color"] for m in self.moves[:3]]
        first = self.choice if colours.count(self.choice) == 1 else 1 - self.choice
        return (first + len(self.moves) - 3) % 2

    def _notations(self) -> list[str]:
        """The move list; a 3MEQ choice comes after the three opening tokens."""
        notations = [m.get("notation", m["point"]) for m in self.moves]
        if self.choice is not None:
            notations.insert(3, f"choose {self.choice}")
        return notations

    def _player_colors(self) -> list[int]:
        """Seat -> colour; the 3MEQ choice gives the second seat the colour chosen."""
        if self.choice is not None:
            return [1 - self.choice, self.choice]
        return [seat % (2 if self.players in (4, 6) else self.players) for seat in range(self.players)]

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    # -- the Runtime API ---------------------------------------------------
    def state(self) -> dict[str, Any]:
        turn, phase, colours = self._turn(), self._phase(), self._player_colors()
        if phase == "over":
            to_act = None
        else:
            seat = 1 if phase == "3meq-choice" else colours.index(turn) if turn is not None else 0
            named = self.names[seat] if self.names else None
            to_act = {"player": seat, "name": named, "team": None, "colour": turn}
        return {
            "board": "timevectors",
            "game_id": self.game_id,
            "tokens": dict(self.tokens),
            "turn": turn,
            "winner": self.winner,
            "alerts": list(self.alerts),
            "camera": dict(self.camera),
            "last_move": {"ply": len(self.moves) - 1, **self.moves[-1]} if self.moves else None,
            "result": "win" if self.winner else "ongoing",
            "threats": {k: list(v) for k, v in self.threats.items()},
            "mismatch": list(self.mismatch),
            "pending": None if self.pending is None else dict(self.pending),
            "hidden": list(self.hidden),
            "hand": self.hand_seconds is not None,
            "hand_seconds": self.hand_seconds or 0.0,
            "players": self.players,
            "names": list(self.names or []),
            "opening": self.opening,
            "moves": self._notations(),
            "phase": phase,
            "legal_colors": [0, 1] if phase == "3meq-placing" else [] if turn is None else [turn],
            "player_colors": colours,
            "to_act": to_act,
            "calibration": {"loaded": self.calibration is not None},
        }

    def subscribe(self) -> tuple[queue.Queue, Any]:
        records: queue.Queue = queue.Queue()
        records.put({"type": "state", "state": self.state()})
        with self._lock:
            self._subscribers.append(records)

        def unsubscribe() -> None:
            with self._lock:
                if records in self._subscribers:
                    self._subscribers.remove(records)

        return records, unsubscribe

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def latest_frame(self) -> np.ndarray:
        return self.frame.copy()

    def check_pin(self, pin: str) -> bool:
        return pin == self.pin

    def new_game(self, players: int = 2, opening: str = "none", names: list[str] | None = None) -> str:
        self.calls.append(("new_game", (players, opening, names)))
        if names and len(names) != players:
            raise FakeControlError(f"names must be {players} texts")
        self.past_games.append({"id": self.game_id, "started": "2026-11-22T01:00:00+00:00",
                                "moves": len(self.moves), "winner": None, "move_list": list(self.moves)})
        self._reset(players, opening, names)
        self.publish({"type": "game_started", "frame": None})
        return self.game_id

    def accept(self) -> list[dict[str, Any]]:
        self.calls.append(("accept", ()))
        if not self.mismatch:
            raise FakeControlError("the board matches the game: nothing to accept")
        self.mismatch, self.pending = [], None
        return self.publish({"type": "accepted", "frame": None})

    def correct(self, point: int, colour: int | None) -> list[dict[str, Any]]:
        self.calls.append(("correct", (point, colour)))
        name = point_name(point)
        if colour is None:
            self.tokens.pop(name, None)
        else:
            self.tokens[name] = colour
        return self.publish({"type": "corrected", "frame": None, "point": name, "color": colour})

    def confirm_hidden(self, point: int) -> list[dict[str, Any]]:
        self.calls.append(("confirm_hidden", (point,)))
        self.pending = None
        self.play(point_name(point), len(self.moves) % self.players)
        return []

    def choose_colour(self, colour: int) -> list[dict[str, Any]]:
        self.calls.append(("choose_colour", (colour,)))
        if self._phase() != "3meq-choice":
            raise FakeControlError("no colour choice is due")
        self.choice = colour
        return self.publish({"type": "move", "frame": None, "color": colour, "kind": "choose"})

    def undo(self) -> list[dict[str, Any]]:
        self.calls.append(("undo", ()))
        if not self.moves:
            raise FakeControlError("no move to take back")
        move = self.moves.pop()
        self.tokens.pop(move["point"], None)
        return self.publish({"type": "undo", "frame": None, "notation": move["point"]})

    def set_calibration(self, calibration: Any) -> None:
        self.calls.append(("set_calibration", (calibration,)))
        self.calibration = calibration

    def games(self) -> list[dict[str, Any]]:
        current = {"id": self.game_id, "started": "2026-11-22T01:00:00+00:00", "moves": len(self.moves),
                   "winner": self.winner["color"] if self.winner else None}
        return [current] + [{k: g[k] for k in ("id", "started", "moves", "winner")} for g in self.past_games]

    def game(self, game_id: str) -> dict[str, Any]:
        if game_id == self.game_id:
            return {"id": game_id, "started": "2026-11-22T01:00:00+00:00", "moves": list(self.moves),
                    "winner": self.winner}
        for past in self.past_games:
            if past["id"] == game_id:
                return {"id": game_id, "started": past["started"], "moves": past["move_list"], "winner": None}
        raise UnknownFakeGame(game_id)

    def export(self, game_id: str, fmt: str) -> str:
        moves = self.game(game_id)["moves"]
        if fmt == "json":
            return json.dumps({"id": game_id, "moves": moves})
        return "\n".join(f"{i + 1}. {m['point']}" for i, m in enumerate(moves))

    def bundle(self) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("state.json", json.dumps(self.state()))
        return buffer.getvalue()
