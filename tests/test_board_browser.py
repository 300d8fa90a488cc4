"""The web board in a real browser: Debian's headless Chromium, driven by Playwright, plays a
whole game by clicks (Blue against the shipped network at 48 simulations and two random
players), checks the final scores the page shows against the rules engine, asks the network
for an analysis, opens Pentobi's record and steps through it. Screenshots go to the test's
folder, or to ``$BLOKUSZERO_SCREENSHOTS`` (docs/).

Needs ``chromium`` (apt) and ``playwright`` (pip, the test extras; never ``playwright install``):
the test skips, saying so, without them. ``.ci/run`` installs both and runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest
from board_server import BoardServer

from blokuszero.engines.blokus.board.cli import SHIPPED_NETWORK
from blokuszero.games.blokus import tables as T
from blokuszero.games.blokus.game import BlokusState
from blokuszero.games.blokus.notation import string_to_placement

CHROMIUM = "/usr/bin/chromium"
PENTOBI_GAME = Path(__file__).parent / "data" / "twogtp_pentobi" / "game.blksgf"
CELL, MARGIN, N = 30, 20, T.BOARD_SIZE  # the page's board geometry (board.js)
pytestmark = pytest.mark.slow


def _screen_cells(m: int) -> list[list[int]]:
    """Placement ``m``'s squares as the page orients a piece: (column, row) with rows down the
    screen, shifted to the origin and sorted by row then column (the first is the anchor)."""
    cells = [(int(sq) % N, N - 1 - int(sq) // N) for sq in T.PLACEMENTS[m] if sq >= 0]
    x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
    return sorted(([x - x0, y - y0] for x, y in cells), key=lambda c: (c[1], c[0]))


def _game(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/game", timeout=60) as response:
        return json.load(response)


def _replay(view: dict) -> BlokusState:
    state = BlokusState()
    for move in view["moves"]:
        state.apply_action(string_to_placement(move["move"]))
    return state


def _idle(page) -> None:
    page.wait_for_function("document.body.dataset.busy === '0'", timeout=120_000)


def _place(page, m: int) -> None:
    """Select placement ``m``'s piece in the tray, turn it with the keys and buttons until the
    page's selection has the placement's shape, and click its anchor square on the board."""
    piece = T.PIECE_NAMES[int(T.PLACEMENT_PIECE[m])]
    page.click(f"#piece-{piece}")
    target = _screen_cells(m)
    for turn in range(8):
        if json.loads(page.get_attribute("#selection", "data-cells")) == target:
            break
        if turn == 3:
            page.click("#flip")
        else:
            page.keyboard.press("r")
    assert json.loads(page.get_attribute("#selection", "data-cells")) == target, (piece, target)
    squares = [(int(sq) % N, N - 1 - int(sq) // N) for sq in T.PLACEMENTS[m] if sq >= 0]
    col, row = min(squares, key=lambda c: (c[1], c[0]))
    page.mouse.move(0, 0)
    box = page.locator("#board").bounding_box()
    page.mouse.click(box["x"] + MARGIN + col * CELL + CELL / 2, box["y"] + MARGIN + row * CELL + CELL / 2)


@pytest.fixture(scope="module")
def browser_page():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium (.ci/run does)")
    playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the test extras)")
    import tempfile

    profile = tempfile.mkdtemp(prefix="board-chromium-")
    with playwright.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, viewport={"width": 1220, "height": 780},
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            yield context.new_page()
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def test_a_whole_game_by_clicks_then_a_record_stepped_through(browser_page, tmp_path):
    shots = Path(os.environ.get("BLOKUSZERO_SCREENSHOTS", tmp_path))
    records = tmp_path / "records"
    records.mkdir()
    (records / "pentobi.blksgf").write_text(PENTOBI_GAME.read_text())
    network = f"net={{preset: alphazero, checkpoint: {SHIPPED_NETWORK}, simulations: 48}}"
    server = BoardServer(["--player", "rnd=random", "--player", network, "--seats", "you,net,rnd,rnd",
                          "--analysis", "net", "--records", str(records)])
    page = browser_page
    try:
        page.goto(server.url + "/")
        _idle(page)
        blue_moves = 0
        while True:
            view = _game(server.url)
            if view["over"]:
                break
            assert view["to_move"] == 0 and view["waiting_for"] == "you", view["waiting_for"]
            state = _replay(view)
            legal = state.legal_actions()
            # The largest piece first, as a person might; ties by placement id (deterministic).
            m = int(legal[sorted(range(len(legal)), key=lambda i: (-T.PLACEMENT_SIZE[legal[i]], i))[0]])
            _place(page, m)
            _idle(page)
            blue_moves += 1
            if blue_moves == 6:
                page.click("#analyse")
                _idle(page)
                assert page.locator("#analysis tr").count() >= 2
                page.screenshot(path=str(shots / "board-analysis.png"))
            if blue_moves == 8:  # a piece in hand over the board, for the picture
                page.click(f"#piece-{_game(server.url)['remaining'][0][-1]}")
                box = page.locator("#board").bounding_box()
                page.mouse.move(box["x"] + 320, box["y"] + 320)
                page.screenshot(path=str(shots / "board-play.png"))
                page.keyboard.press("Escape")
        final = _replay(view)
        assert final.is_terminal() and blue_moves >= 8
        shown = [int(page.inner_text(f"#score-{c}")) for c in range(4)]
        assert shown == final.scores().tolist() == view["scores"]
        assert page.inner_text("#status").startswith("Game over")
        assert page.inner_text("#result") == "Final scores: " + ", ".join(
            f"{name} {score}" for name, score in zip(T.COLOR_NAMES, final.scores()))

        page.click("#undo")  # back to Blue's last move, and the game goes on from there
        _idle(page)
        assert _game(server.url)["waiting_for"] == "you"

        page.click("#tab-watch")
        _idle(page)
        page.select_option("#record-file", "0/pentobi.blksgf")
        _idle(page)
        for _ in range(10):
            page.click("#next")
            _idle(page)
        assert page.inner_text("#ply-label").startswith("10 / ")
        page.keyboard.press("ArrowLeft")
        _idle(page)
        assert page.inner_text("#ply-label").startswith("9 / ")
        page.keyboard.press("End")
        _idle(page)
        shown = [int(page.inner_text(f"#score-{c}")) for c in range(4)]
        assert [s + 89 for s in shown] == [56, 68, 63, 69]  # pentobi-gtp's final_score of the game
        page.keyboard.press("Home")
        _idle(page)
        for _ in range(30):
            page.keyboard.press("ArrowRight")
            _idle(page)
        assert page.inner_text("#ply-label").startswith("30 / ")
        page.screenshot(path=str(shots / "board-watch.png"))
        assert page.inner_text("#message") == ""
    finally:
        server.close()
    for name in ("board-play.png", "board-analysis.png", "board-watch.png"):
        assert (shots / name).stat().st_size > 10_000
