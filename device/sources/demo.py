"""The built-in demo: the synthetic renderer playing a scripted game in a loop.

``boardcam serve`` with no camera runs this source, so a fresh machine shows
the whole product working: hands placing tokens, a fast two-token move, an
illegal move put right, a win, and a new game. The board has few distinct
states, so each view (board + hand) is rendered once and kept as JPEG bytes:
after the first loop the demo costs a JPEG decode per frame.

:func:`demo_camera`, :data:`DEMO_PALETTE` and :meth:`DemoSource.calibration`
give the pipeline what it needs to read the demo's frames. ``DemoSource(board="gryb")``
plays EZ GRYB on a rendered, wrinkled bandanna instead (:class:`BandannaShotRenderer`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.spec import TimeVectorsSpec, load_spec
from device.demo_script import Board, Shot, demo_script, gryb_demo_script
from device.sources.base import Frame, FrameSource, Pacer, SourceError
from vision.render import HandSpec, SceneStyle, render_timevectors

logger = logging.getLogger(__name__)

RGB = tuple[int, int, int]

#: Nominal token colours of the demo's sets (player i plays colour i): red, yellow, blue.
DEMO_PALETTE: tuple[RGB, ...] = ((205, 40, 45), (240, 190, 30), (35, 85, 200))
DEMO_SIZE = (800, 600)
DEMO_FPS = 4.0
#: The bandanna demo's scene (camera, cloth, wrinkles, ring colours) by its seed.
BANDANNA_DEMO_SEED = 21


def reaching_hand(shot: Shot) -> HandSpec | None:
    """The hand in ``shot``'s view, reaching for its ``hand_at`` (``None``: no hand in view)."""
    return HandSpec(target_point=shot.hand_at) if shot.hand_at is not None else None


def demo_camera(size: tuple[int, int] = DEMO_SIZE) -> CameraModel:
    """The demo's fixed camera: high on the south-south-west side, the board filling the view."""
    return CameraModel.looking_at((0.0, 0.0, 150.0), 760.0, 58.0, 25.0, size)


class ShotRenderer:
    """Renders :class:`~device.demo_script.Shot` views with one camera and scene.

    Each distinct view (board, hand) is rendered once and kept as JPEG bytes
    (``jpeg_quality``), like frames from a real camera; :meth:`image` decodes
    them, :meth:`encoded` gives the bytes (to write frame files).
    """

    def __init__(
        self,
        camera: CameraModel,
        colours_rgb: Sequence[RGB] = DEMO_PALETTE,
        *,
        spec: TimeVectorsSpec | None = None,
        scene: SceneStyle | None = None,
        seed: int = 0,
        jpeg_quality: int = 92,
    ) -> None:
        self.camera = camera
        self.colours_rgb = [tuple(c) for c in colours_rgb]
        self.spec = spec or load_spec()
        self.scene = scene or SceneStyle()
        self.seed = seed
        self.jpeg_quality = jpeg_quality
        self._cache: dict[tuple[Board, int | None], bytes] = {}
        self._view_locks: dict[tuple[Board, int | None], threading.Lock] = {}
        self._lock = threading.Lock()  # guards the two dicts; a view renders under its own lock

    def encoded(self, shot: Shot) -> bytes:
        """The JPEG bytes of ``shot``'s view (rendered on first use, once even across threads)."""
        key = (shot.board, shot.hand_at)
        with self._lock:
            data = self._cache.get(key)
            if data is not None:
                return data
            view_lock = self._view_locks.setdefault(key, threading.Lock())
        with view_lock:
            with self._lock:
                data = self._cache.get(key)
            if data is None:
                data = self._render(shot)
                with self._lock:
                    self._cache[key] = data
        return data

    def prerender(self, shots: Sequence[Shot], stop: threading.Event) -> None:
        """Render every view of ``shots`` in order of first use, until ``stop`` is set."""
        for shot in shots:
            if stop.is_set():
                return
            self.encoded(shot)

    @property
    def cached_views(self) -> int:
        """How many distinct views have been rendered so far."""
        with self._lock:
            return len(self._cache)

    def image(self, shot: Shot) -> np.ndarray:
        """``shot``'s view as a BGR image."""
        image = cv2.imdecode(np.frombuffer(self.encoded(shot), np.uint8), cv2.IMREAD_COLOR)
        if image is None:  # cannot happen for bytes we encoded; a clear error if it does
            raise SourceError("a cached demo frame could not be decoded")
        return image

    def empty_board(self) -> np.ndarray:
        """The empty board with no hand: the calibration's reference image."""
        return self.image(Shot(board=()))

    def _draw(self, shot: Shot) -> np.ndarray:
        """The BGR picture of ``shot``'s view."""
        return render_timevectors(
            self.camera,
            self.spec,
            shot.tokens,
            self.colours_rgb,
            hand=reaching_hand(shot),
            scene=self.scene,
            seed=self.seed,
        ).image_bgr

    def _render(self, shot: Shot) -> bytes:
        started = time.perf_counter()
        image = self._draw(shot)
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            raise SourceError("the demo frame could not be encoded")
        logger.debug(
            "rendered demo view (%d tokens, hand %s) in %.0f ms",
            len(shot.board),
            shot.hand_at,
            1000 * (time.perf_counter() - started),
        )
        return buffer.tobytes()


