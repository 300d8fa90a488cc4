"""Every benchmark (``python -m blokuszero.bench NAME``) runs with a tiny budget and writes its JSON,
and ``--before`` measures another checkout's package, also one without ``blokuszero/bench``."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from blokuszero.bench.__main__ import NAMES, main

ROOT = Path(__file__).resolve().parents[1]

# The smallest budget of each benchmark that still runs every part of it.
TINY = {
    "blokus": ["--seconds", "0.05", "--games", "3"],
    "core": ["--scale", "0.01"],
    "daihinmin": ["--seconds", "0.05", "--repeats", "1", "--games", "2", "--mc-playouts", "5"],
    "ggp": ["--games", "tictactoe", "--seconds", "0.05"],
    "ggp_experience": ["--sizes", "100", "1000", "--probes", "20", "--games", "tictactoe", "--simulations", "10",
                       "--repeats", "1"],
    "ggp_prepare": ["--games", "tictactoe"],
    "go": ["--sizes", "9", "--seconds", "0.05", "--simulations", "100", "--repeats", "1"],
    "gumbel": ["--simulations", "4", "--selfplay-simulations", "2", "--games", "2", "--repeats", "1"],
    "nn": ["--models", "b2c32conv", "--batches", "2", "--seconds", "0.05", "--games", "2"],
    "search": ["--simulations", "20", "--positions", "1"],
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


def _core(r: dict) -> None:
    _rates(r, {"blokus engine playouts", "go9 engine playouts", "go19 engine playouts",
               *(f"blokus {s} {p}" for s in ("mcts_maxn", "puct") for p in ("opening", "middle")),
               *(f"go{n} rave k={k}" for n in (9, 19) for k in (1.0, 1.5)),
               "tree only: go9 rave", "tree only: go9 ucb1", "tree only: blokus progressive history"})


def _daihinmin(r: dict) -> None:
    assert set(r) == {"playouts", "movegen", "mc_random", "mc_default", "mc_model", "mc_model/model", "model",
                      "server_in_process", "server_tcp"}
    _rates(r["playouts"], {"best", "median", "per_item"})
    _rates(r["mc_model/model"], {"playouts_per_s", "decisions_per_s", "playouts_per_decision"})
    _rates(r["model"], {"learn_game_us", "predict_us"})
    assert r["server_tcp"] > 0


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
    [row] = r["results"]
    assert (row["model"], row["batch"]) == ("b2c32conv", 2)
    _rates({k: row[k] for k in ("forward_per_s", "evaluate_per_s")}, {"forward_per_s", "evaluate_per_s"})


def _search(r: dict) -> None:
    for phase in ("opening", "middle"):
        [rate] = r[phase]["ours"]
        assert rate > 0


def _selfplay(r: list) -> None:
    network, uniform = r
    assert network["model"] == "b2c32conv" and uniform["model"] == "none (uniform priors)"
    for key in ("network_alone_per_s", "simulations_per_s", "ratio", "learner_steps_per_s", "batch_fill"):
        assert network[key] >= 0
    assert uniform["simulations_per_s"] > 0


RESULTS = {"blokus": _blokus, "core": _core, "daihinmin": _daihinmin, "ggp": _ggp, "ggp_experience": _ggp_experience,
           "ggp_prepare": _ggp_prepare, "go": _go, "gumbel": _gumbel, "nn": _nn, "search": _search,
           "selfplay": _selfplay}


def test_every_benchmark_has_a_smoke_test():
    assert set(TINY) == set(RESULTS) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_benchmark_runs_and_writes_its_json(name, tmp_path, capsys):
    out = tmp_path / f"{name}.json"
    main([name, *TINY[name], "--json", str(out)])
    printed = capsys.readouterr()
    assert "load average before" in printed.out + printed.err  # core prints its on stderr: stdout is data
    report = json.loads(out.read_text())
    assert set(report) == {"benchmark", "options", "machine", "load_before", "load_after", "results"}
    assert report["benchmark"] == name and report["options"]["json"] == str(out)
    RESULTS[name](report["results"])


def test_help_lists_every_benchmark_and_a_bad_name_is_refused(capsys):
    main(["--help"])
    listing = capsys.readouterr().out
    assert all(f"  {name} " in listing for name in NAMES)
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
def test_search_before_measures_another_checkout(old, tmp_path, capsys):
    checkout = _old_checkout(tmp_path) if old else ROOT
    main(["search", "--simulations", "10", "--positions", "1", "--before", str(checkout)])
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(("opening", "middle"))]
    assert [(row[0], row[1]) for row in rows] == [("opening", "before"), ("opening", "ours"),
                                                  ("middle", "before"), ("middle", "ours")]


@pytest.mark.parametrize("old", [pytest.param(False, id="this-tree"),
                                 pytest.param(True, id="without-bench", marks=pytest.mark.slow)])
def test_core_before_alternates_two_checkouts(old, tmp_path, capsys):
    checkout = _old_checkout(tmp_path) if old else ROOT
    out = tmp_path / "core.json"
    main(["core", "--scale", "0.01", "--rounds", "2", "--before", str(checkout), "--json", str(out)])
    assert "2 / 2 rounds" in capsys.readouterr().out
    results = json.loads(out.read_text())["results"]
    assert len(results["before"]) == len(results["this"]) == 2
    _core(results["before"][0])
