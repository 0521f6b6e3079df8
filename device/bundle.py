"""The support bundle: a zip that lets a misread be reproduced with ``boardcam replay``.

It holds the last minute of frames (``frames/000000.jpg`` ...), the
calibration, the palette, the game state and the dashboard state, and a
README with the exact replay command.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

BUNDLE_VERSION = 1


class BundleError(ValueError):
    """A file that is not a boardcam support bundle."""


def replay_command(
    *,
    has_calibration: bool,
    has_palette: bool,
    players: int,
    opening: str,
    mid_game: bool = False,
    choose: int | None = None,
) -> str:
    """The ``boardcam replay`` command line that reproduces a bundle, run inside its folder
    (``mid_game``: the frames start during a game, whose moves the manifest lists;
    ``choose``: the 3MEQ colour choice made during the frames, which no camera sees)."""
    parts = ["boardcam replay"]
    parts.append(
        "--calibration calibration.json"
        if has_calibration
        else "--calibration YOUR_CALIBRATION.json"
    )
    if has_palette:
        parts.append("--palette palette.json")
    parts += [f"--players {players}", f"--opening {opening}"]
    if mid_game:
        parts.append("--moves manifest.json")
    if choose is not None:
        parts.append(f"--choose {choose}")
    parts += ["frames", "--json"]
    return " ".join(parts)


def _choice_among(moves: Sequence[str]) -> int | None:
    """The colour of the first 3MEQ choice (``choose N``) among move texts, if any."""
    from rules.errors import RulesError
    from rules.timevectors.moves import CHOOSE, Move

    for text in moves:
        try:
            move = Move.parse(text)
        except RulesError:
            continue
        if move.kind == CHOOSE:
            return move.color
    return None


def build_bundle(
    frames: Sequence[tuple[float, bytes]],
    *,
    calibration: Mapping[str, Any] | None,
    palette: Sequence[Sequence[int]] | None,
    game: Mapping[str, Any] | None,
    state: Mapping[str, Any] | None,
    players: int = 2,
    opening: str = "none",
    moves_at_start: Sequence[str] = (),
    moves_during: Sequence[str] = (),
) -> bytes:
    """The zip's bytes. ``frames`` are (wall time, JPEG bytes) in capture order;
    ``moves_at_start`` the moves already played when the first frame was taken (a replay of a
    long game starts from them, not from an empty board), ``moves_during`` those played
    since (a colour choice among them goes into the replay command)."""
    times = [t for t, _ in frames]
    fps = (
        (len(times) - 1) / (times[-1] - times[0])
        if len(times) >= 2 and times[-1] > times[0]
        else None
    )
    manifest = {
        "bundle_version": BUNDLE_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "frames": len(frames),
        "frame_times": times,
        "fps": fps,
        "players": players,
        "opening": opening,
        "moves_at_start": list(moves_at_start),
    }
    command = replay_command(
        has_calibration=calibration is not None,
        has_palette=bool(palette),
        players=players,
        opening=opening,
        mid_game=bool(moves_at_start),
        choose=_choice_among(moves_during),
    )
    readme = (
        "boardcam support bundle\n\n"
        f"{len(frames)} frames of the last minute, the calibration and the game state.\n"
        "Unzip it, then from its folder reproduce what the companion saw with:\n\n"
        f"    {command}\n"
    )
    if moves_at_start:
        readme += (
            f"\nThe game already had {len(moves_at_start)} moves when the first frame was taken "
            "(manifest.json, moves_at_start): --moves manifest.json replays from that game, and "
            "the events after it are what to look at.\n"
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", readme)
        archive.writestr("manifest.json", json.dumps(manifest, indent=2))
        if calibration is not None:
            archive.writestr("calibration.json", json.dumps(dict(calibration), indent=2))
        if palette:
            archive.writestr("palette.json", json.dumps([list(c) for c in palette]))
        if game is not None:
            archive.writestr("game.json", json.dumps(dict(game), indent=2))
        if state is not None:
            archive.writestr("state.json", json.dumps(dict(state), indent=2))
        for index, (_when, jpeg) in enumerate(frames):
            # JPEG is already compressed: store it as is.
            archive.writestr(zipfile.ZipInfo(f"frames/{index:06d}.jpg"), jpeg, zipfile.ZIP_STORED)
    return buffer.getvalue()


def read_manifest(data: bytes) -> dict[str, Any]:
    """The manifest of a bundle; raises :class:`BundleError` for anything else."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            manifest = json.loads(archive.read("manifest.json"))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise BundleError(f"not a boardcam support bundle: {exc}") from exc
    if manifest.get("bundle_version") != BUNDLE_VERSION:
        raise BundleError(f"bundle version {manifest.get('bundle_version')!r} is not supported")
    return manifest
