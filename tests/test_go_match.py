"""scripts/go_match.py end to end: our GTP engine against GNU Go, refereed by GNU Go."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from blokuszero.games.go.sgf import read_sgf

ROOT = Path(__file__).resolve().parents[1]
GNUGO = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


@pytest.mark.slow  # two engine processes and a referee: about 15 s alone, a minute under load
@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_match_alternates_colours_and_records_every_game(tmp_path):
    ours = f"{sys.executable} -m blokuszero.engines.go --playouts 40 --seed 3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the player finds gnugo in /usr/games itself
    subprocess.run([sys.executable, str(ROOT / "scripts" / "go_match.py"), "--games", "2", "--size", "5",
                    "--komi", "0.5", "--engine1", ours, "--name1", "ours",
                    "--engine2", "gnugo --mode gtp --level 0", "--name2", "gnugo",
                    "--out", str(tmp_path)], check=True, env=env, timeout=300, capture_output=True)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 2 and summary["referee"] == "gnugo --mode gtp --chinese-rules"
    for name in ("ours", "gnugo"):
        assert [seat["games"] for seat in summary["players"][name]["by_seat"]] == [1, 1]  # Black once, White once
    assert summary["players"]["ours"]["wins"] + summary["players"]["gnugo"]["wins"] == 2  # komi 0.5: no draws
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [r["seating"][0] for r in records] == ["ours", "gnugo"]
    for r in records:
        assert r["result"][:2] in ("B+", "W+")  # the referee's score (or a resignation)
        assert (r["returns"][0] > 0) == (r["result"][0] == "B")
        sgf = read_sgf((tmp_path / "games" / f"game_{r['index']:05d}.sgf").read_text())
        assert sgf.size == 5 and len(sgf.moves) == len(r["moves"])
        assert sgf.properties["RE"] == r["result"] and sgf.properties["PB"] == r["seating"][0]
        sgf.replay()  # every recorded move is legal
