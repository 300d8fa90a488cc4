"""The search tree as growable arrays (one row per node; an edge's statistics live in its child).

Node 0 is the root. The children of a node occupy one contiguous block of rows
``first_child[n] .. first_child[n] + num_children[n]``, created when the node is expanded.
"""

from __future__ import annotations

import numba as nb
import numpy as np

ROOT = 0
NOT_EXPANDED = -1
UNKNOWN_PLAYER = -2  # player to move not yet seen (the node's state was never reached)


class Tree:
    """Per-node arrays: statistics of the edge into the node and the node's expansion."""

    def __init__(self, num_players: int, capacity: int = 1024) -> None:
        self.num_players = num_players
        self.size = 0
        self._allocate(capacity)
        self.add_nodes(-1, np.array([-1]), np.array([-1]), np.ones(1, np.float32))

    def _allocate(self, capacity: int) -> None:
        old = {k: getattr(self, k) for k in ("parent", "action", "mover", "prior", "visits",
                                             "value_sum", "first_child", "num_children",
                                             "to_move", "key")} if self.size else None
        self.parent = np.empty(capacity, np.int32)  # [N]
        self.action = np.empty(capacity, np.int32)  # [N] action on the edge into the node
        self.mover = np.empty(capacity, np.int8)  # [N] player who made that action
        self.prior = np.empty(capacity, np.float32)  # [N] P(s, a) of that edge
        self.visits = np.empty(capacity, np.int32)  # [N] N(s, a)
        self.value_sum = np.empty((capacity, self.num_players), np.float64)  # [N, P] W^p(s, a)
        self.first_child = np.empty(capacity, np.int32)  # [N] or NOT_EXPANDED
        self.num_children = np.empty(capacity, np.int32)  # [N]
        self.to_move = np.empty(capacity, np.int8)  # [N] player to move at the node
        self.key = np.empty(capacity, np.int64)  # [N] state.key() of the node, once reached
        if old:
            for k, v in old.items():
                getattr(self, k)[:self.size] = v[:self.size]

    @property
    def capacity(self) -> int:
        return len(self.parent)

    def add_nodes(self, parent: int, actions: np.ndarray, movers: np.ndarray,
                  priors: np.ndarray) -> int:
        """Append unvisited nodes (the children of ``parent``); return the first new index."""
        k = len(actions)
        if self.size + k > self.capacity:
            self._allocate(max(2 * self.capacity, self.size + k))
        lo, hi = self.size, self.size + k
        self.parent[lo:hi] = parent
        self.action[lo:hi] = actions
        self.mover[lo:hi] = movers
        self.prior[lo:hi] = priors
        self.visits[lo:hi] = 0
        self.value_sum[lo:hi] = 0.0
        self.first_child[lo:hi] = NOT_EXPANDED
        self.num_children[lo:hi] = 0
        self.to_move[lo:hi] = UNKNOWN_PLAYER
        self.key[lo:hi] = 0
        self.size = hi
        return lo

    def expand(self, node: int, actions: np.ndarray, movers: np.ndarray, priors: np.ndarray) -> None:
        """Give ``node`` its children."""
        first = self.add_nodes(node, actions, movers, priors)
        self.first_child[node] = first
        self.num_children[node] = len(actions)

    def reach(self, node: int, player: int, key: int) -> None:
        """Record what a simulation found at ``node`` the first time it got there."""
        self.to_move[node] = player
        self.key[node] = key

    def is_expanded(self, node: int) -> bool:
        return self.first_child[node] != NOT_EXPANDED

    def children(self, node: int) -> np.ndarray:
        """Indices of ``node``'s children (empty if not expanded)."""
        if not self.is_expanded(node):
            return np.empty(0, np.int32)
        return np.arange(self.first_child[node], self.first_child[node] + self.num_children[node])

    def child_with_action(self, node: int, action: int, mover: int | None = None) -> int:
        """The child reached by ``action`` (of ``mover``, if given), or -1."""
        kids = self.children(node)
        match = self.action[kids] == action
        if mover is not None:
            match &= self.mover[kids] == mover
        hits = kids[match]
        return int(hits[0]) if len(hits) else -1

    def subtree(self, node: int) -> Tree:
        """A new tree holding the subtree under ``node``, with ``node`` as its root."""
        order = _subtree_order(self.first_child, self.num_children, node, self.size)
        new = Tree(self.num_players, capacity=max(1024, len(order)))
        new.size = len(order)
        index = np.full(self.size, -1, np.int64)
        index[order] = np.arange(len(order))
        for name in ("action", "mover", "prior", "visits", "value_sum", "num_children", "to_move",
                     "key"):
            getattr(new, name)[:new.size] = getattr(self, name)[order]
        new.parent[:new.size] = np.where(order == node, -1, index[self.parent[order]])
        first = self.first_child[order]
        new.first_child[:new.size] = np.where(first >= 0, index[np.maximum(first, 0)], NOT_EXPANDED)
        new.action[0], new.mover[0], new.prior[0] = -1, -1, 1.0
        return new


@nb.njit(cache=True)
def _subtree_order(first_child, num_children, node, size):
    """Nodes of the subtree under ``node`` in breadth-first order (sibling blocks stay contiguous)."""
    order = np.empty(size, np.int64)
    order[0] = node
    head, tail = 0, 1
    while head < tail:
        n = order[head]
        head += 1
        f = first_child[n]
        if f >= 0:
            for c in range(f, f + num_children[n]):
                order[tail] = c
                tail += 1
    return order[:tail]


@nb.njit(cache=True)
def backup(visits, value_sum, path, value) -> None:
    """Add one visit and the value vector to every node on ``path`` (MaxN backup, vector values)."""
    for n in path:
        visits[n] += 1
        for p in range(value.shape[0]):
            value_sum[n, p] += value[p]
