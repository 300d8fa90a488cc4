"""The match runner on Go: colours alternate with rotated seating, per-seat results, SGF records,
and scripts/go_rave_experiment.py on top of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.go.sgf import read_sgf
from blokuszero.match.arena import Match
from blokuszero.match.runner import load_records, match_definition, run_match

ROOT = Path(__file__).resolve().parents[1]


def test_rotated_seating_alternates_colours_and_results_are_given_per_seat(tmp_path):
    match = Match("go", ("a", "b"), {"a": {"preset": "random"}, "b": {"preset": "random"}},
                  game_options={"size": 5, "komi": 0.5}, seating="rotate")
    summary = run_match(match, 4, 3, tmp_path, progress=False)
    records = load_records(tmp_path / "games.jsonl")
    assert [r["seating"] for r in records] == [["a", "b"], ["b", "a"]] * 2
    for name in ("a", "b"):
        player = summary["players"][name]
        assert [seat["games"] for seat in player["by_seat"]] == [2, 2]
        assert sum(seat["wins"] for seat in player["by_seat"]) == player["wins"]
    assert summary["players"]["a"]["wins"] + summary["players"]["b"]["wins"] == 4  # komi 0.5: no draws
    black_wins = sum(r["returns"][0] > 0 for r in records)
    assert summary["players"]["a"]["by_seat"][0]["wins"] + summary["players"]["b"]["by_seat"][0]["wins"] == black_wins
    for r in records:
        sgf = read_sgf((tmp_path / "games" / f"game_{r['index']:05d}.sgf").read_text())
        assert (sgf.size, sgf.komi) == (5, 0.5) and len(sgf.moves) == len(r["moves"])
        assert sgf.properties["PB"] == r["seating"][0]
        final = sgf.replay()
        assert np.array_equal(final.returns(), r["returns"]) and sgf.properties["RE"][0] in "BW"
    with pytest.raises(ValueError, match="seating must be one of .*'random'"):
        run_match(Match("go", ("a", "b"), match.players, seating="random"), 1, 0, tmp_path / "x")


def test_default_options_leave_the_stored_definition_as_before():
    players = {"a": {"preset": "random"}}
    assert set(match_definition(Match("tictactoe", ("a", "a"), players), 0)) == {
        "game", "seats", "seed", "random_opening_moves", "players"}


def test_go_rave_experiment_runs_on_the_match_runner(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "go_rave_experiment.py"), "--games", "2",
                          "--playouts", "20", "--size", "5", "--komi", "0.5", "--out", str(tmp_path),
                          "--playout-policy", "fuego"],
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    weighted = summary["players"]["weighted"]
    assert summary["seating"] == "rotate" and [s["games"] for s in weighted["by_seat"]] == [1, 1]
    assert summary["players"]["weighted"]["config"]["k"] == 1.5
    assert summary["players"]["plain"]["config"]["playout"] == "fuego"
    assert f"weighted overall  {weighted['wins']:4d}/   2 = {weighted['win_rate']:6.1%}" in out
    assert len(list((tmp_path / "games").glob("game_*.sgf"))) == 2


RESIGNER = """
import sys
for line in sys.stdin:
    command = line.split()[0] if line.split() else ""
    answer = {"name": "resigner", "known_command": "false", "genmove": "resign"}.get(command, "")
    sys.stdout.write(f"= {answer}\\n\\n")
    sys.stdout.flush()
    if command == "quit":
        break
"""


def test_a_resigning_engine_loses(tmp_path):
    script = tmp_path / "resigner.py"
    script.write_text(RESIGNER)
    match = Match("go", ("quitter", "random"),
                  {"quitter": {"kind": "gtp", "command": f"{sys.executable} {script}"}, "random": {"preset": "random"}},
                  game_options={"size": 5}, seating="rotate")
    summary = run_match(match, 2, 0, tmp_path / "out", progress=False)
    records = load_records(tmp_path / "out" / "games.jsonl")
    assert [r["result"] for r in records] == ["W+R", "B+R"]  # Black resigned, then White
    assert [len(r["moves"]) for r in records] == [0, 1]  # White resigns after Black's first move
    assert summary["players"]["random"]["wins"] == 2 and summary["players"]["quitter"]["wins"] == 0
    sgf = read_sgf((tmp_path / "out" / "games" / "game_00001.sgf").read_text())
    assert sgf.properties["RE"] == "B+R" and len(sgf.moves) == 1
