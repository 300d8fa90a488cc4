"""Evaluation: Elo fit on known numbers, checkpoint discovery, a mini evaluation end to end
(stored games, curve, plot, ladder) and a resumed one."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from blokuszero.games.blokus import BlokusState
from blokuszero.match.arena import Match, play_game
from blokuszero.match.evaluation import candidates, evaluation_match, find_checkpoints
from blokuszero.match.ladder import describe, fit_elo, format_ladder, load_games, load_seats, seat_rates
from blokuszero.match.runner import load_records, run_match
from blokuszero.nn.checkpoint import save_network
from blokuszero.nn.model import build_model
from blokuszero.players.factory import resolve_spec, trained_search
from blokuszero.protocols.gtp import GtpClient

ROOT = Path(__file__).resolve().parents[1]


def duel(a: str, b: str, wins: int, draws: int, losses: int) -> list:
    return ([[(a, 1.0), (b, 0.0)]] * wins + [[(a, 0.0), (b, 0.0)]] * draws +
            [[(a, 0.0), (b, 1.0)]] * losses)


def test_elo_of_a_75_percent_score_is_191_with_se_40():
    # p = 0.75: 400 log10(3) = 190.85 Elo; SE = 400/ln(10) / sqrt(n p (1 - p)) = 40.11 for n = 100
    ratings = {r.player: r for r in fit_elo(duel("A", "B", 75, 0, 25), anchor="B", prior_sd=None)}
    assert ratings["A"].elo == pytest.approx(190.85, abs=0.01)
    assert ratings["A"].se == pytest.approx(40.11, abs=0.01)
    assert ratings["B"].elo == 0 and ratings["B"].se == 0 and ratings["A"].score == 0.75
    # draws count half: 50 wins and 50 draws is also a 75% score
    halves = {r.player: r for r in fit_elo(duel("A", "B", 50, 50, 0), anchor="B", prior_sd=None)}
    assert halves["A"].elo == pytest.approx(190.85, abs=0.01)


def test_elo_chains_through_a_common_opponent_and_reads_four_seat_games():
    games = duel("A", "B", 75, 0, 25) + duel("B", "C", 75, 0, 25)
    ratings = {r.player: r.elo for r in fit_elo(games, anchor="C", prior_sd=None)}
    assert ratings["A"] == pytest.approx(381.70, abs=0.01) and ratings["B"] == pytest.approx(190.85, abs=0.01)
    # one seat of X vs three of Y: X first in 3 of 4 games gives 3 pairs won per game, 9 of 12
    four = [[("X", 5.0), ("Y", 1.0), ("Y", 2.0), ("Y", 3.0)]] * 3 + [[("X", 0.0), ("Y", 1.0), ("Y", 2.0), ("Y", 3.0)]]
    x = {r.player: r for r in fit_elo(four, anchor="Y", prior_sd=None)}["X"]
    assert x.elo == pytest.approx(190.85, abs=0.01) and x.games == 4
    # the game is the unit: its 3 pairs move together, so the error exceeds the 12-pair one (80.2)
    assert x.se > 80.3


def test_elo_refuses_what_it_cannot_rate():
    perfect = [[("A", 1.0), ("B", 0.0)]] * 10
    with pytest.raises(ValueError, match=r"\['A', 'B'\] won or lost every comparison"):
        fit_elo(perfect, prior_sd=None)
    rated = {r.player: r for r in fit_elo(perfect)}  # the default weak prior keeps it finite
    assert rated["A"].elo > 500 and rated["A"].se > 300
    with pytest.raises(ValueError, match="never met.*A, B.*C, D"):
        fit_elo(duel("A", "B", 3, 0, 2) + duel("C", "D", 3, 0, 2))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A run directory with two checkpoints of a small network, as a training run writes them."""
    run = tmp_path_factory.mktemp("runs") / "tiny"
    config = json.dumps({"model": {"name": "b2c32conv"}, "seed": 7})
    torch.manual_seed(7)
    model = build_model("b2c32conv", "blokus")
    for step in (10, 20):
        with torch.no_grad():
            next(model.parameters()).add_(0.01)  # a network that changes from step to step
        save_network(run / "checkpoints", step, "b2c32conv", model.state_dict(), config,
                     model_config=dataclasses.asdict(model.config))
    return run


