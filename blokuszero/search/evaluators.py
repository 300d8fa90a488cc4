"""Evaluators: what a search learns at a leaf. Values are always one entry per player.

An evaluator takes a batch of leaf states and returns, for each, a value vector and
optionally a prior over the legal actions (a network) and the moves of a playout
(rollouts; enhancements such as Progressive History and RAVE learn from them).
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..games.abilities import HasPlayouts, HasScores, implements
from ..games.base import CHANCE, SIMULTANEOUS, State

#: What a playout's end is worth to each player (the index is the compiled loop's code):
#: ``win``, the game's returns; ``rank``, the player's place among the final scores;
#: ``quality``, that place plus a bonus for a score above the search's usual (:func:`reward_values`).
REWARDS = ("win", "rank", "quality")
WIN, RANK, QUALITY = range(3)
#: The quality bonus's weight (a share of the value scale) and steepness: Pentobi's constants.
QUALITY_WEIGHT, QUALITY_STEEPNESS = 0.3, 2.0


@nb.njit(cache=True)
def reward_values(scores, reward, stats, lo, hi, out) -> None:
    """A finished game's value to each player on the scale [lo, hi], from its final ``scores``
    (``reward`` RANK or QUALITY), into ``out``; one function for the Python and compiled loops.

    RANK: the players it outscores, plus half of those it ties, over the others' number, so the
    sole top score gets ``hi``, the sole lowest ``lo``, and a shared place the mean of the places
    it spans (Pentobi's reward for games of more than two players; with two: win, draw, loss).
    QUALITY adds Pepels et al.'s quality-based reward (ECAI 2014) as Pentobi weighs it:
    ``QUALITY_WEIGHT * (hi - lo) * (2 / (1 + exp(-QUALITY_STEEPNESS * z)) - 1)``, ``z`` the score's
    distance from the mean of this player's scores in the search so far (this one included), in
    their standard deviations; ``stats`` [3, P] (count, mean, sum of squared deviations) is
    updated in place, and the bonus is 0 while the scores have not varied. The value can then
    leave [lo, hi] by up to the weight.
    """
    n = scores.shape[0]
    for q in range(n):
        below, ties = 0, -1
        for r in range(n):
            below += scores[r] < scores[q]
            ties += scores[r] == scores[q]
        out[q] = lo + (below + 0.5 * ties) / (n - 1) * (hi - lo)
    if reward != QUALITY:
        return
    for q in range(n):  # Welford's update
        x = scores[q]
        stats[0, q] += 1.0
        delta = x - stats[1, q]
        stats[1, q] += delta / stats[0, q]
        stats[2, q] += delta * (x - stats[1, q])
        variance = stats[2, q] / stats[0, q]
        if variance > 0.0:
            z = (x - stats[1, q]) / np.sqrt(variance)
            out[q] += QUALITY_WEIGHT * (hi - lo) * (2.0 / (1.0 + np.exp(-QUALITY_STEEPNESS * z)) - 1.0)


@dataclass(frozen=True)
class Evaluation:
    """What an evaluator says about one state."""

    value: np.ndarray  # [P] within the evaluator's value_bounds, or the game's returns (utility)
    prior: np.ndarray | None = None  # [num legal actions], aligned with state.legal_actions()
    players: np.ndarray | None = None  # [T] who played each playout move
    actions: np.ndarray | None = None  # [T] the playout moves
    utility: bool = False  # value is the game's returns at the end: the search rescales it
    boards: object = None  # the playout's positions after each move (state.traced_playout's)


class Evaluator(abc.ABC):
    """Values (and maybe priors) for a batch of non-terminal leaf states."""

    #: (lowest, highest) value; a win scores the highest, a loss the lowest.
    value_bounds: tuple[float, float] = (-1.0, 1.0)
    #: True if :meth:`evaluate` returns priors (the search then expands at the evaluated leaf).
    provides_priors: bool = False

    @abc.abstractmethod
    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        """Evaluate each state (they may be changed in place: callers pass copies)."""

    def expansion(self, state: State) -> Evaluation | None:
        """The priors of a node the search expands without evaluating it (an evaluator without
        priors: the search expands on the way down and evaluates a leaf below); None: uniform.
        ``state`` may be changed in place: callers pass a copy."""
        return None

    def terminal_value(self, returns: np.ndarray,
                       utility: tuple[float, float] = (-1.0, 1.0)) -> np.ndarray:
        """The game's returns, in [min_utility, max_utility] = ``utility``, on this
        evaluator's scale (a win scores the highest value, a loss the lowest)."""
        lo, hi = self.value_bounds
        u_lo, u_hi = utility
        return lo + (np.asarray(returns, dtype=np.float64) - u_lo) * (hi - lo) / (u_hi - u_lo)

    def outcome(self, state: State, utility: tuple[float, float] = (-1.0, 1.0)) -> np.ndarray:
        """The value of the finished game ``state`` on this evaluator's scale: its returns
        (``utility``: the game's range) as :meth:`terminal_value` maps them."""
        return self.terminal_value(state.returns(), utility)

    def start_search(self, num_players: int) -> None:
        """A search of ``num_players`` begins (the search calls it): forget what the last one
        taught (statistics a value depends on)."""


class RolloutEvaluator(Evaluator):
    """Random playouts to the end; rewards in [0, 1] (win 1, loss 0), as MCTS-MaxN uses (SPEC §2).

    Uses the game's own fast ``playout(policy, epsilon)`` when it has one (Blokus, in numba);
    otherwise plays uniformly random legal moves in Python with ``rng`` (a uniform joint
    action at simultaneous-move nodes, outcomes by their probability at chance nodes). The
    evaluation holds the game's returns; the search maps them onto [0, 1] with the game's
    utility range. With ``reward`` ``rank`` or ``quality`` a playout's end (and any finished game
    the search meets) is worth each player's place among the final scores instead, ``quality``
    with a bonus for a score above those of the search's other simulations
    (:func:`reward_values`; the game must have scores): a player that cannot win still prefers
    second place to last, and a higher score to a lower one.
    """

    value_bounds = (0.0, 1.0)

    def __init__(self, policy: str = "uniform", epsilon: float = 0.0,
                 rng: np.random.Generator | None = None, reward: str = "win") -> None:
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; known: {REWARDS}")
        self.policy = policy
        self.epsilon = epsilon
        self.rng = rng if rng is not None else np.random.default_rng()
        self.reward = reward
        self.reward_code = REWARDS.index(reward)  # reward_values' and the compiled loop's
        self.score_stats = np.zeros((3, 0))  # QUALITY's statistics of this search, [3, P]

    def start_search(self, num_players: int) -> None:
        self.score_stats = np.zeros((3, num_players))

    def outcome(self, state: State, utility: tuple[float, float] = (-1.0, 1.0)) -> np.ndarray:
        if self.reward == "win":
            return super().outcome(state, utility)
        if not implements(state, HasScores):
            raise ValueError(f"reward {self.reward!r} needs the game's scores; {type(state).__name__} "
                             f"has none (use reward 'win')")
        scores = np.asarray(state.scores(), dtype=np.float64)
        if self.score_stats.shape[1] != len(scores):
            self.start_search(len(scores))
        out = np.empty(len(scores))
        lo, hi = self.value_bounds
        reward_values(scores, self.reward_code, self.score_stats, float(lo), float(hi), out)
        return out

    def _playout(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        if implements(state, HasPlayouts):
            return state.playout(self.policy, self.epsilon)
        if self.policy != "uniform":
            raise ValueError(f"playout policy {self.policy!r} needs the game's own fast playout; "
                             f"{type(state).__name__} has none (use 'uniform')")
        players, actions = [], []
        while not state.is_terminal():
            p = state.current_player()
            if p == SIMULTANEOUS:
                roles = range(len(state.returns()))
                joint = [int(self.rng.choice(state.legal_actions(q))) for q in roles]
                state.apply_joint_action(joint)
                players.extend(roles)
                actions.extend(joint)
            elif p == CHANCE:
                outcomes, probs = state.chance_outcomes()
                state.apply_action(int(self.rng.choice(outcomes, p=probs)))
            else:
                players.append(p)
                actions.append(int(self.rng.choice(state.legal_actions())))
                state.apply_action(actions[-1])
        return np.array(players, dtype=np.int64), np.array(actions, dtype=np.int64)

    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        out = []
        for state in states:
            players, actions = self._playout(state)
            if self.reward == "win":  # the search maps the returns with the game's range
                out.append(Evaluation(state.returns(), None, players, actions, utility=True))
            else:
                out.append(Evaluation(self.outcome(state), None, players, actions))
        return out


class UniformEvaluator(Evaluator):
    """Uniform priors and a neutral value: PUCT search guided by nothing but terminal states.

    A stand-in with the network evaluator's shape (priors, values in [-1, 1]), for tests
    and for search without a trained network.
    """

    provides_priors = True

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players

    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        return [Evaluation(np.zeros(self.num_players),
                           np.full(len(s.legal_actions()), 1.0 / len(s.legal_actions())))
                for s in states]


class PlayoutMixing(Evaluator):
    """AlphaGo's leaf evaluation (Silver et al. 2016): ``inner``'s value vector mixed with the
    result of ``playouts`` random playouts from the leaf,
    ``V = (1 - mix_lambda) * v_inner + mix_lambda * z``, per player, on ``inner``'s scale.

    ``z`` is the mean of the playouts' returns mapped from the game's ``utility`` range
    [min_utility, max_utility] onto ``inner.value_bounds``, as the search maps terminal returns,
    so both terms live in the value frame the search backs up. The playouts are
    :class:`RolloutEvaluator`'s: the game's own fast playout when it has one (numba's generator,
    which the search seeds from its own at every search), else uniform moves in Python drawn
    from ``rng`` (pass the search's generator). ``policy`` and ``epsilon`` are the game's playout
    policy, as :class:`RolloutEvaluator` takes them: ``uniform`` (the default) carries no knowledge
    of any game; a game's own policies (Blokus's ``largest_piece``) are hand-made knowledge.
    Priors are ``inner``'s, unchanged. Each leaf is played out from a copy, so the states given
    stay as they were.
    """

    def __init__(self, inner: Evaluator, mix_lambda: float, playouts: int = 1,
                 utility: tuple[float, float] = (-1.0, 1.0),
                 rng: np.random.Generator | None = None, policy: str = "uniform",
                 epsilon: float = 0.0) -> None:
        if not 0.0 <= mix_lambda <= 1.0:
            raise ValueError(f"mix_lambda must be in [0, 1], not {mix_lambda}")
        if playouts < 1:
            raise ValueError(f"mix_playouts must be >= 1, not {playouts}")
        self.inner = inner
        self.mix_lambda = float(mix_lambda)
        self.playouts = int(playouts)
        self.utility = (float(utility[0]), float(utility[1]))
        self.rollouts = RolloutEvaluator(policy, epsilon, rng)
        self.value_bounds = inner.value_bounds
        self.provides_priors = inner.provides_priors
        self.playouts_run = 0  # counter: playouts played so far

    def playout_value(self, state: State) -> np.ndarray:
        """The mean value of ``self.playouts`` playouts from (copies of) ``state``."""
        values = [self.inner.terminal_value(self.rollouts.evaluate([state.clone()])[0].value, self.utility)
                  for _ in range(self.playouts)]
        self.playouts_run += self.playouts
        return np.mean(values, axis=0)

    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        out = []
        for state, evaluation in zip(states, self.inner.evaluate(states)):
            value = np.asarray(evaluation.value, dtype=np.float64)
            if evaluation.utility:  # the game's returns: onto the scale first
                value = self.inner.terminal_value(value, self.utility)
            mixed = (1.0 - self.mix_lambda) * value + self.mix_lambda * self.playout_value(state)
            out.append(dataclasses.replace(evaluation, value=mixed, utility=False))
        return out


class PlayoutPriors(RolloutEvaluator):
    """AlphaGo's expansion threshold (Silver et al. 2016, n_thr): every leaf is valued by a
    playout alone, and ``inner`` (a network) is asked only for the priors of a node the search
    expands, which it does once the node has ``expand_threshold`` visits. A network call then
    serves that many playouts, so the search runs near the playouts' rate while the network's
    policy steers it.

    The playouts are :class:`RolloutEvaluator`'s (``policy``, ``epsilon``, ``rng``, ``reward``);
    their returns (or ranks) are mapped onto ``inner.value_bounds`` (the frame its selection rule
    was tuned in); the network's value is not used.
    """

    def __init__(self, inner: Evaluator, rng: np.random.Generator | None = None,
                 policy: str = "uniform", epsilon: float = 0.0, reward: str = "win") -> None:
        if not inner.provides_priors:
            raise ValueError(f"{type(inner).__name__} gives no priors to expand nodes with")
        super().__init__(policy, epsilon, rng, reward)
        self.inner = inner
        self.value_bounds = inner.value_bounds
        self.expansions = 0  # counter: network calls so far

    def expansion(self, state: State) -> Evaluation:
        self.expansions += 1
        return self.inner.evaluate([state])[0]
