"""Similar-board search experience (SPEC §5): cells found from the rules, the three board
encodings and their folding, the Hamming-ball lookup, seeding, the switching rule."""

from __future__ import annotations

import numpy as np
import pytest
from ggp_sheets import RULES_DIR, sheet_game
from test_ggp_reasoner import PICK3

from blokuszero.engines.ggp.player_engine import DEFAULT_SPEC, GgpPlayerEngine
from blokuszero.experiments import ggp_experience
from blokuszero.games.ggp import GgpGame
from blokuszero.games.ggp.boards import (
    BLANK,
    BoardEncoder,
    appearance_codes,
    board_row,
    detect_cells,
    fold,
    huffman_codes,
    pregame_boards,
)
from blokuszero.games.ggp.kif import parse_term
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.match.stats import sign_test
from blokuszero.players.factory import make_player
from blokuszero.players.ggp import uct as ggp_uct
from blokuszero.players.ggp.experience_switch import SimilarityReport, choose_distance, summarize
from blokuszero.players.ggp.uct import parse_experience, switch_distance
from blokuszero.protocols.ggp_http import Message, format_message
from blokuszero.search.enhancements import Enhancement
from blokuszero.search.experience import SearchExperience
from blokuszero.search.experience_table import ExperienceTable
from blokuszero.search.tree import SEEDED_VISITS, Tree


def ttt_row(game, marks: dict[tuple[int, int], str]) -> np.ndarray:
    """Tic-tac-toe's base row with ``marks`` (blank cells hold ``b``) and oplayer to move."""
    facts = {parse_term(f"(cell {x} {y} {marks.get((x, y), 'b')})")
             for x in (1, 2, 3) for y in (1, 2, 3)}
    return board_row(game.reasoner.base, facts | {parse_term("(control oplayer)")})


def test_fold_pads_and_xors_64_bit_words():
    # The paper's figure 5: 12 bits then 52 zeros of padding.
    assert fold("000010011010") == 0b000010011010 << 52
    assert fold("") == 0 and fold("1" * 64) == 2**64 - 1
    # 65 bits: the 65th is the first bit of a second word, padded, XORed onto the first.
    assert fold("0" * 64 + "1") == 1 << 63
    assert fold("1" + "0" * 63 + "1") == 0
    with pytest.raises(ValueError, match="0 and 1"):
        fold("012")


def test_huffman_and_appearance_codes():
    codes = huffman_codes({"#": 6, "x": 2, "o": 2})
    assert len(codes["#"]) == 1 and len(codes["x"]) == len(codes["o"]) == 2
    assert len(set(codes.values())) == 3
    # prefix-free
    assert not any(a != b and b.startswith(a) for a in codes.values() for b in codes.values())
    assert huffman_codes({"#": 3}) == {"#": "0"}
    assert appearance_codes(["#", "x", "o", "k"]) == {"#": "0", "x": "1", "o": "10", "k": "11"}


@pytest.mark.slow  # compiling Breakthrough's rules takes ~30 s
def test_cells_are_found_in_breakthrough():
    bt = sheet_game("breakthrough")
    lay = BoardEncoder(bt, "huffman").layout
    assert lay.relations == [("cellholds", 3)] and len(lay.cells) == 64
    assert lay.cells[:3] == [("cellholds", "1", "1"), ("cellholds", "1", "2"),
                             ("cellholds", "1", "3")]
    assert lay.symbols == [BLANK, "black", "white"]
    # (control ...) is no cell
    control = [j for j, f in enumerate(bt.reasoner.base) if f[0] == "control"]
    assert (lay.cell_of[control] == -1).all()


def test_cells_are_found_from_the_rules():
    pw = sheet_game("pawnwhopping")
    enc = BoardEncoder(pw, "huffman")
    assert enc.layout.relations == [("cell", 3)] and enc.layout.cells[8] == ("cell", "2", "1")
    assert len(enc.layout.cells) == 64 and enc.layout.symbols == [BLANK, "o", "x"]
    # Empty squares have no fact: they are blanks (16 pawns at the start).
    assert enc.board_string(pw.new_initial_state().board()).count(BLANK) == 48


