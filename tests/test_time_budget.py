"""Moves by time budget (issue 27): ``time_limit`` (seconds per move) of the network and MCTS
players, measured on the factory's clock (CPU seconds of the process), in the arena's player
specs and the Blokus GTP engine; the exact stop asserted on a fake clock, never real timings."""

from __future__ import annotations

import itertools
import time

import pytest

from blokuszero.engines.blokus import BlokusGtpEngine
from blokuszero.engines.blokus.cli import parse_args, player_spec
from blokuszero.games.blokus.game import BlokusGame
from blokuszero.players import factory
from blokuszero.players.factory import make_player, resolve_spec
from blokuszero.search import PlayoutMixing
from blokuszero.search.compiled import TIMED_CHUNK


@pytest.fixture
def ticks(monkeypatch):
    """The factory's clock reads 0, 1, 2, ... (a fresh count per test)."""
    counter = itertools.count()
    monkeypatch.setattr(factory, "SEARCH_CLOCK", lambda: float(next(counter)))
    return counter


def test_the_players_clock_is_the_process_cpu_time():
    game = BlokusGame()
    assert factory.SEARCH_CLOCK is time.process_time
    for spec in ({"preset": "alphazero", "simulations": 4}, {"preset": "mcts_maxn"}):
        assert make_player(game, spec, seed=0).mcts.clock is time.process_time


@pytest.mark.parametrize("gumbel", [False, True], ids=["puct", "gumbel"])
def test_a_network_player_stops_at_its_time_limit_or_its_simulations(ticks, gumbel):
    game = BlokusGame()
    # The deadline is the first reading + 30: readings 1 .. 29 each let one simulation run.
    player = make_player(game, {"preset": "alphazero", "gumbel": gumbel, "simulations": 1000,
                                "time_limit": 30}, seed=0)
    state = game.new_initial_state()
    assert player.choose_action(state) in state.legal_actions()
    assert player.last_result.simulations == 29 and next(ticks) == 31
    # The simulation cap ends it first when the time allows more.
    capped = make_player(game, {"preset": "alphazero", "gumbel": gumbel, "simulations": 5,
                                "time_limit": 30}, seed=0)
    capped.choose_action(state)
    assert capped.last_result.simulations == 5
    # With the playouts of leaf mixing the same budget buys the same simulations on this clock.
    mixed = make_player(game, {"preset": "alphazero", "gumbel": gumbel, "simulations": 1000,
                               "time_limit": 30, "mix_lambda": 0.5}, seed=0)
    mixed.choose_action(state)
    assert isinstance(mixed.mcts.evaluator, PlayoutMixing)
    assert mixed.last_result.simulations == 29


def test_an_mcts_player_stops_at_its_time_limit(ticks):
    game = BlokusGame()
    player = make_player(game, {"preset": "mcts_maxn", "simulations": 0, "time_limit": 30}, seed=0)
    player.choose_action(game.new_initial_state())
    assert player.last_result.simulations == 29 * TIMED_CHUNK  # compiled: a chunk per reading


def test_an_arena_spec_takes_a_time_limit():
    spec = resolve_spec({"preset": "alphazero", "checkpoint": None, "simulations": 200,
                         "time_limit": 1.0, "mix_lambda": 0.5})
    assert spec["time_limit"] == 1.0 and spec["mix_lambda"] == 0.5
    with pytest.raises(ValueError, match="^time_limit must be > 0, not 0$"):
        resolve_spec({"preset": "alphazero", "time_limit": 0})


def test_the_gtp_engine_gives_a_network_player_a_time_limit(ticks):
    args = parse_args(["--preset", "alphazero", "--set", "time_limit=30", "--set", "simulations=1000"])
    engine = BlokusGtpEngine(player_spec(args), seed=0)
    assert engine.player.mcts.config.time_limit == 30
    assert engine.answer("genmove 1").startswith("= ")
    assert engine.player.last_result.simulations == 29
    # param sets an option the preset leaves unset: the time limit, leaf mixing.
    plain = BlokusGtpEngine({"preset": "alphazero", "simulations": 8}, seed=0)
    assert "time_limit" not in plain.spec
    assert plain.answer("param time_limit 30") == "= \n\n"
    assert plain.answer("param mix_lambda 0.25") == "= \n\n"
    assert plain.player.mcts.config.time_limit == 30
    assert plain.player.mcts.evaluator.mix_lambda == 0.25
    assert "time_limit 30" in plain.answer("param")
    assert plain.answer("param mix_lambda 2").startswith("? mix_lambda must be <= 1")
    assert plain.answer("param frobnicate 1").startswith("? unknown parameter 'frobnicate'")


def test_the_arena_reports_each_players_cpu_seconds_per_move(tmp_path):
    import json

    from blokuszero.match.arena import Match
    from blokuszero.match.runner import run_match
    from blokuszero.match.summary import format_summary

    match = Match("tictactoe", ["uct", "random"],
                  {"uct": {"preset": "uct", "simulations": 50}, "random": {"preset": "random"}},
                  random_opening_moves=1)
    summary = run_match(match, games=2, seed=0, out_dir=tmp_path, progress=False)
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    for r in records:
        assert sum(r["moves_chosen_by_seat"]) == len(r["moves"]) - 1  # the random opening move
        assert all(c >= 0 for c in r["cpu_seconds_by_seat"])
    per_move = summary["speed"]["cpu_seconds_per_move"]
    assert set(per_move) == {"uct", "random"} and all(v >= 0 for v in per_move.values())
    assert "CPU s/move" in format_summary(summary)
