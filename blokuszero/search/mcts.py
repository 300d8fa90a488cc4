"""The one MCTS loop: select -> expand -> evaluate -> backup, for every game and tree shape.

The loop knows no particular game, tree shape, selection rule, evaluator or enhancement; each
is a part passed in (mctx's ``search.py`` in spirit):

- the tree shape (:mod:`.shapes`: MaxN, Paranoid, BRS) lists a node's moves, plays them and
  shapes the backed-up value;
- the selection rule (:mod:`.selection`, :mod:`.rave`) scores the children available;
- the evaluator (:mod:`.evaluators`, or a network) values a leaf and may give priors;
- enhancements (:mod:`.enhancements`, root noise in :mod:`.root_policies`) seed new nodes and
  see every simulation.

Values live on the evaluator's scale ``value_bounds``; terminal returns are mapped there
from the game's ``[min_utility, max_utility]``.

Beyond turn-taking, the same loop handles:

- simultaneous moves: at a SIMULTANEOUS node every role draws its own action from its own
  rows of the node (decoupled, by Exp3: :mod:`.simultaneous`); the joint action leads to a
  child created when first played;
- chance nodes inside the tree: an outcome drawn by its probability, one child per outcome;
- hidden information (``determinized``): each simulation starts from
  ``state.sample_determinization(root_player, rng)`` (or an injected ``sampler``), nodes are
  keyed by the searching player's ``information_state_key``, a node's children are the union
  of the moves met under it, and selection takes only those legal in the simulation's
  determinization, with availability counts in place of parent visits (Cowling et al.'s
  single-observer ISMCTS).

Randomness: one numpy Generator per search (``rng``) draws the tree's tie-break seed, root noise,
determinizations, chance outcomes and Exp3's draws, and seeds numba's global generator at each
``begin()`` for the games' numba playouts; selection never touches numba's generator, so trees
searched side by side do not disturb each other.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from ..games.abilities import HasCompact, implements
from ..games.base import CHANCE, SIMULTANEOUS, TERMINAL, Game, State
from ..games.numba_random import seed_numba
from ..settings import Settings, setting
from .compiled import TIMED_CHUNK, compiled_parts, simulate
from .enhancements import Enhancement, Simulation
from .evaluators import Evaluation, Evaluator
from .root_policies import GumbelRoot, RootNoise
from .selection import SelectionRule
from .shapes import TREE_SHAPES, MaxN, TreeShape
from .simultaneous import Exp3
from .time_manager import WALL_CLOCK
from .tree import ROOT, SEEDED_VISITS, UNKNOWN_PLAYER, Tree, backup

_NO_MOVES = np.empty(0, np.int64)

#: ``sampler(root_state, player, rng)``: the state a simulation starts from.
Sampler = Callable[[State, int, np.random.Generator], State]


def clone_sampler(state: State, player: int, rng: np.random.Generator) -> State:
    """The root state itself (perfect information)."""
    return state.clone()


def determinization_sampler(state: State, player: int, rng: np.random.Generator) -> State:
    """A full state consistent with what ``player`` knows."""
    return state.sample_determinization(player, rng)


@nb.njit(cache=True)
def virtual_loss(visits, value_sum, mover, path, sign, loss) -> None:
    """Add (sign 1) or remove (sign -1) one pending visit that scores ``loss`` for each mover
    on ``path`` below the root (rows without a mover, joint children, count the visit only)."""
    for i in range(1, path.shape[0]):
        n = path[i]
        visits[n] += sign
        if mover[n] >= 0:
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
    movers: np.ndarray  # [K] the player making each (BRS opponent layers, simultaneous roles)
    visits: np.ndarray  # [K] N(root, a)
    values: np.ndarray  # [K, P] mean backed-up value vector (nan where unvisited)
    prior: np.ndarray  # [K] P(root, a) as searched (after noise)
    root_value: np.ndarray  # [P] mean value of the root
    simulations: int  # simulations run by this search
    tree_size: int  # rows in the tree afterwards
    policy: np.ndarray | None = None  # [K] the root policy's target (Gumbel's improved policy)
    action: int | None = None  # the root policy's move (Gumbel's); None: choose by visits


@nb.njit(cache=True)
def _match_children(mover: np.ndarray, action: np.ndarray, first: int, count: int,
                    movers: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which of the moves ``(movers, actions)`` no child of rows ``first:first + count``
    has yet, which of those children are among the moves), in one pass (a node has few
    children: np.isin's set-up would cost more)."""
    new = np.ones(actions.shape[0], np.bool_)
    present = np.zeros(count, np.bool_)
    for i in range(count):
        for j in range(actions.shape[0]):
            if action[first + i] == actions[j] and mover[first + i] == movers[j]:
                present[i] = True
                new[j] = False
                break
    return new, present


