"""Every benchmark (``python -m blokuszero.bench NAME``) runs with a tiny budget and writes its JSON,
and ``--before`` measures another checkout's package, also one without ``blokuszero/bench``."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from blokuszero.bench.__main__ import ALIASES, NAMES, main

ROOT = Path(__file__).resolve().parents[1]

# The smallest budget of each benchmark that still runs every part of it.
TINY = {
    "blokus": ["--seconds", "0.05", "--games", "3"],
    "search_parts": ["--scale", "0.01"],
    "daihinmin": ["--seconds", "0.05", "--repeats", "1", "--games", "2", "--mc-playouts", "5", "--hand-deals", "3"],
    "ggp": ["--games", "tictactoe", "--seconds", "0.05"],
    "ggp_experience": ["--sizes", "100", "1000", "--probes", "20", "--games", "tictactoe", "--simulations", "10",
                       "--repeats", "1"],
    "ggp_prepare": ["--games", "tictactoe"],
    "go": ["--sizes", "9", "--seconds", "0.05", "--simulations", "100", "--repeats", "1"],
    "gumbel": ["--simulations", "4", "--selfplay-simulations", "2", "--games", "2", "--repeats", "1"],
    "nn": ["--models", "b2c32conv", "--batches", "2", "--seconds", "0.05", "--games", "2"],
    "blokus_mcts": ["--simulations", "20", "--positions", "1"],
    "selfplay": ["--models", "b2c32conv", "--batches", "2", "--simulations", "2", "--seconds", "0.1", "--tree-only"],
}


def _rates(row: dict, keys: set[str]) -> None:
    """``row`` has exactly ``keys``, each a finite number (at tiny budgets a difference of two
    timings, as the move generation's without the copy, may come out below 0)."""
    assert set(row) == keys
    assert all(isinstance(row[k], (int, float)) and math.isfinite(row[k]) for k in keys), row


def _blokus(r: dict) -> None:
    _rates(r, {"positions", "mean_legal_moves", "movegen_per_s", "movegen_per_s_excluding_copy",
               "playouts_per_s_uniform", "playouts_per_s_largest_piece", "playouts_per_s_uniform_python_api"})


def _search_parts(r: dict) -> None:
    _rates(r, {"blokus engine playouts", "go9 engine playouts", "go19 engine playouts",
               *(f"blokus {s} {p}" for s in ("mcts_maxn", "puct") for p in ("opening", "middle")),
               *(f"go{n} rave k={k}" for n in (9, 19) for k in (1.0, 1.5)),
               "tree only: go9 rave", "tree only: go9 ucb1", "tree only: blokus progressive history"})


def _daihinmin(r: dict) -> None:
    assert set(r) == {"playouts", "movegen", "mc_random", "mc_default", "mc_model", "mc_model/model", "model",
                      "hands", "server_in_process", "server_tcp"}
    _rates(r["playouts"], {"best", "median", "per_item"})
    for policy in ("random", "default", "model", "model/model"):
        mc = r[f"mc_{policy}"]
        _rates(mc, {"playouts_per_s", "decisions_per_s", "playouts_per_decision"})
        # Every decision runs the playouts it is given (TINY: 5), so the two rates differ by them.
        assert mc["playouts_per_decision"] == 5
        assert mc["playouts_per_s"] == pytest.approx(5 * mc["decisions_per_s"])
    _rates(r["model"], {"learn_game_us", "predict_us"})
    _rates(r["hands"], {"ms_per_decision", "deals", "median_effective_deals", "decisions", "placed_weighted",
                        "placed_uniform"})
    assert r["hands"]["deals"] == 3 and 1 <= r["hands"]["median_effective_deals"] <= 3
    assert r["hands"]["decisions"] > 50  # player 0's turns in ten games
    assert r["server_tcp"] > 0  # a real timing: server_rate's arithmetic is checked on a fake clock


def _ggp(r: dict) -> None:
    _rates(r["tictactoe"]["propnet"], {"build_s", "updates_per_s", "playouts_per_s", "moves_per_playout"})


def _ggp_experience(r: dict) -> None:
    assert set(r["lookup"]) == {"uniform", "huffman pawnwhopping", "appearance connectfour"}
    assert [row["keys"] for row in r["lookup"]["uniform"]] == [100, 1000]
    _rates(r["uct_playouts_per_s"]["tictactoe"], {"plain", "experience", "experience_ball"})


def _ggp_prepare(r: dict) -> None:
    row = r["tictactoe"]
    assert row["kind"] == "propnet" and row["instances"] > 0
    _rates(row["cpu_s"], {"import", "parse", "specialize", "ground", "compile"})


def _go(r: dict) -> None:
    assert set(r["sizes"]["9"]) == {"engine_playouts_per_s", "moves_per_playout", "search_simulations",
                                    "search_playouts_per_s", "search_median", "search_pattern_playouts_per_s",
                                    "search_pattern_median", "pattern_overhead"}


def _gumbel(r: dict) -> None:
    for name in ("puct+dirichlet", "gumbel"):
        [row] = r[name]
        _rates(row, {"search_ms_per_sim", "selfplay_ms_per_sim", "targets_per_position", "kb_per_game"})


def _nn(r: dict) -> None:
    by_torch, by_onnx = r["results"]
    for row, backend in ((by_torch, "torch"), (by_onnx, "onnxruntime")):
        assert (row["model"], row["batch"], row["backend"]) == ("b2c32conv", 2, backend)
        assert row["evaluate_per_s"] == pytest.approx(2 / row["evaluate_ms"] * 1e3)
        assert row["forward_per_s"] == pytest.approx(2 / row["forward_ms"] * 1e3)
    # The first backend is the reference; the other runs the same network.
    assert by_torch["max_abs_diff"] == 0 and 0 < by_onnx["max_abs_diff"] < 1e-4


def _blokus_mcts(r: dict) -> None:
    for phase in ("opening", "middle"):
        [rate] = r[phase]["ours"]
        assert rate > 0


def _selfplay(r: list) -> None:
    network, uniform = r
    assert network["model"] == "b2c32conv" and uniform["model"] == "none (uniform priors)"
    for key in ("network_alone_per_s", "simulations_per_s", "ratio", "learner_steps_per_s", "batch_fill"):
        assert math.isfinite(network[key])
    assert network["ratio"] == pytest.approx(network["simulations_per_s"] / network["network_alone_per_s"])
    assert 0 < network["batch_fill"] <= 1 and uniform["simulations_per_s"] > 0


RESULTS = {"blokus": _blokus, "blokus_mcts": _blokus_mcts, "daihinmin": _daihinmin, "ggp": _ggp,
           "ggp_experience": _ggp_experience, "ggp_prepare": _ggp_prepare, "go": _go, "gumbel": _gumbel, "nn": _nn,
           "search_parts": _search_parts, "selfplay": _selfplay}


class FakeTime:
    """A stand-in for a benchmark module's ``time``: every clock reading is ``tick`` seconds
    after the one before, so a rate is exactly its items over the readings between."""

    def __init__(self, tick: float = 1.0) -> None:
        self.now, self.tick = 0.0, tick

    def read(self) -> float:
        self.now += self.tick
        return self.now - self.tick

    process_time = perf_counter = read


def test_rates_are_items_over_the_clocks_seconds():
    from blokuszero.bench.harness import cpu_rate, timed_rate

    clock = FakeTime(0.25)
    # Steps of 3 items until 1 second has passed: readings 0 (start), 0.25, 0.5, 0.75, 1.0.
    assert timed_rate(lambda: 3, 1.0, clock.read) == (12.0, 12.0)
    assert timed_rate(lambda: 3, 0.01, clock.read) == (12.0, 3.0)  # at least one step
    assert cpu_rate(lambda: None, 10, FakeTime(0.5).read) == 20.0


def test_the_blokus_mcts_benchmark_counts_simulations_over_cpu_seconds(monkeypatch):
    from blokuszero.bench import blokus_mcts
    from blokuszero.bench.harness import positions_after

    monkeypatch.setattr(blokus_mcts, "time", FakeTime())
    states = positions_after(4, 2)
    # Two positions of 20 simulations each between readings 0 (CPU) and 2 (CPU), 1 and 3 (wall).
    assert blokus_mcts.measure(states, 20) == {"simulations_per_cpu_s": 20.0, "simulations_per_s": 20.0,
                                               "simulations": 40}


def test_the_network_benchmark_times_calls_on_the_cpu_clock(monkeypatch):
    import torch

    from blokuszero.bench import nn

    monkeypatch.setattr(nn, "time", FakeTime(0.5))
    calls = []
    # After one warm-up call, calls until 2 CPU-seconds have passed: 4 calls of 0.5 s each.
    assert nn.latency(calls.append, 2.0, torch.device("cpu")) == 500.0
    assert calls == [0, 1, 2, 3, 4]


def test_the_daihinmin_server_benchmark_counts_games_over_seconds(monkeypatch):
    from blokuszero.bench import daihinmin

    monkeypatch.setattr(daihinmin, "time", FakeTime(0.5))
    assert daihinmin.server_rate(3, tcp=False) == 6.0  # 3 games between readings 0 and 0.5


def test_the_go_benchmarks_pattern_overhead_is_the_rates_shortfall(monkeypatch):
    from blokuszero.bench import go

    search_rate, engine_rate = go.search_rate, go.engine_rate
    rates = {(1.0, 0): 100.0, (1.0, 1): 120.0, (1.5, 0): 80.0, (1.5, 1): 90.0}  # (k, repeat): plain k = 1
    monkeypatch.setattr(go, "engine_rate", lambda game, seconds: (5000.0, 60.0))
    monkeypatch.setattr(go, "search_rate", lambda game, k, simulations, seed: rates[k, seed])
    import argparse

    entry = go.search_rates(argparse.Namespace(sizes=[9], seconds=0.1, simulations=100, repeats=2))["sizes"][9]
    assert entry["search_simulations"] == 500  # at least 500 on every board
    assert (entry["search_playouts_per_s"], entry["search_median"]) == (120.0, 110.0)
    assert (entry["search_pattern_playouts_per_s"], entry["search_pattern_median"]) == (90.0, 85.0)
    assert entry["pattern_overhead"] == pytest.approx(1 - 90 / 120)
    # The two rates themselves: 50 playouts of one search, 100 of one engine step, half a second.
    from blokuszero.games.go import GoGame

    assert search_rate(GoGame(9), 1.0, 50, 0, clock=FakeTime(0.5).read) == 100.0
    rate, moves = engine_rate(GoGame(9), 0.01, clock=FakeTime(0.5).read)
    assert rate == 200.0 and 9 * 9 / 2 < moves < 3 * 9 * 9  # a 9x9 playout fills about the board


def test_every_benchmark_has_a_smoke_test():
    assert set(TINY) == set(RESULTS) == set(NAMES)


# The GDL and Daihinmin benchmarks compile many numba kernels (87, 109, 34 and 26 s on 2 idle cores): slow,
# so that the default run stays under 10 minutes; .ci/run runs them by this test's name.
SLOW_BENCHMARKS = ("ggp", "ggp_experience", "ggp_prepare", "daihinmin")


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW_BENCHMARKS else [])
                                  for n in NAMES])
