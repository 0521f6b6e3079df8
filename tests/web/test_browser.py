"""Real headless Chromium against the real app under waitress (fake runtime driving the game).

Set ``BOARDCAM_SCREENSHOTS=DIR`` to keep PNG screenshots of the pages.
"""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from calibration.calibfile import load_calibration
from tests.web.conftest import login, serve
from tests.web.fake_runtime import (
    PHOTO_TOKENS,
    FakeRuntime,
    landmark_pixels,
    photograph,
    token_top_pixels,
)
from web import create_app

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("BOARDCAM_SCREENSHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def open_dashboard(page, live_server) -> None:
    page.goto(live_server.url + "/", wait_until="domcontentloaded")
    page.wait_for_selector("body[data-live='yes']")
    page.wait_for_selector("#board rect.cell")


def test_dashboard_follows_the_game_to_an_illegal_change_and_a_win(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    open_dashboard(page, live_server)
    assert page.locator("#board rect.cell").count() == 256
    assert page.locator("#board .compass").count() == 16
    assert page.locator("#turn-text").inner_text() == "Colour 1"

    for ply, (point, colour) in enumerate([("A1P", 0), ("H8S", 1), ("B2Q", 0), ("G7R", 1), ("C3R", 0)], 1):
        runtime.play(point, colour)
        page.wait_for_selector(f"body[data-moves='{ply}']")
        assert page.locator(f"circle[data-token='{point}']").count() == 1
    assert page.locator("#last-move").inner_text() == "C3R"
    assert page.locator("#turn-text").inner_text() == "Colour 2"

    runtime.illegal(["token removed from C2R"], ["C2R"])
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "Illegal change" in banner.inner_text()
    assert "token removed from C2R" in banner.inner_text()
    assert page.locator("rect[data-mismatch='C2R']").count() == 1
    assert page.locator("#mismatch-card").is_visible()
    assert "Illegal change" in page.locator("#alert-list").inner_text()
    shot(page, "phone-illegal")

    runtime.restore()
    banner.wait_for(state="hidden")
    # (the "restored" event hides the banner; the fresh state that clears the mark follows it)
    page.wait_for_selector("rect[data-mismatch]", state="detached")
    assert page.locator("rect[data-mismatch]").count() == 0
    assert page.locator("#mismatch-card").is_hidden()

    runtime.play("D4S", 0)
    runtime.win(0, [["A1P", "B2Q", "C3R", "D4S"]])
    win = page.locator("#win-banner")
    win.wait_for(state="visible")
    assert "Colour 1 wins!" in win.inner_text()
    assert "1st, 2nd and 3rd dimensions" in win.inner_text()
    assert page.locator("polyline[data-vector='A1P B2Q C3R D4S']").count() == 1
    assert page.locator("#turn-text").inner_text() == "Game over"
    shot(page, "phone-win")


def choose_candidate(page, point: str) -> None:
    """Unlock control with the PIN, tap ``point`` among the question's candidates, and wait
    for its token on the board."""
    page.locator("#lock-button").click()
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.wait_for_selector("#lock-button.unlocked")
    page.locator("#hidden-candidates button", has_text=point).click()
    page.wait_for_selector(f"circle[data-token='{point}']")


def test_late_phone_sees_the_open_alert_and_confirms_a_hidden_move(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    runtime.play("A1P", 0)
    runtime.hidden_move(1, ["C2Q", "C3Q"])
    open_dashboard(page, live_server)
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "Confirm a hidden move" in banner.inner_text()
    assert "Colour 2 played where the camera cannot see: one of C2Q, C3Q" in banner.inner_text()
    choose_candidate(page, "C3Q")
    banner.wait_for(state="hidden")
    assert page.locator("#mismatch-card").is_hidden()
    from rules.timevectors.points import parse_point

    assert runtime.calls == [("confirm_hidden", (parse_point("C3Q"),))]


def test_phone_asks_which_of_two_points_in_line_holds_a_token(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    runtime.play("A1P", 0)
    open_dashboard(page, live_server)
    page.wait_for_selector("body[data-moves='1']")
    runtime.in_line_move(1, "A7P", "D8Q")
    banner = page.locator("#alert-banner")
    banner.wait_for(state="visible")
    assert "Which point?" in banner.inner_text()
    assert "Colour 2 played on A7P or D8Q" in banner.inner_text()
    assert "in line with the camera" in page.locator("#hidden-question").inner_text()
    choose_candidate(page, "D8Q")
    from rules.timevectors.points import parse_point

    assert runtime.calls == [("confirm_hidden", (parse_point("D8Q"),))]


def test_late_phone_sees_the_current_game_at_once(phone_page, live_server):
    runtime = live_server.runtime
    runtime.play("A1P", 0)
    runtime.play("E5Q", 1)
    runtime.threats = {"0": ["B2Q"]}
    open_dashboard(phone_page, live_server)
    phone_page.wait_for_selector("body[data-moves='2']")
    assert phone_page.locator("circle[data-token='E5Q']").count() == 1
    assert phone_page.locator("circle[data-threat]").count() == 0
    phone_page.locator("#threats-toggle").check()
    assert phone_page.locator("circle[data-threat='B2Q']").count() == 1


def test_control_without_pin_is_refused_then_works_with_it(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    runtime.play("A1P", 0)
    open_dashboard(page, live_server)
    page.locator("#undo-button").click()
    dialog = page.locator("#pin-dialog")
    dialog.wait_for(state="visible")
    page.locator("#pin-cancel").click()
    page.locator("#toast").wait_for(state="visible")
    assert "PIN" in page.locator("#toast").inner_text()
    assert runtime.calls == []

    page.locator("#undo-button").click()
    page.locator("#pin-input").fill("1111")
    page.locator("#pin-submit").click()
    page.locator("#pin-error").wait_for(state="visible")
    assert page.locator("#pin-error").inner_text() == "wrong PIN"
    assert runtime.calls == []

    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.wait_for_selector("body[data-moves='0']")
    assert runtime.calls == [("undo", ())]
    assert "unlocked" in page.locator("#lock-button").get_attribute("class")


def test_operator_corrects_a_point_by_tapping_it(desktop_page, live_server):
    page, runtime = desktop_page, live_server.runtime
    # Log in before the page loads: a login racing the page's own first session request
    # could lose to it (the session is a cookie; the later answer's cookie wins), and the
    # correction then stopped at the PIN dialog.
    assert page.request.post(live_server.url + "/api/login", data={"pin": "2468"}).ok
    page.goto(live_server.url + "/", wait_until="domcontentloaded")
    runtime.play("A1P", 0)
    runtime.illegal(["token moved from A1P to A2P"], ["A1P", "A2P"])
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("rect[data-mismatch='A2P']")
    shot(page, "desktop-mismatch")
    page.locator("#correct-button").click()
    page.locator("rect.cell[data-point='A2P']").click()
    assert page.locator("#correct-point").inner_text() == "A2P"
    page.locator("#correct-choices button", has_text="Colour 1").click()
    page.wait_for_selector("circle[data-token='A2P']")
    from rules.timevectors.points import parse_point

    assert runtime.calls == [("correct", (parse_point("A2P"), 0))]


def open_wizard_on_a_capture(page, live_server) -> tuple[dict, float, dict]:
    """The wizard with a frame captured, scrolled to the picture: its box on screen, screen
    pixels per frame pixel, and where the fake camera sees the landmarks."""
    page.goto(live_server.url + "/calibrate", wait_until="domcontentloaded")
    page.locator("#capture-button").click()
    page.wait_for_selector("body[data-step='landmarks']")
    page.evaluate("window.scrollTo(0, document.getElementById('stage').getBoundingClientRect().top + window.scrollY - 70)")
    box = page.locator("#overlay").bounding_box()
    assert box["y"] + box["height"] <= 900  # the whole frame is on screen
    return box, box["width"] / 800, landmark_pixels(live_server.runtime.camera_model)


def test_calibration_wizard_by_clicks_writes_a_loadable_file(
    desktop_page, live_server, calibration_path, monkeypatch
):
    page, runtime = desktop_page, live_server.runtime
    _, clicks = photograph(runtime)  # a rendered photograph: the save refines from its grid
    box, scale, _ = open_wizard_on_a_capture(page, live_server)
    for tier in "PQRS":
        for corner in ("NW", "NE", "SE", "SW"):
            u, v = clicks[tier][corner]
            page.mouse.click(box["x"] + u * scale, box["y"] + v * scale)
        page.locator("#overlay .centre").nth(64 * ("PQRS".index(tier) + 1) - 1).wait_for(state="attached")
    page.wait_for_selector("body[data-fit='complete']")
    assert page.locator("#overlay .landmark").count() == 16
    assert "px average error" in page.locator("#fit-info").inner_text()
    page.wait_for_selector("body[data-step='colours']")
    shot(page, "desktop-wizard-fitted")

    # drag one corner a little and back: the preview follows
    u, v = clicks["S"]["NE"]
    x, y = box["x"] + u * scale, box["y"] + v * scale
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 30, y + 20, steps=4)
    assert page.locator("#magnifier").is_visible()
    page.mouse.move(x, y, steps=4)
    page.mouse.up()

    # sample the three token colours the frame shows by tapping them quickly; the answer to
    # the first tap comes last, and the colours still fill the slots in tap order
    import time

    import web.wizard

    real, asked = web.wizard.sample_colours, []
    first_token = token_top_pixels(runtime, next(iter(PHOTO_TOKENS)))

    def first_answers_last(image, taps):
        # The three requests may reach the threaded server in any order: the one held back
        # is the first tap's, wherever it arrives.
        asked.append(taps)
        if np.hypot(*np.subtract(taps[0], first_token)) < 2:
            time.sleep(0.8)
        return real(image, taps)

    monkeypatch.setattr(web.wizard, "sample_colours", first_answers_last)
    box = page.locator("#overlay").bounding_box()  # the fit's note above it may have moved it
    for point in PHOTO_TOKENS:
        u, v = token_top_pixels(runtime, point)
        page.mouse.click(box["x"] + u * scale, box["y"] + v * scale)
    page.locator(".palette-chip .swatch[style]").nth(2).wait_for(state="attached")
    assert len(asked) == 3

    page.locator("#to-save").click()
    page.locator("#save-button").click()
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.locator("#save-result").wait_for(state="visible")
    assert str(calibration_path) in page.locator("#save-result").inner_text()
    loaded = load_calibration(calibration_path)
    assert loaded.camera.image_size == (800, 600)
    assert loaded.rms_px < 1.0  # refined from the printed grid's crossings
    # The tokens as the camera sees them (small, through tinted plates, under the scene's
    # light), in tap order: each slot holds what the frame shows at its tap, near the token.
    in_tap_order = []
    for point in PHOTO_TOKENS:
        top = token_top_pixels(runtime, point)
        near = [tap for tap in asked if np.hypot(*np.subtract(tap[0], top)) < 2]
        assert len(near) == 1, (point, asked)
        in_tap_order.append(near[0])
    seen = tuple(tuple(real(runtime.frame, tap)[0]) for tap in in_tap_order)
    assert loaded.palette_rgb == seen and len(set(seen)) == 3
    red, _, yellow = loaded.palette_rgb
    assert red[0] > max(red[1:]) and min(yellow[:2]) > yellow[2] + 40
    assert runtime.calls[-1][0] == "set_calibration"


def test_wizard_shows_the_latest_fit_when_an_older_one_answers_last(
    desktop_page, live_server, monkeypatch
):
    """A fit is asked for on every click; when the answer for three corners comes after the
    one for four (a threaded server), the tier's grid must stay drawn."""
    import time

    import web.wizard

    real = web.wizard.preview_from_homographies

    def slow_for_three_corners(clicks, spec):
        if sum(len(corners) for corners in clicks.values()) == 3:
            time.sleep(1.0)
        return real(clicks, spec)

    monkeypatch.setattr(web.wizard, "preview_from_homographies", slow_for_three_corners)
    page = desktop_page
    box, scale, clicks = open_wizard_on_a_capture(page, live_server)
    for corner in ("NW", "NE", "SE", "SW"):
        u, v = clicks["P"][corner]
        page.mouse.click(box["x"] + u * scale, box["y"] + v * scale)
    centres = page.locator("#overlay .centre")
    centres.nth(63).wait_for(state="attached")
    page.wait_for_timeout(1500)  # the older answer has come by now
    assert centres.count() == 64


def test_wizard_on_a_phone_uses_touch(phone_page, live_server):
    page = phone_page
    page.goto(live_server.url + "/calibrate", wait_until="domcontentloaded")
    page.locator("#capture-button").click()
    page.wait_for_selector("body[data-step='landmarks']")
    box = page.locator("#overlay").bounding_box()
    u, v = landmark_pixels(live_server.runtime.camera_model)["P"]["NW"]
    page.touchscreen.tap(box["x"] + u * box["width"] / 800, box["y"] + v * box["width"] / 800)
    page.wait_for_selector("#overlay .landmark")
    assert "north-east" in page.locator("#instruction-title").inner_text()
    shot(page, "phone-wizard")


def test_history_replays_a_game_step_by_step(desktop_page, live_server):
    page = desktop_page
    page.goto(live_server.url + "/history", wait_until="domcontentloaded")
    page.locator("tr[data-game='g1'] button").click()
    page.wait_for_selector("body[data-step='3']")
    assert page.locator("#board circle.token").count() == 3
    page.locator("#step-back").click()
    page.wait_for_selector("body[data-step='2']")
    assert page.locator("#board circle.token").count() == 2
    assert page.locator("#moves-list li.current").inner_text() == "B2Q"
    page.locator("#step-first").click()
    assert page.locator("#board circle.token").count() == 0
    links = page.locator("#export-links a")
    assert links.count() == 3
    assert "format=pbm" in links.first.get_attribute("href")
    shot(page, "desktop-history")


def test_dashboard_reconnects_by_itself_after_the_server_restarts(phone_page):
    runtime = FakeRuntime()
    app = create_app({"BOARDCAM_SSE_HEARTBEAT_S": 0.3}, runtime=runtime)
    first = serve(app)
    url = next(first)
    phone_page.goto(url + "/", wait_until="domcontentloaded")
    phone_page.wait_for_selector("body[data-live='yes']")
    first.close()  # the server goes away (restart, Wi-Fi drop)
    phone_page.wait_for_selector("body[data-live='no']")
    assert phone_page.locator("#live-text").inner_text() == "reconnecting…"
    runtime.play("A1P", 0)
    second = serve(app, port=int(url.rsplit(":", 1)[1]))
    next(second)
    try:
        phone_page.wait_for_selector("body[data-live='yes']", timeout=15_000)
        phone_page.wait_for_selector("circle[data-token='A1P']")  # the state came with the new stream
        runtime.play("B2Q", 1)
        phone_page.wait_for_selector("circle[data-token='B2Q']")
    finally:
        second.close()


def test_camera_trouble_is_said_on_the_camera_view(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    open_dashboard(page, live_server)
    overlay = page.locator("#camera-missing")
    assert overlay.is_hidden()
    runtime.camera = {"status": "reconnecting", "description": "USB camera 0", "fps": 0.0,
                      "message": "camera 0 stopped sending frames"}
    runtime.publish({"type": "camera_status", "frame": None, "status": "reconnecting"})
    overlay.wait_for(state="visible")
    assert overlay.inner_text() == "Camera reconnecting: camera 0 stopped sending frames"
    assert "warn" in page.locator("#camera-dot").get_attribute("class")
    runtime.camera = {"status": "ok", "description": "USB camera 0", "fps": 4.0}
    runtime.publish({"type": "camera_status", "frame": None, "status": "ok"})
    overlay.wait_for(state="hidden")


def test_a_hand_over_the_board_is_said_and_one_that_stays_too_long_is_explained(
    phone_page, live_server
):
    page, runtime = phone_page, live_server.runtime
    open_dashboard(page, live_server)
    note = page.locator("#hand-note")
    assert note.is_hidden()
    runtime.hand_seconds = 2.0
    runtime.publish({"type": "camera_status", "frame": None, "status": "ok"})
    note.wait_for(state="visible")
    assert note.inner_text() == "Hand over the board: moves are read once it has gone."
    assert "warn" not in note.get_attribute("class")
    runtime.hand_seconds = 41.0
    runtime.publish({"type": "camera_status", "frame": None, "status": "ok"})
    page.wait_for_selector("#hand-note.warn")
    assert "covered for 41 s" in note.inner_text() and "recalibrate" in note.inner_text()
    runtime.hand_seconds = None
    runtime.publish({"type": "camera_status", "frame": None, "status": "ok"})
    note.wait_for(state="hidden")


def cell_centres(page) -> dict[str, tuple[float, float]]:
    boxes = page.locator("#board rect.cell").evaluate_all(
        "cells => cells.map(c => { const b = c.getBoundingClientRect();"
        " return [c.dataset.point, b.x + b.width / 2, b.y + b.height / 2]; })"
    )
    return {name: (x, y) for name, x, y in boxes}


def test_board_is_laid_out_as_the_real_one_on_a_phone(phone_page, live_server):
    open_dashboard(phone_page, live_server)
    at = cell_centres(phone_page)
    assert len(at) == 256
    for tier in "PQRS":
        for row in "12345678":
            xs = [at[f"{c}{row}{tier}"][0] for c in "ABCDEFGH"]
            steps = [b - a for a, b in pairwise(xs)]
            assert all(step > 0 for step in steps)  # A..H west to east
            assert steps[3] > 1.3 * steps[0]  # the post's gap between D and E
        for column in "ABCDEFGH":
            ys = [at[f"{column}{r}{tier}"][1] for r in "12345678"]
            assert all(b < a for a, b in pairwise(ys))  # rows 1..8 south to north (up)
    # tiers S, R, Q, P from top to bottom, each wholly above the next
    for upper, lower in zip("SRQ", "RQP"):
        lowest_upper = max(y for name, (_, y) in at.items() if name[2] == upper)
        highest_lower = min(y for name, (_, y) in at.items() if name[2] == lower)
        assert lowest_upper < highest_lower


def test_board_puts_tiers_side_by_side_on_a_wide_screen(desktop_page, live_server):
    open_dashboard(desktop_page, live_server)
    at = cell_centres(desktop_page)
    corner = {tier: at[f"A8{tier}"] for tier in "PQRS"}  # north-west corner of each tier
    assert corner["S"][0] < corner["R"][0] and abs(corner["S"][1] - corner["R"][1]) < 1
    assert corner["Q"][0] < corner["P"][0] and abs(corner["Q"][1] - corner["P"][1]) < 1
    assert corner["S"][1] < corner["Q"][1]


def test_3meq_choice_panel_asks_the_second_player_and_the_choice_updates_the_turn(phone_page, live_server):
    page, runtime = phone_page, live_server.runtime
    runtime.new_game(2, "3meq", ["Ann", "Bob"])
    open_dashboard(page, live_server)
    assert page.locator("#turn-text").inner_text() == "3MEQ opening"
    assert page.locator("#turn-who").inner_text().startswith("Ann: two tokens of one colour")
    assert page.locator("#choose-card").is_hidden()
    for ply, (point, colour) in enumerate([("A1P", 0), ("C3R", 1), ("B1P", 0)], 1):
        runtime.play(point, colour)
        page.wait_for_selector(f"body[data-moves='{ply}']")
    card = page.locator("#choose-card")
    card.wait_for(state="visible")
    assert page.locator("#turn-text").inner_text() == "Colour choice"
    assert page.locator("#turn-who").inner_text() == "Bob chooses a colour"
    assert page.locator("#choose-text").inner_text().startswith("Bob:")
    buttons = page.locator("#choose-buttons button")
    assert buttons.all_inner_texts() == ["Colour 1 (pair)", "Colour 2 (single)"]
    shot(page, "phone-3meq-choice")
    runtime.calls.clear()

    page.locator("#choose-buttons button[data-colour='1']").click()
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    card.wait_for(state="hidden")
    assert runtime.calls == [("choose_colour", (1,))]
    # Bob took the single token's colour: his turn, and colour 2 is now his name.
    assert page.locator("#turn-text").inner_text() == "Bob"
    assert page.locator("#move-list li").all_inner_texts()[-1] == "Bob takes colour 2"


def test_new_game_form_names_every_seat_and_swap_is_shown(desktop_page, live_server):
    page, runtime = desktop_page, live_server.runtime
    open_dashboard(page, live_server)
    page.locator("#players-select").select_option("4")
    seats = page.locator("#names-fields input")
    assert seats.count() == 4 and page.locator("#opening-select").is_disabled()
    assert seats.nth(1).get_attribute("placeholder") == "Team 2, player A"
    for seat, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        seats.nth(seat).fill(name)
    page.locator("#new-game-button").click()
    page.locator("#pin-input").fill("2468")
    page.locator("#pin-submit").click()
    page.wait_for_function("() => document.getElementById('turn-text').textContent === 'Ann & Cy'")
    assert page.locator("#turn-who").inner_text() == "Ann"
    assert runtime.calls == [("new_game", (4, "none", ["Ann", "Bob", "Cy", "Di"]))]

    page.locator("#players-select").select_option("2")
    assert seats.count() == 2 and page.locator("#opening-select").is_enabled()
    page.locator("#opening-select").select_option("swap")
    page.locator("#new-game-button").click()
    page.wait_for_function("() => document.getElementById('turn-text').textContent === 'Ann'")
    assert runtime.calls[-1] == ("new_game", (2, "swap", ["Ann", "Bob"]))
    runtime.play("D4S", 0)
    page.locator("#swap-card").wait_for(state="visible")
    assert "Bob may swap: replace the token on D4S" in page.locator("#swap-text").inner_text()
    assert page.locator("#turn-text").inner_text() == "Bob"
    assert page.locator("#turn-who").inner_text() == "Bob may swap"
    shot(page, "desktop-swap-available")
    runtime.swap("D4S", 1)
    page.locator("#swap-card").wait_for(state="hidden")
    assert page.locator("#move-list li").all_inner_texts() == ["D4S", "swap D4S"]
    assert page.locator("circle[data-token='D4S']").count() == 1


def test_a_control_answer_overtaken_by_the_stream_does_not_bring_back_the_old_board(desktop_page, live_server):
    """The answer to "new game" reaches the page after the first move was streamed to it:
    the move must stay (the stale answer hid the swap offer and made a browser test flaky)."""
    page, runtime = desktop_page, live_server.runtime
    login(page, live_server)
    open_dashboard(page, live_server)
    held: list = []
    page.route("**/api/game/new", lambda route: held.append(route))
    page.locator("#opening-select").select_option("swap")
    page.locator("#new-game-button").click()
    while not held:
        page.wait_for_timeout(20)
    answer = held[0].fetch()  # the runtime starts the game and takes its state now
    assert runtime.calls[-1] == ("new_game", (2, "swap", None))
    runtime.play("D4S", 0)
    page.wait_for_selector("body[data-moves='1']")
    held[0].fulfill(response=answer)
    page.wait_for_function("() => document.getElementById('toast').textContent === 'New game started'")
    assert page.locator("body").get_attribute("data-moves") == "1"
    assert page.locator("#swap-card").is_visible()
