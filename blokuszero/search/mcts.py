"""The one MCTS loop: select -> expand -> evaluate -> backup, for every game and tree shape.

Tree shapes (SPEC §2):

- ``maxn``: each player maximises its own entry of the value vector.
- ``paranoid``: every opponent minimises the root player's value. The backup replaces
  the value vector by ``v'[root] = v[root]`` and ``v'[o] = lo + hi - v[root]`` for the
  opponents, so the MaxN rule on ``v'`` is the paranoid rule.
- ``brs`` (Best-Reply Search): paranoid values, and the opponents' turns are merged into
  one layer whose children are the moves of every opponent that can move; after it the
  root player moves again (needs the game's ``apply_action_for``).

The selection rule, the evaluator and the tree shape are independent parts; the loop
knows nothing of any particular game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..games.base import TERMINAL, Game, State
from .evaluators import Evaluation, Evaluator
from .selection import SelectionRule
from .tree import ROOT, UNKNOWN_PLAYER, Tree, backup

TREE_SHAPES = ("maxn", "paranoid", "brs")


@nb.njit(cache=True)
def seed_numba(seed: int) -> None:
    """Seed numba's generator (tie-breaks in selection, fast playouts of the games)."""
    np.random.seed(seed)


@nb.njit(cache=True)
def virtual_loss(visits, value_sum, mover, path, sign, loss) -> None:
    """Add (sign 1) or remove (sign -1) one pending visit that scores ``loss`` for each mover
    on ``path`` below the root."""
    for i in range(1, path.shape[0]):
        n = path[i]
        visits[n] += sign
        value_sum[n, mover[n]] += sign * loss


@dataclass
class Leaf:
    """A simulation waiting for its evaluation."""

    path: np.ndarray  # [D] int64 nodes from the root
    state: State | None  # the state to evaluate; None when ``value`` is known (terminal)
    value: np.ndarray | None  # the terminal value on the evaluator's scale
    expand: bool  # expand the leaf with the evaluation's priors


@dataclass(frozen=True)
class SearchResult:
    """Root statistics after a search; arrays are aligned with ``actions``."""

    actions: np.ndarray  # [K] root moves
    movers: np.ndarray  # [K] the player making each (differs only in BRS opponent layers)
    visits: np.ndarray  # [K] N(root, a)
    values: np.ndarray  # [K, P] mean backed-up value vector (nan where unvisited)
    prior: np.ndarray  # [K] P(root, a) as searched (after noise)
    root_value: np.ndarray  # [P] mean value of the root
    simulations: int  # simulations run by this search
    tree_size: int  # nodes in the tree afterwards


@dataclass(frozen=True)
class MCTSConfig:
    """Search settings. Selection rule and evaluator are passed to :class:`MCTS` separately."""

    tree: str = "maxn"  # maxn | paranoid | brs
    simulations: int = 800  # budget per search (SPEC §3: 800)
    time_limit: float | None = None  # seconds per search; stops at whichever budget ends first
    expand_threshold: int = 1  # a leaf is expanded once it has this many visits (SPEC §2: 1)
    dirichlet_epsilon: float = 0.0  # root noise weight (SPEC §3: 0.25 in self-play; 0 = off)
    dirichlet_alpha: float = 0.02  # root noise concentration (SPEC §3: 0.02)
    reuse_tree: bool = True  # keep the subtree of the move played for the next search
    virtual_loss: bool = False  # count pending leaves as lost visits (several leaves per tree)

    def __post_init__(self) -> None:
        if self.tree not in TREE_SHAPES:
            raise ValueError(f"tree shape {self.tree!r} is not one of {TREE_SHAPES}")
        if self.simulations < 1 and self.time_limit is None:
            raise ValueError("a search needs simulations >= 1 or a time_limit")
        if self.expand_threshold < 0:
            raise ValueError(f"expand_threshold must be >= 0, not {self.expand_threshold}")