def test_a_game_without_a_board_uses_every_base_proposition():
    game = GgpGame(PICK3)
    boards = pregame_boards(game, 5, seed=1)
    lay = detect_cells(game.reasoner.base, boards)
    assert not lay.has_board  # (picked r n) has 3 coordinate tuples: a score, not a board
    assert len(lay.cells) == len(game.reasoner.base) and lay.symbols == [BLANK, "1"]
    enc = BoardEncoder(game, "huffman", boards=boards)
    state = game.new_initial_state()
    assert enc.encode(state) == fold(enc.bit_string(state.board()))


def test_two_facts_in_one_cell_is_no_board():
    base = [("cell", "1", "1", "x"), ("cell", "1", "1", "o"), ("cell", "1", "2", "x"),
            ("cell", "2", "1", "x"), ("cell", "2", "2", "x")]
    row = np.array([[1, 1, 0, 0, 0]], np.uint8)
    assert not detect_cells(base, row).has_board
    assert detect_cells(base, row[:, [1, 0, 2, 3, 4]] * 0).has_board
    with pytest.raises(ValueError, match="rows of base"):
        detect_cells(base, np.zeros((2, 3), np.uint8))


@pytest.mark.parametrize("encoding", ["huffman", "appearance"])
def test_code_encodings_on_a_hand_made_board(encoding):
    game = sheet_game("tictactoe")
    enc = BoardEncoder(game, encoding)
    # The paper's figure 1 board: x at (2,2) and (3,3), o at (3,1).
    marks = {(2, 2): "x", (3, 1): "o", (3, 3): "x"}
    row = ttt_row(game, marks)
    assert enc.board_string(row) == ("(1,1,b),(1,2,b),(1,3,b),(2,1,b),(2,2,x),(2,3,b),"
                                     "(3,1,o),(3,2,b),(3,3,x)")
    expected = "".join(enc.codes[marks.get((x, y), "b")] for x in (1, 2, 3) for y in (1, 2, 3))
    assert enc.bit_string(row) == expected
    assert enc.encode_boards(row[None])[0] == fold(expected)
    # Moving the o one cell changes the key in a few bits only (similar boards, near keys).
    moved = ttt_row(game, {(2, 2): "x", (3, 2): "o", (3, 3): "x"})
    near = bin(int(enc.encode_boards(row[None])[0]) ^ int(enc.encode_boards(moved[None])[0]))
    assert 1 <= near.count("1") <= 2 * max(len(c) for c in enc.codes.values())
    if encoding == "huffman":  # the blank is the commonest content: the shortest code
        assert len(enc.codes["b"]) == 1


def test_random_encoding_xors_20_bit_values_per_cell_value():
    game = sheet_game("tictactoe")
    enc = BoardEncoder(game, "random", seed=3)
    assert enc.bits == 20 and enc.zobrist.shape == (9, len(enc.layout.symbols))
    marks = {(1, 1): "x", (2, 3): "o"}
    row = ttt_row(game, marks)
    sym = enc.layout.symbols.index
    want = 0
    for c, (x, y) in enumerate((x, y) for x in (1, 2, 3) for y in (1, 2, 3)):
        want ^= int(enc.zobrist[c, sym(marks.get((x, y), "b"))])
    assert enc.encode_boards(row[None])[0] == want < 2**20


def test_keys_of_a_traced_playout_are_those_of_its_positions():
    game = sheet_game("pawnwhopping")
    enc = BoardEncoder(game, "huffman")
    state = game.new_initial_state()
    start = state.clone()
    players, actions, boards = state.traced_playout()
    assert len(boards) == len(actions)  # turn-taking: one real choice per step
    for a, row in zip(actions, boards):
        start.apply_action(int(a))
        assert np.array_equal(start.board(), row)
    assert np.array_equal(boards[-1], state.board())
    assert list(enc.encode_boards(boards)) == [enc.encode_boards(b[None])[0] for b in boards]


