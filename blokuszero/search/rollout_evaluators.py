"""Rollout evaluators with learned playout policies, for any game: MAST and NST learn from the
search's own playouts, ``softmax`` plays a policy learned beforehand (SPEC §5; Finnsson and
Björnsson, "Simulation-based approach to General Game Playing", 2008; "Learning simulation
control in General Game-Playing agents", 2010). Built on the game and evaluator interfaces only
(the GDL player is their one user so far).

- ``uniform``: uniformly random moves (the game's fast playout when it has one);
- ``mast`` (Move-Average Sampling Technique): a move is drawn with probability
  ``exp(Q(a)/tau) / sum_b exp(Q(b)/tau)``, ``Q(a)`` the mean reward of the mover over every
  playout where it played ``a`` (unseen moves score the highest value, so they get tried);
- ``nst`` (N-gram Selection Technique): with probability ``1 - epsilon`` the move whose
  n-grams (it, with the 1 and 2 moves before it; n = 1..3) have the best mean reward, n-grams
  with n > 1 only once seen ``min_visits`` times; otherwise a uniform move;
- ``softmax``: a learned policy's own playout (any object with ``playout(state)`` returning
  who chose and what; the GDL player passes its softmax policy trained by AL or SB, SPEC §6).

Rewards are the game's returns rescaled from ``[min_utility, max_utility]`` to ``[0, 1]`` (GDL
goals 0-100 become 0-1); at a simultaneous node every role draws its own move.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from ..games.abilities import HasPlayouts, implements
from ..games.base import SIMULTANEOUS, Game, State
from .evaluators import Evaluation, Evaluator

POLICIES = ("uniform", "mast", "nst", "softmax")


class PolicyRolloutEvaluator(Evaluator):
    """Playouts to the end with ``policy``; values in [0, 1] per player."""

    value_bounds = (0.0, 1.0)

    def __init__(self, game: Game, policy: str = "uniform", *, tau: float = 0.1,
                 epsilon: float = 0.2, min_visits: int = 7,
                 rng: np.random.Generator | int | None = None, learned=None) -> None:
        """Args:
          tau: MAST's Gibbs temperature on the [0, 1] reward scale (10 on GDL's 0-100).
          epsilon: NST's probability of a uniform move.
          min_visits: NST's visits before an n-gram with n > 1 counts.
          learned: ``softmax``'s policy: an object whose ``playout(state)`` plays the state to
            the end in place and returns (players, actions) of its choices.
        """
        if policy not in POLICIES:
            raise ValueError(f"unknown playout policy {policy!r}; known: {POLICIES}")
        if (policy == "softmax") != (learned is not None):
            raise ValueError("the softmax playout policy needs learned=<policy>, and only it")
        self.learned = learned
        self.game, self.policy = game, policy
        self.tau, self.epsilon, self.min_visits = tau, epsilon, min_visits
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.utility = (float(game.min_utility), float(game.max_utility))
        # Set by a search whose enhancements learn from positions: each evaluation then
        # carries the positions of its playout (``state.traced_playout`` / ``state.board``).
        self.record_boards = False
        # (player, n-gram of actions ending with the player's move) -> [reward sum, visits]
        self.stats: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0])

    def _mean(self, key: tuple) -> float | None:
        s = self.stats.get(key)
        return None if s is None or s[1] == 0 else s[0] / s[1]

    def _mast(self, player: int, legal: np.ndarray) -> int:
        means = [self._mean((player, int(a))) for a in legal]
        q = np.array([1.0 if m is None else m for m in means])  # unseen: optimistic
        w = np.exp((q - q.max()) / self.tau)
        return int(self.rng.choice(legal, p=w / w.sum()))

    def _nst(self, player: int, legal: np.ndarray, history: list[int]) -> int:
        if self.rng.random() < self.epsilon:
            return int(self.rng.choice(legal))
        best, best_score = [], -np.inf
        for a in legal:
            scores = []
            for n in range(1, 4):
                if len(history) < n - 1:
                    break
                key = (player, *history[len(history) - (n - 1):], int(a))
                s = self.stats.get(key)
                if s is not None and s[1] > 0 and (n == 1 or s[1] >= self.min_visits):
                    scores.append(s[0] / s[1])
            score = np.mean(scores) if scores else 1.0  # unseen: optimistic
            if score > best_score:
                best, best_score = [int(a)], score
            elif score == best_score:
                best.append(int(a))
        return int(self.rng.choice(best))

    def _pick(self, player: int, legal: np.ndarray, history: list[int]) -> int:
        if self.policy == "mast":
            return self._mast(player, legal)
        if self.policy == "nst":
            return self._nst(player, legal, history)
        return int(self.rng.choice(legal))

    def _playout(self, state: State) -> tuple[list[int], list[int], np.ndarray | None]:
        if self.learned is not None:  # (its positions are not recorded: see players.ggp.uct)
            players, actions = self.learned.playout(state)
            return list(players), list(actions), None
        if self.policy == "uniform" and implements(state, HasPlayouts):
            if self.record_boards:
                players, actions, boards = state.traced_playout("uniform", 0.0)
                return list(players), list(actions), boards
            players, actions = state.playout("uniform", 0.0)
            return list(players), list(actions), None
        players: list[int] = []
        actions: list[int] = []
        boards = []
        while not state.is_terminal():
            p = state.current_player()
            if p == SIMULTANEOUS:
                joint = []
                for q in range(self.game.num_players):
                    legal = state.legal_actions(q)
                    joint.append(self._pick(q, legal, actions) if len(legal) > 1 else int(legal[0]))
                    if len(legal) > 1:
                        players.append(q)
                        actions.append(joint[-1])
                state.apply_joint_action(joint)
            else:
                a = self._pick(p, state.legal_actions(), actions)
                players.append(p)
                actions.append(a)
                state.apply_action(a)
            if self.record_boards:
                boards.append(state.board())
        return players, actions, (np.array(boards) if self.record_boards else None)

    def _learn(self, players: list[int], actions: list[int], value: np.ndarray) -> None:
        n_max = 3 if self.policy == "nst" else 1
        for t, (p, a) in enumerate(zip(players, actions)):
            for n in range(1, n_max + 1):
                if t < n - 1:
                    break
                s = self.stats[(p, *actions[t - (n - 1):t], a)]
                s[0] += value[p]
                s[1] += 1

    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        out = []
        for state in states:
            players, actions, boards = self._playout(state)
            value = self.terminal_value(state.returns(), self.utility)
            if self.policy in ("mast", "nst"):
                self._learn(players, actions, value)
            out.append(Evaluation(value, None, np.array(players, dtype=np.int64),
                                  np.array(actions, dtype=np.int64), boards=boards))
        return out