class MCTS:
    """Monte Carlo tree search over any game of the common interface.

    ``search(state)`` runs simulations from ``state`` and returns root statistics;
    ``advance(action)`` moves the root along an action actually played, keeping its subtree.
    All randomness flows from ``rng``.
    """

    def __init__(self, game: Game, config: MCTSConfig, rule: SelectionRule, evaluator: Evaluator,
                 rng: np.random.Generator | int | None = None) -> None:
        self.game = game
        self.config = config
        self.rule = rule
        self.evaluator = evaluator
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.tree: Tree | None = None
        self._noised = False
        self.root_player = 0
        self.eval_seconds = 0.0  # time spent in the evaluator (benchmarks report the share)

    # ----------------------------------------------------------------- public
    def search(self, state: State) -> SearchResult:
        """Run the configured number of simulations (or time) from ``state``."""
        self.begin(state)
        cfg = self.config
        deadline = None if cfg.time_limit is None else time.perf_counter() + cfg.time_limit
        done = 0
        while (cfg.simulations < 1 or done < cfg.simulations) and (
                deadline is None or time.perf_counter() < deadline):
            leaf = self.select_leaf(state)
            self.complete(leaf, None if leaf.state is None else self._evaluate(leaf.state))
            done += 1
        return self.result(done)

    def begin(self, state: State) -> None:
        """Start a search from ``state``: reuse the tree if it is rooted there, else a new one.

        :meth:`search` is ``begin``, then ``select_leaf`` / ``complete`` per simulation;
        callers that batch evaluations over many trees drive those steps themselves.
        """
        if state.is_terminal():
            raise ValueError("cannot search a terminal state")
        if self.tree is None or not self.config.reuse_tree or self.tree.key[ROOT] != state.key():
            self.tree = Tree(self.game.num_players)
            self._noised = False
        self.root_player = state.current_player()
        self.tree.reach(ROOT, self.root_player, state.key())
        seed_numba(int(self.rng.integers(2**31)))
        self.rule.reset(self.game.num_players, self.game.num_actions)
        if not self.evaluator.provides_priors and not self.tree.is_expanded(ROOT):
            self._expand(ROOT, state, None)  # rollouts need no evaluation to expand

    def select_leaf(self, root_state: State) -> Leaf:
        """Descend from the root to a node to evaluate (expanding on the way as rollouts do).

        With ``virtual_loss`` the path counts as visited and lost until :meth:`complete`, so
        that further leaves selected before then go elsewhere.
        """
        tree, cfg = self.tree, self.config
        if cfg.dirichlet_epsilon > 0 and not self._noised and tree.is_expanded(ROOT):
            self._add_root_noise()
        state = root_state.clone()
        node = ROOT
        path = [ROOT]
        while True:
            if tree.to_move[node] == TERMINAL:
                to_evaluate, value, expand = None, self.evaluator.terminal_value(state.returns()), False
                break
            if not tree.is_expanded(node):
                if self.evaluator.provides_priors:
                    to_evaluate, value, expand = state, None, tree.visits[node] >= cfg.expand_threshold
                    break
                if tree.visits[node] < cfg.expand_threshold:
                    to_evaluate, value, expand = state, None, False
                    break
                self._expand(node, state, None)
            node = self.rule.select(tree, node)
            self._play(state, node)
            path.append(node)
            if tree.to_move[node] == UNKNOWN_PLAYER:
                tree.reach(node, state.current_player(), state.key())
        leaf = Leaf(np.array(path, dtype=np.int64), to_evaluate, value, expand)
        if cfg.virtual_loss:
            virtual_loss(tree.visits, tree.value_sum, tree.mover, leaf.path, 1,
                         self.evaluator.value_bounds[0])
        return leaf

    def complete(self, leaf: Leaf, evaluation: Evaluation | None) -> None:
        """Finish a simulation: expand the leaf with the evaluation's priors, back up its value."""
        tree = self.tree
        path = leaf.path
        if self.config.virtual_loss:
            virtual_loss(tree.visits, tree.value_sum, tree.mover, path, -1,
                         self.evaluator.value_bounds[0])
        if leaf.value is not None:
            evaluation = Evaluation(leaf.value)
        elif leaf.expand and not tree.is_expanded(int(path[-1])):  # another leaf may have expanded it
            self._expand(int(path[-1]), leaf.state, evaluation)
        value = self._shape_value(evaluation.value)
        backup(tree.visits, tree.value_sum, path, value)
        tree_moves = path[1:]
        players = tree.mover[tree_moves].astype(np.int64)
        actions = tree.action[tree_moves].astype(np.int64)
        if evaluation.players is not None:
            players = np.concatenate([players, evaluation.players.astype(np.int64)])
            actions = np.concatenate([actions, evaluation.actions.astype(np.int64)])
        self.rule.observe(tree, path, players, actions, value)

    def advance(self, action: int, player: int | None = None) -> None:
        """The game moved on by ``action``: keep the matching subtree (or forget the tree)."""
        if self.tree is None or not self.config.reuse_tree:
            return
        child = self.tree.child_with_action(ROOT, action, player)
        if child < 0 or not self.tree.is_expanded(child):
            self.tree = None
            return
        # The next search checks the new root's key against the state it is given.
        self.tree = self.tree.subtree(child)
        self._noised = False

    # ---------------------------------------------------------------- helpers
    def _children_of(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """(actions, movers) of the moves at ``state`` in this tree shape."""
        p = state.current_player()
        if self.config.tree == "brs" and p != self.root_player:
            moves = [(o, state.legal_actions(o)) for o in range(self.game.num_players)
                     if o != self.root_player]
            actions = np.concatenate([a for _, a in moves])
            movers = np.concatenate([np.full(len(a), o) for o, a in moves])
            return actions, movers
        # A game may narrow the moves worth searching (Go: no filling of one's own eyes).
        actions = state.search_actions() if hasattr(state, "search_actions") else state.legal_actions()
        return actions, np.full(len(actions), p)

    def _expand(self, node: int, state: State, evaluation: Evaluation | None) -> None:
        actions, movers = self._children_of(state)
        if evaluation is not None and evaluation.prior is not None and len(evaluation.prior) == len(actions):
            prior = evaluation.prior
        else:
            prior = np.full(len(actions), 1.0 / len(actions))
        self.tree.expand(node, actions, movers, prior)

    def _add_root_noise(self) -> None:
        kids = self.tree.children(ROOT)
        noise = self.rng.dirichlet(np.full(len(kids), self.config.dirichlet_alpha))
        eps = self.config.dirichlet_epsilon
        self.tree.prior[kids] = (1 - eps) * self.tree.prior[kids] + eps * noise
        self._noised = True

    def _play(self, state: State, child: int) -> None:
        mover, action = int(self.tree.mover[child]), int(self.tree.action[child])
        if self.config.tree == "brs" and mover != self.root_player:
            state.apply_action_for(mover, action, self.root_player)
        else:
            state.apply_action(action)

    def _shape_value(self, value: np.ndarray) -> np.ndarray:
        if self.config.tree == "maxn":
            return value
        lo, hi = self.evaluator.value_bounds
        shaped = np.full_like(value, lo + hi - value[self.root_player])
        shaped[self.root_player] = value[self.root_player]
        return shaped

    def _evaluate(self, state: State) -> Evaluation:
        start = time.perf_counter()
        evaluation = self.evaluator.evaluate([state])[0]
        self.eval_seconds += time.perf_counter() - start
        return evaluation

    def result(self, simulations: int) -> SearchResult:
        """Root statistics now (``simulations``: how many this search ran)."""
        tree = self.tree
        kids = tree.children(ROOT)
        visits = tree.visits[kids].copy()
        with np.errstate(invalid="ignore", divide="ignore"):
            values = tree.value_sum[kids] / visits[:, None]
        return SearchResult(
            actions=tree.action[kids].copy(), movers=tree.mover[kids].copy(), visits=visits,
            values=values, prior=tree.prior[kids].copy(),
            root_value=tree.value_sum[ROOT] / max(tree.visits[ROOT], 1),
            simulations=simulations, tree_size=tree.size)


def choose_action(result: SearchResult, temperature: float = 0.0,
                  rng: np.random.Generator | None = None) -> int:
    """A root move: most visits (temperature 0; ties to the better mean value for its mover),
    else sampled with probability proportional to ``visits ** (1 / temperature)``."""
    if temperature > 0:
        weights = result.visits.astype(np.float64) ** (1.0 / temperature)
        return int(result.actions[(rng or np.random.default_rng()).choice(len(weights), p=weights / weights.sum())])
    own = np.nan_to_num(result.values[np.arange(len(result.actions)), result.movers], nan=-np.inf)
    best = np.lexsort((-own, -result.visits))[0]
    return int(result.actions[best])