@pytest.mark.parametrize("bits", [64, 20, 2])
def test_multi_index_lookup_matches_brute_force(bits):
    rng = np.random.default_rng(bits)
    table = ExperienceTable(2, bits=bits, capacity=16)
    base = rng.integers(0, 2**bits, size=50, dtype=np.uint64)
    # Clusters of near keys (flips of 1-3 bits) beside random ones, so every distance occurs.
    keys = [base]
    for flips in (1, 2, 3):
        bitsets = rng.integers(0, bits, size=(len(base), flips))
        near = base.copy()
        for f in range(flips):
            near ^= np.uint64(1) << bitsets[:, f].astype(np.uint64)
        keys.append(near)
    keys = np.concatenate(keys + [rng.integers(0, 2**bits, size=3000, dtype=np.uint64)])
    table.add(keys, np.array([1.0, 0.0]))  # grows from 16 entries on the way
    assert len(table) == len(np.unique(keys))
    probes = np.concatenate([base, rng.integers(0, 2**bits, size=100, dtype=np.uint64)])
    found = 0
    for d in (0, 1, 2):
        for key in probes:
            expected = list(table.similar_brute_force(int(key), d))
            got = table.similar(int(key), d)
            assert sorted(got) == expected  # every entry within d, none twice
            assert sorted(table.similar_ball(int(key), d)) == expected
            found += len(got)
    assert found > 3 * len(base)  # the clusters were found, at every distance
    for key in keys[:200]:  # stored keys: each finds itself, and its cluster at d = 2
        assert sorted(table.similar(int(key), 2)) == list(table.similar_brute_force(int(key), 2))
    table.clear()
    assert len(table.similar(int(keys[0]), 2)) == 0
    table.add(keys[:10], np.array([1.0, 0.0]))
    assert sorted(table.similar(int(keys[0]), 2)) == list(table.similar_brute_force(int(keys[0]), 2))
    with pytest.raises(ValueError, match="0, 1 or 2"):
        table.similar(0, 3)


def test_lookup_falls_back_to_the_ball_on_crowded_buckets():
    # Keys that vary only outside block 0 (bits 0, 3, 6, ...) share one block-0 bucket: more
    # candidates than the ball's 2,081 keys, so the ball is probed; same entries either way.
    rng = np.random.default_rng(7)
    free = np.array([i for i in range(48) if i % 3], np.uint64)
    chosen = rng.random((4000, len(free))) < 0.15
    keys = np.bitwise_or.reduce(np.where(chosen, np.uint64(1) << free, np.uint64(0)), axis=1)
    table = ExperienceTable(2, bits=64)
    table.add(keys ^ np.uint64(0xABCD_0000_0000_0000), np.array([1.0, 0.0]))
    assert table.count[0].max() == len(table) > 2081
    assert (table.candidates(table.keys[:100]) > table.ball_size).all()
    found = 0
    for key in table.keys[:100]:
        for d in (1, 2):
            got = table.similar(int(key), d)
            assert sorted(got) == list(table.similar_brute_force(int(key), d))
            found += len(got)
    assert found > 2 * 100  # more than the keys themselves


def test_table_sums_rewards_and_visits_per_board():
    table = ExperienceTable(2, bits=64)
    table.add(np.array([5, 7, 5], np.uint64), np.array([1.0, 0.0]))
    table.add(np.array([5], np.uint64), np.array([0.25, 0.75]))
    [e] = table.similar(5, 0)
    assert table.visits[e] == 3 and list(table.wsum[e]) == [2.25, 0.75]
    wsum, visits = table.totals(table.similar(5, 2))  # 7 = 5 ^ 0b10: distance 1
    assert visits == 4 and list(wsum) == [3.25, 0.75]


class _KeyOf:
    """An encoder of tic-tac-toe states by a given table (state key -> board key)."""

    bits = 64

    def __init__(self, keys: dict[int, int]) -> None:
        self.keys = keys

    def encode(self, state) -> int:
        return self.keys.get(state.key(), 0xFFFF_0000_0000_0000)

    def encode_boards(self, boards):
        raise AssertionError("not used")