def test_checkpoints_are_found_by_file_glob_or_run_and_bad_ones_are_skipped(run_dir, tmp_path):
    ckpts = run_dir / "checkpoints"
    assert find_checkpoints(run_dir) == find_checkpoints(ckpts) == find_checkpoints(f"{ckpts}/*.pt")
    assert [c.step for c in candidates(run_dir, include_untrained=True)] == [0, 10, 20]
    untrained = candidates(run_dir, include_untrained=True)[0]
    assert untrained.label == "tiny@0" and untrained.spec["init_seed"] == 7
    with pytest.raises(ValueError, match="does not exist"):
        find_checkpoints(tmp_path / "nothing.pt")
    with pytest.raises(ValueError, match="no checkpoints"):
        find_checkpoints(f"{tmp_path}/*.pt")
    damaged = tmp_path / "checkpoints"
    damaged.mkdir()
    for p in ckpts.iterdir():
        (damaged / p.name).write_bytes(p.read_bytes())
    (damaged / "ckpt_000000020.pt").write_bytes(b"torn")
    reports = []
    assert [c.step for c in candidates(damaged, report=reports.append)] == [10]
    assert "ckpt_000000020.pt does not match its digest" in reports[0]
    (damaged / "ckpt_000000010.sha256").unlink()
    with pytest.raises(ValueError, match="none of the checkpoints"):
        candidates(damaged, report=reports.append)


def evaluate_command(run_dir: Path, out_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "evaluate.py"), f"checkpoint={run_dir}", f"out_dir={out_dir}",
         "games=2", "network.simulations=4", "players.mcts_maxn.simulations=4", "workers=1",
         "progress=false", f"hydra.run.dir={out_dir.parent / 'hydra'}", *extra],
        capture_output=True, text=True, timeout=300)


def test_the_untrained_network_searches_as_its_run_trained(tmp_path):
    """Step 0 of a Gumbel run's curve plays Gumbel's search too (its checkpoints' files say so;
    the untrained network has none); the evaluation's own network options still win."""
    run = tmp_path / "gumbel_run"
    config = json.dumps({"model": {"name": "b2c32conv"}, "seed": 3,
                         "search": {"gumbel": True, "q_init": "parent", "simulations": 16}})
    save_network(run / "curve" / "checkpoints", 5, "b2c32conv", build_model("b2c32conv", "blokus").state_dict(), config)
    untrained, trained = candidates(run / "curve", include_untrained=True)
    assert untrained.label == "gumbel_run@0" and trained.label == "gumbel_run@5"
    network = {"preset": "alphazero", "simulations": 200, "q_init": 0.0}
    seat = evaluation_match(untrained, network, {"preset": "mcts_maxn"}).players["blokuszero"]
    assert seat["gumbel"] is True and seat["q_init"] == 0.0 and seat["simulations"] == 200
    assert "simulations" not in untrained.search  # the budget is the evaluation's


