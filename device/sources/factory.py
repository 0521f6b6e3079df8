"""Turn a source specification (``demo``, ``picamera``, ``opencv:0``, ``folder:DIR``) into a source."""

from __future__ import annotations

from pathlib import Path

from device.sources.base import FrameSource, SourceError

SOURCE_FORMS = "demo, picamera (or picamera:1 for a second camera), opencv:INDEX_OR_URL_OR_FILE, folder:DIR"


class SourceSpecError(SourceError, ValueError):
    """A source specification that names no known kind of source."""


def open_source(spec: str, *, fps: float = 4.0, size: tuple[int, int] = (1280, 960)) -> FrameSource:
    """Build (not start) the source named by ``spec``.

    Raises :class:`SourceSpecError` for an unknown or incomplete specification.
    Camera modules are only imported by the source that needs them.
    """
    kind, _, target = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "demo" and not target:
        from device.sources.demo import DemoSource

        return DemoSource(fps=fps)
    if kind == "picamera" and (not target or target.isdigit()):
        from device.sources.picamera import PiCameraSource

        return PiCameraSource(fps=fps, size=size, camera_num=int(target or 0))
    if kind == "opencv" and target:
        from device.sources.opencv import OpenCVSource, parse_target

        parsed = parse_target(target)
        is_file = isinstance(parsed, str) and "://" not in parsed and Path(parsed).is_file()
        if isinstance(parsed, str) and "://" not in parsed and not is_file:
            raise SourceSpecError(f"{parsed} is neither a camera index, a stream URL nor a video file")
        return OpenCVSource(parsed, fps=fps, size=size, is_file=is_file)
    if kind == "folder" and target:
        from device.sources.folder import FolderSource

        return FolderSource(target, fps=fps, loop=False)
    raise SourceSpecError(f"unknown source {spec!r}: use one of {SOURCE_FORMS}")
