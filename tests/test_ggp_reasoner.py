"""GDL reading, restriction checks, both reasoners against reference perft counts and each
other, and the Game adapter (conformance on every rule sheet)."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from ggp_sheets import RULES_DIR, SHEETS, SLOW_SHEETS, sheet_game

from blokuszero.games.base import SIMULTANEOUS, TERMINAL
from blokuszero.games.ggp import GdlError, GgpGame, KifError, load_description, parse_kif
from blokuszero.games.ggp.game import make_reasoner
from blokuszero.games.ggp.perft import main as perft_main
from blokuszero.games.ggp.perft import perft
from blokuszero.games.testing import check_game, random_step

# A 3-role game written for these tests (no sheet has its shape): every role picks a number
# at once; after two rounds the sum decides. Simultaneous moves, recursion (sum by successor),
# negation, `or` and a role whose only move is forced in the second round.
PICK3 = """
; three roles choose simultaneously
(role a) (role b) (role c)
(num 0) (num 1) (num 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (plus ?x 0 ?x) (num ?x))
(<= (plus ?x ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z) (plus ?x ?y0 ?z0))
(init (round 0))
(<= (legal ?r (pick ?n)) (role ?r) (num ?n) (true (round 0)))
(<= (legal a (pick 0)) (true (round 1)))
(<= (legal ?r (pick ?n)) (role ?r) (distinct ?r a) (num ?n) (true (round 1)))
(<= (next (picked ?r ?n)) (does ?r (pick ?n)))
(<= (next (round 1)) (true (round 0)))
(<= (next (round 2)) (true (round 1)))
(<= (next (last ?r ?n)) (true (picked ?r ?n)))
(<= terminal (true (round 2)))
(<= (total ?s) (true (picked b ?x)) (true (picked c ?y)) (plus ?x ?y ?s))
(<= high (total ?s) (or (succ 2 ?s) (succ 3 ?s)))
(<= (goal b 100) high)
(<= (goal b 0) (not high))
(<= (goal c 100) (not high))
(<= (goal c 0) high)
(<= (goal a 50) (role a))
"""


def test_parser_reads_rules_case_insensitively():
    rules = parse_kif("; comment\n(ROLE X)\n(<= (Legal ?P Noop) (role ?p))")
    assert rules[0].head == ("role", "x") and rules[0].line == 2
    assert rules[1].head == ("legal", "?p", "noop") and rules[1].body == (("role", "?p"),)


def test_parser_reads_a_relation_of_no_arguments_in_parentheses_as_the_proposition():
    # Found by the Prolog oracle: (terminal) and (late) were never true, for facts are matched
    # by equal terms and (late) is not late.
    rules = parse_kif("(<= (terminal) (late) (not (late)))\n(late)\n(init (step))")
    assert rules[0].head == "terminal" and rules[0].body == ("late", ("not", "late"))
    assert rules[1].head == "late"
    assert rules[2].head == ("init", ("step",))  # a function term keeps its parentheses


@pytest.mark.parametrize("text, where, words", [
    ("(role x)\n(init (cell 1)", (2, 1), "never closed"),
    ("(role x))", (1, 9), "without a matching"),
    ("(role x)\n  (<= ?x (role x))", (2, 7), "cannot be a rule head"),
    ("(role x)\n(<= (p ?x) ((q) ?x))", (2, 13), "cannot be the name"),
    ("(role x)\n(<= (p) (not (q) (r)))", (2, 9), "'not' takes one"),
    ("(role x)\n(<= (p ?x) (role ?x) (not (distinct ?x x)))", (2, 22), "'not' of 'distinct' is not GDL"),
    ("(role x)\n(<= (p) (not (not (role x))))", (2, 9), "'not' of 'not' is not GDL"),
])
def test_parser_errors_name_line_and_column(text, where, words):
    with pytest.raises(KifError, match=words) as err:
        parse_kif(text)
    assert (err.value.line, err.value.column) == where


@pytest.mark.parametrize("text, words", [
    ("(role x)\n(<= (p ?y) (q ?x))", "unsafe: variable \\?y of the head"),
    ("(role x)\n(<= (p ?x) (q ?x) (not (r ?y)))", "unsafe: variable \\?y of the negation"),
    ("(role x)\n(<= (p ?x) (q ?x) (distinct ?x ?z))", "unsafe: variable \\?z of the distinct"),
    ("(role x)\n(q 1)\n(<= (p ?x) (q ?x) (not (s ?x)))\n(<= (s ?x) (p ?x))", "not stratified"),
    ("(role x)\n(q 1)\n(<= (p ?x) (q ?x))\n(<= (p ?y) (p ?x) (f ?x ?y))\n(<= (f ?x ?y) (p ?y) (q ?x))",
     "recursion restriction"),
    ("(role x)\n(<= (legal x a) (does x b))", "legal must not depend on does"),
    ("(role x)\n(<= (true a) (role x))", "'true' cannot be defined"),
    ("(role x)\n(p 1)\n(p 1 2)", "relation p used with 2 arguments"),
    ("(p 1)", "declares no"),
])
def test_gdl_restrictions_name_the_rule(text, words):
    with pytest.raises(GdlError, match=words) as err:
        load_description(text)
    if err.value.rule is not None:
        assert f"line {err.value.rule.line}" in str(err.value)


def _records(reasoner_kind: str, name: str, depth: int) -> list[dict]:
    desc = load_description((RULES_DIR / f"{name}.kif").read_text())
    return list(perft(make_reasoner(desc, reasoner_kind), depth))


def _expected(name: str, depth: int) -> list[dict]:
    data = json.loads((RULES_DIR / "perft.json").read_text())["games"][name]["depths"]
    return [r for r in data if r["depth"] <= depth]


@pytest.mark.parametrize("name, depth, kind", [
    ("tictactoe", 9, "propnet"), ("tictactoe", 4, "interpreter"),
    ("connectfour", 5, "propnet"), ("connectfour", 3, "interpreter"),
    ("breakthrough", 2, "propnet"),
    pytest.param("breakthrough", 3, "propnet", marks=pytest.mark.slow),
    pytest.param("connectfour", 6, "propnet", marks=pytest.mark.slow),
    pytest.param("breakthrough", 4, "propnet", marks=pytest.mark.slow),
])
def test_perft_matches_reference(name, depth, kind):
    assert _records(kind, name, depth) == _expected(name, depth)


def test_perft_command_prints_one_json_object_per_depth(capsys):
    perft_main([str(RULES_DIR / "tictactoe.kif"), "--depth", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x) for x in lines] == _expected("tictactoe", 3)


def test_perft_command_names_the_fault_in_bad_rules(tmp_path, capsys):
    bad = tmp_path / "bad.kif"
    bad.write_text("(role x)\n(<= (p ?y) (role x))\n")
    with pytest.raises(SystemExit) as exit_info:
        perft_main([str(bad), "--depth", "1"])
    assert exit_info.value.code == 2
    assert "unsafe: variable ?y" in capsys.readouterr().err


def _agree(text: str, games: int, seed: int = 0) -> None:
    """Propositional network and interpreter give the same legal moves, facts, terminal
    flags and goals along random games."""
    desc = load_description(text)
    net, interp = make_reasoner(desc, "propnet"), make_reasoner(desc, "interpreter")
    assert net.moves == interp.moves
    rng = np.random.default_rng(seed)
    for _ in range(games):
        a, b = net.initial(), interp.initial()
        while True:
            assert net.facts(a) == interp.facts(b)
            assert net.is_terminal(a) == interp.is_terminal(b)
            if net.is_terminal(a):
                assert np.array_equal(net.goals(a), interp.goals(b))
                break
            legal = [net.legal(a, r) for r in range(len(net.roles))]
            for r, moves in enumerate(legal):
                assert np.array_equal(moves, interp.legal(b, r))
            joint = np.array([rng.choice(m) for m in legal])
            a, b = net.next(a, joint), interp.next(b, joint)


def test_reasoners_agree_on_a_three_role_simultaneous_game():
    _agree(PICK3, games=20)


@pytest.mark.parametrize("name", ["tictactoe_3player", "connectfoursimultaneous", "pawnwhopping",
                                  "sheepandwolf", "3pffa"])
def test_reasoners_agree_on_sheets(name):
    _agree((RULES_DIR / f"{name}.kif").read_text(), games=2)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_SHEETS))
def test_reasoners_agree_on_the_large_sheets(name):
    """Checkers and ttcc4 ground past the former limit of 200,000 instances: their networks
    against the interpreter, one random game each."""
    _agree((RULES_DIR / f"{name}.kif").read_text(), games=1, seed=7)


# One role toggles cells of a line; a cell is reached when marked and next to a reached one,
# starting from cell 1. Adjacency goes both ways, so the ground reach atoms form a positive
# cycle: unmarking cell 1 must retract reach atoms that support each other.
TOGGLE = """
(role p)
(cell 1) (cell 2) (cell 3) (cell 4) (cell 5)
(adj 1 2) (adj 2 3) (adj 3 4) (adj 4 5)
(<= (near ?x ?y) (adj ?x ?y))
(<= (near ?x ?y) (adj ?y ?x))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(init (step 0))
(<= (legal p (toggle ?c)) (cell ?c))
(<= (next (marked ?c)) (true (marked ?c)) (not (does p (toggle ?c))))
(<= (next (marked ?c)) (cell ?c) (not (true (marked ?c))) (does p (toggle ?c)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= (reach 1) (true (marked 1)))
(<= (reach ?y) (reach ?x) (near ?x ?y) (true (marked ?y)))
(<= terminal (true (step 8)))
(<= (goal p 100) (reach 5))
(<= (goal p 0) (not (reach 5)))
"""


def test_reasoners_agree_through_a_positive_cycle():
    net = make_reasoner(load_description(TOGGLE), "propnet")
    assert net.net.comp_cyclic.any()  # the reach atoms are one cyclic component
    _agree(TOGGLE, games=40)


def test_propnet_survives_pickling_and_states_out_of_order():
    import pickle

    net = make_reasoner(load_description((RULES_DIR / "tictactoe.kif").read_text()), "propnet")
    copy = pickle.loads(pickle.dumps(net))
    s = net.initial()
    first = [int(net.legal(s, r)[0]) for r in range(2)]
    a = net.next(s, np.array(first))
    b = net.next(s, np.array([int(net.legal(s, 0)[-1]), first[1]]))
    assert net.facts(net.next(s, np.array(first))) == net.facts(a) != net.facts(b)
    assert copy.facts(copy.next(copy.initial(), np.array(first))) == net.facts(a)


def test_three_role_game_through_the_game_interface():
    game = GgpGame(PICK3, name="pick3")
    assert game.roles == ["a", "b", "c"] and (game.min_utility, game.max_utility) == (0, 100)
    check_game(game, num_games=5)
    state = game.new_initial_state()
    assert state.current_player() == SIMULTANEOUS
    with pytest.raises(ValueError, match="apply_joint_action"):
        state.apply_action(0)
    pick = {n: state.string_to_action(f"(pick {n})") for n in range(3)}
    with pytest.raises(ValueError, match=r"\(pick 5\)"):
        state.string_to_action("(pick 5)")
    state.apply_joint_action([pick[2], pick[1], pick[2]])
    # Round 1: a is forced to (pick 0), b and c choose: still simultaneous.
    assert state.current_player() == SIMULTANEOUS
    assert list(state.legal_actions(0)) == [pick[0]]
    before = state.key()
    with pytest.raises(ValueError, match="not legal for role a"):
        state.apply_joint_action([pick[1], pick[0], pick[0]])
    assert state.key() == before
    state.apply_joint_action([pick[0], pick[2], pick[1]])
    assert state.current_player() == TERMINAL and len(state.legal_actions()) == 0
    assert list(state.returns()) == [50.0, 100.0, 0.0]  # b + c = 3: high


def test_forced_roles_leave_one_mover():
    text = PICK3.replace("(<= (legal ?r (pick ?n)) (role ?r) (num ?n) (true (round 0)))",
                         "(<= (legal a (pick ?n)) (num ?n) (true (round 0)))\n"
                         "(<= (legal ?r (pick 0)) (role ?r) (distinct ?r a) (true (round 0)))")
    state = GgpGame(text).new_initial_state()
    assert state.current_player() == 0  # only a has a choice
    state.apply_action(state.string_to_action("(pick 1)"))
    assert state.current_player() == SIMULTANEOUS


def test_auto_falls_back_to_the_interpreter_and_says_why(caplog):
    with caplog.at_level(logging.WARNING):
        game = GgpGame(PICK3, max_instances=10)
    assert game.reasoner.kind == "interpreter"
    assert "more than 10 clause instances" in caplog.text
    check_game(game, num_games=2)


@pytest.mark.parametrize("name", [pytest.param(s, marks=pytest.mark.slow) if s in SLOW_SHEETS
                                  else s for s in SHEETS])
def test_every_sheet_passes_conformance(name):
    game = sheet_game(name)
    check_game(game, num_games=3, max_strings=5)
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while not state.is_terminal():
        random_step(state, game.num_players, rng)
    assert np.all((state.returns() >= 0) & (state.returns() <= 100))


def test_fast_playout_ends_the_game():
    from blokuszero.games.numba_random import seed_numba

    seed_numba(3)
    state = sheet_game("connectfour").new_initial_state()
    movers, actions = state.playout()
    assert state.is_terminal() and len(movers) == len(actions) > 0
    assert set(movers) <= {0, 1} and state.returns().sum() == 100


def test_registry_makes_a_ggp_game_from_its_rules():
    from blokuszero.games.registry import make_game

    game = make_game(f"ggp:{RULES_DIR / 'tictactoe.kif'}")
    assert game.name == "tictactoe" and game.num_players == 2
    assert make_game(f"ggp:{RULES_DIR / 'tictactoe.kif'}") is game  # compiled once


def test_a_role_without_moves_ends_the_game(caplog):
    text = PICK3.replace("(<= (legal a (pick 0)) (true (round 1)))", "")
    game = GgpGame(text)
    state = game.new_initial_state()
    state.apply_joint_action([state.string_to_action("(pick 1)")] * 3)
    assert state.current_player() == TERMINAL and state.is_terminal()
    assert "role a has no legal move" in caplog.text
    assert list(state.returns()) == [50.0, 0.0, 100.0]  # the goals that hold: 1 + 1 is low


# Six roles in turn add 1 or 2 to a shared total (successor facts, a control ring); the role
# that reaches 12 or more first scores 100, the others 0.
SIX = """
(role r1) (role r2) (role r3) (role r4) (role r5) (role r6)
(nextrole r1 r2) (nextrole r2 r3) (nextrole r3 r4) (nextrole r4 r5) (nextrole r5 r6) (nextrole r6 r1)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13)
(init (total 0)) (init (control r1))
(<= (legal ?r (add 1)) (true (control ?r)))
(<= (legal ?r (add 2)) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (total ?n)) (does ?r (add 1)) (true (total ?m)) (succ ?m ?n))
(<= (next (total ?n)) (does ?r (add 2)) (true (total ?m)) (succ ?m ?k) (succ ?k ?n))
(<= (next (control ?s)) (true (control ?r)) (nextrole ?r ?s))
(<= (next (winner ?r)) (true (control ?r)) (does ?r (add ?k)) (true (total ?m)) (reaches ?m ?k))
(<= (next (winner ?r)) (true (winner ?r)))
(<= (reaches 11 ?k) (succ 0 ?k))
(<= (reaches 11 2) (succ 0 1))
(<= (reaches 10 2) (succ 0 1))
(<= done (true (winner ?r)))
(<= terminal done)
(<= (goal ?r 100) (true (winner ?r)))
(<= (goal ?r 0) (role ?r) (not (true (winner ?r))))
"""


def test_six_role_turn_taking_game():
    _agree(SIX, games=10)
    game = GgpGame(SIX, name="six")
    assert game.num_players == 6
    check_game(game, num_games=5)
    state = game.new_initial_state()
    assert state.current_player() == 0 and list(state.legal_actions(1)) == [
        state.string_to_action("noop")]
    for _ in range(6):  # 2 each: 12 after the sixth move, by r6
        state.apply_action(state.string_to_action("(add 2)"))
    assert state.is_terminal() and list(state.returns()) == [0] * 5 + [100]
