"""RAVE as a selection rule of the core, with the local-similarity weights of SPEC §4.

AMAF statistics of a move a at node s live in the row of the child (s, a) of the tree, in
per-row arrays of the tree gathered by the :class:`AmafStatistics` enhancement (cleared at
each search); the :class:`RAVE` rule reads them. After every simulation,
:func:`rave_update` credits each child of each node on the path whose move the same player
played later in the simulation (tree part and playout part alike). AMAF assumes turn-taking:
one move per tree edge (no simultaneous-move nodes).

Two forms of the value of a child (SPEC §4; n = N(s, a), X its mean value):

- ``gelly_silver``: ``beta RAVE + (1 - beta) UCB`` with ``beta = k_rave / (3 n + k_rave)``,
  ``UCB = X + c sqrt(log N(s) / n)`` and ``RAVE = X' + c_rave sqrt(log m(s) / m(s, a))``,
  X' the AMAF mean over the m(s, a) simulations that played a, m(s) = sum_a m(s, a);
- ``fuego``: ``beta' X'' + (1 - beta') X`` with
  ``beta' = m' / (n (1 / rave_weight_initial + m' / rave_weight_final) + m')``,
  ``X'' = sum_p alpha_p W_p / m'``, ``m' = sum_p alpha_p`` and the per-playout weight
  ``alpha_p = 2 - (first_p - i_p) / (len_p - i_p)`` (i_p depth of s, first_p depth where a was
  first played, len_p depth of the end), plus an optional bias ``c sqrt(log N(s) / n)``.

Local similarity (the paper's method): a point's change since the root is 0 (none), 1 (a stone
of the root player was played there) or 2 (an opponent's stone); only the first change is kept,
captures are ignored, as in the paper. The pattern id of a move is its 8 neighbours' changes
read as a base-3 number in [0, 3^8). Each child stores the id of its move at its node; a
playout that played the move with the same id weighs alpha_p * k, otherwise alpha_p * l.
With ``beta_unweighted`` beta' uses the unweighted alpha_p (the paper's second variant).
(k, l) = (1, 1) is plain RAVE and skips the pattern computation.

The pattern ids are computed from the simulation's moves alone (the changes depend only on
which player first played where), so the rule needs no help from the game beyond its table
of 8 neighbours per action.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .enhancements import Enhancement, Simulation
from .selection import SelectionRule
from .tie_break import argmax_random_ties
from .tree import ROOT, Tree

FORMS = ("fuego", "gelly_silver")


@nb.njit(cache=True, inline="always")
def _pattern_id(neighbours, change, a):
    pid = 0
    weight = 1
    for d in range(8):
        q = neighbours[a, d]
        if q >= 0:
            pid += change[q] * weight
        weight *= 3
    return pid


@nb.njit(cache=True)
def rave_update(path, first_child, num_children, mover, action, players, actions, value,
                root_player, neighbours, use_patterns, k, l, distance_weight, skip_action,
                amaf_w, amaf_wx, amaf_u, child_pattern, patterned, first_seen, move_pattern,
                change) -> None:
    """Credit the AMAF statistics of one simulation (see the module docstring).

    ``path`` [D] tree nodes from the root; ``players``, ``actions`` [T] every move from the root
    (move j is played at depth j); ``value`` [P] the backed-up value. ``amaf_w`` (sum of weighted
    alpha_p), ``amaf_wx`` (sum of weighted alpha_p W_p), ``amaf_u`` (sum of unweighted alpha_p),
    ``child_pattern`` are per tree node; ``patterned`` [N] marks nodes whose children's pattern
    ids are stored. Scratch: ``first_seen`` [P, A] all -1, ``move_pattern`` [>= T],
    ``change`` [A] all 0; both scratch tables are left as found.
    """
    depth = path.shape[0]
    t_len = actions.shape[0]
    if use_patterns:
        for j in range(t_len):
            if j < depth:
                node = path[j]
                f = first_child[node]
                if f >= 0 and not patterned[node]:
                    for c in range(f, f + num_children[node]):
                        child_pattern[c] = _pattern_id(neighbours, change, action[c])
                    patterned[node] = True
            a = actions[j]
            move_pattern[j] = _pattern_id(neighbours, change, a)
            if change[a] == 0:
                change[a] = 1 if players[j] == root_player else 2
        for j in range(t_len):
            change[actions[j]] = 0
    for j in range(t_len - 1, -1, -1):
        first_seen[players[j], actions[j]] = j
        if j >= depth:
            continue
        node = path[j]
        f = first_child[node]
        if f < 0:
            continue
        for c in range(f, f + num_children[node]):
            a = action[c]
            if a == skip_action:
                continue
            p = mover[c]
            first = first_seen[p, a]
            if first < 0:
                continue
            alpha = 2.0 - (first - j) / (t_len - j) if distance_weight else 1.0
            weighted = alpha
            if use_patterns:
                weighted *= k if move_pattern[first] == child_pattern[c] else l
            amaf_w[c] += weighted
            amaf_wx[c] += weighted * value[p]
            amaf_u[c] += alpha
    for j in range(t_len):
        first_seen[players[j], actions[j]] = -1


@nb.njit(cache=True)
def rave_scores(first, count, visits, value_sum, mover, parent_visits, amaf_w, amaf_wx, amaf_u,
                gelly_silver, c, c_rave, k_rave, rave_weight_initial, rave_weight_final,
                beta_unweighted, first_play_urgency) -> np.ndarray:
    """The value of each child of a node in the chosen form (see the module docstring);
    ``first_play_urgency`` for a child with neither visits nor AMAF statistics."""
    out = np.empty(count)
    log_n = math.log(max(parent_visits, 1))
    log_m = 0.0
    if gelly_silver:
        m_total = 0.0
        for i in range(count):
            m_total += amaf_w[first + i]
        log_m = math.log(max(m_total, 1.0))
    for i in range(count):
        ch = first + i
        n = visits[ch]
        m = amaf_w[ch]
        if n == 0 and m <= 0.0:
            out[i] = first_play_urgency
            continue
        x = value_sum[ch, mover[ch]] / n if n > 0 else 0.0
        bias = c * math.sqrt(log_n / n) if n > 0 else 0.0
        if m <= 0.0:
            out[i] = x + bias
            continue
        amaf = amaf_wx[ch] / m
        if gelly_silver:
            amaf += c_rave * math.sqrt(log_m / m)
            beta = k_rave / (3.0 * n + k_rave)
            out[i] = beta * amaf + (1.0 - beta) * (x + bias)
        else:
            mb = amaf_u[ch] if beta_unweighted else m
            beta = mb / (n * (1.0 / rave_weight_initial + mb / rave_weight_final) + mb)
            out[i] = beta * amaf + (1.0 - beta) * x + bias
    return out


@nb.njit(cache=True)
def rave_select(seed, node, visits, *args) -> int:
    """:func:`rave_scores` (``args``) and the tie-broken argmax in one call."""
    return argmax_random_ties(rave_scores(*args), seed, node, visits)


class AmafStatistics(Enhancement):
    """AMAF statistics per tree row, gathered at backup (see the module docstring).

    Args:
      distance_weight: weigh each playout by Fuego's alpha_p (else 1).
      k, l, neighbours: the paper's pattern weights and the game's [A, 8] neighbour table.
      skip_action: an action never credited (Go's pass), or -1.

    Rows: ``amaf_w`` (sum of weighted alpha_p of the child's move), ``amaf_wx`` (sum of weighted
    alpha_p W_p), ``amaf_u`` (sum of unweighted alpha_p), ``child_pattern`` (pattern id of the
    move at its node) and ``patterned`` (the node's children's pattern ids are stored).
    """

    ROWS = (("amaf_w", np.float64), ("amaf_wx", np.float64), ("amaf_u", np.float64),
            ("child_pattern", np.int64), ("patterned", np.bool_))

    def __init__(self, *, distance_weight: bool = True, k: float = 1.0, l: float = 1.0,
                 neighbours: np.ndarray | None = None, skip_action: int = -1) -> None:
        self.use_patterns = (k, l) != (1.0, 1.0)
        if self.use_patterns and neighbours is None:
            raise ValueError(f"pattern weights (k, l) = ({k}, {l}) need the game's table of 8 "
                             f"neighbours per action (a game without one supports only (1, 1))")
        if k <= 0 or l <= 0:
            raise ValueError(f"pattern weights must be positive, got (k, l) = ({k}, {l})")
        self.distance_weight = distance_weight
        self.k, self.l = k, l
        self.neighbours = np.asarray(neighbours if neighbours is not None else np.full((1, 8), -1), np.int64)
        self.skip_action = skip_action
        self._first_seen = np.full((1, 1), -1, np.int64)
        self._move_pattern = np.zeros(1024, np.int64)
        self._change = np.zeros(1, np.int64)

    def begin(self, tree, num_players, num_actions, rng) -> None:
        """Start the rows of a new tree at zero; a reused, searched tree (the subtree of the move
        played, as Fuego keeps it) keeps its AMAF statistics, but its nodes' pattern ids were relative
        to the old root and are recomputed when first needed."""
        if self.use_patterns and len(self.neighbours) != num_actions:
            raise ValueError(f"the neighbour table has {len(self.neighbours)} rows, the game "
                             f"{num_actions} actions")
        reused = tree.visits[ROOT] > 0 and all(name in tree.extra for name, _ in self.ROWS)
        for name, dtype in self.ROWS:
            if not reused or name == "patterned":
                tree.array(name, dtype)[:] = 0
        self._first_seen = np.full((num_players, num_actions), -1, np.int64)
        self._change = np.zeros(num_actions, np.int64)

    def on_backup(self, tree: Tree, simulation: Simulation) -> None:
        if len(self._move_pattern) < len(simulation.actions):
            self._move_pattern = np.zeros(2 * len(simulation.actions), np.int64)
        x = tree.extra
        rave_update(simulation.path, tree.first_child, tree.num_children, tree.mover, tree.action,
                    simulation.players, simulation.actions, simulation.value, int(tree.to_move[ROOT]),
                    self.neighbours, self.use_patterns, self.k, self.l, self.distance_weight,
                    self.skip_action, x["amaf_w"], x["amaf_wx"], x["amaf_u"], x["child_pattern"],
                    x["patterned"], self._first_seen, self._move_pattern, self._change)


class RAVE(SelectionRule):
    """RAVE (Gelly & Silver, or Fuego's weighted form) with optional local-pattern weights,
    reading the AMAF statistics of its :class:`AmafStatistics` (``self.amaf``).

    Args:
      form: ``fuego`` or ``gelly_silver``.
      c: UCB exploration constant (Fuego form: bias term, 0 = none, as Fuego's default).
      c_rave: exploration constant c' of the RAVE value (Gelly-Silver form).
      k_rave: equivalence parameter k of beta = k / (3n + k) (Gelly-Silver form).
      k, l: the paper's pattern weights: alpha_p * k when the playout played the move with the
        pattern id stored at the node, alpha_p * l otherwise; (1, 1) = plain RAVE.
      beta_unweighted: beta' from the unweighted alpha_p (the paper's second variant).
      rave_weight_initial, rave_weight_final: Fuego's 0.9 and 20,000 in beta'.
      first_play_urgency: value of a child with neither visits nor AMAF statistics.
      neighbours: [A, 8] the actions around each action (-1 off the board), needed when
        (k, l) != (1, 1); Go gives it as ``GoGame.pattern_neighbours()``.
      skip_action: an action never credited by AMAF (Go's pass), or -1.
    """

    def __init__(self, form: str = "fuego", *, c: float = 0.0, c_rave: float = 0.0,
                 k_rave: float = 1000.0, k: float = 1.0, l: float = 1.0,
                 beta_unweighted: bool = False, rave_weight_initial: float = 0.9,
                 rave_weight_final: float = 20_000.0, first_play_urgency: float = 1.0,
                 neighbours: np.ndarray | None = None, skip_action: int = -1) -> None:
        if form not in FORMS:
            raise ValueError(f"RAVE form {form!r} is not one of {FORMS}")
        self.amaf = AmafStatistics(distance_weight=form == "fuego", k=k, l=l,
                                   neighbours=neighbours, skip_action=skip_action)
        self.enhancements = (self.amaf,)
        self.form = form
        self.c, self.c_rave, self.k_rave = c, c_rave, k_rave
        self.beta_unweighted = beta_unweighted
        self.rave_weight_initial, self.rave_weight_final = rave_weight_initial, rave_weight_final
        self.first_play_urgency = first_play_urgency

    score_kernel = staticmethod(rave_scores)
    select_kernel = staticmethod(rave_select)

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        x = tree.extra
        return (tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
                tree.mover, tree.visits[node], x["amaf_w"], x["amaf_wx"], x["amaf_u"],
                self.form == "gelly_silver", self.c, self.c_rave, self.k_rave,
                self.rave_weight_initial, self.rave_weight_final, self.beta_unweighted,
                self.first_play_urgency)
