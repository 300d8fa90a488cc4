"""Hand estimation for Daihinmin (SPEC §7: snowl's addition to the Monte Carlo client): deals of
the unseen cards weighted by how likely the opponents' models find the plays seen this game.

A deal gives every opponent its hand now; adding back the cards it played since a turn gives its
hand at that turn, and its model (:mod:`.opponent_model`) gives the probability of the play it
made there: the model's scores over the legal plays of that hand, normalised (the posterior the
model's ``sample`` draws from). A deal's log-likelihood sums those log-probabilities over every
opponent play seen this game; passes and plays without an alternative carry no weight (the
models do not learn them). Deals are drawn as :func:`~...games.daihinmin.determinization.determinize`
draws them, so the weighted pool is importance sampling of the posterior over hands, with
``hand_weight`` (beta) tempering the likelihood: weight ``exp(beta * log-likelihood)``; 0 gives
the uniform deals back, 1 the models taken at their word (naive Bayes is overconfident, so
less than 1 usually spreads the weight over more deals).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...games.daihinmin import rules as K
from ...games.daihinmin.actions import A_CARDS, PASS
from ...games.daihinmin.determinization import determinize
from .opponent_model import F_RELATIVE, _histogram, score, strengths


@nb.njit(cache=True)
def play_log_probability(logp: np.ndarray, s: np.ndarray, action: int, features: int,
                         buf: np.ndarray) -> float:
    """log of the model's probability of the play ``action`` by the player to move in ``s``
    among its legal plays (the pass left out); 0 when it had no other play."""
    n = K.legal_plays(s, buf)
    table = strengths(s, features & F_RELATIVE != 0)
    hist = _histogram(s[K.S_HAND + s[K.S_PLAYER]], table)
    best = -np.inf
    plays = 0
    for i in range(n):
        if buf[i] != PASS:
            plays += 1
    if plays < 2:
        return 0.0
    chosen = score(logp, s, action, table, hist, features)
    scores = np.empty(n)
    for i in range(n):
        scores[i] = -np.inf if buf[i] == PASS else score(logp, s, buf[i], table, hist, features)
        best = max(best, scores[i])
    total = 0.0
    for i in range(n):
        total += np.exp(scores[i] - best)
    return chosen - best - np.log(total)


@nb.njit(cache=True)
def deal_log_likelihoods(deals: np.ndarray, turns: np.ndarray, movers: np.ndarray,
                         actions: np.ndarray, logp: np.ndarray, features: int, me: int) -> np.ndarray:
    """[N] log-likelihood of each deal ``deals[i]`` (the 5 hands now) given the plays
    ``actions[t]`` made by ``movers[t]`` in the positions ``turns[t]`` (the hands in them
    unused), under the models ``logp[p]``; ``me``'s own plays are not scored."""
    out = np.zeros(deals.shape[0])
    buf = np.empty(K.MAX_LEGAL, np.int64)
    s = np.empty(K.S_SIZE, np.int64)
    held = np.empty(5, np.int64)
    for i in range(deals.shape[0]):
        held[:] = deals[i]
        total = 0.0
        for t in range(actions.shape[0] - 1, -1, -1):
            p = movers[t]
            a = actions[t]
            if p == me or a == PASS:
                continue
            held[p] |= A_CARDS[a]  # its hand before this play
            s[:] = turns[t]
            s[K.S_HAND + p] = held[p]
            total += play_log_probability(logp[p], s, a, features, buf)
        out[i] = total
    return out


@nb.njit(cache=True)
def draw_deals(s: np.ndarray, player: int, seeds: np.ndarray) -> np.ndarray:
    """[len(seeds), 5] the hands of one determinization of ``s`` for ``player`` per seed."""
    deals = np.empty((seeds.shape[0], 5), np.int64)
    out = s.copy()
    for i in range(seeds.shape[0]):
        determinize(s, player, out, seeds[i])
        deals[i] = out[K.S_HAND:K.S_HAND + 5]
    return deals


def weighted_deals(s: np.ndarray, player: int, turns: np.ndarray, movers: np.ndarray,
                   actions: np.ndarray, logp: np.ndarray, features: int, count: int,
                   hand_weight: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(deals [count, 5], weights [count] summing to 1): ``count`` determinizations of ``s``
    for ``player`` weighted by ``exp(hand_weight * log-likelihood)`` of the opponents' plays
    ``actions`` in ``turns`` (:func:`deal_log_likelihoods`, models ``logp`` [5, K])."""
    if count < 1:
        raise ValueError(f"hand estimation needs at least one deal, not {count}")
    seeds = rng.integers(0, 2**62, count, dtype=np.int64)
    deals = draw_deals(np.ascontiguousarray(s, np.int64), player, seeds)
    turns = np.ascontiguousarray(turns, np.int64).reshape(-1, K.S_SIZE)
    loglik = deal_log_likelihoods(deals, turns, np.ascontiguousarray(movers, np.int64),
                                  np.ascontiguousarray(actions, np.int64),
                                  np.ascontiguousarray(logp, np.float64), features, player)
    x = hand_weight * loglik
    w = np.exp(x - x.max())
    return deals, w / w.sum()


def effective_size(weights: np.ndarray) -> float:
    """Kish's effective sample size of normalised ``weights``: how many equal deals they are worth."""
    return float(1.0 / np.sum(np.square(weights)))


def placement_accuracy(deals: np.ndarray, weights: np.ndarray, hands: np.ndarray, player: int) -> float:
    """The weighted share of the other players' true cards (``hands`` [5]) that ``deals`` [N, 5]
    place in the right hand: how well the deals know where the cards are."""
    right = total = 0.0
    for p in range(5):
        if p == player:
            continue
        cards = [c for c in range(53) if (int(hands[p]) >> c) & 1]
        right += sum(float(weights @ ((deals[:, p] >> c) & 1)) for c in cards)
        total += len(cards)
    return right / total