def test_benchmark_runs_and_writes_its_json(name, tmp_path, capsys):
    out = tmp_path / f"{name}.json"
    main([name, *TINY[name], "--json", str(out)])
    printed = capsys.readouterr()
    assert "load average before" in printed.out + printed.err  # search_parts prints its on stderr: stdout is data
    report = json.loads(out.read_text())
    assert set(report) == {"benchmark", "options", "machine", "load_before", "load_after", "results"}
    assert report["benchmark"] == name and report["options"]["json"] == str(out)
    RESULTS[name](report["results"])


def test_help_lists_every_benchmark_and_a_bad_name_is_refused(capsys):
    main(["--help"])
    listing = capsys.readouterr().out
    assert all(f"  {name} " in listing for name in NAMES)
    # Earlier names still run their benchmark (recorded commands use them), and the listing says so.
    assert set(ALIASES.values()) <= set(NAMES) and not set(ALIASES) & set(NAMES)
    assert all(f"(also: {alias})" in listing for alias in ALIASES)
    with pytest.raises(SystemExit) as refused:
        main(["bench_search"])
    assert refused.value.code == 2
    assert "no benchmark named 'bench_search'" in capsys.readouterr().err


def _old_checkout(where: Path) -> Path:
    """A checkout of this package as it was before ``blokuszero/bench``: the package without it."""
    shutil.copytree(ROOT / "blokuszero", where / "blokuszero",
                    ignore=shutil.ignore_patterns("__pycache__", "bench"))
    return where


