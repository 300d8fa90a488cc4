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


FAKE = '''
import sys
mode, genmoves = sys.argv[1], 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        print("=\\n", flush=True)
        break
    if words[0] == "genmove":
        genmoves += 1
        if mode == "crash":
            sys.exit(3)
        print("= A1\\n", flush=True)  # legal once, then on an occupied point
    elif words[0] == "known_command":
        print("= false\\n", flush=True)
    else:
        print("=\\n", flush=True)
'''


@pytest.mark.slow  # 10-13 s each; .ci/run runs this file's slow tests
@pytest.mark.parametrize("mode,why", [("crash", "ended while answering"), ("illegal", "illegal move")])
def test_failing_engine_forfeits_its_games_and_the_match_goes_on(tmp_path, mode, why):
    fake = tmp_path / "fake_engine.py"
    fake.write_text(FAKE)
    ours = f"{sys.executable} -m blokuszero.engines.go --playouts 20 --seed 3 --resign 0"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "go_match.py"), "--games", "2", "--size", "5",
                           "--komi", "0.5", "--engine1", ours, "--name1", "ours",
                           "--engine2", f"{sys.executable} {fake} {mode}", "--name2", "fake",
                           "--referee", ours, "--out", str(tmp_path / "out")],
                          env=env, timeout=300, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for r in records:
        fake_seat = r["seating"].index("fake")
        assert r["result"] == f"{'BW'[1 - fake_seat]}+F" and r["returns"][fake_seat] == -1
        assert "'fake'" in r["forfeit"] and why in r["forfeit"]
    assert why in done.stderr or why in done.stdout  # said as it happened


def test_zero_games_are_refused():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "go_match.py"), "--games", "0",
                           "--engine1", "a", "--engine2", "b"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "--games must be at least 1, not 0" in done.stderr
