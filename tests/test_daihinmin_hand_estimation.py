"""Hand estimation (SPEC §7): deals weighted by the opponent models' likelihood of the plays seen,
checked against a direct computation on an official record, for what it learns (cards placed with
the right opponent more often than uniform deals place them), and as the client plays it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blokuszero.bench.daihinmin import learned_models
from blokuszero.games.daihinmin import DaihinminGame
from blokuszero.games.daihinmin import rules as K
from blokuszero.games.daihinmin.actions import PASS
from blokuszero.games.daihinmin.log import read_log
from blokuszero.knowledge.daihinmin.hand_estimation import (
    deal_log_likelihoods,
    effective_size,
    placement_accuracy,
    play_log_probability,
    weighted_deals,
)
from blokuszero.knowledge.daihinmin.opponent_model import (
    IMPROVED,
    OpponentModel,
    _histogram,
    game_moves,
    score,
    strengths,
)
from blokuszero.match.daihinmin.uecda_replay import rules_of
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.players.daihinmin.default_client import DefaultClient
from blokuszero.players.daihinmin.monte_carlo import DealPool
from blokuszero.players.factory import make_client, parse_client_spec

LOG = Path(__file__).parent / "data" / "daihinmin_default5_match1.log"


@pytest.fixture(scope="module")
def record_games():
    """(the record's game engine, models of its five default clients learned from its first 60
    games, the play phase of games 60-65 as game_moves gives them)."""
    record = read_log(LOG)
    game = DaihinminGame(rules_of(record)[0])
    held_out = [game_moves(g, game) for g in record.games[60:66]]
    return game, learned_models(60)[0], held_out


def reference_log_probability(logp: np.ndarray, s: np.ndarray, action: int) -> float:
    """The model's softmax over the non-pass legal plays, in plain numpy."""
    buf = np.empty(K.MAX_LEGAL, np.int64)
    plays = [int(a) for a in buf[:K.legal_plays(s, buf)] if a != PASS]
    if len(plays) < 2:
        return 0.0
    table = strengths(s, True)
    hist = _histogram(s[K.S_HAND + s[K.S_PLAYER]], table)
    scores = np.array([score(logp, s, a, table, hist, IMPROVED) for a in plays])
    return float(score(logp, s, action, table, hist, IMPROVED) - np.log(np.sum(np.exp(scores))))


def test_the_true_deal_scores_the_plays_made_from_the_true_hands(record_games):
    _, logp, held_out = record_games
    states, movers, actions = held_out[0]
    t = len(actions) * 2 // 3
    me = int(movers[t])
    # The history with every hand blanked, as a client's tracker keeps it.
    turns = states[:t].copy()
    turns[:, K.S_HAND:K.S_HAND + 5] = 0
    true_now = states[t, K.S_HAND:K.S_HAND + 5][None]
    got = deal_log_likelihoods(true_now, turns, movers[:t], actions[:t], logp, IMPROVED, me)[0]
    want = sum(reference_log_probability(logp[movers[i]], states[i], int(actions[i]))
               for i in range(t) if movers[i] != me and actions[i] != PASS)
    assert want < -5  # enough scored plays to tell a wrong hand from the right one
    assert got == pytest.approx(want, rel=1e-9)
    # A deal that swaps two cards of different ranks between two opponents changes the score.
    a, b = [p for p in range(5) if p != me and true_now[0, p]][:2]
    ca, cb = next((x, y) for x in range(52) for y in range(52) if x // 4 != y // 4
                  and (true_now[0, a] >> x) & 1 and (true_now[0, b] >> y) & 1)
    swapped = true_now.copy()
    swapped[0, a] ^= (1 << ca) | (1 << cb)
    swapped[0, b] ^= (1 << ca) | (1 << cb)
    assert deal_log_likelihoods(swapped, turns, movers[:t], actions[:t], logp, IMPROVED, me)[0] != got


def test_a_play_without_alternative_carries_no_weight_and_the_others_sum_to_one(record_games):
    _, logp, held_out = record_games
    buf = np.empty(K.MAX_LEGAL, np.int64)
    forced = chosen = 0
    for states, movers, actions in held_out:
        for s, a in zip(states, actions):
            plays = [int(x) for x in buf[:K.legal_plays(s, buf)] if x != PASS]
            if a == PASS:
                continue
            p = logp[s[K.S_PLAYER]]
            if len(plays) == 1:
                forced += 1
                assert play_log_probability(p, s, int(a), IMPROVED, buf) == 0.0
            elif chosen < 20:
                chosen += 1
                total = sum(np.exp(play_log_probability(p, s, x, IMPROVED, buf)) for x in plays)
                assert total == pytest.approx(1.0)
    assert forced > 0 and chosen == 20


def test_weighted_deals_place_cards_with_the_right_opponent_more_often(record_games):
    """Against the default clients, whose plays their models predict well, the weighted deals put
    each opponent's true cards in its hand more often than uniform deals do (beta 0)."""
    _, logp, held_out = record_games
    accuracy = {0.0: [], 1.0: []}
    for states, movers, actions in held_out:
        for t in range(12, len(actions), 6):
            me = int(movers[t])
            turns = states[:t].copy()
            turns[:, K.S_HAND:K.S_HAND + 5] = 0
            s = states[t]
            for beta in accuracy:
                deals, w = weighted_deals(s, me, turns, movers[:t], actions[:t], logp, IMPROVED, 300,
                                          beta, np.random.default_rng(t))
                accuracy[beta].append(placement_accuracy(deals, w, s[K.S_HAND:K.S_HAND + 5], me))
    uniform, weighted = np.mean(accuracy[0.0]), np.mean(accuracy[1.0])
    assert len(accuracy[0.0]) >= 30
    assert weighted > uniform + 0.03, (uniform, weighted)