@pytest.mark.parametrize("old", [pytest.param(False, id="this-tree"),
                                 # A package of other sources: numba compiles its kernels afresh (minutes).
                                 pytest.param(True, id="without-bench", marks=pytest.mark.slow)])
def test_blokus_mcts_before_measures_another_checkout(old, tmp_path, capsys):
    checkout = _old_checkout(tmp_path) if old else ROOT
    main(["blokus_mcts", "--simulations", "10", "--positions", "1", "--before", str(checkout)])
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(("opening", "middle"))]
    assert [(row[0], row[1]) for row in rows] == [("opening", "before"), ("opening", "ours"),
                                                  ("middle", "before"), ("middle", "ours")]


@pytest.mark.parametrize("old", [pytest.param(False, id="this-tree"),
                                 pytest.param(True, id="without-bench", marks=pytest.mark.slow)])
def test_search_parts_before_alternates_two_checkouts(old, tmp_path, capsys):
    checkout = _old_checkout(tmp_path) if old else ROOT
    out = tmp_path / "search_parts.json"
    # By its earlier name: the alias runs the same benchmark.
    main(["core", "--scale", "0.01", "--rounds", "2", "--before", str(checkout), "--json", str(out)])
    assert "2 / 2 rounds" in capsys.readouterr().out
    results = json.loads(out.read_text())["results"]
    assert len(results["before"]) == len(results["this"]) == 2
    _search_parts(results["before"][0])


