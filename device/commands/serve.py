"""``boardcam serve``, ``doctor``, ``bundle``, ``export``, ``games`` and ``bench live``."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

from device.config import ConfigError, example_toml

logger = logging.getLogger(__name__)

EXIT_USAGE = 2


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add serve, doctor, bundle, export, games and ``bench live``."""
    from device.settings import add_common_arguments

    serve = commands.add_parser("serve", help="watch the board and serve the dashboard (demo without a camera)")
    add_common_arguments(serve, server=True)
    serve.add_argument("--threads", type=int, help="server threads (default 32; each open dashboard holds 2 for its live streams)")
    serve.add_argument("--print-config", action="store_true", help="print a commented config file and exit")
    serve.set_defaults(func=run_serve)

    doctor = commands.add_parser("doctor", help="check camera, calibration, data dir, port and push sinks")
    add_common_arguments(doctor, server=True)
    doctor.add_argument("--json", action="store_true", help="one JSON object per check")
    doctor.set_defaults(func=run_doctor)

    bundle = commands.add_parser("bundle", help="save a support bundle (zip) for `boardcam replay`")
    add_common_arguments(bundle)
    bundle.add_argument("--url", default=None, help="running dashboard (default http://127.0.0.1:PORT/)")
    bundle.add_argument("--port", type=int, help="port of the running dashboard")
    bundle.add_argument("--out", metavar="FILE", help="zip to write (default boardcam-bundle-TIME.zip)")
    bundle.set_defaults(func=run_bundle)

    export = commands.add_parser("export", help="print a game as pbm move list, JSON or ASCII board")
    add_common_arguments(export)
    export.add_argument("game", nargs="?", default="latest", help="game id from `boardcam games` (default: latest)")
    export.add_argument("--format", choices=("pbm", "json", "ascii"), default="pbm")
    export.set_defaults(func=run_export)

    games = commands.add_parser("games", help="list the stored games")
    add_common_arguments(games)
    games.add_argument("--json", action="store_true", help="print JSON")
    games.set_defaults(func=run_games)

    live = bench_targets.add_parser("live", help="alert latency to an SSE client and memory over a demo run")
    live.add_argument("--seconds", type=float, default=60.0, help="length of the run at the chosen fps")
    live.add_argument("--fps", type=float, default=4.0, help="demo frames per second (the target is at 4)")
    live.add_argument("--soak-frames", type=int, default=2000,
                      help="frames of a fast demo run afterwards, for the memory figure (0: skip)")
    live.add_argument("--stable-frames", type=int, default=3, help="calm frames before the board counts as settled")
    live.add_argument("--json", action="store_true", help="print the figures as JSON")
    live.set_defaults(func=run_bench_live)


def _fail(message: str) -> int:
    print(f"boardcam: {message}", file=sys.stderr)
    return EXIT_USAGE


def _config(args: argparse.Namespace) -> Any:
    from device.settings import resolve_config

    config = resolve_config(args)
    if getattr(args, "threads", None) is not None:
        config.server.threads = args.threads
        config.validate()
    return config


# -- serve -------------------------------------------------------------------------
def banner(url: str, pin: str, source: str, calibration: str) -> str:
    """What ``serve`` prints: the address, its QR code and the PIN."""
    from device.netinfo import qr_terminal

    lines = [
        "",
        f"boardcam is watching: {source}",
        f"calibration: {calibration or 'none yet: open the dashboard and calibrate'}",
        "",
        f"Open on a phone on this network:  {url}",
        qr_terminal(url),
        f"PIN for control actions: {pin}",
        "",
    ]
    return "\n".join(lines)