def start_of_play(seed: int):
    """A first game's position once the play begins (the exchange's gifts made)."""
    state = DaihinminGame().new_initial_state(seed)
    while state.s[K.S_PHASE] != K.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    return state


def test_weights_and_their_effective_size():
    s = start_of_play(3)
    me = s.current_player()
    empty = np.zeros((0, K.S_SIZE), np.int64)
    deals, w = weighted_deals(s.s, me, empty, np.zeros(0, np.int64), np.zeros(0, np.int64),
                              np.zeros((5, OpponentModel(IMPROVED).logp.size)), IMPROVED, 50, 1.0,
                              np.random.default_rng(0))
    assert deals.shape == (50, 5) and np.allclose(w, 1 / 50)  # nothing seen: uniform
    assert effective_size(w) == pytest.approx(50)
    assert (deals[:, me] == s.s[K.S_HAND + me]).all()
    assert len({tuple(d) for d in deals}) > 40
    assert effective_size(np.array([1.0, 0.0, 0.0])) == pytest.approx(1)
    # placement: a deal that is the true one places every card right, and weights pick it out
    truth = s.s[K.S_HAND:K.S_HAND + 5]
    both = np.stack([truth, deals[0]])
    assert placement_accuracy(both, np.array([1.0, 0.0]), truth, me) == 1.0
    assert placement_accuracy(both, np.array([0.5, 0.5]), truth, me) == pytest.approx(
        0.5 + 0.5 * placement_accuracy(deals[:1], np.ones(1), truth, me))
    with pytest.raises(ValueError, match="at least one deal"):
        weighted_deals(s.s, me, empty, np.zeros(0, np.int64), np.zeros(0, np.int64),
                       np.zeros((5, 1)), IMPROVED, 0, 1.0, np.random.default_rng(0))


def test_the_deal_pool_draws_by_weight_from_its_root_only():
    state = start_of_play(1)
    me = state.current_player()
    pool = DealPool()
    rng = np.random.default_rng(0)
    uniform = pool(state, me, rng)  # no pool: a uniform determinization
    assert uniform.s[K.S_HAND + me] == state.s[K.S_HAND + me]
    deals = np.array([[int(x) for x in pool(state, me, rng).s[K.S_HAND:K.S_HAND + 5]] for _ in range(3)])
    pool.use(state.s, deals, np.array([0.2, 0.0, 0.8]))
    drawn = [tuple(pool(state, me, rng).s[K.S_HAND:K.S_HAND + 5]) for _ in range(500)]
    assert drawn.count(tuple(deals[1])) == 0
    assert 0.15 < drawn.count(tuple(deals[0])) / 500 < 0.25
    other = state.clone()
    other.apply_action(int(other.legal_actions()[-1]))
    with pytest.raises(ValueError, match="another position"):
        pool(other, other.current_player(), rng)
    pool.use(None)
    assert pool(other, other.current_player(), rng).s[K.S_PLAYER] == other.s[K.S_PLAYER]


def test_the_client_estimates_hands_through_a_match():
    game = DaihinminGame()
    client = make_client(game, parse_client_spec("mc:model/default:60:hands=0.5:deals=40"), seed=2)
    assert (client.player.hand_weight, client.player.hand_deals) == (0.5, 40)
    seen = []
    choose = client.player.choose_action

    def spy(state, deals=None):
        seen.append(deals)
        return choose(state, deals)

    client.player.choose_action = spy
    result = serve_match([LocalSeat(client, "mc0")] + [LocalSeat(DefaultClient(), f"dflt{p}")
                                                      for p in range(1, 5)],
                         MatchSettings(games=3), seed=5)
    assert len(result.points) == 3
    assert seen and all(d is not None and d[0].shape == (40, 5) for d in seen)
    assert all(m.counts.sum() > 0 for m in client.models[1:])  # learned for the estimation
    assert 1 <= client.last_effective_deals <= 40
    assert client.player.deal_pool.root is None  # the pool is the search's only while it runs


def test_hand_estimation_options_are_checked():
    assert parse_client_spec("mc:model/default:3000:always-lead:hands=0.5:deals=200") == {
        "kind": "daihinmin_mc", "playout": "model", "self_playout": "default", "simulations": 3000,
        "always_lead": True, "hand_weight": 0.5, "hand_deals": 200}
    with pytest.raises(ValueError, match="hands='much' in .* is not a number"):
        parse_client_spec("mc:model:100:hands=much")
    with pytest.raises(ValueError, match="unknown option 'fast'"):
        parse_client_spec("mc:model:100:fast")
    game = DaihinminGame()
    with pytest.raises(ValueError, match="hand_weight"):
        make_client(game, {"kind": "daihinmin_mc", "hand_weight": -1.0})
    with pytest.raises(ValueError, match="hand_deals"):
        make_client(game, {"kind": "daihinmin_mc", "hand_deals": 0})
