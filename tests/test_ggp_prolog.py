"""The project's GDL reasoners against an independent oracle, SWI-Prolog (tests/prolog_oracle.py):
the translation on a hand-written game, then random walks of every rule sheet."""

from __future__ import annotations

import pytest
from ggp_sheets import RULES_DIR, SHEETS, SLOW_SHEETS, sheet_game
from prolog_oracle import HOW_TO_GET, SWIPL, PrologGame, compare_walks, read_gdl, translate

from blokuszero.games.ggp import GgpGame

pytestmark = pytest.mark.skipif(SWIPL is None, reason=f"SWI-Prolog is NOT installed ({HOW_TO_GET}): "
                                                      "the GDL cross-check against Prolog did not run")

# Role a counts up to 3 by steps of its choice while b waits; a count other than 1 is seen.
# Each rule leans on one part of the translation: left recursion (ends only when tabled), a
# distinct written before the atom that binds its variable (next is asked with it unbound), or,
# not, upper case and comments.
COUNT = """
; a counts, b waits
(ROLE a) (role b)
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (less ?x ?z) (less ?x ?y) (succ ?y ?z))
(<= (less ?x ?y) (succ ?x ?y))
(init (count 0))
(<= (legal a (step ?n)) (true (count ?c)) (less ?c ?n))
(<= (legal ?r wait) (distinct ?r a) (role ?r))
(<= (next (count ?n)) (does a (step ?n)))
(<= (next (seen ?n)) (distinct ?n 1) (or (true (count ?n)) (true (seen ?n))))
(<= terminal (true (count 3)))
(<= (goal a 100) (true (count 3)))
(<= (goal a 0) (not (true (count 3))))
(<= (goal b 100) (role b) (not (true (seen 1))))
(<= (goal b 0) (true (seen 1)))
"""


def terms(*kif: str) -> frozenset:
    return frozenset(read_gdl(" ".join(kif)))


def test_translation_answers_as_gdl_does():
    with PrologGame(COUNT) as oracle:
        assert oracle.roles == ["a", "b"]
        start = oracle.initial()
        assert start == terms("(count 0)")
        oracle.set_state(start)
        assert oracle.legal("a") == terms("(step 1) (step 2) (step 3)")  # recursion
        assert oracle.legal("b") == terms("wait")  # distinct, moved after (role ?r)
        assert not oracle.is_terminal()
        assert oracle.goals("a") == terms("0") and oracle.goals("b") == terms("100")  # not
        after = oracle.next({"a": ("step", "1"), "b": "wait"})
        assert after == terms("(count 1) (seen 0)")  # or, first branch
        oracle.set_state(after)
        assert oracle.legal("a") == terms("(step 2) (step 3)")
        end = oracle.next({"a": ("step", "3"), "b": "wait"})
        assert end == terms("(count 3) (seen 0)")  # or's second branch; distinct drops seen 1
        oracle.set_state(end)
        assert oracle.is_terminal()
        assert oracle.goals("a") == terms("100") and oracle.goals("b") == terms("100")


def test_translation_prefixes_relations_and_refuses_unsafe_rules():
    _, program = translate("(role x) (<= (member ?y) (true (not ?y)))")
    assert "'g_member'(V0) :-\n    'g_true'('not'(V0))." in program
    with pytest.raises(ValueError, match="unsafe"):
        translate("(role x) (<= (p ?x) (role x) (not (q ?x)))")


def test_walks_agree_on_the_hand_written_game_and_find_a_planted_fault():
    reasoner = GgpGame(COUNT, reasoner="interpreter").reasoner
    with PrologGame(COUNT) as oracle:
        found = compare_walks(reasoner, oracle, walks=5, seed=0)
    assert found.disagreements == [] and found.ended == 5 and found.states > 5
    # Prolog told that a, not b, may wait: the walk stops at the first state, on a's moves.
    with PrologGame(COUNT.replace("(distinct ?r a)", "(distinct ?r b)")) as oracle:
        found = compare_walks(reasoner, oracle, walks=1, seed=0)
    assert found.disagreements == ["walk 0 step 0: legal moves of a: only ours -; only Prolog's wait"]


# Relations of no arguments written both ways, (late) and late: our reader once kept (late) a
# term of its own, so terminal never held here (found by comparing with the oracle).
PROPOSITIONS = """
(role r)
(init (step 0)) (succ 0 1) (succ 1 2)
(<= (legal r go) (true (step ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= late (true (step 2)))
(<= (terminal) (late))
(<= (goal r 100) (not (late)))
(<= (goal r 50) late)
"""