ROOT_POLICIES = ("visits", "gumbel")


@dataclass(frozen=True)
class MCTSConfig(Settings):
    """Search settings, each with its range: the one declaration that configs, presets and
    player specs read. Selection rule and evaluator are passed to :class:`MCTS` separately."""

    tree: str = setting("maxn", choices=TREE_SHAPES)  # maxn | paranoid | brs
    simulations: int = setting(800, low=0)  # budget per search (SPEC §3: 800)
    # seconds per search; stops at whichever budget ends first
    time_limit: float | None = setting(None, above=0)
    expand_threshold: int = setting(1, low=0)  # a leaf is expanded once it has this many visits (SPEC §2: 1)
    dirichlet_epsilon: float = setting(0.0, low=0, high=1)  # root noise weight (SPEC §3: 0.25 in self-play; 0 = off)
    dirichlet_alpha: float = setting(0.02, above=0)  # root noise concentration (SPEC §3: 0.02)
    reuse_tree: bool = setting(True)  # keep the subtree of the move played for the next search
    # The root visits reported (the move played) count visits that enhancements seeded
    # (search experience) too; False: real visits only.
    count_seeded: bool = setting(False)
    virtual_loss: bool = setting(False)  # count pending leaves as lost visits (several leaves per tree)
    # Leaves selected before one evaluator call (a network's batch); > 1 needs virtual_loss,
    # so that the leaves of a batch spread over the tree instead of repeating one path.
    leaves_per_batch: int = setting(1, low=1)
    determinized: bool = setting(False)  # hidden information: determinized search over information sets
    exp3_gamma: float = setting(0.1, low=0, high=1)  # exploration of Exp3 at simultaneous-move nodes
    # Run whole simulations in numba (search/compiled.py) when the game and the parts allow it
    # and it computes what the Python loop does; False: always the Python loop (for comparison).
    compiled: bool = setting(True)
    # visits: the children's visits decide the move and the target (AlphaZero's, with root
    # noise when dirichlet_epsilon > 0); gumbel: Gumbel's root (policies.GumbelRoot).
    root_policy: str = setting("visits", choices=ROOT_POLICIES)
    gumbel_considered: int = setting(16, low=1)  # m: root moves sampled by Gumbel-top-k (mctx: 16)
    gumbel_scale: float = setting(1.0, low=0)  # scale of the Gumbel noise (0: none, the prior's top-m)
    c_visit: float = setting(50.0, low=0)  # sigma(q) = (c_visit + max N) * c_scale * q (mctx: 50, 0.1)
    c_scale: float = setting(0.1, above=0)

    def __post_init__(self) -> None:
        super().__post_init__()  # each setting's type and range
        if self.simulations < 1 and self.time_limit is None:
            raise ValueError("a search needs simulations >= 1 or a time_limit")
        if self.root_policy == "gumbel":
            if self.simulations < 1:
                raise ValueError("the gumbel root policy halves a budget: it needs simulations >= 1")
            if self.dirichlet_epsilon > 0:
                raise ValueError("the gumbel root policy explores by its own noise: set "
                                 "dirichlet_epsilon to 0")
            if self.determinized:
                raise ValueError("the gumbel root policy needs perfect information (determinized: false)")
        if self.leaves_per_batch > 1 and not self.virtual_loss:
            raise ValueError("leaves_per_batch > 1 needs virtual_loss: true (without it every "
                             "leaf of a batch follows the same path)")


