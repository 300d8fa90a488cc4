"""The project's GDL reasoners against an independent oracle, SWI-Prolog (tests/prolog_oracle.py):
the translation on a hand-written game, then random walks of every rule sheet."""

from __future__ import annotations

import pytest

from blokuszero.games.ggp import GgpGame

from ggp_sheets import RULES_DIR, SHEETS, SLOW_SHEETS, sheet_game
from prolog_oracle import HOW_TO_GET, SWIPL, PrologGame, compare_walks, read_gdl, translate

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
    # Prolog told that b may wait only as a: the walk must stop on b's moves at once.
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


def _compare(name: str, reasoner: str, walks: int) -> None:
    game = sheet_game(name, reasoner)
    with PrologGame((RULES_DIR / f"{name}.kif").read_text()) as oracle:
        found = compare_walks(game.reasoner, oracle, walks, seed=0, max_steps=300)
    assert found.disagreements == []
    assert found.states > found.walks


@pytest.mark.parametrize("name", sorted(set(SHEETS) - SLOW_SHEETS))
def test_sheets_agree_with_prolog_on_random_walks(name):
    _compare(name, "auto", walks=2)


# The interpreter starts in seconds on the sheets slow to compile into a network; checkers
# takes minutes either way (it is in the slow test only).
@pytest.mark.parametrize("name", sorted(SLOW_SHEETS - {"checkers"}) + ["tictactoe", "pawnwhopping"])
def test_the_interpreter_agrees_with_prolog_on_random_walks(name):
    _compare(name, "interpreter", walks=1)


@pytest.mark.slow
@pytest.mark.parametrize("name", SHEETS)
def test_every_sheet_agrees_with_prolog_on_many_walks(name):
    _compare(name, "auto", walks=10)
