"""The search tree as growable arrays (one row per node; an edge's statistics live in its child).

Node 0 is the root. The children of a node occupy one contiguous block of rows
``first_child[n] .. first_child[n] + num_children[n]``, created when the node is expanded.

Two kinds of row beyond plain turn-taking:

- at a simultaneous-move node (``to_move == SIMULTANEOUS``) the block holds every role's
  actions, each row the decoupled statistics of one (role, action); the position reached by a
  joint action is a *joint child*, a row of its own (``mover = action = -1``) created when the
  joint action is first played and found through :meth:`Tree.joint_child`;
- under hidden information a node may meet actions it has not seen: :meth:`Tree.add_children`
  moves its block to the end with the new rows appended (the old rows stay, unreachable).

``avail`` counts the simulations in which a child was available at its parent (Cowling et
al.'s ISMCTS); rules use it in place of the parent's visits when the tree tracks it.
Enhancements may register per-row arrays (:meth:`Tree.array`) that grow, move and are copied
with the tree's own.
"""

from __future__ import annotations

import numba as nb
import numpy as np

ROOT = 0
NOT_EXPANDED = -1
UNKNOWN_PLAYER = -4  # player to move not yet seen (the node's state was never reached)
NO_MOVER = -1  # mover and action of the root and of joint children

#: The per-row array (:meth:`Tree.array`, int64) of visits that enhancements seeded into a
#: node (search experience): they count in selection, not as real visits (expansion, result).
SEEDED_VISITS = "seeded_visits"

_ROW_ARRAYS = ("parent", "action", "mover", "prior", "visits", "value_sum", "first_child",
               "num_children", "to_move", "key", "avail")