def test_a_reached_node_receives_exactly_the_stored_statistics():
    game = TicTacToeGame()
    root = game.new_initial_state()
    child = root.clone()
    child.apply_action(4)
    exp = SearchExperience(_KeyOf({child.key(): 0b1011}), distance=2)
    tree = Tree(2)
    exp.begin(tree, 2, 9, np.random.default_rng(0))
    exp.table.add(np.array([0b1011, 0b1011], np.uint64), np.array([0.5, 0.25]))  # distance 0
    exp.table.add(np.array([0b0011], np.uint64), np.array([1.0, 0.0]))  # distance 1
    exp.table.add(np.array([0b0000], np.uint64), np.array([0.0, 1.0]))  # distance 3: not similar
    exp.table.add(np.array([0b1011 ^ (1 << 60) ^ (1 << 2)], np.uint64), np.array([0.0, 0.5]))
    tree.expand(0, np.arange(9), np.zeros(9, np.int8), np.full(9, 1 / 9, np.float32))
    node = 1 + 4
    exp.on_reach(tree, node, child)
    assert tree.visits[node] == 4 and tree.array(SEEDED_VISITS, np.int64)[node] == 4
    assert np.allclose(tree.value_sum[node], [2.0, 1.0])
    assert tree.real_visits(node) == 0
    # d = 0: the exact board only
    exp0 = SearchExperience(_KeyOf({child.key(): 0b1011}), distance=0)
    exp0.begin(tree, 2, 9, None)
    exp0.table.add(np.array([0b1011, 0b0011], np.uint64), np.array([0.5, 0.25]))
    exp0.on_reach(tree, 2, child)
    assert tree.visits[2] == 1 and np.allclose(tree.value_sum[2], [0.5, 0.25])


class _Count(Enhancement):
    """Counts the boards each simulation shows the experience."""

    needs_boards = True

    def __init__(self):
        self.boards = 0

    def on_backup(self, tree, simulation):
        self.boards += len(simulation.path) + len(simulation.boards)


def test_search_fills_the_table_from_tree_and_playout_and_plays_real_visits():
    game = sheet_game("pawnwhopping")
    player = make_player(game, {"preset": "ggp_uct", "simulations": 300,
                                "experience": {"encoding": "huffman", "distance": 2}}, 5)
    counter = _Count()
    player.mcts.enhancements += (counter,)
    state = game.new_initial_state()
    player.choose_action(state)
    exp = player.mcts.enhancements[0]
    assert isinstance(exp, SearchExperience)
    # every board of every simulation, tree part and playout, is one visit of the table
    assert exp.table.visits[:len(exp.table)].sum() == counter.boards
    result = player.last_result
    assert result.visits.sum() == 300  # real visits: each simulation passes one root child
    tree = player.mcts.tree
    assert tree.array(SEEDED_VISITS, np.int64)[:tree.size].sum() > 0  # some nodes were seeded


def test_switching_measurements_and_decision():
    # Two games, similar boards found at tree distances 1-2 in the same proportions: d = 2.
    near = summarize([np.array([0, 6, 2]), np.array([0, 3, 1])])
    assert near.mean_distance == pytest.approx((6 + 4 + 3 + 2) / 12)
    assert near.mean_std == 0.0 and choose_distance(near) == 2
    # Far boards: d = 0.
    far = summarize([np.array([0, 0, 0, 1, 1, 1, 1]), np.array([0, 0, 0, 1, 1, 1, 1])])
    assert far.mean_distance == 4.5 and choose_distance(far) == 0
    # Near but unstable from game to game: shares (1, 0) and (0, 1) -> std 0.5 per distance.
    shaky = summarize([np.array([3]), np.array([0, 3])])
    assert shaky.mean_distance == 0.5 and shaky.mean_std == pytest.approx(0.5)
    assert choose_distance(shaky) == 0
    # The paper's thresholds and its measurements (table 4, 5 at 250 playouts).
    assert choose_distance(SimilarityReport(np.zeros((2, 1)), 2.23, 1.62e-2)) == 2  # Breakthrough
    assert choose_distance(SimilarityReport(np.zeros((2, 1)), 4.52, 6.72e-3)) == 0  # Connect Four
    assert choose_distance(SimilarityReport(np.zeros((2, 1)), 2.10, 3.44e-2)) == 0  # Knight Through
    assert choose_distance(summarize([np.zeros(0, np.int64)] * 2)) == 0  # nothing similar found