class BandannaShotRenderer(ShotRenderer):
    """Renders shots of the bandanna (board keys are node indices, colours the players' rings)
    in one random but fixed scene; its :meth:`calibration` is fitted from the empty bandanna's
    picture the way ``boardcam calibrate --board gryb`` fits one (a few seconds, done once)."""

    def __init__(self, size: tuple[int, int] = DEMO_SIZE, seed: int = BANDANNA_DEMO_SEED) -> None:
        from vision.gryb_render import random_bandanna_scene

        camera, self.style, self.wrinkles = random_bandanna_scene(seed, size)
        super().__init__(camera, (), seed=seed)
        self._fitted: Any = None

    def _draw(self, shot: Shot) -> np.ndarray:
        from vision.gryb_render import render_bandanna

        return render_bandanna(
            self.camera,
            self.bandanna_spec,
            shot.tokens,
            style=self.style,
            wrinkles=self.wrinkles,
            hand=reaching_hand(shot),
            seed=self.seed,
            noise_seed=0,
        ).image_bgr

    @property
    def bandanna_spec(self) -> Any:
        from calibration.gryb_spec import load_gryb_spec

        return load_gryb_spec()

    def calibration(self) -> Any:
        """The bandanna calibration fitted from the empty picture and its corner clicks."""
        if self._fitted is None:
            from vision.gryb_bench import calibrated_scene

            self._fitted = calibrated_scene(self.seed, self.camera.image_size).calibration
        return self._fitted


class DemoSource(FrameSource):
    """Plays the scripted demo game at ``fps`` frames per second, in a loop by default.

    ``fps=0`` delivers frames as fast as they are asked for (tests, benchmarks).
    ``shots`` replaces the demo game by another script. ``board="gryb"`` plays the
    bandanna's demo (EZ GRYB) instead of the stacked board's.
    """

    def __init__(
        self,
        fps: float = DEMO_FPS,
        *,
        size: tuple[int, int] = DEMO_SIZE,
        loop: bool = True,
        shots: Sequence[Shot] | None = None,
        scene: SceneStyle | None = None,
        seed: int = 0,
        board: str = "timevectors",
    ) -> None:
        if fps < 0:
            raise ValueError(f"fps must be 0 or more, not {fps}")
        if board not in ("timevectors", "gryb"):
            raise ValueError(f"the demo plays on the timevectors or gryb board, not {board!r}")
        self.fps = fps
        self.loop = loop
        self.board = board
        if board == "gryb":
            self.renderer: ShotRenderer = BandannaShotRenderer(size)
            script = gryb_demo_script() if shots is None else shots
            what = "EZ GRYB game on the bandanna"
        else:
            self.renderer = ShotRenderer(demo_camera(size), DEMO_PALETTE, scene=scene, seed=seed)
            script = demo_script() if shots is None else shots
            what = "Time Vectors game"
        self._timeline = [shot for shot in script for _ in range(shot.frames)]
        if not self._timeline:
            raise ValueError("the demo script has no frames")
        self.description = f"demo: a scripted {what} at {fps:g} fps"
        self._index = 0
        self._seq = 0
        self._pacer = Pacer(fps)
        self._started = False
        self._warmer: threading.Thread | None = None
        self._stop_warming = threading.Event()

    @property
    def palette(self) -> list[RGB] | None:
        """The nominal colours of the demo's token sets (``None`` on the bandanna: the ring
        colours are numbered as first seen, and the first ring is the first player's)."""
        return None if self.board == "gryb" else list(DEMO_PALETTE)

    @property
    def camera(self) -> CameraModel:
        return self.renderer.camera

    @property
    def frame_count(self) -> int:
        """Frames in one play of the script."""
        return len(self._timeline)

    def calibration(self) -> Any:
        """A calibration of the demo camera (exact: it is the camera that renders; the
        bandanna's is fitted from its empty picture)."""
        from calibration.calibfile import Calibration

        if isinstance(self.renderer, BandannaShotRenderer):
            return self.renderer.calibration()
        reference = self.renderer.empty_board()
        calibration = Calibration(
            board="timevectors", spec=self.renderer.spec, camera=self.renderer.camera, rms_px=0.0
        )
        return calibration.with_reference(reference, max_width=reference.shape[1], quality=95)

    def start(self) -> None:
        """Start playing; at a real frame rate, render the script's views ahead in the background
        so that the first loop does not stall on each new view."""
        self._index = 0
        self._pacer.reset()
        self._started = True
        if self.fps > 0 and self._warmer is None:
            self._stop_warming.clear()
            self._warmer = threading.Thread(
                target=self.renderer.prerender,
                args=(self._timeline, self._stop_warming),
                name="demo-prerender",
                daemon=True,
            )
            self._warmer.start()

    def read(self, timeout: float = 1.0) -> Frame | None:
        if not self._started:
            raise SourceError(f"{self.description} is not started")
        if self.is_exhausted:
            return None
        if not self._pacer.wait(max(timeout, 0.0)):
            return None
        shot = self._timeline[self._index % len(self._timeline)]
        self._index += 1
        frame = Frame(image=self.renderer.image(shot), seq=self._seq, name=f"demo-{self._seq:06d}")
        self._seq += 1
        return frame

    def stop(self) -> None:
        self._started = False
        self._stop_warming.set()
        if self._warmer is not None:
            self._warmer.join(timeout=5.0)  # at most one render in progress
            self._warmer = None

    @property
    def is_exhausted(self) -> bool:
        return not self.loop and self._index >= len(self._timeline)
