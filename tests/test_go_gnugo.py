"""Cross-check against GNU Go: finished playout games replayed into GNU Go score the same.

At the end of an eye-keeping playout every group left on the board is alive, so GNU Go's
Chinese area count (``final_score`` with ``--chinese-rules``) must equal ours.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from blokuszero.games.go import GoGame
from blokuszero.games.numba_random import seed_numba

GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")
pytestmark = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")


def gnugo_score(size: int, komi: float, moves: list[str]) -> float:
    """GNU Go's final score (positive: Black leads) after ``moves`` (alternating, Black first)."""
    commands = [f"boardsize {size}", "clear_board", f"komi {komi}"]
    commands += [f"play {'BW'[i % 2]} {m}" for i, m in enumerate(moves)]
    commands += ["final_score", "quit"]
    out = subprocess.run([GNUGO, "--mode", "gtp", "--chinese-rules", "--level", "0"],
                         input="\n".join(commands) + "\n", capture_output=True, text=True,
                         timeout=120, check=True).stdout
    replies = [r for r in out.split("\n\n") if r.strip()]
    assert all(r.startswith("=") for r in replies), f"GNU Go refused: {[r for r in replies if not r.startswith('=')]}"
    score = replies[-2].split()[1]  # "= B+12.5", "= W+3.5" or "= 0"
    if score == "0":
        return 0.0
    return float(score[2:]) * (1 if score[0] == "B" else -1)


@pytest.mark.parametrize("size,games", [(9, 20), (13, 4), (19, 2)])
def test_playout_scores_agree_with_gnugo(size, games):
    game = GoGame(size, komi=6.5)
    seed_numba(1000 + size)
    for _ in range(games):
        state = game.new_initial_state()
        _, actions = state.playout()
        moves = [game.vertex(int(a)) for a in actions]
        assert gnugo_score(size, game.komi, moves) == pytest.approx(state.score()), \
            f"{size}x{size} game {' '.join(moves)}"
