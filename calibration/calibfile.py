"""Calibration files: versioned JSON with the camera, the board spec and an empty-board reference.

Schema (version 2)::

    {
      "version": 2,
      "board": "timevectors",
      "spec": {"name": "timevectors" | null,
               "values": {"tier_spacing": 105.0, ..., "tier_twist_deg": [0, 0.8, -1.2, 0.4]}},
      "camera": {"K": [[fx,0,cx],[0,fy,cy],[0,0,1]], "dist": [k1,k2,p1,p2,k3],
                 "rvec": [3], "tvec": [3], "image_size": [w, h]},
      "image_size": [w, h],
      "reprojection_px": 1.4,
      "created": "2026-11-22T01:40:00+00:00",
      "palette_rgb": [[r, g, b], ...] | null,
      "landmarks": {"P": {"NW": [u, v], ...}, ...} | null,
      "reference_image": {"jpeg_base64": "..."} | {"path": "empty.png"} | null
    }

Loading validates every field and raises :class:`CalibrationError` with a
message that names the field. A file from an older version is upgraded by the
migration registered for each version bump (:data:`MIGRATIONS`); a newer
version is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.fit import Clicks, parse_clicks
from calibration.jsonfile import JsonFileError, read_json_file
from calibration.spec import NO_TWIST, SpecError, TimeVectorsSpec, spec_from_values, spec_values

if TYPE_CHECKING:
    from calibration.gryb_calibfile import GrybCalibration

logger = logging.getLogger(__name__)

SpecT = TypeVar("SpecT")
LandmarksT = TypeVar("LandmarksT")

CALIBRATION_VERSION = 2
# MIGRATIONS[v] turns a version-v document into a version v+1 document.
Migration = Callable[[dict], dict]


def _plates_untwisted(document: dict) -> dict:
    """Version 1 -> 2: version 2 stores each stacked-board plate's twist on the post
    (``spec.values.tier_twist_deg``); a version 1 fit took the board for rigid."""
    spec = document.get("spec")
    if document.get("board", "timevectors") == "timevectors" and isinstance(spec, dict):
        values = spec.get("values")
        if isinstance(values, dict):
            spec = {**spec, "values": {**values, "tier_twist_deg": list(NO_TWIST)}}
            document = {**document, "spec": spec}
    return document


MIGRATIONS: dict[int, Migration] = {1: _plates_untwisted}


class CalibrationError(ValueError):
    """A calibration file that is unreadable, corrupt, of an unknown version or impossible."""


@dataclass(frozen=True)
class Calibration:
    """Everything the vision pipeline needs to read one camera's view of one board.

    ``palette_rgb`` is the learned token colours (RGB as the camera sees them), if any.
    The reference is a small JPEG of the empty board (``reference_jpeg``) or a
    path to an image file (``reference_path``, relative to the calibration file).
    ``reference_misfit_px`` is how far (frame pixels) the reference's details may lie from
    where this camera sees them: 0 for a picture this camera took, more for one moved to
    follow a bumped camera (one homography cannot follow the tiers' parallax). It lives
    only as long as the running pipeline that re-fitted the camera and is not saved.
    """

    board: str
    spec: TimeVectorsSpec
    camera: CameraModel
    rms_px: float
    spec_name: str | None = "timevectors"
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    palette_rgb: tuple[tuple[int, int, int], ...] | None = None
    landmarks: Clicks | None = None
    reference_jpeg: bytes | None = None
    reference_path: str | None = None
    version: int = CALIBRATION_VERSION
    reference_misfit_px: float = 0.0

    @property
    def image_size(self) -> tuple[int, int]:
        """``(width, height)`` of the frames this calibration is for."""
        return self.camera.image_size

    def reference_image(self, base_dir: str | Path | None = None) -> np.ndarray | None:
        """The empty-board reference as a BGR image, or ``None`` if there is none.

        Raises :class:`CalibrationError` if the stored image cannot be decoded or read.
        """
        if self.reference_jpeg is not None:
            image = cv2.imdecode(np.frombuffer(self.reference_jpeg, np.uint8), cv2.IMREAD_COLOR)
            if image is None:
                raise CalibrationError("the embedded reference image is not a readable JPEG")
            return image
        if self.reference_path is not None:
            path = Path(self.reference_path)
            if base_dir is not None and not path.is_absolute():
                path = Path(base_dir) / path
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise CalibrationError(f"reference image {path} cannot be read")
            return image
        return None

    def with_reference(
        self,
        image_bgr: np.ndarray,
        max_width: int = 640,
        quality: int = 95,
        *,
        misfit_px: float = 0.0,
    ) -> Calibration:
        """A copy embedding ``image_bgr`` (at most ``max_width`` wide) as the reference JPEG,
        with full colour resolution: the usual halved chroma smears colour across every sharp
        edge (the post against the plates), which the observer would read as change.
        ``misfit_px``: see ``reference_misfit_px`` (0: this camera's own picture)."""
        h, w = image_bgr.shape[:2]
        if w > max_width:
            image_bgr = cv2.resize(
                image_bgr, (max_width, round(h * max_width / w)), interpolation=cv2.INTER_AREA
            )
        ok, buf = cv2.imencode(
            ".jpg",
            image_bgr,
            [cv2.IMWRITE_JPEG_QUALITY, quality, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444],
        )
        if not ok:
            raise CalibrationError("could not encode the reference image as JPEG")
        return replace(
            self,
            reference_jpeg=buf.tobytes(),
            reference_path=None,
            reference_misfit_px=float(misfit_px),
        )

    def to_dict(self) -> dict:
        """The JSON document (see the module docstring for the schema)."""
        landmarks = None
        if self.landmarks is not None:
            landmarks = {
                t: {c: list(uv) for c, uv in corners.items()}
                for t, corners in self.landmarks.items()
            }
        board_fields = {"camera": self.camera.to_dict(), "image_size": list(self.image_size)}
        return calibration_document(self, spec_values(self.spec), board_fields, landmarks)


def calibration_document(
    calibration: Calibration | GrybCalibration,
    spec_values: dict,
    board_fields: dict,
    landmarks: object,
) -> dict:
    """The JSON document of a calibration of any board: the shared fields around the
    board's own ``board_fields``, with its spec values and landmarks already JSON-ready."""
    return {
        "version": CALIBRATION_VERSION,
        "board": calibration.board,
        "spec": {"name": calibration.spec_name, "values": spec_values},
        **board_fields,
        "reprojection_px": calibration.rms_px,
        "created": calibration.created,
        "palette_rgb": None
        if calibration.palette_rgb is None
        else [list(c) for c in calibration.palette_rgb],
        "landmarks": landmarks,
        "reference_image": reference_to_dict(
            calibration.reference_jpeg, calibration.reference_path
        ),
    }


def save_calibration(calibration: Calibration, path: str | Path) -> None:
    """Write the calibration atomically (a crash never leaves half a file)."""
    path = Path(path)
    text = json.dumps(calibration.to_dict(), indent=2)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def upgrade(
    document: dict,
    migrations: Mapping[int, Migration] = MIGRATIONS,
    current: int = CALIBRATION_VERSION,
) -> dict:
    """Bring a decoded document to ``current`` by applying one migration per version bump.

    Raises :class:`CalibrationError` for a missing or non-integer version, a version
    newer than ``current`` or a gap in the migrations.
    """
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise CalibrationError(f"calibration file has no valid 'version' (found {version!r})")
    if version > current:
        raise CalibrationError(
            f"calibration file version {version} is newer than this boardcam "
            f"understands (up to {current}); upgrade boardcam"
        )
    if version < 1:
        raise CalibrationError(f"calibration file version {version} is not a boardcam version")
    while version < current:
        if version not in migrations:
            raise CalibrationError(f"no migration from calibration version {version}; recalibrate")
        document = migrations[version](dict(document))
        version += 1
        document["version"] = version
        logger.info("calibration upgraded to version %d", version)
    return document


def _require(document: Mapping, key: str, kind: type | tuple[type, ...], what: str) -> object:
    if key not in document:
        raise CalibrationError(f"calibration file is missing {key!r} ({what})")
    value = document[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise CalibrationError(f"calibration field {key!r} must be {what}, not {value!r}")
    return value


# Fields every board's calibration file has; each board's loader validates them with these.


def spec_section(
    document: Mapping, from_values: Callable[[object], SpecT]
) -> tuple[SpecT, str | None]:
    """The board spec and its shipped name from a document's ``spec`` object, the values
    read by the board's ``spec_from_values``. Raises :class:`CalibrationError`."""
    spec_doc = _require(document, "spec", dict, "an object with the board spec")
    spec_name = spec_doc.get("name")
    if spec_name is not None and not isinstance(spec_name, str):
        raise CalibrationError(f"spec name must be a string or null, not {spec_name!r}")
    try:
        spec = from_values(spec_doc.get("values"))
    except SpecError as exc:
        raise CalibrationError(f"calibration spec: {exc}") from exc
    return spec, spec_name


def image_size_field(document: Mapping) -> tuple[int, int]:
    """``image_size`` as (width, height); raises :class:`CalibrationError`."""
    size_list = _require(document, "image_size", list, "[width, height]")
    if len(size_list) != 2 or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size_list
    ):
        raise CalibrationError(f"image_size must be two positive whole numbers, not {size_list!r}")
    return (size_list[0], size_list[1])


def reprojection_field(document: Mapping) -> float:
    """``reprojection_px``, a non-negative number; raises :class:`CalibrationError`."""
    rms = _require(document, "reprojection_px", (int, float), "a number of pixels")
    if not math.isfinite(rms) or rms < 0:
        raise CalibrationError(f"reprojection_px must be a non-negative number, not {rms!r}")
    return float(rms)


def created_field(document: Mapping) -> str:
    """``created``, an ISO 8601 time; raises :class:`CalibrationError`."""
    created = _require(document, "created", str, "an ISO 8601 time")
    try:
        datetime.fromisoformat(created)
    except ValueError as exc:
        raise CalibrationError(f"created {created!r} is not an ISO 8601 time") from exc
    return created


def palette_field(
    document: Mapping, count: int | None, described: str
) -> tuple[tuple[int, int, int], ...] | None:
    """``palette_rgb``: null, or ``count`` (any number for None) ``[r, g, b]`` colours;
    ``described`` says what it must be in the error ("a list of"). Raises
    :class:`CalibrationError`."""
    palette = document.get("palette_rgb")
    if palette is None:
        return None
    if (
        not isinstance(palette, list)
        or (count is not None and len(palette) != count)
        or not all(
            isinstance(c, list)
            and len(c) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in c)
            for c in palette
        )
    ):
        raise CalibrationError(
            f"palette_rgb must be {described} [r, g, b] with whole numbers 0..255"
        )
    return tuple(tuple(c) for c in palette)


def landmarks_field(document: Mapping, parse: Callable[[object], LandmarksT]) -> LandmarksT | None:
    """``landmarks``: null, or the clicks the board's ``parse`` accepts (it raises a
    ``ValueError`` saying why not). Raises :class:`CalibrationError`."""
    landmarks = document.get("landmarks")
    if landmarks is None:
        return None
    try:
        return parse(landmarks)
    except ValueError as exc:
        raise CalibrationError(f"calibration landmarks: {exc}") from exc


def upgraded_document(document: object) -> dict:
    """A decoded calibration document brought to the current version (see :func:`upgrade`).

    Raises :class:`CalibrationError` for a document that is not a JSON object or whose
    version cannot be upgraded.
    """
    if not isinstance(document, dict):
        raise CalibrationError("calibration file must hold a JSON object")
    return upgrade(document)


def shared_fields(
    document: Mapping,
    spec_from_values: Callable[[object], object],
    parse_landmarks: Callable[[object], object],
    palette_count: int | None,
    palette_described: str,
) -> dict[str, object]:
    """The validated fields every board's calibration has, as keyword arguments of its
    calibration class: ``spec``, ``spec_name``, ``rms_px``, ``created``, ``palette_rgb``,
    ``landmarks``, ``reference_jpeg`` and ``reference_path``. The board's own functions
    read its spec values and landmarks; the palette is checked by :func:`palette_field`.

    Raises :class:`CalibrationError` naming the first bad field.
    """
    spec, spec_name = spec_section(document, spec_from_values)
    rms = reprojection_field(document)
    created = created_field(document)
    palette = palette_field(document, palette_count, palette_described)
    landmarks = landmarks_field(document, parse_landmarks)
    reference_jpeg, reference_path = reference_from_dict(document)
    return {
        "spec": spec,
        "spec_name": spec_name,
        "rms_px": rms,
        "created": created,
        "palette_rgb": palette,
        "landmarks": landmarks,
        "reference_jpeg": reference_jpeg,
        "reference_path": reference_path,
    }


def reference_to_dict(jpeg: bytes | None, path: str | None) -> dict | None:
    """The ``reference_image`` value for an embedded JPEG, a picture file's path or neither."""
    if jpeg is not None:
        return {"jpeg_base64": base64.b64encode(jpeg).decode("ascii")}
    if path is not None:
        return {"path": path}
    return None


def reference_from_dict(document: Mapping) -> tuple[bytes | None, str | None]:
    """The embedded reference JPEG or the reference picture's path (at most one of them).

    Raises :class:`CalibrationError` for a malformed ``reference_image``, invalid base64 or
    data that is not a JPEG.
    """
    reference = document.get("reference_image")
    if reference is None:
        return None, None
    if (
        not isinstance(reference, dict)
        or len(reference) != 1
        or not (
            isinstance(reference.get("jpeg_base64"), str) or isinstance(reference.get("path"), str)
        )
    ):
        raise CalibrationError(
            'reference_image must be {"jpeg_base64": ...}, {"path": ...} or null'
        )
    if "path" in reference:
        return None, reference["path"]
    try:
        data = base64.b64decode(reference["jpeg_base64"], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CalibrationError("reference_image.jpeg_base64 is not valid base64") from exc
    if not data.startswith(b"\xff\xd8"):
        raise CalibrationError("reference_image.jpeg_base64 does not hold a JPEG")
    return data, None


def number_array(value: object, shape: tuple[int, ...] | None, label: str) -> np.ndarray:
    """``value`` as a float64 array of ``shape`` (any shape for None) holding only finite
    numbers; ``label`` names it in errors ("camera K"). Raises :class:`CalibrationError`."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CalibrationError(f"{label} must be numbers, not {value!r}") from exc
    if shape is not None and array.shape != shape:
        raise CalibrationError(f"{label} must have shape {shape}, not {array.shape}")
    if not np.all(np.isfinite(array)):
        raise CalibrationError(f"{label} holds a value that is not a finite number")
    return array


def _camera_from(data: object, image_size: tuple[int, int]) -> CameraModel:
    if not isinstance(data, Mapping):
        raise CalibrationError("calibration field 'camera' must be an object")
    K = number_array(data.get("K"), (3, 3), "camera K")
    dist = number_array(data.get("dist"), None, "camera dist").reshape(-1)
    if dist.size not in (4, 5, 8, 12, 14):
        raise CalibrationError(f"camera dist must have 4, 5, 8, 12 or 14 values, not {dist.size}")
    rvec = number_array(data.get("rvec"), None, "camera rvec").reshape(-1)
    tvec = number_array(data.get("tvec"), None, "camera tvec").reshape(-1)
    if rvec.size != 3 or tvec.size != 3:
        raise CalibrationError("camera rvec and tvec must have 3 values each")
    cam_size = tuple(number_array(data.get("image_size"), (2,), "camera image_size").astype(int))
    if cam_size != image_size:
        raise CalibrationError(
            f"camera image_size {cam_size} differs from the file's image_size {image_size}"
        )
    w, h = image_size
    if K[0, 0] <= 0 or K[1, 1] <= 0 or not (0 < K[0, 2] < w and 0 < K[1, 2] < h):
        raise CalibrationError(
            "camera K is impossible: focal lengths must be positive and the "
            "principal point inside the image"
        )
    if not np.allclose(K[2], [0, 0, 1]) or K[1, 0] != 0:
        raise CalibrationError("camera K must have the form [[fx, s, cx], [0, fy, cy], [0, 0, 1]]")
    camera = CameraModel(K=K, dist=dist, rvec=rvec, tvec=tvec, image_size=image_size)
    if tvec[2] <= 0:
        raise CalibrationError("camera pose is impossible: the board would be behind the camera")
    return camera


def calibration_from_dict(document: object) -> Calibration:
    """Validate a decoded calibration document (upgrading old versions).

    Raises :class:`CalibrationError` like :func:`load_calibration`.
    """
    document = upgraded_document(document)
    board = _require(document, "board", str, "a board name")
    if board != "timevectors":
        raise CalibrationError(
            f"calibration is for board {board!r}; only 'timevectors' is supported"
        )
    shared = shared_fields(document, spec_from_values, parse_clicks, None, "a list of")
    camera = _camera_from(document.get("camera"), image_size_field(document))
    return Calibration(board=board, camera=camera, **shared)


def read_calibration_document(path: str | Path) -> object:
    """The decoded JSON of a calibration file, not yet validated (every board's loader
    starts here). Raises :class:`CalibrationError` for an unreadable file or corrupt JSON."""
    try:
        return read_json_file(path, "calibration file")
    except JsonFileError as exc:
        raise CalibrationError(str(exc)) from exc


def load_calibration(path: str | Path, board: str | None = None) -> Calibration | GrybCalibration:
    """Read and validate a calibration file of either board: a ``"board": "gryb"`` document
    gives a :class:`~calibration.gryb_calibfile.GrybCalibration`, any other a
    :class:`Calibration`. With ``board`` given, a file of the other board is refused.

    Raises :class:`CalibrationError` for an unreadable file, corrupt JSON, a wrong
    version, an unknown board, a file of another board than ``board``, missing or
    ill-typed fields and impossible values.
    """
    document = read_calibration_document(path)
    if board is not None and isinstance(document, dict):
        found = document.get("board", "timevectors")  # early stacked-board files name none
        if found != board:
            hint = " (add --board gryb)" if found == "gryb" else ""
            raise CalibrationError(f"calibration file {path} is for the {found} board, not {board}{hint}")
    if isinstance(document, dict) and document.get("board") == "gryb":
        # Imported here: the bandanna's loader builds on this module.
        from calibration.gryb_calibfile import gryb_calibration_from_dict

        return gryb_calibration_from_dict(document)
    return calibration_from_dict(document)
