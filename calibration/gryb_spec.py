"""Geometry of the GRYB bandanna in millimetres: node positions, landmarks and token size.

The nodes are those of :mod:`rules.gryb.nodes` in its index order, so an array
row ``i`` here is node ``NODES[i]`` there. Calibration landmarks are the four
corner leaves ``GGGG``, ``RRRR``, ``YYYY`` and ``BBBB`` (printed spots a user can
click). The default spec is ``calibration/specs/gryb.toml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from calibration.spec import SpecError, read_spec_table
from rules.gryb.nodes import DEPTH, NODES

LANDMARKS = ("GGGG", "RRRR", "YYYY", "BBBB")
DIRECTIONS: dict[str, tuple[float, float]] = {
    "G": (-1.0, 1.0),
    "R": (1.0, 1.0),
    "Y": (1.0, -1.0),
    "B": (-1.0, -1.0),
}


@dataclass(frozen=True)
class GrybSpec:
    """Printed bandanna geometry (see the TOML for the frame and the formula)."""

    level_offsets: tuple[float, float, float, float]
    cloth_size: float
    spot_diameter: float
    line_width: float
    ring_outer_diameter: float
    ring_inner_diameter: float

    board = "gryb"

    def node_position(self, node: str) -> tuple[float, float]:
        """Centre of a node's spot (``""`` is the head node)."""
        x = sum(self.level_offsets[i] * DIRECTIONS[c][0] for i, c in enumerate(node))
        y = sum(self.level_offsets[i] * DIRECTIONS[c][1] for i, c in enumerate(node))
        return (x, y)

    def node_positions(self) -> np.ndarray:
        """``(341, 2)`` float64 spot centres, row ``i`` for ``NODES[i]``."""
        return np.array([self.node_position(n) for n in NODES], dtype=np.float64)

    def landmarks(self) -> dict[str, tuple[float, float]]:
        """The four corner leaves a user clicks, keyed by node name."""
        return {name: self.node_position(name) for name in LANDMARKS}

    def min_spacing(self) -> float:
        """Smallest distance between two node centres (a node and its child on the bottom level)."""
        return self.level_offsets[-1] * math.sqrt(2.0)


def spec_values(spec: GrybSpec) -> dict[str, object]:
    """Flat ``{field: value}`` of a spec (JSON-ready), as stored inline in calibration files."""
    values = asdict(spec)
    values["level_offsets"] = list(spec.level_offsets)
    return values


def _number(values: Mapping[str, object], name: str) -> float:
    value = values.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(f"GRYB spec value {name!r} must be a finite number, not {value!r}")
    return float(value)


def spec_from_values(values: Mapping[str, object]) -> GrybSpec:
    """Inverse of :func:`spec_values`; raises :class:`~calibration.spec.SpecError` for missing,
    ill-typed or impossible values (spots that would overlap, a ring smaller than its hole,
    nodes off the cloth)."""
    if not isinstance(values, Mapping):
        raise SpecError("GRYB spec values must be an object of named sizes")
    offsets = values.get("level_offsets")
    if not isinstance(offsets, (list, tuple)) or len(offsets) != DEPTH:
        raise SpecError(f"level_offsets must be {DEPTH} numbers (one per level), not {offsets!r}")
    offsets_f = tuple(_number({"level_offsets": o}, "level_offsets") for o in offsets)
    spec = GrybSpec(
        level_offsets=offsets_f,  # type: ignore[arg-type]
        cloth_size=_number(values, "cloth_size"),
        spot_diameter=_number(values, "spot_diameter"),
        line_width=_number(values, "line_width"),
        ring_outer_diameter=_number(values, "ring_outer_diameter"),
        ring_inner_diameter=_number(values, "ring_inner_diameter"),
    )
    return _checked(spec)


def _checked(spec: GrybSpec) -> GrybSpec:
    sizes = (
        *spec.level_offsets,
        spec.cloth_size,
        spec.spot_diameter,
        spec.line_width,
        spec.ring_outer_diameter,
        spec.ring_inner_diameter,
    )
    if min(sizes) <= 0:
        raise SpecError("GRYB spec is physically impossible (every size must be positive)")
    if any(a <= b for a, b in zip(spec.level_offsets, spec.level_offsets[1:])):
        raise SpecError("level_offsets must shrink from level 1 to level 4 (quadrangles nest)")
    if spec.min_spacing() <= spec.spot_diameter:
        raise SpecError(
            f"spots of {spec.spot_diameter:g} mm would overlap: the closest nodes are "
            f"{spec.min_spacing():.1f} mm apart"
        )
    if spec.ring_inner_diameter >= spec.ring_outer_diameter:
        raise SpecError("a ring's inner diameter must be smaller than its outer diameter")
    if sum(spec.level_offsets) + spec.spot_diameter / 2 > spec.cloth_size / 2:
        raise SpecError("the printed nodes do not fit on a cloth of this size")
    return spec


def _spec_from_table(data: dict, source: object) -> GrybSpec:
    """The spec in a checked TOML table (see :func:`~calibration.spec.read_spec_table`)."""
    try:
        values = {
            "level_offsets": data["layout"]["level_offsets"],
            "cloth_size": data["layout"]["cloth_size"],
            "spot_diameter": data["print"]["spot_diameter"],
            "line_width": data["print"]["line_width"],
            "ring_outer_diameter": data["ring"]["outer_diameter"],
            "ring_inner_diameter": data["ring"]["inner_diameter"],
        }
    except (KeyError, TypeError) as exc:
        raise SpecError(f"GRYB spec {source} is incomplete: missing {exc}") from exc
    return spec_from_values(values)


def load_gryb_spec(source: str | Path = "gryb") -> GrybSpec:
    """Load a bandanna spec by shipped name (``"gryb"``) or from a TOML file path.

    Raises :class:`~calibration.spec.SpecError` for a missing, malformed or impossible spec.
    """
    return _spec_from_table(read_spec_table(source, GrybSpec.board), source)
