"""Players, presets and the arena: results stored with seeds, reproducible, strength checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blokuszero.games.blokus.sgf import read_sgf
from blokuszero.games.registry import make_game
from blokuszero.match.arena import Match, game_seed
from blokuszero.match.runner import _play_games, run_match
from blokuszero.match.stats import sign_test, wilson_interval
from blokuszero.match.summary import format_by_colour, format_summary, game_taken_by, head_to_head, summarise
from blokuszero.players import make_player, resolve_spec


def test_wilson_interval_known_values():
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_contains_the_estimate_exactly():
    """Before: k of k wins had an upper bound just below 1.0 (k = 4, 10, 14, ...), which crashed
    evaluate.py's plot with a negative error bar."""
    for games in range(1, 401):
        for wins in (0, games // 3, games):
            low, high = wilson_interval(wins, games)
            assert 0.0 <= low <= wins / games <= high <= 1.0, (wins, games)
        assert wilson_interval(games, games)[1] == 1.0 and wilson_interval(0, games)[0] == 0.0


def test_mcts_maxn_preset_is_the_papers_baseline():
    spec = resolve_spec({"preset": "mcts_maxn"})
    assert spec == {"kind": "mcts", "tree": "maxn", "selection": "progressive_history", "c": 0.2,
                    "w": 5.0, "playout": "largest_piece", "epsilon": 0.05, "expand_threshold": 1,
                    "simulations": 800}


@pytest.mark.parametrize("spec, message", [
    ({"preset": "muzero"}, "unknown player preset 'muzero'"),
    ({"kind": "mcts", "simulation": 5}, r"unknown option\(s\) \['simulation'\]"),
    ({}, "needs a preset or a kind"),
    ({"preset": "uct", "selection": "ucb2"},
     r"selection must be one of \['progressive_history', 'puct', 'rave', 'ucb1', 'ucb1_tuned'\], not 'ucb2'"),
    # Types and ranges are checked before anything is built (before: a TypeError deep in MCTS).
    ({"preset": "uct", "simulations": "abc"}, "^simulations must be int, not 'abc'$"),
    ({"preset": "uct", "simulations": -5}, "^simulations must be >= 0, not -5$"),
    ({"preset": "uct", "simulations": 0}, "simulations >= 1 or a time_limit"),
    ({"preset": "uct", "c": -1}, "^c must be >= 0, not -1$"),
    ({"preset": "mcts_maxn", "epsilon": 2.0}, "^epsilon must be <= 1, not 2.0$"),
    ({"preset": "brs", "node_limit": 0}, "^node_limit must be >= 1, not 0$"),
    ({"preset": "alphazero", "q_init": "max"}, r"^q_init must be one of \['parent'\], not 'max'$"),
    ({"preset": "uct", "reuse_tree": "yes"}, "^reuse_tree must be bool, not 'yes'$"),
])
def test_bad_player_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(make_game("tictactoe"), spec)


def test_bad_match_settings(tmp_path):
    with pytest.raises(ValueError, match="tictactoe has 2 seats, but 3 were given"):
        run_match(Match("tictactoe", ["a", "a", "a"], {"a": {"preset": "random"}}), 1, 0, tmp_path)
    with pytest.raises(ValueError, match="seat player 'b' has no entry"):
        run_match(Match("tictactoe", ["a", "b"], {"a": {"preset": "random"}}), 1, 0, tmp_path)
    with pytest.raises(ValueError, match="player 'a': unknown option"):
        run_match(Match("tictactoe", ["a", "a"], {"a": {"preset": "random", "depth": 3}}), 1, 0, tmp_path)
    with pytest.raises(ValueError, match="player 'a': simulations must be int, not 'many'"):
        run_match(Match("tictactoe", ["a", "a"], {"a": {"preset": "uct", "simulations": "many"}}), 1, 0,
                  tmp_path / "bad")
    assert not (tmp_path / "bad").exists()  # refused before anything is written
    match = Match("tictactoe", ["a", "a"], {"a": {"preset": "random"}})
    for options, message in (({"games": -3}, "games must be >= 1, not -3"), ({"workers": 0}, "workers must be >= 1"),
                             ({"seed": -1}, "seed must be >= 0"), ({"backend": "mpi"}, "backend must be one of")):
        with pytest.raises(ValueError, match=message):
            run_match(match, **{"games": 1, "seed": 0, "out_dir": tmp_path / "bad", **options})
    with pytest.raises(ValueError, match="random_opening_moves must be >= 0, not -1"):
        run_match(Match("tictactoe", ["a", "a"], {"a": {"preset": "random"}}, -1), 1, 0, tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_arena_is_reproducible_and_stores_every_game(tmp_path):
    match = Match("tictactoe", ["uct", "random"],
                  {"uct": {"preset": "uct", "simulations": 200}, "random": {"preset": "random"}})
    first = run_match(match, games=8, seed=3, out_dir=tmp_path / "a", progress=False)
    second = run_match(match, games=8, seed=3, out_dir=tmp_path / "b", progress=False)
    assert first.pop("speed")["games_played"] == second.pop("speed")["games_played"] == 8
    assert first == second
    records = [json.loads(line) for line in (tmp_path / "a" / "games.jsonl").read_text().splitlines()]
    assert [r["seed"] for r in sorted(records, key=lambda r: r["index"])] == first["seeds"]
    assert {k: v for k, v in json.loads((tmp_path / "a" / "summary.json").read_text()).items()
            if k != "speed"} == first
    # The summary's figures are the games': wins counted from the stored returns (above 0, the
    # middle of -1..1), the interval Wilson's of those counts, the equal seat their winners.
    wins = {name: sum(1 for r in records for seat, ret in zip(r["seating"], r["returns"])
                      if seat == name and ret > 0) for name in ("uct", "random")}
    for name in ("uct", "random"):
        p = first["players"][name]
        assert (p["games"], p["wins"], p["win_rate"]) == (8, wins[name], wins[name] / 8)
        assert (p["ci_low"], p["ci_high"]) == wilson_interval(wins[name], 8)
    assert wins["uct"] > wins["random"]
    assert first["equal_seat"] == (wins["uct"] + wins["random"]) / 8 / 2
    assert {r["seating"][0] for r in records} == {"uct", "random"}  # seats are shuffled
    table = format_summary(first).splitlines()
    assert "equal seat" in table[1]
    assert table[2].split()[:4] == ["uct", "8", str(wins["uct"]), f"{wins['uct'] / 8:.1%}"]
    assert f"{first['equal_seat']:.1%}" in table[2]
    # By colour (two-colour games): the first seat's games as Black, the second's as White.
    colours = format_by_colour(first, ["random", "uct"]).splitlines()
    assert len(colours) == 7
    expected = [(name, label, entry) for name in ("random", "uct") for label, entry in
                zip(("as Black", "as White", "overall"), (*first["players"][name]["by_seat"], first["players"][name]))]
    for line, (name, label, entry) in zip(colours[:6], expected, strict=True):
        assert line.startswith(f"{name:6s} {label:8s} {entry['wins']:4d}/{entry['games']:4d} = ")
    assert colours[6].startswith(f"equal seat {first['equal_seat']:.1%}")
    # Two players, a seat each: the gate's per-game statistic, from the same returns.
    duel = first["head_to_head"]
    taken = [sum(1 for r in records if r["returns"][r["seating"].index(name)] > 0) for name in ("uct", "random")]
    assert duel["players"] == ["uct", "random"] and duel["taken"] == taken
    assert duel["shared"] == 8 - sum(taken)
    assert duel["p_value"] == sign_test(*taken)
    assert (duel["ci_low"], duel["ci_high"]) == wilson_interval(taken[0], sum(taken))
    assert f"head to head, per game (the better best seat): uct {taken[0]}, random {taken[1]}" in table[4]


def test_head_to_head_counts_games_not_seats():
    seating = ["a", "b", "a", "b"]
    games = [{"seating": seating, "returns": ret} for ret in
             ([1, -1, -1, -1], [1, -1, 1, -1], [-1, 1, -1, -1], [1, 1, -1, -1], [-1, -1, -1, 1])]
    assert [game_taken_by(g, "a", "b") for g in games] == ["a", "a", "b", "shared", "b"]
    duel = head_to_head(games, "a", "b")
    assert (duel["taken"], duel["shared"], duel["share"]) == ([2, 2], 1, 0.5)
    assert duel["p_value"] == 1.0
    match = Match("blokus", ["a", "b", "c", "c"], {n: {"preset": "random"} for n in "abc"})
    assert summarise(match, [])["head_to_head"] is None  # three players


@pytest.mark.parametrize("workers", [1, 2])
def test_the_progress_bar_hears_every_move_of_every_game(workers):
    match = Match("tictactoe", ["a", "a"], {"a": {"preset": "random"}})
    heard: dict[int, list[int]] = {}
    records = list(_play_games(match, [(i, game_seed(5, i)) for i in range(4)], workers, "process", 0.0, None,
                               lambda index, moves: heard.setdefault(index, []).append(moves)))
    assert sorted(heard) == [0, 1, 2, 3]
    for record in records:  # before each move, the moves played so far
        assert heard[record["index"]] == list(range(len(record["moves"])))


def test_blokus_games_in_worker_processes_are_stored_as_pentobi_sgf(tmp_path):
    match = Match("blokus", ["mcts", "random", "random", "random"],
                  {"mcts": {"preset": "mcts_maxn", "simulations": 20}, "random": {"preset": "random"}},
                  random_opening_moves=4)
    summary = run_match(match, games=2, seed=0, out_dir=tmp_path, workers=2, progress=False)
    records = {r["index"]: r for r in map(json.loads, (tmp_path / "games.jsonl").read_text().splitlines())}
    for index, record in records.items():
        state = read_sgf((tmp_path / "games" / f"game_{index:05d}.blksgf").read_text())
        assert state.scores().tolist() == record["scores"]
        assert [state.action_to_string(m) for _, m in state.history()] == [m for _, m in record["moves"]]
    assert summary["players"]["mcts"]["games"] == 2


def _win_rate(tmp_path, seats, players, games, workers=2):
    match = Match("blokus", seats, players, random_opening_moves=4)
    return run_match(match, games=games, seed=0, out_dir=tmp_path, workers=workers, progress=False)


def test_mcts_maxn_200_beats_three_random_players(tmp_path):
    # The full figure (100 games, >= 75%) is in BENCHMARKS.md; this is a quicker check.
    summary = _win_rate(tmp_path, ["mcts", "random", "random", "random"],
                        {"mcts": {"preset": "mcts_maxn", "simulations": 200}, "random": {"preset": "random"}},
                        games=24)
    assert summary["players"]["mcts"]["wins"] >= 15


def test_depth_first_brs_beats_three_random_players(tmp_path):
    summary = _win_rate(tmp_path, ["brs", "random", "random", "random"],
                        {"brs": {"preset": "brs", "node_limit": 1000}, "random": {"preset": "random"}},
                        games=12)
    assert summary["players"]["brs"]["wins"] >= 7


@pytest.mark.slow
def test_mcts_maxn_200_wins_most_games_over_100_games(tmp_path):
    # Measured 80% and 69% on different revisions' playout streams: what 100 games support is a
    # seat significantly above half (an equal seat wins 25%), not a fixed rate inside the interval.
    summary = _win_rate(tmp_path, ["mcts", "random", "random", "random"],
                        {"mcts": {"preset": "mcts_maxn", "simulations": 200}, "random": {"preset": "random"}},
                        games=100)
    assert summary["players"]["mcts"]["ci_low"] > 0.5, summary["players"]["mcts"]


def test_match_that_starts_no_game_leaves_no_match_behind(tmp_path):
    # An external engine that is not there (pentobi-gtp not installed) fails the first game:
    # nothing of the match stays, so the corrected command resumes as a new match.
    missing = {"kind": "gtp", "command": str(tmp_path / "no-such-pentobi-gtp")}
    match = Match("blokus", ["me", "engine", "engine", "engine"],
                  {"me": {"preset": "random"}, "engine": missing})
    with pytest.raises(ValueError, match="cannot start GTP engine"):
        run_match(match, games=1, seed=0, out_dir=tmp_path / "m", progress=False)
    assert not (tmp_path / "m" / "match.json").exists() and not (tmp_path / "m" / "games.jsonl").exists()
    fixed = Match("blokus", ["me", "engine", "engine", "engine"],
                  {"me": {"preset": "random"}, "engine": {"preset": "random"}})
    summary = run_match(fixed, games=1, seed=0, out_dir=tmp_path / "m", progress=False, resume=True)
    assert summary["games"] == 1 and (tmp_path / "m" / "match.json").exists()


@pytest.mark.parametrize("game, overrides, expected", [
    ("go9", [], "go"), ("tictactoe", [], "tictactoe"),
    ("ggp", ["game.rules=tests/data/ggp/connectfour.kif"], "connectfour")])
def test_every_conf_game_makes_its_game_in_the_arena_script(game, overrides, expected):
    """conf/game/*.yaml all carry ``rules`` (null but for ggp); the arena passes only what is set."""
    from hydra import compose, initialize_config_dir
    from project_scripts import load_script

    conf = Path(__file__).resolve().parents[1] / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        cfg = compose("arena", overrides=[f"game={game}", "seats=[a,b]", "+players.a={preset: random}",
                                          "+players.b={preset: random}", *overrides])
    made = load_script("arena").match_of(cfg).make_game()
    assert expected in made.name and made.num_players == 2
