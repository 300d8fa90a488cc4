"""The readings of the similar-boards paper's open choices (each flag changes exactly what it
names) and the ablation over them on the headline cell (interleaved, paired by seed, resumable,
reported into the page)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from ggp_sheets import sheet_game

from blokuszero.experiments import ggp_experience
from blokuszero.experiments import ggp_experience_ablation as ablation
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.match.stats import two_proportion_test
from blokuszero.players.factory import make_player
from blokuszero.search.enhancements import Enhancement
from blokuszero.search.experience import SearchExperience
from blokuszero.search.tree import ROOT, SEEDED_VISITS, Tree
from blokuszero.settings import SettingError


class _KeyOf:
    """An encoder from a dict of state keys to board keys (others: a key far from all)."""

    bits = 64

    def __init__(self, keys):
        self.keys = keys

    def encode(self, state) -> int:
        return self.keys.get(state.key(), 0xFFFF_0000_0000_0000)


class _Boards(Enhancement):
    """Counts the tree-path and the playout boards each simulation shows the experience."""

    needs_boards = True

    def __init__(self):
        self.path = self.playout = 0

    def on_backup(self, tree, simulation):
        self.path += len(simulation.path)
        self.playout += len(simulation.boards)


def _player(experience: dict, **settings):
    game = sheet_game("pawnwhopping")
    player = make_player(game, {"preset": "ggp_uct", "simulations": 200,
                                "experience": {"encoding": "huffman", "distance": 2, **experience},
                                **settings}, 3)
    counter = _Boards()
    player.mcts.enhancements += (counter,)
    player.mcts.evaluator.record_boards = True  # the counter sees the playouts' positions
    return game, player, player.mcts.enhancements[0], counter


@pytest.mark.parametrize("stored", ["path+playout", "path"])
def test_stored_boards_are_the_tree_path_and_the_playout_or_the_path_only(stored):
    game, player, exp, counter = _player({"stored": stored})
    player.choose_action(game.new_initial_state())
    assert counter.playout > 0  # the playouts' positions were there to be stored
    added = exp.table.visits[:len(exp.table)].sum()
    assert added == counter.path + (counter.playout if stored == "path+playout" else 0)


@pytest.mark.parametrize("lifetime", ["game", "move"])
def test_table_lives_a_game_or_is_empty_as_each_move_begins(lifetime):
    game, player, exp, _ = _player({"lifetime": lifetime})
    state = game.new_initial_state()
    player.choose_action(state)
    stored = len(exp.table)
    assert stored > 0
    exp.begin(player.mcts.tree, game.num_players, game.num_actions, None)  # the next move's start
    assert len(exp.table) == (0 if lifetime == "move" else stored)


def test_weight_mean_seeds_the_pooled_mean_as_one_visit():
    game = TicTacToeGame()
    child = game.new_initial_state()
    child.apply_action(4)
    seeded = {}
    for weight in ("sum", "mean"):
        exp = SearchExperience(_KeyOf({child.key(): 0b1011}), distance=2, weight=weight)
        tree = Tree(2)
        exp.begin(tree, 2, 9, np.random.default_rng(0))
        exp.table.add(np.array([0b1011, 0b1011], np.uint64), np.array([0.5, 0.25]))
        exp.table.add(np.array([0b0011, 0b0000], np.uint64), np.array([1.0, 0.0]))  # d 1, 3
        tree.expand(0, np.arange(9), np.zeros(9, np.int8), np.full(9, 1 / 9, np.float32))
        exp.on_reach(tree, 5, child)
        seeded[weight] = (int(tree.visits[5]), tree.value_sum[5].tolist(),
                          int(tree.array(SEEDED_VISITS, np.int64)[5]))
    assert seeded["sum"] == (3, [2.0, 0.5], 3)
    assert seeded["mean"][0] == 1 and seeded["mean"][2] == 1
    assert seeded["mean"][1] == pytest.approx([2.0 / 3, 0.5 / 3])


@pytest.mark.parametrize("move", ["real", "all"])
def test_move_reading_counts_real_or_all_visits(move):
    game, player, _, _ = _player({"move": move})
    action = player.choose_action(game.new_initial_state())
    tree, result = player.mcts.tree, player.last_result
    kids = tree.children(ROOT)
    seeded = tree.array(SEEDED_VISITS, np.int64)[kids]
    assert seeded.sum() > 0
    real = tree.visits[kids] - seeded
    assert result.visits.tolist() == (real if move == "real" else tree.visits[kids]).tolist()
    assert result.visits[result.actions == action].max() == result.visits.max()


@pytest.mark.parametrize("reuse", [True, False])
def test_tree_fresh_searches_each_move_from_a_new_tree(reuse):
    game, player, _, _ = _player({}, reuse_tree=reuse)
    state = game.new_initial_state()
    for _ in range(2):
        action = player.choose_action(state)
        mover = state.current_player()
        state.apply_action(action)
        player.inform(action, mover)
        reply, mover = int(state.legal_actions()[0]), state.current_player()
        state.apply_action(reply)
        player.inform(reply, mover)
    player.choose_action(state)
    root = player.mcts.tree.real_visits(ROOT)
    assert (root > 200) if reuse else (root == 200)


def test_unknown_readings_and_variants_are_refused_in_one_line(capsys):
    with pytest.raises(ValueError, match=r"unknown weight reading 'max'; known: sum, mean$"):
        SearchExperience(_KeyOf({}), 2, weight="max")
    with pytest.raises(ValueError, match="known: path\\+playout, path"):
        SearchExperience(_KeyOf({}), 2, stored="playout")
    with pytest.raises(SettingError, match="lifetime reading 'turn'; known: game, move"):
        _player({"lifetime": "turn"})
    with pytest.raises(SettingError, match="move reading 'mean'; known: real, all"):
        _player({"move": "mean"})
    with pytest.raises(SystemExit) as e:
        ablation.main(["ablation", "--variants", "baseline", "c=9"])
    message = str(e.value)
    assert "\n" not in message and "'c=9'" in message and "tree=fresh" in message


def test_each_variant_changes_exactly_the_choice_it_names():
    assert list(ablation.VARIANTS)[:2] == ["baseline", "tree=fresh"]
    base = ablation.VARIANTS["baseline"]
    assert base.experience == {} and base.both == {}
    setting = {"tree": ("both", "reuse_tree", False), "c": ("both", "c", None)}
    for name, v in ablation.VARIANTS.items():
        if name == "baseline":
            continue
        choice, reading = name.split("=")
        where, key, value = setting.get(choice, ("experience", choice, reading))
        changed = v.both if where == "both" else v.experience
        assert (v.experience if where == "both" else v.both) == {}
        assert list(changed) == [key]
        assert changed[key] == (float(reading) if value is None else value)


def test_ablation_interleaves_pairs_by_seed_resumes_and_reports(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ablation, "GAME", "tictactoe")
    monkeypatch.setattr(ablation, "PLAYOUTS", 20)
    out = tmp_path / "ablation.jsonl"

    def run(shard="0/1"):
        ablation.cmd_ablation(argparse.Namespace(games=2, variants=["baseline", "tree=fresh"],
                                                 seed=0, shard=shard, until=None, out=str(out)))
        return [json.loads(line) for line in out.read_text().splitlines()]

    first = run("0/2")  # one shard: every other task
    assert [(r["variant"], r["index"]) for r in first] == [("baseline", 0), ("baseline", 1)]
    records = run()
    assert [(r["variant"], r["index"]) for r in records] == [
        ("baseline", 0), ("baseline", 1), ("tree=fresh", 0), ("tree=fresh", 1)]
    assert run() == records  # resumed: nothing played twice
    seeds = {(r["variant"], r["index"]): (r["seed"], r["exp_role"]) for r in records}
    for i in (0, 1):
        assert seeds[("baseline", i)] == seeds[("tree=fresh", i)]
        assert seeds[("baseline", i)][1] == i % 2
    assert records[2]["both"] == {"reuse_tree": False} and records[0]["both"] == {}
    # a game replays from its record
    game = ggp_experience.GgpGame.from_file(ggp_experience.RULES / "tictactoe.kif")
    again = ggp_experience.play_game(game, records[3]["config"], 20, records[3]["exp_role"],
                                     records[3]["seed"], both=records[3]["both"])
    assert again["goals"] == records[3]["goals"] and again["moves"] == records[3]["moves"]

    doc = tmp_path / "doc.md"
    doc.write_text("# The report\n\nits tables\n")
    report = argparse.Namespace(games_file=str(out), doc=str(doc),
                                records=str(tmp_path / "kept.jsonl"),
                                confirm_file=str(tmp_path / "none.jsonl"))
    for _ in range(2):  # the section is replaced, not repeated
        ablation.cmd_ablation_report(report)
    text = doc.read_text()
    assert text.startswith("# The report\n\nits tables\n\n" + ggp_experience.ABLATION_HEADING)
    assert text.count(ggp_experience.ABLATION_HEADING) == 1
    assert "| baseline |" in text and "| tree=fresh |" in text and "| 2, " in text
    assert (tmp_path / "kept.jsonl").read_text().splitlines() == out.read_text().splitlines()
    assert ggp_experience.kept_section(str(doc)) == "\n" + text[text.index(ggp_experience.ABLATION_HEADING):]


def test_confirming_run_plays_the_fixed_reading_on_fresh_seeds_and_tests_it(tmp_path, monkeypatch):
    monkeypatch.setattr(ablation, "GAME", "tictactoe")
    monkeypatch.setattr(ablation, "PLAYOUTS", 20)
    monkeypatch.setattr(ablation, "CONFIRM_GAMES", 3)
    out, abl = tmp_path / "confirm.jsonl", tmp_path / "ablation.jsonl"
    ablation.cmd_confirm(argparse.Namespace(games=3, shard="0/1", until=None, out=str(out)))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["variant"], r["index"]) for r in records] == [(ablation.CONFIRM_VARIANT, i) for i in range(3)]
    assert [r["seed"] for r in records] == [ablation.game_seed(ablation.CONFIRM_SEED, i) for i in range(3)]
    assert all(r["experience"] == ablation.VARIANTS[ablation.CONFIRM_VARIANT].experience for r in records)
    ablation.cmd_ablation(argparse.Namespace(games=1, variants=["baseline"], seed=0, shard="0/1",
                                             until=None, out=str(abl)))
    doc = tmp_path / "doc.md"
    ablation.cmd_ablation_report(argparse.Namespace(games_file=str(abl), doc=str(doc), records=None,
                                                    confirm_file=str(out)))
    text = doc.read_text()
    section = text[text.index("### The confirming run"):]
    w = sum(r["result"] == "win" for r in records) + 0.5 * sum(r["result"] == "draw" for r in records)
    z = two_proportion_test(w, 3, 326, 500)
    assert "| 3 | " in section and f"{z['z']:+.2f}, {z['p_value']:.2g}" in section
    assert ("does not reject" in section) == (z["p_value"] >= 0.05)
    assert "none of the 3 is an ablation game's seed" in section
    # a confirming game on an ablation seed is refused
    with pytest.raises(ValueError, match="shares 1 seeds with the ablation"):
        ablation.confirm_section(records, [dict(records[0], variant="baseline")])
    monkeypatch.setattr(ablation, "CONFIRM_GAMES", 500)
    assert "3 of the run's 500 games played so far" in ablation.confirm_section(records, [])


def test_kept_confirming_records_give_the_reports_figures():
    """docs/ggp_experience.md's and BENCHMARKS' confirming-run figures are what the kept records give."""
    root = Path(__file__).resolve().parents[1]
    load = lambda name: [json.loads(line) for line in (root / "docs" / name).read_text().splitlines()]  # noqa: E731
    records, ablated = load("ggp_experience_confirm.jsonl"), load("ggp_experience_ablation.jsonl")
    assert [r["index"] for r in records] == list(range(ablation.CONFIRM_GAMES))
    assert {r["variant"] for r in records} == {ablation.CONFIRM_VARIANT}
    assert [r["seed"] for r in records] == [ablation.game_seed(ablation.CONFIRM_SEED, i) for i in range(500)]
    section = ablation.confirm_section(records, ablated)
    assert "| 500 | 281-219-0 | 0.562 [0.518, 0.605] | 0.0063 |" in section and "| -2.91, 0.0036 |" in section
    assert "The test rejects at 0.05" in section
    assert section in (root / "docs" / "ggp_experience.md").read_text()
    benchmarks = (root / "BENCHMARKS.md").read_text()
    assert "**281-219** | **0.562 [0.518, 0.605]** | **0.0063** | **-2.91, 0.0036**" in benchmarks
