"""The hand-played games in real headless Chromium against the real app under waitress.

One test per board: tap a piece, see its legal destinations, tap one to move, see the
referee's reason for an illegal attempt. Set ``BOARDCAM_SCREENSHOTS=DIR`` to keep PNGs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.web.conftest import LiveServer, login, serve
from web.tabletop import EXTRA_KEY, init_app

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("BOARDCAM_SCREENSHOTS")


def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


@pytest.fixture
def tabletop_server(app: Flask, runtime: Any) -> Iterator[LiveServer]:
    if "tabletop" not in app.blueprints:
        init_app(app)
    for url in serve(app):
        yield LiveServer(url, runtime, app)


def service(server: LiveServer) -> Any:
    return server.app.extensions["boardcam"].extras[EXTRA_KEY]


@pytest.fixture
def page_errors() -> list[str]:
    """Script errors of the pages opened with :func:`open_game` (each test ends with none)."""
    errors: list[str] = []
    yield errors
    assert errors == []


def open_game(page: Any, server: LiveServer, game: str, errors: list[str] | None = None) -> None:
    if errors is not None:
        page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/play/{game}", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_selector("body[data-live='yes']")


def tap(page: Any, selector: str) -> None:
    page.locator(selector).first.dispatch_event("click")


def test_tsr4d_by_tapping_with_pin_dialog_highlights_and_an_illegal_reason(phone_page, tabletop_server, page_errors):
    page = phone_page
    open_game(page, tabletop_server, "tsr4d", page_errors)
    assert page.locator("#turn-text").inner_text() == "No game yet"
    page.locator("#new-game-button").click()
    page.locator("#pin-dialog").wait_for(state="visible")
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.wait_for_selector("body[data-moves='0'] [data-piece='b3']")
    assert page.locator("[data-piece]").count() == 24
    assert page.locator("#turn-text").inner_text() == "Blue"

    tap(page, "[data-space='b3']")  # the Warrior on b3
    page.wait_for_selector("body[data-selected='b3']")
    assert sorted(page.locator("[data-target]").evaluate_all("els => els.map(e => e.dataset.target)")) == ["a5", "warp"]
    tap(page, "[data-space='a5']")
    page.wait_for_selector("body[data-moves='1']")
    assert page.locator("[data-piece='a5']").count() == 1
    assert page.locator("[data-piece='b3']").count() == 0
    assert page.locator("#last-move").inner_text() == "W(b3)a5"

    tap(page, "[data-space='b2']")
    page.wait_for_selector("body[data-selected='b2']")
    tap(page, "[data-space='a1']")  # a second move this turn: the referee says why
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "only one piece moves per turn" in banner.inner_text()
    assert page.locator("body").get_attribute("data-moves") == "1"
    shot(page, "tsr4d-phone-illegal")

    tap(page, "[data-space='b2']")
    page.wait_for_selector("body[data-selected='b2']")
    tap(page, "[data-warp='blue-1']")
    page.wait_for_selector("body[data-moves='2']")
    assert page.locator("[data-warped='blue-1']").count() == 1
    assert page.locator("[data-marker='blue-b2']").count() == 1
    assert banner.is_hidden()
    page.locator("#turn-actions button[data-notation='end']").click()
    page.wait_for_selector("body[data-moves='3']")
    assert page.locator("#turn-text").inner_text() == "White"
    shot(page, "tsr4d-phone")


def test_timeline_by_tapping_with_timelines_and_an_illegal_rook_move(desktop_page, tabletop_server, page_errors):
    page = desktop_page
    game = service(tabletop_server).new_game("timeline")
    login(page, tabletop_server)
    open_game(page, tabletop_server, "timeline", page_errors)
    page.wait_for_selector("circle[data-piece='A5P'][data-colour='orange']")
    assert page.locator("circle[data-piece]").count() == 8

    tap(page, "rect.cell[data-point='A5P']")
    page.wait_for_selector("body[data-selected='A5P']")
    targets = set(page.locator("[data-target]").evaluate_all("els => els.map(e => e.dataset.target)"))
    assert {"A6P", "A7P", "A8P", "A5Q", "A5R", "A5S"} <= targets
    tap(page, "rect.cell[data-point='A7P']")
    page.wait_for_selector("body[data-moves='1']")
    assert page.locator("[data-chit^='orange-']").count() == 3  # start, A6P passed, A7P
    assert page.locator("polyline[data-timeline='orange']").count() == 1
    assert page.locator("#turn-text").inner_text() == "Cool team"

    tap(page, "rect.cell[data-point='A4S']")  # cool's blue rook
    page.wait_for_selector("body[data-selected='A4S']")
    tap(page, "rect.cell[data-point='B3S']")  # diagonal: not a rook move
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "a rook moves one to three steps" in banner.inner_text()
    assert service(tabletop_server).state(game["id"])["moves"] == ["A5P-A7P"]
    shot(page, "timeline-desktop")


def test_gryb_roll_place_and_an_illegal_reason(phone_page, tabletop_server, page_errors):
    page = phone_page
    game = service(tabletop_server).new_game("gryb:ez-gryb", {"seed": 11})
    login(page, tabletop_server)
    open_game(page, tabletop_server, "gryb", page_errors)
    assert page.locator("circle[data-node]").count() == 341
    assert page.locator("polygon[data-quadrangle]").count() == 85
    assert "roll the four-colour die" in page.locator("#die-name").inner_text()

    page.locator("#roll-button").click()
    page.wait_for_selector("body[data-moves='1']")
    face = page.locator("#die-face").inner_text()
    assert face in "GRYB"
    page.wait_for_selector(f"[data-movable='{face}']")
    page.locator("#zoom-button").click()  # a phone player zooms into the cloth to tap
    assert "zoomed" in page.locator("#board").get_attribute("class")
    shot(page, "gryb-phone-zoomed")
    tap(page, f"[data-hit='{face}']")  # the one node a new ring may go on
    page.wait_for_selector("body[data-moves='2']")
    assert page.locator(f"circle[data-ring='{face}'][data-colour='0']").count() == 1
    assert page.locator("#turn-text").inner_text() == "Player 2"

    page.locator("#roll-button").click()
    page.wait_for_selector("body[data-moves='3']")
    rolled = service(tabletop_server).state(game["id"])["roll"]
    wrong = next(c for c in "GRYB" if c not in (rolled, face))
    page.locator("#type-input").fill(f"+{wrong}")
    page.locator("#type-submit").click()
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "the die shows" in banner.inner_text()
    assert service(tabletop_server).state(game["id"])["board"]["tokens"] == {face: 0}
    shot(page, "gryb-phone")


def test_gryb_view_draws_the_bandanna_the_camera_reads(desktop_page, tabletop_server, page_errors):
    page, runtime = desktop_page, tabletop_server.runtime
    service(tabletop_server).new_game("gryb:drangles")
    read = runtime.state
    runtime.state = lambda: {**read(), "board": "gryb", "tokens": {"GR": 0, "BBBB": 1, "0": 1}}
    open_game(page, tabletop_server, "gryb", page_errors)
    assert page.locator("circle[data-ring]").count() == 0
    page.locator("#camera-toggle").check()
    page.wait_for_selector("circle[data-ring='BBBB'][data-colour='1']")
    rings = page.locator("circle[data-ring]").evaluate_all("els => els.map(e => e.dataset.ring).sort()")
    assert rings == ["0", "BBBB", "GR"]
    assert page.locator("#board-hint").inner_text() == "What the camera reads"
    shot(page, "gryb-camera-desktop")
    page.locator("#camera-toggle").uncheck()
    page.wait_for_selector("circle[data-ring]", state="detached")


def test_gryb_scored_in_25_mens_gryb_then_a_ring_removed_by_tapping(phone_page, tabletop_server, page_errors):
    page = phone_page
    table = service(tabletop_server)
    game = table.new_game("gryb:25-mens-gryb")
    for move in ("+G", "+GG", "+R", "+GR", "+Y", "+GY"):
        table.play(game["id"], notation=move)
    login(page, tabletop_server)
    open_game(page, tabletop_server, "gryb", page_errors)
    page.wait_for_selector("body[data-moves='6']")
    tap(page, "[data-hit='B']")  # the only move there: placed at once, completing the top quadrangle
    page.wait_for_selector("body[data-moves='7']")
    page.wait_for_selector("polygon[data-gryb-made='0']")
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert "Player 1 scored a GRYB under 0" in toast.inner_text()
    movable = page.locator("[data-movable]").evaluate_all("els => els.map(e => e.dataset.movable).sort()")
    assert movable == ["GG", "GR", "GY"]
    shot(page, "gryb-phone-scored")
    tap(page, "[data-hit='GR']")  # take one of player 2's rings off
    page.wait_for_selector("body[data-moves='8']")
    assert page.locator("circle[data-ring='GR']").count() == 0
    assert table.state(game["id"])["moves"][-1] == "x[GR]"


def test_a_state_answer_overtaken_by_a_newer_one_is_not_shown(desktop_page, tabletop_server, page_errors):
    """The page's request for the game, sent before a move, is answered after the move was
    pushed to it: the old position must not come back (it also dropped a player's selection
    mid-tap, which made a browser test flaky)."""
    page = desktop_page
    svc = service(tabletop_server)
    game = svc.new_game("timeline")
    stale = svc.state(game["id"])
    held: list[Any] = []
    page.route(f"**/api/tabletop/games/{game['id']}", lambda route: held.append(route))
    login(page, tabletop_server)
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.goto(f"{tabletop_server.url}/play/timeline#game={game['id']}", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-live='yes']")
    while not held:
        page.wait_for_timeout(20)
    svc.play(game["id"], notation="A5P-A7P")
    page.wait_for_selector("body[data-moves='1']")
    held[0].fulfill(json=stale)
    page.wait_for_timeout(500)
    assert page.locator("body").get_attribute("data-moves") == "1"