def test_mini_evaluation_end_to_end_then_resumed(run_dir, tmp_path):
    out = tmp_path / "eval"
    figure = tmp_path / "docs" / "tiny_curve.png"
    done = evaluate_command(run_dir, out, "untrained=true", f"figure={figure}")
    assert done.returncode == 0, done.stderr
    curve = json.loads((out / "curve.json").read_text())["points"]
    assert [p["step"] for p in curve] == [0, 10, 20] and all(p["games"] == 2 for p in curve)
    assert all(p["cpu_seconds_per_game"] > 0 for p in curve)
    assert (out / "curve.png").read_bytes()[:8] == figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (out / "curve.md").read_text()
    assert table.count("\n| tiny@") == 3 and table.splitlines()[2].startswith("| network | step | games |")
    assert "| tiny@20 | 20 | 2 |" in done.stdout
    assert "tiny@20" in done.stdout and "Elo ladder" in done.stdout and "mcts_maxn 4" in done.stdout
    stored = out / "tiny@20"
    records = load_records(stored / "games.jsonl")
    assert len(records) == 2
    # every game is stored with its seed and can be replayed move for move
    match = evaluation_match(candidates(run_dir)[-1], {"preset": "alphazero", "simulations": 4, "device": "cpu"},
                             {"preset": "mcts_maxn", "simulations": 4})
    for r in records:
        assert (stored / "games" / f"game_{r['index']:05d}.blksgf").exists()
        assert [list(m) for m in play_game(match, r["index"], r["seed"])["moves"]] == r["moves"]

    # Interrupt: keep one game, tear the line of the other; the rerun plays only the missing one.
    lines = (stored / "games.jsonl").read_text().splitlines()
    kept = json.loads(lines[0])
    (stored / "games.jsonl").write_text(lines[0] + "\n" + lines[1][:20])
    done = evaluate_command(run_dir, out, "ladder=false")
    assert done.returncode == 0, done.stderr
    resumed = load_records(stored / "games.jsonl")
    assert len(resumed) == 2 and kept in resumed  # the stored game, untouched
    assert json.loads((stored / "summary.json").read_text())["speed"]["games_played"] == 1
    assert json.loads((out / "tiny@10" / "summary.json").read_text())["speed"]["games_played"] == 0

    # Resuming under other settings would mix two matches: refused, nothing lost.
    done = evaluate_command(run_dir, out, "network.simulations=5")
    assert done.returncode != 0 and "cannot resume" in done.stderr and "simulations" in done.stderr
    assert load_records(stored / "games.jsonl") == resumed


