"""Calibration files of the bandanna: the same versioned JSON as the stacked board's, ``board: "gryb"``.

Schema (version 2; version 1 files are the same)::

    {
      "version": 2,
      "board": "gryb",
      "spec": {"name": "gryb" | null, "values": {"level_offsets": [120, 60, 30, 15], ...}},
      "image_size": [w, h],
      "homography": [[...], [...], [...]],      # cloth mm -> pixels through the corner clicks
      "nodes_px": [[u, v], ...],                # 341 rows, node index order (rules.gryb.nodes)
      "located": [true, ...],                   # node found on its own printed spot
      "reprojection_px": 0.8,                   # RMS of the spots about the smooth field
      "created": "2026-11-22T01:40:00+00:00",
      "palette_rgb": [[r, g, b], [r, g, b]] | null,   # nominal ring colours, if given
      "landmarks": {"GGGG": [u, v], ...} | null,
      "reference_image": {"jpeg_base64": "..."} | {"path": "empty.png"} | null
    }

Version upgrades go through :func:`calibration.calibfile.upgrade` (one migration
list for both boards); files are written by :func:`calibration.calibfile.save_calibration`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from calibration.calibfile import (
    CALIBRATION_VERSION,
    Calibration,
    CalibrationError,
    calibration_document,
    image_size_field,
    number_array,
    read_calibration_document,
    shared_fields,
    upgraded_document,
)
from calibration.gryb_fit import GrybClicks, GrybFit, parse_gryb_clicks
from calibration.gryb_spec import GrybSpec, spec_from_values, spec_values
from rules.gryb.nodes import NODES

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class GrybCalibration:
    """Everything the ring reader needs for one camera's view of one bandanna.

    ``nodes_px`` is where each node's spot centre is in the image; ``homography``
    (cloth mm to pixels) gives the local scale and the cloth outline.
    """

    spec: GrybSpec
    image_size: tuple[int, int]
    homography: np.ndarray
    nodes_px: np.ndarray
    located: np.ndarray
    rms_px: float
    spec_name: str | None = "gryb"
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    palette_rgb: tuple[RGB, ...] | None = None
    landmarks: GrybClicks | None = None
    reference_jpeg: bytes | None = None
    reference_path: str | None = None
    version: int = CALIBRATION_VERSION
    board: str = "gryb"
    #: Always 0: cloth has no camera model to re-fit, so its reference is never moved (the
    #: field is here for the reference methods the stacked board's calibration lends it).
    reference_misfit_px: float = 0.0

    # The reference picture is stored exactly as for the stacked board.
    reference_image = Calibration.reference_image
    with_reference = Calibration.with_reference

    @classmethod
    def from_fit(
        cls,
        fit: GrybFit,
        spec: GrybSpec,
        image_bgr: np.ndarray,
        clicks: GrybClicks,
        *,
        spec_name: str | None = "gryb",
        palette_rgb: tuple[RGB, ...] | None = None,
    ) -> GrybCalibration:
        """A calibration from a refined fit, with ``image_bgr`` (the empty bandanna) as its
        full-size reference."""
        h, w = image_bgr.shape[:2]
        plain = cls(
            spec=spec,
            image_size=(w, h),
            homography=fit.homography,
            nodes_px=fit.nodes_px,
            located=fit.located,
            rms_px=fit.residual_px,
            spec_name=spec_name,
            palette_rgb=palette_rgb,
            landmarks=dict(clicks),
        )
        return plain.with_reference(image_bgr, max_width=w, quality=92)

    def to_dict(self) -> dict:
        """The JSON document (see the module docstring for the schema)."""
        landmarks = None
        if self.landmarks is not None:
            landmarks = {k: list(v) for k, v in self.landmarks.items()}
        board_fields = {
            "image_size": list(self.image_size),
            "homography": np.asarray(self.homography).tolist(),
            "nodes_px": np.round(np.asarray(self.nodes_px), 3).tolist(),
            "located": [bool(v) for v in self.located],
        }
        return calibration_document(self, spec_values(self.spec), board_fields, landmarks)


def gryb_calibration_from_dict(document: object) -> GrybCalibration:
    """Validate a decoded bandanna calibration (upgrading old versions).

    Raises :class:`~calibration.calibfile.CalibrationError` naming the bad field.
    """
    document = upgraded_document(document)
    if document.get("board") != "gryb":
        raise CalibrationError(
            f"calibration is for board {document.get('board')!r}, not the GRYB bandanna"
        )
    shared = shared_fields(document, spec_from_values, parse_gryb_clicks, 2, "two ring colours")
    size = image_size_field(document)
    homography = number_array(document.get("homography"), (3, 3), "calibration field 'homography'")
    nodes_px = number_array(
        document.get("nodes_px"), (len(NODES), 2), "calibration field 'nodes_px'"
    )
    located = document.get("located")
    if (
        not isinstance(located, list)
        or len(located) != len(NODES)
        or not all(isinstance(v, bool) for v in located)
    ):
        raise CalibrationError(
            f"calibration field 'located' must be {len(NODES)} true/false values"
        )
    return GrybCalibration(
        image_size=size,
        homography=homography,
        nodes_px=nodes_px,
        located=np.array(located, bool),
        **shared,
    )


def load_gryb_calibration(path: str | Path) -> GrybCalibration:
    """Read and validate a bandanna calibration file.

    Raises :class:`~calibration.calibfile.CalibrationError` for an unreadable file, corrupt
    JSON, a wrong version or board, missing or ill-typed fields and impossible values.
    """
    return gryb_calibration_from_dict(read_calibration_document(path))
