"""The Go strength diagnostics (blokuszero/experiments/go_diagnostics.py) run end to end on a
small board: a playout-policy table and a search duel with their summary lines."""

from __future__ import annotations

import re

from blokuszero.experiments import go_diagnostics


def test_duel_prints_a_row_per_policy(capsys):
    go_diagnostics.main(["duel", "--games", "2", "--size", "5"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "/2 = " in line]
    assert rows[0].startswith("| all rules |") and len(rows) == 1 + 2 * len(go_diagnostics.P.RULES)


def test_search_plays_the_games_and_counts_a_colours(capsys):
    spec = '{"preset": "go_rave", "simulations": 10}'
    go_diagnostics.main(["search", "--games", "2", "--size", "5", "--a", spec, "--b", spec])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["game 0", "game 1"]
    assert re.fullmatch(r"A as Black \d/1 = .*; as White \d/1 = .*; all \d/2 = .*", lines[2])