def test_sign_test_reproduces_the_papers_p_values():
    assert sign_test(326, 174) == pytest.approx(1.01e-11, rel=0.01)
    assert sign_test(362, 129) == pytest.approx(1.25e-26, rel=0.01)
    assert sign_test(219, 271) == pytest.approx(2.11e-2, rel=0.01)
    assert sign_test(0, 0) == 1.0 and sign_test(3, 3) == 1.0


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="encoding"):
        BoardEncoder(sheet_game("tictactoe"), "gray")
    with pytest.raises(ValueError, match="0, 1 or 2"):
        SearchExperience(_KeyOf({}), distance=3)
    with pytest.raises(ValueError, match="1 to 64"):
        ExperienceTable(2, bits=65)


def test_switching_stops_at_its_time_limit():
    game = sheet_game("tictactoe")
    d, report = switch_distance(game, {"c": 0.7, "playout": "uniform"}, 0, playouts=10,
                                time_limit=0.0)
    assert report.games == 0 and d == 0
    d, report = switch_distance(game, {"c": 0.7, "playout": "uniform"}, 0, games=3, moves=3,
                                playouts=30)
    # Seeded, so the measurement is known: similar boards mostly 2-4 moves apart (mean 2.94,
    # just above the rule's 2.92), so the rule plays d = 0.
    assert report.games == 3 and report.counts.tolist() == [[4, 29, 103, 5, 88, 12, 15, 0, 1, 1],
                                                           [4, 32, 101, 6, 69, 12, 8, 2, 0, 0],
                                                           [4, 32, 97, 15, 83, 10, 23, 2, 1, 0]]
    assert report.mean_distance == pytest.approx(2.9407, abs=1e-4)
    assert d == choose_distance(report) == 0


def test_the_http_player_switches_within_the_start_clock(monkeypatch):
    assert parse_experience("huffman2") == {"encoding": "huffman", "distance": 2}
    with pytest.raises(ValueError, match="switch"):
        parse_experience("zobrist2")
    reports, decisions = [], [2, 0]

    def rule(report):  # the switching rule, deciding 2 then 0 whatever the measurements
        reports.append(report)
        return decisions[len(reports) - 1]

    monkeypatch.setattr(ggp_uct, "choose_distance", rule)
    engine = GgpPlayerEngine({**DEFAULT_SPEC, "experience": "switch"}, margin=0.2)
    text = (RULES_DIR / "tictactoe.kif").read_text()
    for match, decided in (("m0", 2), ("m1", 0)):
        start = format_message(Message("start", match, "xplayer", text, 1.2, 1.0))
        assert engine.handle(start) == "ready"
        exp = engine.matches[match].player.mcts.enhancements[0]
        # The player plays Huffman at the distance the rule chose from its measurements.
        assert isinstance(reports[-1], SimilarityReport)
        assert isinstance(exp, SearchExperience) and exp.encoder.encoding == "huffman"
        assert exp.distance == decided
    reply = engine.handle(format_message(Message("play", "m1", moves=None)))
    assert reply.startswith("(mark")


