"""Physical board specifications, shipped as TOML package data and overridable by the user."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path

import numpy as np

from rules.timevectors.points import POINTS, global_column_row, point_coords

CORNERS = ("NW", "NE", "SE", "SW")
ACRYLIC_INDEX = 1.49  # refractive index of clear acrylic (PMMA)
_CORNER_SIGNS = {"NW": (-1, 1), "NE": (1, 1), "SE": (1, -1), "SW": (-1, -1)}


class SpecError(ValueError):
    """A board spec file that is missing, malformed or physically impossible."""


@dataclass(frozen=True)
class TimeVectorsSpec:
    """Geometry of a stacked Time Vectors board in millimetres (see the TOML for the frame)."""

    tier_spacing: float
    plate_size: float
    plate_thickness: float
    pitch: float
    first_centre: float
    gap: float
    marking_half_size: float
    post_diameter: float
    post_top: float
    cap_top: float
    cap_diameter: float
    base_size: float
    base_height: float
    token_diameter: float
    token_height: float
    tokens_per_colour: int
    # How much the plates bend light (clear acrylic; 1.0 leaves refraction out). Specs and
    # calibration files written before it was known are taken to be acrylic.
    refractive_index: float = ACRYLIC_INDEX

    board = "timevectors"

    def axis_centre(self, index: int) -> float:
        """Centre of global column/row ``index`` 0..7 along its axis."""
        gap_shift = self.gap if index >= 4 else 0.0  # D->E centres are pitch + gap apart
        return self.first_centre + self.pitch * index + gap_shift

    def point_centre(self, point: int) -> tuple[float, float, float]:
        """Centre of a point on the top surface of its tier."""
        column, row = global_column_row(point)
        return (
            self.axis_centre(column),
            self.axis_centre(row),
            self.tier_spacing * point_coords(point)[2],
        )

    def point_centres(self) -> np.ndarray:
        """``(256, 3)`` float64 array of every point centre, indexed by point."""
        return np.array([self.point_centre(p) for p in POINTS], dtype=np.float64)

    def landmarks(self, tier: int) -> dict[str, tuple[float, float, float]]:
        """The 4 outer corners of a tier's 8x8 marking, keyed NW, NE, SE, SW."""
        h, z = self.marking_half_size, self.tier_spacing * tier
        return {name: (sx * h, sy * h, z) for name, (sx, sy) in _CORNER_SIGNS.items()}


def _spec_from_table(data: dict) -> TimeVectorsSpec:
    """The spec in a checked TOML table (see :func:`read_spec_table`)."""
    try:
        spec = TimeVectorsSpec(
            tier_spacing=float(data["tiers"]["spacing"]),
            plate_size=float(data["tiers"]["plate_size"]),
            plate_thickness=float(data["tiers"]["plate_thickness"]),
            pitch=float(data["grid"]["pitch"]),
            first_centre=float(data["grid"]["first_centre"]),
            gap=float(data["grid"]["gap"]),
            marking_half_size=float(data["grid"]["marking_half_size"]),
            post_diameter=float(data["post"]["diameter"]),
            post_top=float(data["post"]["top"]),
            cap_top=float(data["post"]["cap_top"]),
            # Specs written before the top piece had its own size: as wide as the post.
            cap_diameter=float(data["post"].get("cap_diameter", data["post"]["diameter"])),
            base_size=float(data["base"]["size"]),
            base_height=float(data["base"]["height"]),
            token_diameter=float(data["token"]["diameter"]),
            token_height=float(data["token"]["height"]),
            tokens_per_colour=int(data["token"]["count_per_colour"]),
            refractive_index=float(data["tiers"].get("refractive_index", ACRYLIC_INDEX)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SpecError(f"board spec is incomplete or malformed: {exc!r}") from exc
    return _checked(spec)


def _checked(spec: TimeVectorsSpec) -> TimeVectorsSpec:
    """Refuse specs no board could have; returns ``spec`` unchanged."""
    values = spec_values(spec)
    if not all(np.isfinite(v) for v in values.values()):
        raise SpecError("board spec has a value that is not a finite number")
    if not all(v > 0 for name, v in values.items() if name != "first_centre"):
        raise SpecError("board spec is physically impossible (every size must be positive)")
    if spec.tier_spacing <= spec.token_height or spec.pitch <= spec.token_diameter * 0.5:
        raise SpecError("board spec is physically impossible (tiers or points too close)")
    if not 1.0 <= spec.refractive_index <= 3.0:
        raise SpecError(
            f"the plates' refractive index must be 1 (no refraction) to 3, "
            f"not {spec.refractive_index} (clear acrylic is {ACRYLIC_INDEX})"
        )
    return spec


def spec_values(spec: TimeVectorsSpec) -> dict[str, float | int]:
    """Flat ``{field: value}`` of a spec, as stored inline in calibration files."""
    return asdict(spec)


def spec_from_values(values: Mapping[str, object]) -> TimeVectorsSpec:
    """Inverse of :func:`spec_values`; raises :class:`SpecError` for missing, ill-typed or
    impossible values."""
    if not isinstance(values, Mapping):
        raise SpecError("board spec values must be an object of named sizes")
    # Calibration files written before the top piece had its own size: as wide as the post.
    values = {
        "cap_diameter": values.get("post_diameter"),
        "refractive_index": ACRYLIC_INDEX,  # files written before it was known: acrylic
        **values,
    }
    kwargs: dict[str, float | int] = {}
    for f in fields(TimeVectorsSpec):
        value = values.get(f.name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpecError(f"board spec value {f.name!r} must be a number, not {value!r}")
        if f.type in ("int", int):
            if value != int(value):
                raise SpecError(
                    f"board spec value {f.name!r} must be a whole number, not {value!r}"
                )
            value = int(value)
        kwargs[f.name] = value if f.type in ("int", int) else float(value)
    return _checked(TimeVectorsSpec(**kwargs))


def read_spec_table(source: str | Path, board: str) -> dict:
    """The TOML table of a board spec, by shipped name (``"timevectors"``, ``"gryb"``) or TOML
    file path, after checking it is a version 1 spec of ``board``. One reader for every board
    so they all say the same thing about a bad file.

    Raises :class:`SpecError` for a missing or unreadable file, invalid TOML, another board's
    spec or an unsupported version.
    """
    if isinstance(source, str) and "/" not in source and not source.endswith(".toml"):
        try:
            text = resources.files("calibration.specs").joinpath(f"{source}.toml").read_text()
        except FileNotFoundError as exc:
            raise SpecError(f"no shipped board spec named {source!r}") from exc
    else:
        try:
            text = Path(source).read_text()
        except OSError as exc:
            raise SpecError(f"cannot read board spec {source}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"board spec {source} is not valid TOML: {exc}") from exc
    if data.get("board") != board:
        raise SpecError(
            f"spec is for board {data.get('board')!r}, expected {board!r} (in {source})"
        )
    if data.get("version") != 1:
        raise SpecError(f"spec version {data.get('version')!r} is not supported (expected 1)")
    return data


def load_spec(source: str | Path = "timevectors") -> TimeVectorsSpec:
    """Load a board spec by shipped name (``"timevectors"``) or from a TOML file path.

    Raises :class:`SpecError` for a missing, malformed or impossible spec.
    """
    return _spec_from_table(read_spec_table(source, TimeVectorsSpec.board))
