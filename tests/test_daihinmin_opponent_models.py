"""Naive-Bayes opponent models (SPEC §7): features on hand-made positions, learning on made-up
histories, and the accuracy protocol on the first games of a real record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.daihinmin import DaihinminGame, DaihinminState
from blokuszero.games.daihinmin import engine as E
from blokuszero.games.daihinmin import opponent_model as M
from blokuszero.games.daihinmin.actions import A_VALUE, PASS
from blokuszero.games.daihinmin.cards import FULL_DECK, JOKER, card_index, hand_of, parse_cells
from blokuszero.games.daihinmin.log import read_log
from blokuszero.games.daihinmin.replay import rules_of

LOG = Path(__file__).parent / "data" / "daihinmin_default5_match1.log"


def _cards(text: str) -> int:
    table = parse_cells(text)
    cards = [card_index(r, c) for r, c in zip(*np.nonzero(table[:4] == 1))]
    return hand_of(cards + ([JOKER] if (table == 2).any() else []))


def _state(hand: str, *, played: str = "", revolution: int = 0) -> DaihinminState:
    """Player 0 to move on an empty field holding ``hand``; ``played`` already gone."""
    mine, gone = _cards(hand), _cards(played)
    rest = FULL_DECK & ~mine & ~gone
    others = [c for c in range(53) if rest >> c & 1]
    hands = [mine] + [hand_of(others[k::4]) for k in range(4)]
    hands[1] |= gone  # dealt, then played below
    state = DaihinminState.from_deal(DaihinminGame(), hands, [0, 1, 2, 3, 4], None)
    s = state.s
    s[E.S_HAND + 1] &= ~gone
    s[E.S_PLAYED] = gone
    s[E.S_PLAYER] = 0
    s[E.S_REVOLUTION] = revolution
    return state


def test_strengths_absolute_reversed_and_relative():
    s = _state("S3").s
    assert list(M.strengths(s, False)[1:]) == list(range(1, 14))
    s = _state("S3", revolution=1).s
    assert list(M.strengths(s, False)[1:]) == list(range(13, 0, -1))
    # All four 2s gone: every other rank gains one; all four Aces too: two.
    s = _state("S3", played="S2H2D2C2SAHADACA").s
    rel = M.strengths(s, True)
    assert rel[1] == 3 and rel[11] == 13 and rel[12] == 12 + 1 and rel[13] == 13
    # During a revolution the 3s are strongest: all 3s gone lifts the other ranks.
    s = _state("S4", played="S3H3D3C3", revolution=1).s
    rel = M.strengths(s, True)
    assert rel[2] == 13 and rel[13] == 2


def test_move_class_is_the_weakest_card():
    state = _state("S5S6S7H9D9JK")
    table = M.strengths(state.s, False)
    assert M.move_class(state.string_to_action("S5S6S7"), table) == 3
    assert M.move_class(state.string_to_action("H9D9"), table) == 7
    state.s[E.S_REVOLUTION] = 1
    table = M.strengths(state.s, False)
    assert M.move_class(state.string_to_action("S5S6S7"), table) == 14 - 5  # the 7 is weakest
    assert M.move_class(53, table) == 14  # the lone joker


def test_shape_bits_break_group_run_and_lock():
    state = _state("S5H5S7S8S9DK")
    bits = lambda text: M.shape_bits(state.s, state.string_to_action(text))  # noqa: E731
    assert bits("S5") == 1  # breaks the pair of 5s
    assert bits("S5H5") == 0
    assert bits("S8") == 2  # breaks the run 7-8-9 of spades
    assert bits("S7S8S9") == 0
    assert bits("DK") == 0
    # Following a spade single with a spade locks the field.
    state.s[E.S_FIELD] = state.string_to_action("S4")
    assert bits("S7") & 4 and not bits("DK") & 4


def _histories(policy, n: int, seed: int):
    """Leading positions of random hands and the move ``policy`` picks among the singles."""
    rng = np.random.default_rng(seed)
    states, actions = [], []
    for _ in range(n):
        state = DaihinminGame().new_initial_state(int(rng.integers(2**31)))
        while state.current_player() < 0 or state.s[E.S_PHASE] != E.P_PLAY:
            state.apply_action(int(state.legal_actions()[0]))
        singles = [a for a in state.legal_actions() if 1 <= a <= 52]
        states.append(state.s.copy())
        actions.append(policy(singles))
    return np.array(states), np.array(actions)


@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("policy", [min, max], ids=["weakest", "strongest"])
def test_model_learns_a_made_up_opponent(improved, policy):
    model = M.OpponentModel(improved)
    states, actions = _histories(policy, 300, seed=1)
    model.learn_game(states, actions)
    test_states, test_actions = _histories(policy, 200, seed=2)
    E.seed(3)
    guesses = np.array([model.predict(s) for s in test_states])
    # Right rank (the suit among equals is a tie the model breaks at random).
    assert np.mean(A_VALUE[guesses] == A_VALUE[test_actions]) > 0.9
    untrained = M.OpponentModel(improved)
    guesses = np.array([untrained.predict(s) for s in test_states])
    assert np.mean(A_VALUE[guesses] == A_VALUE[test_actions]) < 0.5


def test_sampling_follows_the_model_but_varies():
    model = M.OpponentModel(True)
    model.learn_game(*_histories(min, 300, seed=1))
    state = _histories(min, 1, seed=5)[0][0]
    E.seed(0)
    buf = np.empty(E.MAX_LEGAL, np.int64)
    drawn = [M.sample(model.logp, state, True, buf) for _ in range(400)]
    best = model.predict(state)
    legal = set(DaihinminState.from_deal(DaihinminGame(), state[E.S_HAND:E.S_HAND + 5],
                                         state[E.S_SEAT:E.S_SEAT + 5]).legal_actions())
    assert set(drawn) <= legal - {PASS} and len(set(drawn)) > 1
    assert np.mean(A_VALUE[drawn] == A_VALUE[best]) > 0.5


def test_untrained_model_plays_a_legal_non_pass_and_bad_input_is_refused():
    state = _state("S3H3S9")
    model = M.OpponentModel(True)
    assert np.isfinite(model.logp).all()
    assert model.predict(state.s) in set(state.legal_actions()) - {PASS}
    with pytest.raises(ValueError, match="positions"):
        model.learn_game(np.zeros((2, E.S_SIZE), np.int64), np.zeros(3, np.int64))
    over = state.s.copy()
    over[E.S_PHASE] = E.P_OVER
    with pytest.raises(ValueError, match="play phase"):
        model.predict(over)
    with pytest.raises(ValueError, match="unknown opponent model"):
        M.accuracy_protocol([], "oracle", [0])


def test_protocol_on_a_real_record():
    record = read_log(LOG)
    game = DaihinminGame(rules_of(record)[0])
    games = [M.game_moves(g, game) for g in record.games[:60]]
    for g, (states, movers, actions) in zip(record.games, games):
        s = states[-1].copy()
        E.apply(s, actions[-1])
        if s[E.S_PHASE] == E.P_OVER:  # else the record's random ranks ended it
            assert list(s[E.S_ORDER:E.S_ORDER + 5]) == g.result
    acc = {}
    for model in M.MODELS:
        hits, moves = M.accuracy_protocol(games, model, [0, 1, 2, 3, 4], seed=0)
        assert moves[0] == 0 and moves[1:].sum() > 1000
        acc[model] = hits.sum() / moves.sum()
    assert acc["random"] < acc["naive_bayes"] < acc["improved"]
    assert acc["random"] < 0.3 and acc["improved"] > 0.38
