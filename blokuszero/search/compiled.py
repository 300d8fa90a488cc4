"""The MCTS loop compiled whole: MaxN simulations over the game's numba playouts, no Python per
simulation.

:class:`~.mcts.MCTS` hands its simulations to :func:`run_simulations` when the search is one this
kernel computes exactly as the Python loop does (:func:`compiled_parts`): a MaxN tree, UCB1 or
UCB1 with Progressive History (Nijssen & Winands) or PUCT, the game's own numba playouts
(:class:`~.evaluators.RolloutEvaluator`, or :class:`~.evaluators.PlayoutPriors` with a network's
priors for the nodes it expands; any of its rewards), perfect information, no root noise, no
virtual loss, no further enhancements, and a game that implements the numba-level interface
(:mod:`blokuszero.games.kernels`). The kernel grows the same tree rows in the same order, makes
the same changes to the position and draws from numba's generator in the same order, so a seeded
search gives the same tree either way (``tests/test_compiled_search.py`` checks it move by move).

The tree and the history table are the :class:`~.tree.Tree`'s and the rule's own arrays,
changed in place; when an expansion needs more rows than the tree has, or priors from the
evaluator, the kernel stops before that simulation changes anything and says so; the caller grows
the tree or expands the node with the evaluator's priors, and calls again (the simulation then
takes the same path, as nothing on it changed).

numba caches the kernel with the game's kernels compiled into it; the cache directory is keyed on
the whole package's sources (:mod:`blokuszero.numba_cache`), so a changed game kernel is compiled in.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..games import kernels as K
from ..games.abilities import HasNumbaKernels, implements
from ..games.base import TERMINAL, State
from .enhancements import history_arrays
from .evaluators import WIN, PlayoutPriors, RolloutEvaluator, reward_values
from .puct import puct_select
from .selection import PUCT, UCB1, ProgressiveHistory
from .shapes import MaxN, TreeShape
from .tree import NOT_EXPANDED, UNKNOWN_PLAYER, Tree
from .ucb import progressive_history_select, ucb1_select

#: Simulations per kernel call under a time budget (the clock is read between calls).
TIMED_CHUNK = 16
#: The selection rules the kernel computes.
UCB1_RULE, PROGRESSIVE_HISTORY, PUCT_RULE = 0, 1, 2


@nb.njit(cache=True)
def run_simulations(root, scratch, tables, policy, epsilon, parent, action, mover, prior, visits,
                    value_sum, first_child, num_children, to_move, key, avail, size,
                    hist_sum, hist_count, rule, tie_seed, c, w, c_base, c_init, q_init,
                    q_from_parent, lo, hi, u_lo, u_hi, reward, score_stats, expand_threshold, ask_priors,
                    expanded, simulations, num_actions, max_length):
    """Run up to ``simulations`` MaxN simulations from ``root`` (a game state, unchanged).

    Args:
      root, scratch, tables: the root position, a position to simulate in, the game's tables.
      policy, epsilon: the game's playout policy code and its epsilon.
      parent .. avail: the tree's row arrays (:class:`~.tree.Tree`), changed in place.
      size: the tree's rows in use.
      hist_sum, hist_count: Progressive History's table [P, A] (used by its rule).
      rule: the selection rule, UCB1 (C = ``c``), PROGRESSIVE_HISTORY (also W = ``w``) or PUCT
        (``c_base``, ``c_init``, ``q_init``, ``q_from_parent``, as :func:`.puct.puct_scores`).
      tie_seed: the tree's tie-break seed.
      lo, hi: the value scale; u_lo, u_hi: the game's utility range.
      reward, score_stats: what a game's end is worth (the evaluator's reward's code: WIN, the
        returns; else :func:`.evaluators.reward_values` of the scores) and its statistics, in place.
      expand_threshold: visits before a leaf is expanded.
      ask_priors: stop at a node to expand and return it, for the caller to expand with priors.
      expanded: [1 + D] the count, then the nodes the caller expanded for the simulation under
        way; the kernel lists their moves again on its way through, as the Python loop lists
        them in the simulation's position (Blokus keeps its move lists in the position, so the
        playout depends on it), and empties the list when the simulation ends.
      num_actions, max_length: the game's action space and longest game (buffer sizes).

    Returns:
      (simulations done, rows in use, rows needed, node to expand): the last two are 0 and -1
      unless the kernel stopped before a simulation changed anything, because an expansion needs
      more rows than the arrays hold or (``ask_priors``) the caller's priors.
    """
    num_players = value_sum.shape[1]
    capacity = parent.shape[0]
    legal = np.empty(num_actions, np.int64)
    path = np.empty(max_length + 1, np.int64)
    players = np.empty(max_length, np.int64)
    actions = np.empty(max_length, np.int64)
    ret = np.empty(num_players)
    value = np.empty(num_players)
    done = 0
    while done < simulations:
        K.state_copy(scratch, root, tables)
        node = 0
        depth = 0
        path[0] = 0
        while True:
            p = to_move[node]
            if p == TERMINAL:
                break
            for i in range(expanded[0]):
                if expanded[1 + i] == node:
                    K.state_search_actions(scratch, tables, legal)
            if first_child[node] == NOT_EXPANDED:
                if visits[node] < expand_threshold:
                    break
                if ask_priors:
                    return done, size, 0, node
                n = K.state_search_actions(scratch, tables, legal)
                if size + n > capacity:
                    return done, size, size + n, -1
                share = np.float32(1.0 / max(n, 1))
                for i in range(size, size + n):
                    parent[i] = node
                    action[i] = legal[i - size]
                    mover[i] = p
                    prior[i] = share
                    visits[i] = 0
                    value_sum[i, :] = 0.0
                    first_child[i] = NOT_EXPANDED
                    num_children[i] = 0
                    to_move[i] = UNKNOWN_PLAYER
                    key[i] = 0
                    avail[i] = 0
                first_child[node] = size
                num_children[node] = n
                size += n
            if num_children[node] == 0:
                raise ValueError("a non-terminal position without moves to search")
            if rule == PROGRESSIVE_HISTORY:
                child = first_child[node] + progressive_history_select(
                    tie_seed, node, visits[node], first_child[node], num_children[node], visits,
                    value_sum, mover, action, visits[node], c, w, hist_sum, hist_count, lo, hi,
                    avail, False)
            elif rule == PUCT_RULE:
                child = first_child[node] + puct_select(
                    tie_seed, node, visits[node], node, first_child[node], num_children[node],
                    visits, value_sum, mover, prior, c_base, c_init, q_init, q_from_parent,
                    avail, False)
            else:
                child = first_child[node] + ucb1_select(
                    tie_seed, node, visits[node], first_child[node], num_children[node], visits,
                    value_sum, mover, visits[node], c, lo, hi, avail, False)
            K.state_apply(scratch, tables, action[child])
            node = child
            depth += 1
            path[depth] = node
            if to_move[node] == UNKNOWN_PLAYER:
                to_move[node] = K.state_to_move(scratch, tables)
                key[node] = K.state_key(scratch, tables)
        played = 0
        if to_move[node] != TERMINAL:
            played = K.state_playout(scratch, tables, policy, epsilon, players, actions)
        if reward != WIN:
            K.state_scores(scratch, tables, ret)
            reward_values(ret, reward, score_stats, lo, hi, value)
        else:
            K.state_returns(scratch, tables, ret)
            for q in range(num_players):
                # The evaluator's terminal_value, operation for operation.
                value[q] = lo + (ret[q] - u_lo) * (hi - lo) / (u_hi - u_lo)
        for i in range(depth + 1):
            n = path[i]
            visits[n] += 1
            for q in range(num_players):
                value_sum[n, q] += value[q]
        if rule == PROGRESSIVE_HISTORY:  # tree moves first, then the playout's, as HistoryTable.on_backup
            for i in range(1, depth + 1):
                n = path[i]
                q = mover[n]
                hist_sum[q, action[n]] += value[q]
                hist_count[q, action[n]] += 1
            for i in range(played):
                q = players[i]
                hist_sum[q, actions[i]] += value[q]
                hist_count[q, actions[i]] += 1
        expanded[0] = 0
        done += 1
    return done, size, 0, -1


def compiled_parts(mcts, state: State) -> tuple | None:
    """The kernel's settings for ``mcts``'s next search at ``state`` (what :func:`simulate`
    passes on) when that search can run in :func:`run_simulations` and compute what the Python
    loop computes; None otherwise."""
    cfg, rule, evaluator = mcts.config, mcts.rule, mcts.evaluator
    if (not cfg.compiled or cfg.determinized or cfg.virtual_loss or cfg.dirichlet_epsilon > 0
            or mcts.root_policy is not None or type(mcts.shape) not in (MaxN, TreeShape)
            or type(evaluator) not in (RolloutEvaluator, PlayoutPriors)
            or type(rule) not in (UCB1, ProgressiveHistory, PUCT)
            or mcts.enhancements != rule.enhancements or not implements(state, HasNumbaKernels)):
        return None
    tree: Tree = mcts.tree
    if tree.joint or tree.extra or tree.track_availability:
        return None
    policy = state.playout_code(evaluator.policy)
    ask = type(evaluator) is PlayoutPriors
    hist_sum, hist_count = history_arrays(1, 1)  # unused, of the same array type: one kernel
    if type(rule) is PUCT:
        from_parent = rule.q_init == "parent"
        return (PUCT_RULE, 0.0, 0.0, float(rule.c_base), float(rule.c_init),
                0.0 if from_parent else float(rule.q_init), from_parent, hist_sum, hist_count,
                policy, ask)
    if type(rule) is ProgressiveHistory:
        hist_sum, hist_count = rule.history.hist_sum, rule.history.hist_count
    code = PROGRESSIVE_HISTORY if type(rule) is ProgressiveHistory else UCB1_RULE
    return (code, float(rule.c), float(getattr(rule, "w", 0.0)), 0.0, 0.0, 0.0, False, hist_sum,
            hist_count, policy, ask)


def simulate(mcts, state: State, simulations: int, parts: tuple, scratch: State) -> int:
    """Run ``simulations`` simulations of ``mcts``'s search (begun at ``state``) in the kernel,
    growing the tree and expanding nodes with the evaluator's priors as it asks; ``scratch``: a
    position to simulate in. Returns how many ran."""
    rule, c, w, c_base, c_init, q_init, from_parent, hist_sum, hist_count, policy, ask = parts
    tree = mcts.tree
    root, tables = state.numba_state()
    work, _ = scratch.numba_state()
    lo, hi = tree.value_bounds
    u_lo, u_hi = mcts.utility
    expanded = np.zeros(mcts.game.max_game_length + 2, np.int64)
    total = 0
    while total < simulations:
        done, tree.size, need, node = run_simulations(
            root, work, tables, policy, float(mcts.evaluator.epsilon), tree.parent, tree.action,
            tree.mover, tree.prior, tree.visits, tree.value_sum, tree.first_child,
            tree.num_children, tree.to_move, tree.key, tree.avail, tree.size, hist_sum, hist_count,
            rule, tree.tie_seed, c, w, c_base, c_init, q_init, from_parent, lo, hi, u_lo, u_hi,
            mcts.evaluator.reward_code, mcts.evaluator.score_stats,
            mcts.config.expand_threshold, ask, expanded, simulations - total, mcts.game.num_actions,
            mcts.game.max_game_length)
        total += done
        if need:
            tree.reserve(need)
        if node >= 0:
            at = position(state, tree, node)
            mcts.expand(node, at, mcts.expansion(at))
            expanded[0] += 1
            expanded[expanded[0]] = node
    return total


def position(root: State, tree: Tree, node: int) -> State:
    """The position at tree row ``node`` below ``root``: a copy of the root with the moves on
    the way played."""
    state = root.clone()
    for row in reversed(tree.ancestors(node)[:-1]):  # the root's own row plays no move
        state.apply_action(int(tree.action[row]))
    return state
