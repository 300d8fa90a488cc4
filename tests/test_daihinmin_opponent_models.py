"""Naive-Bayes opponent models (SPEC §7): features on hand-made positions, learning on made-up
histories, and the accuracy protocol on the first games of a real record."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blokuszero.experiments import daihinmin_opponent_models
from blokuszero.experiments.daihinmin_opponent_models import MODELS, accuracy_protocol, option_key
from blokuszero.games.daihinmin import DaihinminGame, DaihinminState
from blokuszero.games.daihinmin import rules as K
from blokuszero.games.daihinmin.actions import A_VALUE, PASS
from blokuszero.games.daihinmin.cards import FULL_DECK, JOKER, card_index, hand_of, parse_cells
from blokuszero.games.daihinmin.log import read_log
from blokuszero.games.numba_random import seed_numba
from blokuszero.knowledge.daihinmin import opponent_model as M
from blokuszero.match.daihinmin.uecda_replay import rules_of

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
    s[K.S_HAND + 1] &= ~gone
    s[K.S_PLAYED] = gone
    s[K.S_PLAYER] = 0
    s[K.S_REVOLUTION] = revolution
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
    state.s[K.S_REVOLUTION] = 1
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
    state.s[K.S_FIELD] = state.string_to_action("S4")
    assert bits("S7") & 4 and not bits("DK") & 4


def _histories(policy, n: int, seed: int):
    """Leading positions of random hands and the move ``policy`` picks among the singles."""
    rng = np.random.default_rng(seed)
    states, actions = [], []
    for _ in range(n):
        state = DaihinminGame().new_initial_state(int(rng.integers(2**31)))
        while state.current_player() < 0 or state.s[K.S_PHASE] != K.P_PLAY:
            state.apply_action(int(state.legal_actions()[0]))
        singles = [a for a in state.legal_actions() if 1 <= a <= 52]
        states.append(state.s.copy())
        actions.append(policy(singles))
    return np.array(states), np.array(actions)


@pytest.mark.parametrize("features", [M.SIMPLE, M.IMPROVED])
@pytest.mark.parametrize("policy", [min, max], ids=["weakest", "strongest"])
def test_model_learns_a_made_up_opponent(features, policy):
    model = M.OpponentModel(features)
    states, actions = _histories(policy, 300, seed=1)
    model.learn_game(states, actions)
    test_states, test_actions = _histories(policy, 200, seed=2)
    seed_numba(3)
    guesses = np.array([model.predict(s) for s in test_states])
    # Right rank (the suit among equals is a tie the model breaks at random).
    assert np.mean(A_VALUE[guesses] == A_VALUE[test_actions]) > 0.9
    untrained = M.OpponentModel(features)
    guesses = np.array([untrained.predict(s) for s in test_states])
    assert np.mean(A_VALUE[guesses] == A_VALUE[test_actions]) < 0.5


def test_sampling_follows_the_model_but_varies():
    model = M.OpponentModel(M.IMPROVED)
    model.learn_game(*_histories(min, 300, seed=1))
    state = _histories(min, 1, seed=5)[0][0]
    seed_numba(0)
    buf = np.empty(K.MAX_LEGAL, np.int64)
    drawn = [M.sample(model.logp, state, M.IMPROVED, buf) for _ in range(400)]
    best = model.predict(state)
    legal = set(DaihinminState.from_deal(DaihinminGame(), state[K.S_HAND:K.S_HAND + 5],
                                         state[K.S_SEAT:K.S_SEAT + 5]).legal_actions())
    assert set(drawn) <= legal - {PASS} and len(set(drawn)) > 1
    assert np.mean(A_VALUE[drawn] == A_VALUE[best]) > 0.5


def test_untrained_model_plays_a_legal_non_pass_and_bad_input_is_refused():
    state = _state("S3H3S9")
    model = M.OpponentModel(M.IMPROVED)
    assert np.isfinite(model.logp).all()
    assert model.predict(state.s) in set(state.legal_actions()) - {PASS}
    with pytest.raises(ValueError, match="positions"):
        model.learn_game(np.zeros((2, K.S_SIZE), np.int64), np.zeros(3, np.int64))
    over = state.s.copy()
    over[K.S_PHASE] = K.P_OVER
    with pytest.raises(ValueError, match="play phase"):
        model.predict(over)
    with pytest.raises(ValueError, match="unknown opponent model"):
        accuracy_protocol([], "oracle", [0])
    with pytest.raises(ValueError, match="ties must be"):
        accuracy_protocol([], "improved", [0], ties="last")


def test_protocol_on_a_real_record():
    record = read_log(LOG)
    game = DaihinminGame(rules_of(record)[0])
    games = [M.game_moves(g, game) for g in record.games[:60]]
    for g, (states, movers, actions) in zip(record.games, games):
        s = states[-1].copy()
        K.apply(s, actions[-1])
        if s[K.S_PHASE] == K.P_OVER:  # else the record's random ranks ended it
            assert list(s[K.S_ORDER:K.S_ORDER + 5]) == g.result
    acc = {}
    for model in MODELS:
        hits, moves = accuracy_protocol(games, model, [0, 1, 2, 3, 4], seed=0)
        assert moves[0] == 0 and moves[1:].sum() > 1000
        acc[model] = hits.sum() / moves.sum()
    assert acc["random"] < acc["naive_bayes"] < acc["improved"]
    assert acc["random"] < 0.3 and acc["improved"] > 0.38


def test_each_feature_group_is_learned_and_scored_only_when_on():
    states, actions = _histories(min, 50, seed=4)  # leading positions: every group applies
    blocks = {M.F_FIELD: slice(M._FIELD, M._BITS), M.F_SHAPE: slice(M._BITS, M._COUNT),
              M.F_LEAD: slice(M._COUNT, M._SIZE)}
    for bit, block in blocks.items():
        for features in (bit, M.IMPROVED & ~bit):
            model = M.OpponentModel(features)
            model.learn_game(states, actions)
            assert (model.counts[block].sum() > 0) == bool(features & bit)
    model = M.OpponentModel(M.IMPROVED)
    model.learn_game(states, actions)
    s, a = states[0], int(actions[0])
    table = M.strengths(s, True)
    hist = M._histogram(s[K.S_HAND], table)
    full = M.score(model.logp, s, a, table, hist, M.IMPROVED)
    k = M.model_table(s, a)
    lead = model.logp[M._COUNT + 1] + model.logp[M._TYPE + k]  # a single: m = 1
    shape = model.logp[M._BITS + M.shape_bits(s, a)]
    field = model.logp[M._FIELD + (k * M.NUM_CLASSES + M.move_class(a, table)) * M.NUM_CLASSES]
    assert M.score(model.logp, s, a, table, hist, M.IMPROVED & ~M.F_LEAD) == pytest.approx(full - lead)
    assert M.score(model.logp, s, a, table, hist, M.IMPROVED & ~M.F_SHAPE) == pytest.approx(full - shape)
    assert M.score(model.logp, s, a, table, hist, M.IMPROVED & ~M.F_FIELD) == pytest.approx(full - field)
    # All four 2s gone: the S3's class is 2 with relative strengths, 1 without.
    state = _state("S3H3S9", played="S2H2D2C2")
    for features, l in ((M.IMPROVED, 2), (M.IMPROVED & ~M.F_RELATIVE, 1), (M.F_RELATIVE, 2)):
        model = M.OpponentModel(features)
        model.learn_game(state.s[None], np.array([state.string_to_action("S3")]))
        assert model.counts[M._CLS + l] == 1


def test_ties_all_best_first_and_the_pass():
    """An untrained model scores every move alike: all four plays of S3 H3 S9 tie."""
    state = _state("S3H3S9")
    plays = sorted(set(state.legal_actions()) - {PASS})
    assert len(plays) == 4  # S3, H3, S9, the pair
    assert list(M.OpponentModel(M.SIMPLE).best(state.s)) == plays
    assert M.OpponentModel(M.SIMPLE).predict(state.s, first=True) == plays[0] == state.string_to_action("S3")
    assert list(M.OpponentModel(M.SIMPLE, passes=True).best(state.s)) == [PASS] + plays
    assert M.move_class(PASS, M.strengths(state.s, False)) == 0


def test_passes_are_learned_only_when_chosen():
    state = _state("S3H3S9")
    model = M.OpponentModel(M.IMPROVED, passes=True)
    model.learn_game(np.stack([state.s] * 5), np.full(5, PASS))
    assert model.counts[M._CLS] == 5 and model.predict(state.s) == PASS
    assert M.OpponentModel(M.IMPROVED).best(state.s)[0] != PASS  # the pass is no candidate
    # On a field of 2s nothing can be played: that pass is forced and not learned.
    state.s[K.S_FIELD] = 1 + card_index(0, 13)  # the single 2 of spades
    forced = M.OpponentModel(M.IMPROVED, passes=True)
    forced.learn_game(state.s[None], np.array([PASS]))
    assert forced.counts.sum() == 0


def _one_decision_match(hand: str, made: str, n: int):
    """Two games: the first empty (nothing learned), the second ``n`` times player 0's
    decision on an empty field holding ``hand``, making ``made``."""
    state = _state(hand)
    empty = (np.zeros((0, K.S_SIZE), np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    action = state.string_to_action(made)
    return [empty, (np.stack([state.s] * n), np.zeros(n, np.int64), np.full(n, action))]


@pytest.mark.parametrize("made, first", [("S3", 1.0), ("S9", 0.0)])
def test_protocol_tie_rules_on_four_tied_options(made, first):
    games = _one_decision_match("S3H3S9", made, 8)
    rate = {ties: accuracy_protocol(games, "naive_bayes", [0], ties=ties)
            for ties in ("first", "split", "any")}
    assert all(moves.sum() == 8 for _, moves in rate.values())
    assert rate["first"][0].sum() / 8 == first
    assert rate["split"][0].sum() / 8 == pytest.approx(1 / 4)
    assert rate["any"][0].sum() / 8 == 1.0


def test_protocol_random_counts_the_pass_and_options_by_cards():
    games = _one_decision_match("S3H3S9", "S9", 4000)
    plays = accuracy_protocol(games, "random", [0], seed=1, random_pass=False)[0].sum() / 4000
    with_pass = accuracy_protocol(games, "random", [0], seed=1)[0].sum() / 4000
    assert abs(plays - 1 / 4) < 0.03 and abs(with_pass - 1 / 5) < 0.03
    # With the joker: 12 actions (it stands for different suits) but 7 sets of cards.
    state = _state("S3H3JK")
    plays = set(state.legal_actions()) - {PASS}
    assert len(plays) == 12 and len({option_key(a, "cards") for a in plays}) == 7
    games = _one_decision_match("S3H3JK", "S3H3", 8)
    for options, k in (("actions", 12), ("cards", 7)):
        hits, moves = accuracy_protocol(games, "naive_bayes", [0], ties="split", options=options)
        assert hits.sum() / moves.sum() == pytest.approx(1 / k)


def test_experiment_rows_are_the_protocol_with_their_feature_groups(tmp_path, capsys):
    lines = LOG.read_text().splitlines()
    frame = [line for line in lines if line.startswith("%-----%")]  # header, then footer
    games = [line for line in lines if line[1:6].isdigit() and int(line[1:6]) < 30]
    short = tmp_path / "short.log"
    short.write_text("\n".join(frame[:-2] + games + frame[-2:]) + "\n")
    assert daihinmin_opponent_models.main([str(short), "--ties", "split", "--ablation", "--features", "field",
                                           "shape", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert set(out) == {"random", "naive_bayes", "improved", "improved -field", "improved -shape",
                        "naive_bayes +relative", "naive_bayes +field", "naive_bayes +shape",
                        "naive_bayes +lead", "moves", "matches"}
    record = read_log(short)
    game = DaihinminGame(rules_of(record)[0])
    moves = [M.game_moves(g, game) for g in record.games]
    for row, features in (("improved", M.F_FIELD | M.F_SHAPE), ("improved -field", M.F_SHAPE),
                          ("naive_bayes +lead", M.F_LEAD)):
        hits, n = accuracy_protocol(moves, "improved", [0, 1, 2, 3, 4], features=features,
                                      ties="split")
        assert out[row] == round(100 * hits.sum() / n.sum(), 2)


def test_protocol_prior_records_are_learned_first():
    """Player 0 always plays S9 from S3 H3 S9: learned beforehand, the model predicts it and
    the first game counts too."""
    games = _one_decision_match("S3H3S9", "S9", 8)
    hits, moves = accuracy_protocol(games[1:], "naive_bayes", [0], ties="split")
    assert moves.sum() == 0  # nothing learned before the only game: nothing predicted
    hits, moves = accuracy_protocol(games[1:], "naive_bayes", [0], ties="split", prior=games[1:])
    assert moves.sum() == 8 and hits.sum() == 8
    hits, moves = accuracy_protocol(games, "naive_bayes", [0], ties="split")
    assert hits.sum() / moves.sum() == pytest.approx(1 / 4)