def test_experiment_resumes_and_reports_cells_per_playouts(tmp_path, capsys):
    import argparse
    import json

    out = tmp_path / "games.jsonl"

    def play(playouts, reading="baseline", path=out):
        ggp_experience.cmd_play(argparse.Namespace(
            games=["pawnwhopping"], configs=["huffman2"], pairs=1, playouts=playouts, seed=0,
            reading=reading, shard="0/1", until=None, out=str(path)))
        return [json.loads(line) for line in path.read_text().splitlines()]

    first = play(4)
    assert [r["exp_role"] for r in first] == [0, 1]
    assert play(4) == first  # resumed: nothing played twice
    both = play(3)
    assert len(both) == 4 and {r["seed"] for r in both[2:]} == {r["seed"] for r in first}
    ggp_experience.cmd_report(argparse.Namespace(
        games_file=str(out), switch=str(tmp_path / "none.json"), doc=str(tmp_path / "doc.md"),
        png=None, records=str(tmp_path / "records.jsonl")))
    text = (tmp_path / "doc.md").read_text()
    assert "| pawnwhopping | 4 | huffman d=2 |" in text and "| pawnwhopping | 3 | huffman d=2 |" in text
    assert (tmp_path / "records.jsonl").read_text().splitlines() == out.read_text().splitlines()
    assert "**baseline** (table for the whole game" in text

    # a table under another reading: the same seeds, the reading's options in every game, and a
    # report that refuses to add two readings' games into one cell
    moved = play(4, "lifetime=move", tmp_path / "move.jsonl")
    assert [(r["seed"], r["reading"]) for r in moved] == [(r["seed"], "lifetime=move") for r in first]
    game = ggp_experience.GgpGame.from_file(ggp_experience.RULES / "pawnwhopping.kif")
    again = ggp_experience.play_game(game, "huffman2", 4, moved[1]["exp_role"], moved[1]["seed"],
                                     experience={"lifetime": "move"})
    assert again["moves"] == moved[1]["moves"] and again["goals"] == moved[1]["goals"]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(out.read_text() + (tmp_path / "move.jsonl").read_text())
    with pytest.raises(SystemExit, match="mixes the readings baseline, lifetime=move; report one"):
        ggp_experience.cmd_report(argparse.Namespace(games_file=str(mixed), switch="none.json",
                                                     doc=None, png=None, records=None))
    with pytest.raises(SystemExit, match=r"^error: unknown reading 'lifetime=turn'; known: baseline, "):
        play(4, "lifetime=turn")


def test_kept_table_records_give_the_pages_table(tmp_path):
    """docs/ggp_experience.md's table is what `report` makes of the kept records of the table under
    lifetime=move: 100 games a cell (500 in Breakthrough's appearance d=2), every game on its
    `play --seed 1` seed, none shared with the ablation's or the confirming run's games."""
    import argparse
    import json
    from collections import Counter
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    load = lambda name: [json.loads(line) for line in (root / "docs" / name).read_text().splitlines()]  # noqa: E731
    records = load("ggp_experience_table_lifetime_move.jsonl")
    assert {r["reading"] for r in records} == {"lifetime=move"} and {r["playouts"] for r in records} == {500}
    cells = Counter((r["game"], r["config"]) for r in records)
    assert cells == {(g, c): 500 if (g, c) == ("breakthrough", "appearance2") else 100
                     for g in ggp_experience.GAMES for c in ggp_experience.CONFIGS}
    seeds = {ggp_experience.table_seed(1, g, c, pair, role) for g, c in cells
             for pair in range(cells[g, c] // 2) for role in (0, 1)}
    assert {r["seed"] for r in records} == seeds and len(seeds) == len(records)
    others = load("ggp_experience_ablation.jsonl") + load("ggp_experience_confirm.jsonl")
    assert not seeds & {r["seed"] for r in others}
    page = (root / "docs" / "ggp_experience.md").read_text()
    doc = tmp_path / "ggp_experience.md"
    ggp_experience.cmd_report(argparse.Namespace(
        games_file=str(root / "docs" / "ggp_experience_table_lifetime_move.jsonl"),
        switch=str(root / "docs" / "ggp_experience_switch.json"), doc=str(doc), png=None, records=None))
    made = doc.read_text()
    table = made[made.index("| game | playouts |"):made.index("Notes on the method")]
    assert table in page