def bind_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket for waitress; raises ``OSError`` (port in use, not our address)."""
    family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def run_serve(args: argparse.Namespace) -> int:
    """Run the companion until interrupted (Ctrl-C or SIGTERM from systemd)."""
    if args.print_config:
        print(example_toml(), end="")
        return 0
    from device.netinfo import dashboard_url
    from device.settings import CALIBRATION_FILE, build_runtime, data_dir

    try:
        config = _config(args)
        runtime, calibration_origin = build_runtime(
            config, board=args.board, game=args.game
        )
    except ValueError as exc:
        return _fail(str(exc))
    try:
        import waitress.server

        from web import create_app

        url = dashboard_url(config.server.host, config.server.port)
        app = create_app(
            {"BOARDCAM_PUBLIC_URL": url, "BOARDCAM_CALIBRATION_PATH": str(data_dir(config) / CALIBRATION_FILE)},
            runtime=runtime,
        )
        try:
            listening = bind_socket(config.server.host, config.server.port)
        except OSError as exc:
            return _fail(f"cannot listen on {config.server.host}:{config.server.port}: {exc.strerror} "
                         "(another boardcam running? choose --port)")
        server = waitress.server.create_server(
            app, sockets=[listening], threads=config.server.threads, channel_timeout=60, ident="boardcam",
            # Read ahead on each connection so a stream notices at once that its phone has gone.
            channel_request_lookahead=1,
        )
        runtime.start()
        print(banner(url, runtime.pin, runtime.source.description, calibration_origin), flush=True)

        def stop(signum: int, frame: FrameType | None) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        try:
            server.run()
        except KeyboardInterrupt:
            logger.info("stopping")
        finally:
            runtime.stop()  # ends the live streams first, so their server threads can finish
            server.task_dispatcher.shutdown(timeout=2)
            server.close()
    finally:
        runtime.stop()
        runtime.store.close()
    return 0


# -- doctor ------------------------------------------------------------------------
def run_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when nothing is an ISSUE, 1 otherwise, 2 for a bad config."""
    from device.doctor import Level, format_results, run_checks, worst
    from device.settings import data_dir
    from device.sources.factory import open_source

    try:
        config = _config(args)
        source = open_source(config.camera.source, fps=config.camera.fps,
                             size=(config.camera.width, config.camera.height))
    except ValueError as exc:
        return _fail(str(exc))
    results = run_checks(config, source, data_dir(config))
    if args.json:
        for result in results:
            print(json.dumps(result.to_dict()))
    else:
        print(format_results(results))
        level = worst(results)
        print("\nall good" if level <= Level.INFO else f"\nworst finding: {level.name}")
    return 1 if worst(results) >= Level.ISSUE else 0


# -- bundle, export, games -------------------------------------------------------------
def _store(args: argparse.Namespace) -> Any:
    from device.settings import data_dir
    from device.store import Store

    return Store(data_dir(_config(args)))


def run_bundle(args: argparse.Namespace) -> int:
    """Fetch the bundle from the running dashboard; without one, bundle what the data dir holds."""
    import time

    from device.bundle import build_bundle
    from device.settings import data_dir

    try:
        config = _config(args)
    except ValueError as exc:
        return _fail(str(exc))
    port = args.port or config.server.port
    url = (args.url or f"http://127.0.0.1:{port}/").rstrip("/") + "/api/bundle"
    out = Path(args.out or time.strftime("boardcam-bundle-%Y%m%d-%H%M%S.zip"))
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read()
        source = f"from the running dashboard at {url}"
    except (urllib.error.URLError, OSError) as exc:
        logger.info("no running dashboard at %s: %s", url, exc)
        from device.store import Store, StoreError

        try:
            store = Store(data_dir(config))
        except StoreError as error:
            return _fail(str(error))
        try:
            game = store.running_game()
            data = build_bundle(
                [], calibration=store.latest_calibration(), palette=None,
                game=None if game is None else game.state, state=None,
                players=game.players if game else 2, opening=game.opening if game else "none",
            )
        finally:
            store.close()
        source = "without frames: no dashboard is running (frames live in the running process only)"
    try:
        out.write_bytes(data)
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror}")
    print(f"wrote {out} ({len(data) // 1024} KiB) {source}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from device.export import export_game
    from device.store import StoreError

    try:
        store = _store(args)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        game_id = args.game
        if game_id == "latest":
            games = store.list_games()
            if not games:
                return _fail("no games stored yet")
            game_id = games[0]["id"]
        print(export_game(store, game_id, args.format), end="")
    except StoreError as exc:
        return _fail(str(exc))
    finally:
        store.close()
    return 0


def run_games(args: argparse.Namespace) -> int:
    try:
        store = _store(args)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        games = store.list_games()
    finally:
        store.close()
    if args.json:
        print(json.dumps(games))
        return 0
    if not games:
        print("no games stored yet")
    for game in games:
        winner = "-" if game["winner"] is None else f"colour {game['winner']}"
        print(f"{game['id']}  {game['started']}  {game['status']:<9}  {game['moves']:>3} moves  winner {winner}")
    return 0


# -- bench live --------------------------------------------------------------------
def run_bench_live(args: argparse.Namespace) -> int:
    from device.bench_live import format_report, run_live_bench

    if args.seconds <= 0 or args.fps <= 0 or args.soak_frames < 0 or args.stable_frames < 1:
        return _fail("--seconds and --fps must be above 0, --soak-frames 0 or more, --stable-frames 1 or more")
    report = run_live_bench(seconds=args.seconds, fps=args.fps, soak_frames=args.soak_frames,
                            stable_frames=args.stable_frames)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


__all__ = ["ConfigError", "register"]
