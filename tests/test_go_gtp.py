"""The GTP engine: the standard commands, errors as '? reason' with the game untouched
(fuzzed with hypothesis), time management, and the command-line entry point."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blokuszero.players.factory import make_player
from blokuszero.engines.go import Clock, GoGtpEngine

REQUIRED = ("boardsize", "clear_board", "komi", "play", "genmove", "undo", "final_score", "showboard",
            "time_settings", "time_left", "list_commands", "known_command", "protocol_version",
            "name", "version", "quit")
ROOT = Path(__file__).resolve().parents[1]


def engine(size: int = 5) -> GoGtpEngine:
    return GoGtpEngine(lambda game: make_player(game, {"preset": "go_rave", "simulations": 30}, 0), size)


def ask(e: GoGtpEngine, line: str) -> str:
    response = e.answer(line)
    assert response is not None and response.endswith("\n\n")
    return response


def test_standard_commands():
    e = engine()
    assert ask(e, "protocol_version") == "= 2\n\n"
    assert ask(e, "7 name") == "=7 BlokusZero-Go\n\n"
    listed = ask(e, "list_commands")[2:].split()
    assert set(REQUIRED) <= set(listed)
    assert ask(e, "known_command genmove") == "= true\n\n" and ask(e, "known_command fly") == "= false\n\n"
    assert e.answer("   # only a comment") is None and e.answer("") is None
    assert ask(e, "boardsize 9") == "=\n\n" and e.game.size == 9
    assert ask(e, "komi 0.5") == "=\n\n" and e.game.komi == 0.5
    assert ask(e, "play black E5") == "=\n\n"
    assert ask(e, "play b D5") == "=\n\n"  # out of turn: GTP allows it
    move = ask(e, "genmove white")
    vertex = re.fullmatch(r"= (\S+)\n\n", move).group(1)
    assert e.state.board()[e.game.parse_vertex(vertex) // 9, e.game.parse_vertex(vertex) % 9] == 2
    assert "X" in ask(e, "showboard")
    assert ask(e, "undo") == "=\n\n" and (e.state.board() == 2).sum() == 0
    assert ask(e, "final_score") == "= B+80.5\n\n"  # Black alone on the board: 81 minus komi
    assert ask(e, "clear_board") == "=\n\n" and not e.state.board().any()
    assert ask(e, "quit") == "=\n\n" and e.finished


def test_errors_name_the_problem_and_change_nothing():
    e = engine(9)
    ask(e, "play b C3")
    before, history = e.state.buf.copy(), list(e.history)
    for line, why in (("play b C3", "illegal move: move C3 is on an occupied point"),
                      ("play b I3", "syntax error"), ("play b", "syntax error: expected play"),
                      ("play x C4", "is not a colour"), ("boardsize 30", "unacceptable size"),
                      ("boardsize nine", "not an integer"), ("komi lots", "not a number"),
                      ("komi nan", "not a finite"), ("fly", "unknown command: fly"),
                      ("time_settings 1 2", "expected time_settings"), ("12", "no command"),
                      ("² name", "unknown command: ²"),
                      # GTP defines no arguments for these (before: "undo 3" undid one move).
                      ("undo 3", "syntax error: undo takes no arguments"),
                      ("clear_board x", "syntax error: clear_board takes no arguments"),
                      ("final_score extra", "syntax error: final_score takes no arguments"),
                      ("showboard 1", "syntax error: showboard takes no arguments"),
                      ("name x", "syntax error: name takes no arguments"),
                      ("komi 82", "unacceptable komi: 82"), ("komi -1e9", "unacceptable komi")):
        response = ask(e, line)
        assert response.startswith("?") and why in response, (line, response)
    assert np.array_equal(e.state.buf, before) and e.history == history
    ask(e, "undo")
    assert ask(e, "undo").startswith("? cannot undo")


def test_clock_budget():
    assert Clock().budget(0, 81) is None
    assert Clock(0, 10, 0).budget(0, 81) is None  # byo-yomi time without stones: no limit
    clock = Clock(60, 30, 5)
    assert abs(clock.budget(0, 81) - 0.9 * 60 / 40) < 1e-9
    clock.left[1] = (20.0, 4)
    assert abs(clock.budget(1, 81) - 0.8 * 20 / 4) < 1e-9
    clock.left[0] = (0.0, 0)
    assert abs(clock.budget(0, 81) - 0.8 * 30 / 5) < 1e-9


WORDS = st.sampled_from(list(REQUIRED) + ["b", "w", "white", "pass", "A1", "E5", "T19", "Z0", "-3",
                                          "9", "25", "0", "1e400", "nan", "#", "\t", "résumé"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.lists(WORDS, min_size=1, max_size=4).map(" ".join), st.text(max_size=20)),
                max_size=12))
def test_fuzzed_sessions_always_answer(lines):
    e = engine(5)
    for line in lines:
        if line.strip().split(" ")[0] == "quit":
            continue
        before, history = e.state.buf.copy(), list(e.history)
        response = e.answer(line)
        if response is None:
            continue
        assert re.fullmatch(r"[=?]\d*( [^\n].*)?(\n.*)*\n\n", response, re.S), repr(response)
        assert "internal error" not in response, (line, response)
        if response.startswith("?"):
            assert np.array_equal(e.state.buf, before) and e.history == history
    assert ask(e, "protocol_version") == "= 2\n\n"


def test_command_line_engine_plays_over_pipes():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = "boardsize 7\nkomi 5.5\nplay b D4\ngenmove w\nfinal_score\nquit\n"
    out = subprocess.run([sys.executable, "-m", "blokuszero.engines.go", "--playouts", "50", "--seed", "1"],
                         input=script, capture_output=True, text=True, timeout=120, env=env, check=True).stdout
    replies = out.split("\n\n")
    assert replies[:3] == ["=", "=", "="] and re.fullmatch(r"= [A-HJ]\d|= pass", replies[3])
    assert replies[4].startswith("= ") and replies[5] == "="


def test_command_line_refuses_bad_numbers_naming_the_option():
    """Before: --playouts -5 was answered '--playouts 0 needs --time'."""
    for args, message in ((["--playouts", "-5"], "error: --playouts must be >= 0, not -5"),
                          (["--playouts", "0"], "error: --playouts 0 needs --time"),
                          (["--time", "-1"], "error: --time must be > 0, not -1.0"),
                          (["--k", "0"], "error: --k must be > 0, not 0.0"),
                          (["--komi", "100"], "error: --komi: unacceptable komi: 100"),
                          (["--size", "30"], "error: --size 30 is not in [2, 25]")):
        done = subprocess.run([sys.executable, "-m", "blokuszero.engines.go", *args], input="name\n",
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 1 and done.stderr.strip().startswith(message), (args, done.stderr)
        assert done.stdout == ""
