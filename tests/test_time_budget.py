"""Moves by time budget: ``time_limit`` (seconds per move) of the network and MCTS
players, measured on the players' CPU clock (``search.time_manager.CPU_CLOCK``: CPU seconds of the
process), in the arena's player specs and the Blokus GTP engine; the exact stop asserted on a fake
clock, never real timings. The budget and each seat's CPU count cover the whole move: the root's
expansion and the copy of the subtree kept from the last search included."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from blokuszero.engines.blokus import BlokusGtpEngine
from blokuszero.engines.blokus.cli import parse_args, player_spec
from blokuszero.games.blokus.game import BlokusGame
from blokuszero.games.registry import make_game
from blokuszero.players.factory import make_player, resolve_spec
from blokuszero.referee.game_loop import play
from blokuszero.search import PlayoutMixing, time_manager
from blokuszero.search.compiled import TIMED_CHUNK
from blokuszero.search.tree import Tree


@pytest.fixture
def ticks(monkeypatch):
    """The players' clock reads 0, 1, 2, ... (a fresh count per test)."""
    counter = itertools.count()
    monkeypatch.setattr(time_manager, "CPU_CLOCK", lambda: float(next(counter)))
    return counter


def test_the_players_clock_is_the_process_cpu_time():
    game = BlokusGame()
    assert time_manager.CPU_CLOCK is time.process_time
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


class Clock:
    """A fake CPU clock: each reading returns ``now``, then adds ``tick``."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now - self.tick


def test_the_budget_covers_the_roots_expansion(monkeypatch):
    # leaf_playouts: the network gives the root its priors before the first simulation.
    clock = Clock(1.0)
    monkeypatch.setattr(time_manager, "CPU_CLOCK", clock)
    game = BlokusGame()
    player = make_player(game, {"preset": "alphazero", "leaf_playouts": True, "simulations": 0,
                                "time_limit": 30, "compiled": False}, seed=0)
    expansion = player.mcts.expansion
    expanded = []

    def costly(state):  # the root's expansion costs 10 seconds, later ones nothing
        clock.now += 10.0 * (not expanded)
        expanded.append(state.key())
        return expansion(state)

    monkeypatch.setattr(player.mcts, "expansion", costly)
    player.choose_action(game.new_initial_state())
    # The deadline is the first reading (0) + 30; the expansion takes 1 .. 11; readings 11 .. 29
    # each let a simulation run.
    assert expanded[0] == game.new_initial_state().key()
    assert player.last_result.simulations == 19


def test_the_kept_subtrees_copy_is_in_the_next_moves_budget_and_its_seats_cpu(monkeypatch):
    clock = Clock(0.0)  # still, but for the copies
    monkeypatch.setattr(time_manager, "CPU_CLOCK", clock)
    subtree = Tree.subtree
    copies = []

    def costly(tree, node):
        clock.now += 10.0
        copies.append(node)
        return subtree(tree, node)

    monkeypatch.setattr(Tree, "subtree", costly)
    game = make_game("tictactoe")
    players = [make_player(game, {"preset": "uct", "simulations": 200}, seed=s) for s in (1, 2)]
    played = play(game, game.new_initial_state(), players, np.random.default_rng(0))
    # Every copy is made inside a seat's move, so the seats' CPU is the copies' 10 s each.
    assert len(copies) >= 4 and sum(played.cpu_by_seat) == 10.0 * len(copies)
    # A timed search pays for its copies out of its budget: two copies (the move searched and
    # the answer) leave readings 21 .. 299 before the deadline, each one simulation.
    clock.tick = 1.0
    timed = make_player(game, {"preset": "uct", "simulations": 0, "time_limit": 300, "compiled": False}, seed=3)
    state = game.new_initial_state()
    for _ in range(2):
        action = timed.choose_action(state)
        timed.inform(action, state.current_player())
        state.apply_action(action)
        answer = int(state.legal_actions()[0])
        timed.inform(answer, state.current_player())
        state.apply_action(answer)
    copies.clear()
    timed.choose_action(state)
    assert len(copies) == 2 and timed.last_result.simulations == 279


def test_the_arena_reports_each_players_cpu_seconds_per_move(tmp_path, ticks):
    import json

    from blokuszero.match.arena import Match
    from blokuszero.match.runner import run_match
    from blokuszero.match.summary import format_summary

    match = Match("tictactoe", ["uct", "random"],
                  {"uct": {"preset": "uct", "simulations": 50}, "random": {"preset": "random"}},
                  random_opening_moves=1)
    summary = run_match(match, games=2, seed=0, out_dir=tmp_path, progress=False)
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    # The clock reads 0, 1, 2, ... and only the game loop reads it (these players search by
    # simulations): each move chosen costs one tick, the random opening move none.
    for r in records:
        assert sum(r["moves_chosen_by_seat"]) == len(r["moves"]) - 1  # the random opening move
        assert r["cpu_seconds_by_seat"] == [float(n) for n in r["moves_chosen_by_seat"]]
    assert summary["speed"]["cpu_seconds_per_move"] == {"uct": 1.0, "random": 1.0}
    assert "CPU s/move" in format_summary(summary)