@pytest.mark.parametrize("kind", ["propnet", "interpreter"])
def test_propositions_in_parentheses_agree_with_prolog(kind):
    reasoner = GgpGame(PROPOSITIONS, reasoner=kind).reasoner
    with PrologGame(PROPOSITIONS) as oracle:
        found = compare_walks(reasoner, oracle, walks=1, seed=0)
    assert found.disagreements == [] and (found.ended, found.states) == (1, 3)


# Shapes the rule sheets lack, each compared over random walks with both reasoners.
SHAPES = {
    # Recursion over the state with cycles: r toggles edges while s looks at what is reachable.
    "reach": """
(role r) (role s)
(node 1) (node 2) (node 3) (node 4)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(init (step 0)) (init (edge 1 2)) (init (edge 2 3)) (init (edge 3 2))
(<= (reach 1) (role r))
(<= (reach ?y) (reach ?x) (true (edge ?x ?y)))
(<= (legal r (toggle ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y))
(<= (legal s (look ?x)) (reach ?x))
(<= (legal s (look none)) (not (reach 4)) (role s))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (toggle ?x ?y))))
(<= (next (edge ?x ?y)) (does r (toggle ?x ?y)) (not (true (edge ?x ?y))))
(<= (next (seen ?x)) (reach ?x))
(<= (next (looked ?x)) (does s (look ?x)) (or (reach ?x) (true (looked ?x))))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 8)))
(<= (goal r 100) (reach 4)) (<= (goal r 0) (not (reach 4)))
(<= (goal s 100) (not (reach 4))) (<= (goal s 0) (reach 4))
""",
    # Nested terms, distinct on compound terms, (f) as a term, not of or, relations named as
    # Prolog's builtins, symbols that look like numbers, upper case, several goals at once.
    "terms": """
(ROLE P) (role q)
(val 1) (val 2) (val 007) (val 7)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(init (box (pair 1 1))) (init (TAG (Empty))) (init (count 0))
(<= (legal ?r (put ?x)) (role ?r) (val ?x) (not (or (true (box (pair ?x ?x))) (true (used ?x)))))
(<= (legal ?r noop) (role ?r))
(<= (next (box (pair ?x ?y))) (does p (put ?x)) (does q (put ?y)))
(<= (next (box ?b)) (true (box ?b)) (or (does p noop) (does q noop)))
(<= (next (used ?x)) (does ?r (put ?x)))
(<= (next (used ?x)) (true (used ?x)))
(<= (next (tag (same ?x))) (true (box (pair ?x ?x))))
(<= (next (tag (differ))) (true (box (pair ?x ?y))) (distinct (pair ?x ?y) (pair ?y ?x)))
(<= (next (tag (empty))) (true (tag (empty))) (or (does p noop) (does q noop)))
(<= (next (count ?n)) (true (count ?m)) (succ ?m ?n))
(<= (member ?x) (true (used ?x)) (not (is ?x)))
(<= (is 7) (role p))
(<= (call (member ?x)) (member ?x))
(<= (next (called ?c)) (call ?c))
(<= terminal (true (count 6)))
(<= terminal (true (used 007)) (true (used 7)))
(<= (goal ?r 50) (role ?r) (not (true (tag (differ)))))
(<= (goal p 100) (true (tag (differ))))
(<= (goal q 0) (true (tag (differ))))
(<= (goal ?r 25) (role ?r) (true (tag (same ?x))) (distinct ?x 1))
""",
    # Recursion through does, simultaneous moves, a terminal that is a negation.
    "pushes": """
(role a) (role b)
(cell 1) (cell 2) (cell 3) (cell 4) (cell 5)
(adj 1 2) (adj 2 3) (adj 3 4) (adj 4 5) (adj 5 1)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(init (t 0))
(<= (legal ?r (push ?c)) (role ?r) (cell ?c) (not (true (wall ?c))))
(<= (pushed ?c) (does ?r (push ?c)))
(<= (pushed ?d) (pushed ?c) (adj ?c ?d) (not (true (wall ?d))))
(<= (next (wall ?c)) (pushed ?c) (does a (push ?c)) (not (does b (push ?c))))
(<= (next (wall ?c)) (true (wall ?c)))
(<= (next (hit ?c)) (pushed ?c))
(<= (next (t ?n)) (true (t ?m)) (succ ?m ?n))
(<= terminal (true (t 5)))
(<= terminal (not (open)))
(<= open (cell ?c) (not (true (wall ?c))))
(<= (goal a ?n) (true (t ?n)))
(<= (goal b 10) (role b))
""",
    # Variables bound inside or branches, init from rules, equality as a shared variable.
    "branches": """
(role x) (role y)
(index 1) (index 2) (index 3)
(q 1) (q 2) (r 3) (r 2)
(<= (init (cell ?i)) (index ?i))
(init (round 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (p ?v) (or (q ?v) (r ?v)) (distinct ?v 1))
(<= (same ?a ?a) (index ?a))
(<= (legal ?role (take ?i)) (role ?role) (true (cell ?i)) (p ?i))
(<= (legal ?role (pair ?i ?j)) (role ?role) (true (cell ?i)) (true (cell ?j)) (same ?i ?j))
(<= (legal ?role noop) (role ?role))
(<= (next (cell ?i)) (true (cell ?i)) (not (does x (take ?i))) (not (does y (take ?i))))
(<= (next (got ?role ?i)) (does ?role (take ?i)))
(<= (next (got ?role ?i)) (true (got ?role ?i)))
(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
(<= terminal (true (round 4)))
(<= (goal ?role 100) (true (got ?role ?i)) (or (distinct ?i 2) (true (got ?role 3))))
(<= (goal ?role 0) (role ?role) (not (true (got ?role 2))) (not (true (got ?role 3))))
(<= (goal ?role 40) (true (got ?role 2)) (not (true (got ?role 3))))
""",
}