class MCTS:
    """Monte Carlo tree search over any game of the common interface.

    ``search(state)`` runs simulations from ``state`` and returns root statistics;
    ``advance(action)`` moves the root along an action actually played, keeping its subtree.
    All randomness flows from ``rng``. ``shape`` overrides ``config.tree``; ``enhancements``
    run besides those the rule reads (and root noise when ``config.dirichlet_epsilon > 0``);
    ``sampler`` overrides where simulations start (default: the root itself, or with
    ``config.determinized`` a determinization for the searching player). ``clock`` gives the
    seconds ``config.time_limit`` is measured in (tests drive a fake one); a timed search reads
    it once at its start, before the tree of the moves played since the last search is cut down
    to the kept subtree and the root is expanded (both in the budget), and then before each
    simulation (each batch of ``leaves_per_batch`` leaves, each chunk of compiled simulations),
    and stops at the first reading at or past its deadline once one simulation has run (a
    move needs a root with children).

    :meth:`advance` only notes the move played: the kept subtree is copied out when the tree is
    next read (by the next search, inside its budget and its player's move), never between
    moves, where no budget or clock of the player's would see it.
    """

    def __init__(self, game: Game, config: MCTSConfig, rule: SelectionRule, evaluator: Evaluator,
                 rng: np.random.Generator | int | None = None, *, shape: TreeShape | None = None,
                 enhancements: Sequence[Enhancement] = (), sampler: Sampler | None = None,
                 clock: Callable[[], float] = WALL_CLOCK) -> None:
        self.game = game
        self.clock = clock
        self.config = config
        self.rule = rule
        self.evaluator = evaluator
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.shape = shape if shape is not None else TREE_SHAPES[config.tree]
        parts = list(rule.enhancements) + [e for e in enhancements if e not in rule.enhancements]
        if config.dirichlet_epsilon > 0:
            parts.append(RootNoise(config.dirichlet_epsilon, config.dirichlet_alpha))
        self.enhancements: tuple[Enhancement, ...] = tuple(parts)
        self._moves_read = any(e.reads_moves for e in parts)
        self.root_policy = (GumbelRoot(config.gumbel_considered, config.gumbel_scale, config.c_visit,
                                       config.c_scale) if config.root_policy == "gumbel" else None)
        self._reach_hooks = tuple(e for e in parts if type(e).on_reach is not Enhancement.on_reach)
        if any(e.needs_boards for e in parts):
            if not hasattr(evaluator, "record_boards"):
                raise ValueError(f"an enhancement needs the playouts' positions, which "
                                 f"{type(evaluator).__name__} does not record")
            evaluator.record_boards = True
        self.sampler = sampler or (determinization_sampler if config.determinized else clone_sampler)
        self.utility = (float(game.min_utility), float(game.max_utility))
        self.joint_rule = Exp3(config.exp3_gamma)
        self._tree: Tree | None = None
        self._played: list[tuple[str, Any, int | None]] = []  # moves told since the tree's root: see advance()
        self.root_player = 0
        self.eval_seconds = 0.0  # time spent in the evaluator (benchmarks report the share)
        # An evaluator that gives priors to nodes expanded on the way down (PlayoutPriors).
        self._expansion_priors = type(evaluator).expansion is not Evaluator.expansion

    # ----------------------------------------------------------------- public
    def search(self, state: State, player: int | None = None, simulations: int | None = None,
               time_limit: float | None = None) -> SearchResult:
        """Run the configured number of simulations (or time) from ``state``; ``player``:
        the searching player (default: the one to move); ``simulations``, ``time_limit``: this
        search's budgets instead of the configured ones."""
        budget = self.config.simulations if simulations is None else simulations
        cfg = self.config
        seconds = cfg.time_limit if time_limit is None else time_limit
        deadline = None if seconds is None else self.clock() + seconds
        self.begin(state, player, budget)
        done = 0
        parts = compiled_parts(self, state)
        if parts is not None:
            scratch = state.clone()
            if deadline is None:
                done = simulate(self, state, budget, parts, scratch)
            while deadline is not None and (budget < 1 or done < budget) and (
                    self.clock() < deadline or done == 0):
                chunk = TIMED_CHUNK if budget < 1 else min(TIMED_CHUNK, budget - done)
                done += simulate(self, state, chunk, parts, scratch)
            return self.result(done)
        while (budget < 1 or done < budget) and (
                deadline is None or self.clock() < deadline or done == 0):
            # An unexpanded root gives every leaf of a batch the same path: expand it alone.
            count = cfg.leaves_per_batch if self.tree.is_expanded(ROOT) else 1
            count = count if budget < 1 else min(count, budget - done)
            leaves = [self.select_leaf(state) for _ in range(count)]
            evaluations = iter(self._evaluate([leaf.state for leaf in leaves if leaf.state is not None]))
            for leaf in leaves:
                self.complete(leaf, None if leaf.state is None else next(evaluations))
            done += count
        return self.result(done)

    def key(self, state: State) -> int:
        """The key of a node at ``state``: the position's, or under determinized search the
        searching player's information state."""
        if self.config.determinized:
            return state.information_state_key(self.root_player)
        return state.key()

    def begin(self, state: State, player: int | None = None, simulations: int | None = None) -> None:
        """Start a search from ``state``: reuse the tree if it is rooted there, else a new one.
        ``simulations``: the budget the caller will run (default: the configured one), which
        the Gumbel root schedules.

        :meth:`search` is ``begin``, then ``select_leaf`` / ``complete`` per simulation;
        callers that batch evaluations over many trees drive those steps themselves.
        """
        if state.is_terminal():
            raise ValueError("cannot search a terminal state")
        to_move = state.current_player()
        if to_move == CHANCE:
            raise ValueError("cannot search from a chance node: apply its outcome first")
        if to_move == SIMULTANEOUS and not isinstance(self.shape, MaxN) and player is None:
            raise ValueError(f"a {self.shape.name} tree needs a root player; a simultaneous-move "
                             f"root has none (search with player=..., or use maxn)")
        if self.config.determinized and to_move == SIMULTANEOUS and player is None:
            raise ValueError("determinized search at a simultaneous-move root needs player=...")
        if self.root_policy is not None and to_move == SIMULTANEOUS:
            raise ValueError("the gumbel root policy needs a turn-taking root, not simultaneous moves")
        self.root_player = to_move if player is None else player
        if implements(state, HasCompact):  # every simulation copies the root: a lean one is cheaper
            state.compact()
        key = self.key(state)
        new_tree = self.tree is None or not self.config.reuse_tree or self.tree.key[ROOT] != key
        if new_tree:
            self.tree = Tree(self.game.num_players, value_bounds=self.evaluator.value_bounds,
                             track_availability=self.config.determinized)
        self.tree.reach(ROOT, to_move, key)
        self.evaluator.start_search(self.game.num_players)
        self.tree.tie_seed = int(self.rng.integers(2**63))
        # The games' numba playouts draw from numba's global generator (they take no
        # generator): seeded here, so a rollout search is reproducible from its own seed.
        seed_numba(int(self.rng.integers(2**31)))
        for e in self.enhancements:
            e.begin(self.tree, self.game.num_players, self.game.num_actions, self.rng)
        if self.root_policy is not None:
            self.root_policy.begin(self.tree, self.config.simulations if simulations is None
                                   else simulations, self.rng)
        if new_tree:
            for e in self._reach_hooks:
                e.on_reach(self.tree, ROOT, state)
        if not self.evaluator.provides_priors and not self.tree.is_expanded(ROOT):
            self.expand(ROOT, state, self.expansion(state))  # rollouts need no evaluation

    def select_leaf(self, root_state: State) -> Leaf:
        """Descend from the root to a node to evaluate (expanding on the way as rollouts do).

        With ``virtual_loss`` the path counts as visited and lost until :meth:`complete`, so
        that further leaves selected before then go elsewhere.
        """
        tree, cfg, shape, rule = self.tree, self.config, self.shape, self.rule
        hidden = cfg.determinized
        state = self.sampler(root_state, self.root_player, self.rng)
        node = ROOT
        path = [ROOT]
        while True:
            to_move = state.current_player() if hidden else int(tree.to_move[node])
            if to_move == TERMINAL:
                value = self.evaluator.outcome(state, self.utility)
                to_evaluate, expand = None, False
                break
            if to_move == CHANCE:
                outcomes, probs = state.chance_outcomes()
                outcome = int(self.rng.choice(outcomes, p=probs))
                state.apply_action(outcome)
                node = tree.joint_child(node, (outcome,))
            else:
                if not tree.is_expanded(node):
                    if self.evaluator.provides_priors:
                        to_evaluate, value = state, None
                        expand = tree.real_visits(node) >= cfg.expand_threshold
                        break
                    if tree.real_visits(node) < cfg.expand_threshold:
                        to_evaluate, value, expand = state, None, False
                        break
                    self.expand(node, state, self.expansion(state))
                mask = self._available(node, state) if hidden else None
                if to_move == SIMULTANEOUS:
                    node = self._select_joint(node, state, path, mask)
                else:
                    node = (self.root_policy.select(tree) if node == ROOT and self.root_policy
                            else rule.select(tree, node, mask))
                    shape.play(state, int(tree.action[node]), int(tree.mover[node]), self.root_player)
            path.append(node)
            if tree.to_move[node] == UNKNOWN_PLAYER:
                tree.reach(node, state.current_player(), self.key(state))
                for e in self._reach_hooks:
                    e.on_reach(tree, node, state)
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
            self.expand(int(path[-1]), leaf.state, evaluation)
        value = evaluation.value
        if evaluation.utility:
            value = self.evaluator.terminal_value(value, self.utility)
        lo, hi = self.evaluator.value_bounds
        value = self.shape.shape_value(value, self.root_player, lo, hi)
        backup(tree.visits, tree.value_sum, path, value)
        if tree.joint:  # simultaneous-move (or chance) nodes on some path: Exp3's statistics
            self.joint_rule.update(tree, path, value)
        if not self.enhancements:
            return
        if not self._moves_read:  # e.g. UCB1-tuned's squared values: the path and value only
            simulation = Simulation(path, _NO_MOVES, _NO_MOVES, value, 0, evaluation.boards)
            for e in self.enhancements:
                e.on_backup(tree, simulation)
            return
        tree_moves = path[1:]
        if tree.joint:  # joint and chance children carry no move of their own
            tree_moves = tree_moves[tree.mover[tree_moves] >= 0]
        players = tree.mover[tree_moves].astype(np.int64)
        actions = tree.action[tree_moves].astype(np.int64)
        if evaluation.players is not None:
            players = np.concatenate([players, evaluation.players.astype(np.int64)])
            actions = np.concatenate([actions, evaluation.actions.astype(np.int64)])
        simulation = Simulation(path, players, actions, value, len(tree_moves), evaluation.boards)
        for e in self.enhancements:
            e.on_backup(tree, simulation)

    @property
    def tree(self) -> Tree | None:
        """The search tree, rooted at the position after the moves :meth:`advance` was told of
        (the kept subtree is copied out here, at the first reading after them)."""
        if self._played:
            played, self._played = self._played, []
            for kind, move, player in played:
                if self._tree is None:
                    break
                self._keep(self._tree.child_with_action(ROOT, move, player) if kind == "turn"
                           else self._tree.joint.get(ROOT, {}).get(move, -1))
        return self._tree

    @tree.setter
    def tree(self, tree: Tree | None) -> None:
        self._tree, self._played = tree, []

    def advance(self, action: int, player: int | None = None) -> None:
        """The game moved on by ``action``: keep the matching subtree (or forget the tree) when
        the tree is next read."""
        if self._tree is not None and self.config.reuse_tree:
            self._played.append(("turn", action, player))

    def advance_joint(self, joint: Sequence[int]) -> None:
        """The game moved on by the joint action ``joint`` (a simultaneous-move root)."""
        if self._tree is not None and self.config.reuse_tree:
            self._played.append(("joint", tuple(int(a) for a in joint), None))

    def result(self, simulations: int) -> SearchResult:
        """Root statistics now (``simulations``: how many this search ran)."""
        tree = self.tree
        kids = tree.children(ROOT)
        visits = tree.visits[kids].copy()
        if SEEDED_VISITS in tree.extra and not self.config.count_seeded:
            # report real visits: the move played is the most tried
            visits -= tree.extra[SEEDED_VISITS][kids].astype(visits.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = tree.value_sum[kids] / tree.visits[kids][:, None]  # seeded values count
        policy = action = None
        if self.root_policy is not None and len(kids):
            policy, action = self.root_policy.policy(tree), self.root_policy.action(tree)
        return SearchResult(
            actions=tree.action[kids].copy(), movers=tree.mover[kids].copy(), visits=visits,
            values=values, prior=tree.prior[kids].copy(),
            root_value=tree.value_sum[ROOT] / max(tree.visits[ROOT], 1),
            simulations=simulations, tree_size=tree.size, policy=policy, action=action)

    def expansion(self, state: State) -> Evaluation | None:
        """The evaluator's priors for expanding a node at ``state`` on the way down (None:
        uniform); the state is left as it was."""
        if not self._expansion_priors:
            return None
        start = time.perf_counter()
        evaluation = self.evaluator.expansion(state.clone())
        self.eval_seconds += time.perf_counter() - start
        return evaluation

    # ---------------------------------------------------------------- helpers
    def _keep(self, child: int) -> None:
        if child < 0 or not (self._tree.is_expanded(child) or child in self._tree.joint):
            self._tree = None
            return
        # The next search checks the new root's key against the state it is given.
        self._tree = self._tree.subtree(child)

    def _prior(self, state: State, actions: np.ndarray, movers: np.ndarray,
               evaluation: Evaluation | None) -> np.ndarray:
        """Priors of the children: the evaluation's, mapped by action id (it is aligned with
        ``state.legal_actions()``), renormalised over the children; else uniform (per role
        at a simultaneous-move node)."""
        if state.current_player() == SIMULTANEOUS:
            return 1.0 / np.bincount(movers)[movers]
        prior = None if evaluation is None else evaluation.prior
        if prior is None or len(actions) == 0:
            return np.full(len(actions), 1.0 / max(len(actions), 1))
        if len(prior) == len(actions):  # the children are the legal actions
            return prior
        legal = state.legal_actions()
        index = np.searchsorted(legal, actions)
        known = (index < len(legal)) & (legal[np.minimum(index, len(legal) - 1)] == actions)
        if np.any(movers != state.current_player()) or not known.any():  # BRS layer: none
            return np.full(len(actions), 1.0 / len(actions))
        mapped = np.where(known, prior[np.minimum(index, len(legal) - 1)], 0.0)
        total = mapped.sum()
        return mapped / total if total > 0 else np.full(len(actions), 1.0 / len(actions))

    def expand(self, node: int, state: State, evaluation: Evaluation | None) -> None:
        """Give ``node`` (at ``state``) its children, with ``evaluation``'s priors (None: uniform)."""
        actions, movers = self.shape.children(state, self.root_player, self.game.num_players)
        self.tree.expand(node, actions, movers, self._prior(state, actions, movers, evaluation))
        for e in self.enhancements:
            e.on_expand(self.tree, node, state)
        if node == ROOT and self.root_policy is not None:
            self.root_policy.on_expand(self.tree)

    def _available(self, node: int, state: State) -> np.ndarray:
        """Determinized search: the children of ``node`` legal in this simulation's state, after
        adding those not met before; counts their availability."""
        tree = self.tree
        actions, movers = self.shape.children(state, self.root_player, self.game.num_players)
        first, count = int(tree.first_child[node]), int(tree.num_children[node])
        new, mask = _match_children(tree.mover, tree.action, first, count, movers, actions)
        if new.any():
            tree.add_children(node, actions[new], movers[new],
                              np.full(int(new.sum()), 1.0 / (count + int(new.sum()))))
            for e in self.enhancements:
                e.on_expand(tree, node, state)
            first, count = int(tree.first_child[node]), int(tree.num_children[node])
            _, mask = _match_children(tree.mover, tree.action, first, count, movers, actions)
        tree.avail[first:first + count] += mask
        return mask

    def _select_joint(self, node: int, state: State, path: list[int], mask: np.ndarray | None) -> int:
        """Decoupled selection at a simultaneous-move node: each role draws from its own rows
        (:class:`~.simultaneous.Exp3`); the rows join the path (their statistics are the
        roles'), then the joint child."""
        tree = self.tree
        first, count = int(tree.first_child[node]), int(tree.num_children[node])
        movers = tree.mover[first:first + count]
        joint = []
        for p in range(self.game.num_players):
            mine = movers == p
            if mask is not None:
                mine &= mask
            row = self.joint_rule.select(tree, node, mine, self.rng)
            joint.append(int(tree.action[row]))
            path.append(row)
        state.apply_joint_action(joint)
        return tree.joint_child(node, tuple(joint))

    def _evaluate(self, states: list[State]) -> list[Evaluation]:
        if not states:
            return []
        start = time.perf_counter()
        evaluations = self.evaluator.evaluate(states)
        self.eval_seconds += time.perf_counter() - start
        return evaluations