class Tree:
    """Per-node arrays: statistics of the edge into the node and the node's expansion.

    ``value_bounds`` is the scale of the values backed up (the evaluator's); rules that
    assume rewards in [0, 1] (UCB1) map Q onto it. ``track_availability`` makes selection
    count and use availability (determinized search).
    """

    def __init__(self, num_players: int, capacity: int = 1024, *,
                 value_bounds: tuple[float, float] = (0.0, 1.0),
                 track_availability: bool = False) -> None:
        self.num_players = num_players
        self.value_bounds = (float(value_bounds[0]), float(value_bounds[1]))
        self.track_availability = track_availability
        self.tie_seed = 0  # selection's tie-breaks draw from it (the search sets it)
        self.size = 0
        self.extra: dict[str, np.ndarray] = {}  # enhancements' per-row arrays
        self.joint: dict[int, dict[tuple[int, ...], int]] = {}  # node -> joint action -> child
        self._allocate(capacity)
        self.add_nodes(-1, np.array([NO_MOVER]), np.array([NO_MOVER]), np.ones(1, np.float32))

    def _allocate(self, capacity: int) -> None:
        old = {k: getattr(self, k) for k in _ROW_ARRAYS} if self.size else None
        self.parent = np.empty(capacity, np.int32)  # [N]
        self.action = np.empty(capacity, np.int32)  # [N] action on the edge into the node
        self.mover = np.empty(capacity, np.int8)  # [N] player who made that action
        self.prior = np.empty(capacity, np.float32)  # [N] P(s, a) of that edge
        self.visits = np.empty(capacity, np.int32)  # [N] N(s, a)
        self.value_sum = np.empty((capacity, self.num_players), np.float64)  # [N, P] W^p(s, a)
        self.first_child = np.empty(capacity, np.int32)  # [N] or NOT_EXPANDED
        self.num_children = np.empty(capacity, np.int32)  # [N]
        self.to_move = np.empty(capacity, np.int8)  # [N] player to move at the node
        self.key = np.empty(capacity, np.int64)  # [N] the node's key, once reached
        self.avail = np.empty(capacity, np.int32)  # [N] simulations the edge was available
        if old:
            for k, v in old.items():
                getattr(self, k)[:self.size] = v[:self.size]
        for name, v in self.extra.items():
            self.extra[name] = np.zeros((capacity,) + v.shape[1:], v.dtype)
            self.extra[name][:self.size] = v[:self.size]

    @property
    def capacity(self) -> int:
        return len(self.parent)

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows in all (at least doubling, as :meth:`add_nodes` grows)."""
        if rows > self.capacity:
            self._allocate(max(2 * self.capacity, rows))

    def array(self, name: str, dtype=np.float64, shape: tuple[int, ...] = ()) -> np.ndarray:
        """The per-row array ``name`` (zeros when first asked for), kept with the tree's own."""
        if name not in self.extra:
            self.extra[name] = np.zeros((self.capacity,) + shape, dtype)
        return self.extra[name]

    def add_nodes(self, parent: int, actions: np.ndarray, movers: np.ndarray,
                  priors: np.ndarray) -> int:
        """Append unvisited nodes (the children of ``parent``); return the first new index."""
        k = len(actions)
        self.reserve(self.size + k)
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
        self.avail[lo:hi] = 0
        for v in self.extra.values():
            v[lo:hi] = 0
        self.size = hi
        return lo

    def expand(self, node: int, actions: np.ndarray, movers: np.ndarray, priors: np.ndarray) -> None:
        """Give ``node`` its children."""
        first = self.add_nodes(node, actions, movers, priors)
        self.first_child[node] = first
        self.num_children[node] = len(actions)

    def add_children(self, node: int, actions: np.ndarray, movers: np.ndarray,
                     priors: np.ndarray) -> None:
        """Give the expanded ``node`` further children: its block moves to the end of the
        arrays with the new rows after the old ones, statistics and subtrees kept."""
        old_first, old_n = int(self.first_child[node]), int(self.num_children[node])
        old = np.arange(old_first, old_first + old_n)
        first = self.add_nodes(node, np.concatenate([self.action[old], actions]),
                               np.concatenate([self.mover[old], movers]),
                               np.concatenate([self.prior[old], priors]))
        new = np.arange(first, first + old_n)
        for name in _ROW_ARRAYS[3:]:  # prior onwards: what the old rows learnt
            arr = getattr(self, name)
            arr[new] = arr[old]
        for arr in self.extra.values():
            arr[new] = arr[old]
        for o, n in zip(old.tolist(), new.tolist()):
            f = self.first_child[n]
            if f >= 0:
                self.parent[f:f + self.num_children[n]] = n
            if o in self.joint:
                self.joint[n] = self.joint.pop(o)
                for child in self.joint[n].values():
                    self.parent[child] = n
        self.parent[old] = NOT_EXPANDED  # unreachable now
        self.first_child[node] = first
        self.num_children[node] = old_n + len(actions)

    def joint_child(self, node: int, joint: tuple[int, ...]) -> int:
        """The child of simultaneous-move ``node`` reached by ``joint``, created if new."""
        children = self.joint.setdefault(node, {})
        child = children.get(joint)
        if child is None:
            child = children[joint] = self.add_nodes(node, np.array([NO_MOVER]), np.array([NO_MOVER]),
                                                     np.ones(1, np.float32))
        return child

    def reach(self, node: int, player: int, key: int) -> None:
        """Record what a simulation found at ``node`` the first time it got there."""
        self.to_move[node] = player
        self.key[node] = key

    def real_visits(self, node: int) -> int:
        """Visits of ``node`` made by simulations, without those seeded (:data:`SEEDED_VISITS`)."""
        seeded = self.extra.get(SEEDED_VISITS)
        return int(self.visits[node]) - (0 if seeded is None else int(seeded[node]))

    def is_expanded(self, node: int) -> bool:
        return self.first_child[node] != NOT_EXPANDED

    def ancestors(self, node: int) -> list[int]:
        """``node``, its parent, ..., the root."""
        chain = [node]
        while self.parent[chain[-1]] >= 0:
            chain.append(int(self.parent[chain[-1]]))
        return chain

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

    def _order(self, node: int) -> np.ndarray:
        if not self.joint:
            return _subtree_order(self.first_child, self.num_children, node, self.size)
        order, head = [node], 0  # joint children are outside the blocks: walk in Python
        while head < len(order):
            n = order[head]
            head += 1
            order.extend(self.children(n).tolist())
            order.extend(self.joint.get(n, {}).values())
        return np.array(order, np.int64)

    def subtree(self, node: int) -> Tree:
        """A new tree holding the subtree under ``node``, with ``node`` as its root."""
        order = self._order(node)
        new = Tree(self.num_players, capacity=max(1024, len(order)), value_bounds=self.value_bounds,
                   track_availability=self.track_availability)
        for name, v in self.extra.items():
            new.array(name, v.dtype, v.shape[1:])[:len(order)] = v[order]
        new.size = len(order)
        index = np.full(self.size, -1, np.int64)
        index[order] = np.arange(len(order))
        for name in _ROW_ARRAYS[1:]:
            getattr(new, name)[:new.size] = getattr(self, name)[order]
        new.parent[:new.size] = np.where(order == node, -1, index[self.parent[order]])
        first = self.first_child[order]
        new.first_child[:new.size] = np.where(first >= 0, index[np.maximum(first, 0)], NOT_EXPANDED)
        new.joint = {int(index[n]): {j: int(index[c]) for j, c in kids.items()}
                     for n, kids in self.joint.items() if index[n] >= 0}
        new.action[0], new.mover[0], new.prior[0] = NO_MOVER, NO_MOVER, 1.0
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