def test_ladder_reads_every_stored_match(tmp_path):
    players = {"mcts": {"preset": "mcts_maxn", "simulations": 10}, "random": {"preset": "random"}}
    run_match(Match("blokus", ["mcts", "random", "random", "random"], players, 4), 3, 0,
              tmp_path / "one", progress=False)
    games = load_games(tmp_path)
    assert len(games) == 3 and {p for g in games for p, _ in g} == {"mcts_maxn 10", "random"}
    # Beside the Elo, each player's seat wins against the equal seat of its games, from the
    # stored returns (a shared first place a win for each seat in it).
    records = load_records(tmp_path / "one" / "games.jsonl")
    winners = [sum(r > 0 for r in record["returns"]) for record in records]
    rates = seat_rates(load_seats(tmp_path))
    mcts_wins = sum(r > 0 for record in records for seat, r in zip(record["seating"], record["returns"])
                    if seat == "mcts")
    assert rates["mcts_maxn 10"]["wins"] == mcts_wins and rates["mcts_maxn 10"]["games"] == 3
    assert rates["random"]["games"] == 9
    assert rates["mcts_maxn 10"]["equal_seat"] == rates["random"]["equal_seat"] == pytest.approx(sum(winners) / 12)
    table = format_ladder(fit_elo(games), rates).splitlines()
    assert "pair score" in table[0] and "seat wins" in table[0] and "equal seat" in table[0]
    row = next(line for line in table if "mcts_maxn 10" in line)
    assert f"{mcts_wins / 3:.1%}" in row and f"{sum(winners) / 12:.1%}" in row
    assert table[-1].startswith("pair score: the share of a player's pairwise results it won")
    assert describe({"kind": "alphazero", "checkpoint": "runs/r/checkpoints/ckpt_000001500.pt",
                     "simulations": 800}) == "r@1500, 800 sims"
    # a search option away from the preset makes another player; the device does not
    assert describe({**resolve_spec({"preset": "alphazero"}), "q_init": "parent", "device": "cuda",
                     "simulations": 16}) == "untrained b2c32conv (seed 0), 16 sims, q_init=parent"
    assert describe({"kind": "gtp", "command": "/opt/p/build/pentobi-gtp --level 3"}) == "gtp: pentobi-gtp --level 3"
    # a player near a preset: the preset, its budget and the settings away from it
    alone = {**resolve_spec({"preset": "mcts_maxn"}), "playout": "uniform", "simulations": 1000000, "time_limit": 1.0}
    assert describe(alone) == "mcts_maxn, 1 CPU-s a move, at most 1000000 sims, playout=uniform"
    assert describe({**resolve_spec({"preset": "uct"}), "simulations": 50, "c": 1.0}) == "uct 50, c=1.0"
    assert describe(resolve_spec({"preset": "mcts_paranoid"})) == "mcts_paranoid 800"
    assert describe({"kind": "nonesuch", "x": 1}) == '{"kind": "nonesuch", "x": 1}'
    # the search a network trained with is its default: spelt out (as the gate does) or left to
    # the checkpoint (as the arena does), it is one player; away from it, another. describe reads
    # no file: the trained search is given (load_seats reads it, once per checkpoint)
    shipped = str(ROOT / "checkpoints" / "blokus_b2c32conv_gumbel.pt")
    trained = trained_search(shipped)
    name = "blokus_b2c32conv_gumbel.pt"  # a shipped file by its name: the digest beside it tells networks apart
    arena = resolve_spec({"preset": "alphazero", "checkpoint": shipped, "simulations": 800})
    gate = resolve_spec({**arena, **trained})
    assert gate != arena and describe(gate, trained) == describe(arena, trained) == f"{name}, 800 sims"
    assert describe({**gate, "c_base": 5.0}, trained) == f"{name}, 800 sims, c_base=5.0"
    assert describe(gate) != describe(arena)  # without it, the spelt-out search is away from the preset
    # the network preset plays by time: named by its time per move, its backend aside
    network = resolve_spec({"preset": "network", "checkpoint": shipped, "time_limit": 0.1, "backend": "torch"})
    assert describe(network, trained) == f"{name}, network preset, 0.1 CPU-s a move"
    assert describe({**network, "expand_threshold": 32}, trained) == \
        f"{name}, network preset, 0.1 CPU-s a move, expand_threshold=32"
    # the script prints the ladder and draws it
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ladder.py"), str(tmp_path), "--anchor", "random",
                           "--figure", str(tmp_path / "ladder.png")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "mcts_maxn 10" in done.stdout and (tmp_path / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gtp_engine_serves_a_checkpoint(run_dir):
    checkpoint = find_checkpoints(run_dir)[-1]
    with GtpClient([sys.executable, "-m", "blokuszero.engines.blokus", "--checkpoint", str(checkpoint),
                    "--simulations", "4"]) as client:
        state = BlokusState()
        for colour in range(4):
            state.apply_action(state.string_to_action(client.send(f"genmove {colour + 1}")))
        assert client.send("final_score") == " ".join(str(int(s) + 89) for s in state.scores())


def test_ray_backend_plays_the_same_games_as_processes(tmp_path):
    match = Match("tictactoe", ["uct", "random"],
                  {"uct": {"preset": "uct", "simulations": 50}, "random": {"preset": "random"}})
    by_ray = run_match(match, 4, 1, tmp_path / "ray", workers=2, progress=False, backend="ray")
    by_processes = run_match(match, 4, 1, tmp_path / "processes", workers=1, progress=False)
    assert by_ray.pop("speed")["backend"] == "ray" and by_processes.pop("speed")["backend"] == "process"
    assert by_ray == by_processes


def test_workers_use_one_torch_thread_even_when_torch_came_first():
    # Spawned workers import the parent's main module (scripts/evaluate.py imports torch) before
    # the initializer runs; two spinning threads per worker cost 30x the CPU time on 2 busy cores.
    code = ("import torch; torch.set_num_threads(2); from blokuszero.threads import "
            "set_math_threads; set_math_threads(); print(torch.get_num_threads())")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "1"


def test_a_new_match_in_the_same_directory_replaces_the_stored_games(tmp_path):
    match = Match("blokus", ["a", "b", "b", "b"], {"a": {"preset": "random"}, "b": {"preset": "random"}})
    run_match(match, 3, 0, tmp_path, progress=False)
    assert len(list((tmp_path / "games").iterdir())) == 3
    run_match(match, 1, 5, tmp_path, progress=False)  # another seed: the old games go
    assert [p.name for p in (tmp_path / "games").iterdir()] == ["game_00000.blksgf"]
    assert len(load_records(tmp_path / "games.jsonl")) == 1


def _point(step: int, wins: int, games: int, ci: tuple[float, float]) -> dict:
    return {"label": f"x@{step}", "step": step, "checkpoint": None, "games": games, "wins": wins,
            "win_rate": wins / games, "ci_low": ci[0], "ci_high": ci[1], "equal_seat": 0.2875, "mean_score": 0.0,
            "opponent_mean_score": 0.0, "games_per_hour": None}


def test_a_curve_that_wins_every_game_is_plotted_and_a_failed_plot_fails_nothing(tmp_path, monkeypatch):
    """Before: 4 wins of 4 gave an upper bound below 1.0 and matplotlib refused the negative
    error bar, so the evaluation (and every resumption of it) crashed after its games."""
    from blokuszero.match import evaluation
    from blokuszero.match.stats import wilson_interval

    curve = [_point(10, 4, 4, wilson_interval(4, 4)), _point(20, 0, 4, wilson_interval(0, 4)),
             _point(30, 4, 4, (0.5, 0.9999999999999999))]  # as an older summary stored it
    evaluation.write_curve(curve, tmp_path, "all won")
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / "curve.json").read_text())["points"] == curve

    def broken(*args, **kwargs):
        raise ValueError("'yerr' must not contain negative values")

    monkeypatch.setattr(evaluation, "plot_curve", broken)
    reports: list[str] = []
    (tmp_path / "x").mkdir()
    evaluation.write_curve(curve, tmp_path / "x", "t", report=reports.append)
    assert reports == ["no curve.png: the plot failed (ValueError: 'yerr' must not contain negative values); "
                       "the figures are in curve.json"]
    assert (tmp_path / "x" / "curve.json").is_file()


