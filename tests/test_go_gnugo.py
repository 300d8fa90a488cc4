"""Cross-checks against GNU Go: finished playout games score the same; on finished match games
(dead stones still on the board) our dead-stone judgement and ``final_score`` agree with GNU
Go's, both with its scores stored in the records and, where it is installed, asked live."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from blokuszero.games.go import GoGame
from blokuszero.games.go.scoring import final_status, format_score
from blokuszero.games.go.sgf import read_sgf
from blokuszero.games.numba_random import seed_numba

GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is NOT installed (apt-get install gnugo): "
                                                       "the live cross-check against it did not run")
SCORED = sorted((Path(__file__).parent / "data" / "go_gnugo_scored").glob("*.sgf"))


def gnugo(size: int, komi: float, moves: list[str], queries: list[str]) -> list[str]:
    """GNU Go's answers to ``queries`` after ``moves`` ("B D4" style, any order of colours)."""
    commands = [f"boardsize {size}", "clear_board", f"komi {komi}", *(f"play {m}" for m in moves),
                *queries, "quit"]
    out = subprocess.run([GNUGO, "--mode", "gtp", "--chinese-rules", "--level", "0"],
                         input="\n".join(commands) + "\n", capture_output=True, text=True,
                         timeout=120, check=True).stdout
    replies = [r for r in out.split("\n\n") if r.strip()]
    assert all(r.startswith("=") for r in replies), f"GNU Go refused: {[r for r in replies if not r.startswith('=')]}"
    return [r[1:].strip() for r in replies[-1 - len(queries):-1]]


def score_value(text: str) -> float:
    """+x for ``B+x``, -x for ``W+x``, 0 for ``0``."""
    return 0.0 if text == "0" else float(text[2:]) * (1 if text[0] == "B" else -1)


@needs_gnugo
@pytest.mark.parametrize("size,games", [(9, 20), (13, 4), (19, 2)])
def test_playout_scores_agree_with_gnugo(size, games):
    # At the end of an eye-keeping playout every group left on the board is alive.
    game = GoGame(size, komi=6.5)
    seed_numba(1000 + size)
    for _ in range(games):
        state = game.new_initial_state()
        players, actions = state.playout()
        moves = [f"{'BW'[p]} {game.vertex(int(a))}" for p, a in zip(players, actions)]
        assert score_value(gnugo(size, game.komi, moves, ["final_score"])[0]) == pytest.approx(state.score())


def test_stored_match_games_are_scored_as_gnugo_scored_them():
    assert len(SCORED) == 22
    naive_disagrees = 0
    for path in SCORED:
        record = read_sgf(path.read_text())
        state = record.replay()
        assert state.is_terminal(), path.name
        assert format_score(final_status(state).score) == record.properties["RE"], path.name
        naive_disagrees += format_score(state.score()) != record.properties["RE"]
    # These games do end with dead stones on the board: counting them alive scores them wrong.
    assert naive_disagrees >= 8


@needs_gnugo
def test_dead_stones_and_score_agree_with_gnugo_live():
    for path in SCORED:
        record = read_sgf(path.read_text())
        state = record.replay()
        game = state.game
        moves = [f"{'BW'[p]} {game.vertex(a)}" for p, a in record.moves]
        score, dead = gnugo(game.size, game.komi, moves, ["final_score", "final_status_list dead"])
        judged = final_status(state)
        assert format_score(judged.score) == score, path.name
        ours = {game.vertex(int(a)) for a in (judged.status.ravel() == "dead").nonzero()[0]}
        assert ours == set(dead.split()), path.name


# A finished 9x9 game with a seki on the top edge: Black's B9-D9 and White's A8-F8 + F9 share
# the liberties A9 and E9 and have no others; whoever fills one is captured and the other side
# lives. The rest of the board is Black's, with eyes. GNU Go 3.8: seki for both, B+58.5.
SEKI = [".XXX.OX.X",
        "OOOOOOXXX",
        "XXXXXXXXX",
        "XX.XXXX.X",
        "XXXXXXXXX",
        "X.XXX.XXX",
        "XXXXXXXXX",
        "XXX.XXX.X",
        "XXXXXXXXX"]
SEKI_STONES = {"B9", "C9", "D9", "F9", "A8", "B8", "C8", "D8", "E8", "F8"}


def seki_state():
    game = GoGame(9, komi=6.5)
    state = game.new_initial_state()
    state.set_up([(".XO".index(ch) - 1, y * 9 + x) for y, row in enumerate(SEKI)
                  for x, ch in enumerate(row) if ch != "."], to_move=1)
    return state


def test_seki_is_neither_dead_nor_counted_as_territory():
    state = seki_state()
    judged = final_status(state)
    game = state.game
    seki = {game.vertex(int(a)) for a in (judged.status.ravel() == "seki").nonzero()[0]}
    assert seki == SEKI_STONES
    assert not (judged.status == "dead").any()
    # 72 Black points, 7 White, 2 shared liberties. (Uniform playouts alone fill a shared
    # liberty and kill one side at random: they judged White's group dead, B+74.5.)
    assert format_score(judged.score) == "B+58.5"


@needs_gnugo
def test_seki_agrees_with_gnugo_live():
    state = seki_state()
    game = state.game
    stones = [(c, a) for a, c in enumerate(state.board().ravel()) if c]
    moves = [f"{'BW'[c - 1]} {game.vertex(a)}" for c, a in sorted(stones, key=lambda s: -s[0])]
    score, seki = gnugo(9, 6.5, moves, ["final_score", "final_status_list seki"])
    assert score == format_score(final_status(state).score)
    assert set(seki.split()) == SEKI_STONES
