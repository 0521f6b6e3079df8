"""Physical board specifications, shipped as TOML package data and overridable by the user."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from importlib import resources
from pathlib import Path

import numpy as np

from rules.timevectors.points import POINTS, global_column_row, point_coords

CORNERS = ("NW", "NE", "SE", "SW")
ACRYLIC_INDEX = 1.49  # refractive index of clear acrylic (PMMA)
NO_TWIST = (0.0, 0.0, 0.0, 0.0)
# Each plate hangs on the centre post alone and is lined up by hand (the manual's assembly
# steps 4-10), so it sits a little turned about the post against the bottom plate. A plate
# turned more than this is taken for a mistake (the clicks of the wrong corners), not a twist.
MAX_TWIST_DEG = 10.0
_CORNER_SIGNS = {"NW": (-1, 1), "NE": (1, 1), "SE": (1, -1), "SW": (-1, -1)}
_CORNER_SIGN_ROWS = np.array(list(_CORNER_SIGNS.values()), np.float64)  # (4, 2), NW NE SE SW
_COLUMN_ROW = np.array([global_column_row(p) for p in POINTS])  # (256, 2) global column, row
_POINT_TIER = np.array([point_coords(p)[2] for p in POINTS])


def turned_about_post(xy_mm: np.ndarray, angle_deg: float | np.ndarray) -> np.ndarray:
    """Board positions ``(..., 2)`` turned about the post (anticlockwise seen from above) by
    ``angle_deg``: one angle, or one per position. The one rotation every plate turns by."""
    xy = np.asarray(xy_mm, np.float64)
    angle = np.radians(angle_deg)
    c, s = np.cos(angle), np.sin(angle)
    out = np.empty_like(xy)
    out[..., 0] = c * xy[..., 0] - s * xy[..., 1]
    out[..., 1] = s * xy[..., 0] + c * xy[..., 1]
    return out


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
    # How far each tier's plate is turned about the post (degrees, counter-clockwise seen
    # from above) against the design, as measured by a calibration: the board as built. The
    # bottom tier's marking defines the board's frame, so its entry is 0 in a fitted board.
    tier_twist_deg: tuple[float, float, float, float] = NO_TWIST

    board = "timevectors"

    def on_tier(self, tier: int, xy_mm: np.ndarray) -> np.ndarray:
        """Design positions ``(..., 2)`` on a tier's plate -> where they are on the board as
        built (turned with the plate); design positions elsewhere are the board's own."""
        return turned_about_post(xy_mm, self.tier_twist_deg[tier])

    def to_tier(self, tier: int, xy_mm: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`on_tier`: board positions -> the plate's own design frame."""
        return turned_about_post(xy_mm, -self.tier_twist_deg[tier])

    def tier_points(self, tier: int, design_mm: np.ndarray) -> np.ndarray:
        """``(n, 3)`` points of tier ``tier``'s plate from their design ``(n, 2)`` positions."""
        xy = self.on_tier(tier, np.asarray(design_mm, np.float64).reshape(-1, 2))
        return np.column_stack([xy, np.full(len(xy), self.tier_spacing * tier)])

    def axis_centre(self, index: int | np.ndarray) -> float | np.ndarray:
        """Centre of global column/row ``index`` 0..7 along its axis (or of each of an array
        of them)."""
        gap_shift = self.gap * (np.asarray(index) >= 4)  # D->E centres are pitch + gap apart
        centre = self.first_centre + self.pitch * np.asarray(index) + gap_shift
        return float(centre) if np.ndim(centre) == 0 else centre

    def point_centre(self, point: int) -> tuple[float, float, float]:
        """Centre of a point on the top surface of its tier (turned with its plate)."""
        column, row = global_column_row(point)
        tier = point_coords(point)[2]
        x, y, z = self.tier_points(tier, [self.axis_centre(column), self.axis_centre(row)])[0]
        return (float(x), float(y), float(z))

    def point_centres(self) -> np.ndarray:
        """``(256, 3)`` float64 array of every point centre, indexed by point."""
        design = self.axis_centre(_COLUMN_ROW)
        xy = turned_about_post(design, np.asarray(self.tier_twist_deg)[_POINT_TIER])
        return np.column_stack([xy, self.tier_spacing * _POINT_TIER])

    def landmarks(self, tier: int) -> dict[str, tuple[float, float, float]]:
        """The 4 outer corners of a tier's 8x8 marking, keyed NW, NE, SE, SW."""
        corners = self.tier_points(tier, _CORNER_SIGN_ROWS * self.marking_half_size)
        return {name: tuple(float(v) for v in xyz) for name, xyz in zip(_CORNER_SIGNS, corners)}

    def plate_corners(self, tier: int, grow_mm: float = 0.0, z_mm: float | None = None) -> np.ndarray:
        """``(4, 3)`` corners NW, NE, SE, SW of tier ``tier``'s plate square (grown by
        ``grow_mm``), turned with the plate, at height ``z_mm`` (default: its top)."""
        corners = self.tier_points(tier, _CORNER_SIGN_ROWS * (self.plate_size / 2 + grow_mm))
        if z_mm is not None:
            corners[:, 2] = z_mm
        return corners

    def twisted(self, twist_deg: Sequence[float]) -> TimeVectorsSpec:
        """This board with its plates turned by ``twist_deg`` (one angle per tier)."""
        return replace(self, tier_twist_deg=checked_twist(twist_deg))


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


def checked_twist(twist_deg: object) -> tuple[float, float, float, float]:
    """Four finite plate twists in degrees (see ``TimeVectorsSpec.tier_twist_deg``), each
    within :data:`MAX_TWIST_DEG`; raises :class:`SpecError` naming what is wrong."""
    if (
        isinstance(twist_deg, (str, bytes))
        or not isinstance(twist_deg, Sequence)
        or len(twist_deg) != 4
        or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in twist_deg)
    ):
        raise SpecError(f"tier_twist_deg must be 4 numbers (degrees, tiers P..S), not {twist_deg!r}")
    values = tuple(float(v) for v in twist_deg)
    if not all(math.isfinite(v) and abs(v) <= MAX_TWIST_DEG for v in values):
        raise SpecError(
            f"tier_twist_deg {list(values)} is not a plate turned on the post "
            f"(each within {MAX_TWIST_DEG:g} degrees)"
        )
    return values  # type: ignore[return-value]


def _checked(spec: TimeVectorsSpec) -> TimeVectorsSpec:
    """Refuse specs no board could have; returns ``spec`` unchanged."""
    checked_twist(spec.tier_twist_deg)
    values = {k: v for k, v in spec_values(spec).items() if k != "tier_twist_deg"}
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


def spec_values(spec: TimeVectorsSpec) -> dict[str, float | int | list[float]]:
    """Flat ``{field: value}`` of a spec, as stored inline in calibration files."""
    values = asdict(spec)
    values["tier_twist_deg"] = list(spec.tier_twist_deg)
    return values


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
    twist = checked_twist(values.get("tier_twist_deg", NO_TWIST))
    kwargs: dict[str, object] = {"tier_twist_deg": twist}
    for f in fields(TimeVectorsSpec):
        if f.name == "tier_twist_deg":
            continue
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