def test_expert_iteration_rates_are_whole_games_over_their_cpu_seconds(monkeypatch):
    """Each backend plays whole games, alternating, until its CPU time reaches the budget: with a
    clock that advances 1 s a reading, one game is 1 CPU-s, so a 2 s budget is 2 games each."""
    import blokuszero.bench.selfplay as bench_selfplay
    from blokuszero.nn.model import build_model

    monkeypatch.setattr(bench_selfplay, "time", FakeTime(1.0))
    rows = bench_selfplay.expert_iteration_rates(build_model("b2c32conv", "blokus"), ["torch", "onnxruntime"],
                                                 simulations=8, seconds=2.0)
    assert [r["backend"] for r in rows] == ["torch", "onnxruntime"]
    for r in rows:
        assert r["games"] == 2 and r["cpu_seconds"] == 2.0
        assert r["simulations"] == 8 * r["positions"]  # each move searches its own 8 simulations
        assert r["positions_per_cpu_s"] == r["positions"] / 2 and r["games_per_cpu_hour"] == 3600
        assert 0 < r["network_calls_per_position"] <= 1  # 8 simulations never reach 16 visits: roots only


def test_target_noise_compares_two_searches_and_the_priors_on_a_known_case():
    """Two searches' visit shares over the union of their root moves, and the first's priors: the
    first [1: 2, 2: 1, 3: 1], the second [2: 2, 3: 2, 4: 0], priors [1: 0.5, 2: 0.25, 3: 0.25]."""
    from types import SimpleNamespace

    from blokuszero.bench.selfplay import target_noise

    results = iter([
        SimpleNamespace(actions=np.array([1, 2, 3]), visits=np.array([2.0, 1, 1]), prior=np.array([0.5, 0.25, 0.25])),
        SimpleNamespace(actions=np.array([2, 3, 4]), visits=np.array([2.0, 2, 0]), prior=np.array([0.4, 0.3, 0.3])),
    ])
    search = SimpleNamespace(search=lambda state, simulations: next(results))
    selfplay = SimpleNamespace(settings=SimpleNamespace(simulations=4), search=lambda seed: search)
    row = target_noise(selfplay, [SimpleNamespace(clone=lambda: None)])
    assert row["tv_between_searches"] == pytest.approx(0.5)  # [.5, .25, .25, 0] against [0, .5, .5, 0]
    assert row["tv_network_to_search"] == pytest.approx(0.0)  # the priors are the first search's shares
    assert row["top_move_agreement_between_searches"] == 0.0 and row["network_top_prior_is_search_top_move"] == 1.0
    assert row["tv_network_minus_searches"]["mean"] == pytest.approx(-0.5)
    assert row["top_agreement_searches_minus_network"]["mean"] == -1.0