@pytest.mark.parametrize("kind", ["propnet", "interpreter"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shapes_the_sheets_lack_agree_with_prolog(shape, kind):
    reasoner = GgpGame(SHAPES[shape], reasoner=kind).reasoner
    with PrologGame(SHAPES[shape]) as oracle:
        found = compare_walks(reasoner, oracle, walks=10, seed=0)
    assert found.disagreements == [] and found.ended == 10


def _compare(name: str, reasoner: str, walks: int):
    game = sheet_game(name, reasoner)
    with PrologGame((RULES_DIR / f"{name}.kif").read_text()) as oracle:
        found = compare_walks(game.reasoner, oracle, walks, seed=0, max_steps=300)
    assert found.disagreements == []
    assert found.states > found.walks
    return found


@pytest.mark.parametrize("name", sorted(set(SHEETS) - SLOW_SHEETS))
def test_sheets_agree_with_prolog_on_random_walks(name):
    _compare(name, "auto", walks=2)


# The interpreter starts in seconds on the sheets slow to compile into a network; checkers
# takes minutes either way (it is in the slow test only).
@pytest.mark.parametrize("name", sorted(SLOW_SHEETS - {"checkers"}) + ["tictactoe", "pawnwhopping"])
def test_the_interpreter_agrees_with_prolog_on_random_walks(name):
    _compare(name, "interpreter", walks=1)


# docs/ggp.md's "420 random walks (14,750 states)": 20 walks of each sheet (seed 0, at most 300
# steps), every one ending, and the states each sheet's walks compare (BENCHMARKS, "GDL against
# SWI-Prolog"; the same counts from `python tests/prolog_oracle.py --walks 20 --max-steps 300`).
WALK_STATES = {"2pffa": 620, "3pconnectfour": 716, "3pffa": 620, "4pffa": 820, "blocker": 174,
               "breakthrough": 1367, "checkers": 1999, "chinesecheckers4": 1183, "connect4": 447,
               "connect5": 893, "connectfour": 420, "connectfoursimultaneous": 391, "golden_rectangle": 568,
               "knightthrough": 651, "pawnwhopping": 749, "sheepandwolf": 938, "tictactoe": 171,
               "tictactoe_3player": 414, "tictactoeparallel": 163, "ttcc4": 570, "ttcc4_2player": 876}


def test_the_walk_counts_cover_every_sheet_and_sum_to_the_pages_figure():
    assert sorted(WALK_STATES) == sorted(SHEETS) and len(SHEETS) * 20 == 420
    assert sum(WALK_STATES.values()) == 14_750


@pytest.mark.slow
@pytest.mark.parametrize("name", SHEETS)
def test_every_sheet_agrees_with_prolog_on_many_walks(name):
    found = _compare(name, "auto", walks=20)
    assert (found.walks, found.ended, found.states) == (20, 20, WALK_STATES[name])