def test_curve_table_in_markdown_and_curve_networks_named_by_their_run():
    from blokuszero.match.evaluation import markdown_curve
    from blokuszero.match.ladder import checkpoint_run
    from blokuszero.match.stats import wilson_interval

    point = {**_point(1500, 64, 100, wilson_interval(64, 100)), "mean_score": -16.1,
             "opponent_mean_score": -28.6, "cpu_seconds_per_game": 41.25}
    table = markdown_curve([point, {**_point(0, 2, 8, (0.07, 0.59)), "label": "x@0"}]).splitlines()
    assert table[0] == ("| network | step | games | wins | win rate | 95% Wilson interval | equal seat | "
                        "mean score (network / opponents) | CPU s per game |")
    assert table[2] == "| x@0 | 0 | 8 | 2 | 25.0% | [7.0%, 59.0%] | 28.7% | 0.0 / 0.0 | - |"  # sorted by step
    assert table[3] == "| x@1500 | 1,500 | 100 | 64 | 64.0% | [54.2%, 72.7%] | 28.7% | -16.1 / -28.6 | 41.2 |"
    assert checkpoint_run("runs/cpu_strong/curve/checkpoints/ckpt_000001000.pt") == "cpu_strong"
    assert checkpoint_run("runs/cpu_strong/checkpoints/ckpt_000001000.pt") == "cpu_strong"
    assert checkpoint_run("checkpoints/blokus_b2c32conv_gumbel.pt") == "blokus_b2c32conv_gumbel"
    assert checkpoint_run("elsewhere/ckpt_000000250.pt") == "elsewhere"


def test_evaluate_without_arguments_gives_a_usage_line_and_help_shows_its_own_settings(tmp_path):
    script = str(ROOT / "scripts" / "evaluate.py")
    bare = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bare.returncode == 1 and "Traceback" not in bare.stderr
    assert bare.stderr.strip().startswith("usage: python scripts/evaluate.py checkpoint=PATH")
    assert list(tmp_path.iterdir()) == []  # nothing written (before: outputs/evaluate/...)
    shown = subprocess.run([sys.executable, script, "--help"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120).stdout
    assert "usage: python scripts/evaluate.py checkpoint=PATH" in shown
    assert "checkpoint: ???" in shown and "opponent: mcts_maxn" in shown and "games: 300" in shown
    for training_group in ("hardware", "optimizer", "selfplay", "b10c128"):  # training's, not its own
        assert training_group not in shown
