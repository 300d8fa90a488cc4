"""Search experience: statistics of similar boards seed new nodes (SPEC §5; Uemiya and
Yokoyama, "Towards a universally effective utilization of board similarities in GGP").

An :class:`~.experience_table.ExperienceTable` maps a board's key (an unsigned integer from a
board encoder; similar boards have keys at a small Hamming distance) to each player's summed
reward and the visits, and is filled at backup from every board of every simulation: the tree
part and the playout (:class:`SearchExperience` asks the evaluator for the playout's positions).
When a simulation first reaches a node, the node receives the summed rewards and visits of every
stored board within Hamming distance ``d`` of its own (seeded visits, told apart from real
ones: the move played is the one with most real visits). Where the paper leaves a choice open,
:data:`READINGS` names the alternatives an ablation runs (the first of each is the default, the
paper's text as this implementation reads it). With ``measure``, the tree distances
of the similar boards found are counted (:func:`tree_distance`), what the switching rule of
:mod:`blokuszero.players.ggp.experience_switch` reads.
"""

from __future__ import annotations

import numpy as np

from .enhancements import Enhancement, Simulation
from .experience_table import ExperienceTable
from .tree import ROOT, SEEDED_VISITS, Tree

BOARD_KEY = "board_key"  # per tree row: the key of the node's board (uint64)
BOARD_SEEN = "board_seen"  # per tree row: 1 once the node's board is known

#: The readings of the paper's open choices, the default first: ``weight``, what a reached node
#: receives (``sum``: the similar boards' summed rewards and visits, the paper's 3: 加算;
#: ``mean``: their pooled mean reward as one visit); ``stored``, the boards added to the table
#: at backup (``path+playout``: the simulation's tree path and its playout's positions, the
#: paper's 3.2; ``path``: the tree path only); ``lifetime``, how long the table lives (``game``;
#: ``move``: emptied at the start of each search).
READINGS = {"weight": ("sum", "mean"), "stored": ("path+playout", "path"),
            "lifetime": ("game", "move")}


def check_reading(choice: str, reading: str) -> None:
    """ValueError naming the known readings when ``reading`` is not one of ``choice``'s."""
    if choice not in READINGS:
        raise ValueError(f"unknown search experience choice {choice!r}; known: {', '.join(READINGS)}")
    if reading not in READINGS[choice]:
        raise ValueError(f"unknown {choice} reading {reading!r}; known: "
                         f"{', '.join(READINGS[choice])}")


def tree_distance(tree: Tree, node: int, origin: np.ndarray) -> int:
    """Edges in the tree between ``node`` and a board of ``origin`` (row, moves past it in
    the playout, the playout's first action): a playout board hangs below the row it left the
    tree from, through the row's child along the playout's first move when that child is on
    ``node``'s path."""
    row, extra, first = int(origin[1]), int(origin[2]), int(origin[3])
    up = tree.ancestors(node)
    where = {n: i for i, n in enumerate(up)}
    steps, n = 0, row
    while n not in where:
        n = int(tree.parent[n])
        steps += 1
    lca_up = where[n]
    if extra >= 1 and steps == 0 and lca_up >= 1 and tree.action[up[lca_up - 1]] == first:
        return (lca_up - 1) + (extra - 1)  # the playout left through node's own path
    return lca_up + steps + extra


class SearchExperience(Enhancement):
    """The search experience as an enhancement of the search core.

    ``encoder`` gives board keys: ``encode(state) -> int`` and ``encode_boards(boards) ->
    uint64 array`` for the positions an evaluator records, and ``bits``, the key length.
    ``distance``: the Hamming distance ``d`` (0, 1, 2) of the boards that seed a node.
    ``weight``, ``stored``, ``lifetime``: the readings of :data:`READINGS`. With lifetime
    ``game`` the table lasts for the life of the enhancement (one game; :meth:`reset` empties
    it), with ``move`` it is emptied as each search begins.
    With ``measure`` the tree distances of the similar boards found are counted in
    ``distance_counts`` (the switching rule's measurement).
    """

    def __init__(self, encoder, distance: int, measure: bool = False, *, weight: str = "sum",
                 stored: str = "path+playout", lifetime: str = "game") -> None:
        if distance not in (0, 1, 2):
            raise ValueError(f"the similarity distance d is 0, 1 or 2, not {distance}")
        for choice, reading in (("weight", weight), ("stored", stored), ("lifetime", lifetime)):
            check_reading(choice, reading)
        self.encoder, self.distance, self.measure = encoder, distance, measure
        self.weight, self.stored, self.lifetime = weight, stored, lifetime
        self.needs_boards = stored == "path+playout"  # the playouts' positions are recorded
        self.table: ExperienceTable | None = None
        self.generation = 0
        self.distance_counts = np.zeros(0, np.int64)
        self.seeded_nodes = 0
        self.reached_nodes = 0

    def reset(self) -> None:
        """Forget the experience (a new game)."""
        if self.table is not None:
            self.table.clear()
        self.distance_counts = np.zeros(0, np.int64)

    def begin(self, tree, num_players, num_actions, rng) -> None:
        if self.table is None or self.table.num_players != num_players:
            self.table = ExperienceTable(num_players, self.encoder.bits)
        elif self.lifetime == "move":
            self.table.clear()
        self.generation += 1

    def on_reach(self, tree: Tree, node: int, state) -> None:
        key = self.encoder.encode(state)
        tree.array(BOARD_KEY, np.uint64)[node] = key
        tree.array(BOARD_SEEN, np.uint8)[node] = 1
        if node == ROOT:
            return
        self.reached_nodes += 1
        entries = self.table.similar(key, self.distance)
        if len(entries) == 0:
            return
        wsum, visits = self.table.totals(entries)
        if self.weight == "mean":
            wsum, visits = wsum / visits, 1
        tree.visits[node] += visits
        tree.value_sum[node] += wsum
        tree.array(SEEDED_VISITS, np.int64)[node] += visits
        self.seeded_nodes += 1
        if self.measure:
            origins = self.table.origin[entries]
            live = (origins[:, 0] == self.generation) & (origins[:, 1] < tree.size)
            dist = [tree_distance(tree, node, o) for o in origins[live]]
            if dist:
                counts = np.bincount(dist)
                if len(counts) > len(self.distance_counts):
                    self.distance_counts = np.pad(self.distance_counts,
                                                  (0, len(counts) - len(self.distance_counts)))
                self.distance_counts[:len(counts)] += counts

    def on_backup(self, tree: Tree, simulation: Simulation) -> None:
        path = simulation.path
        rows = path[tree.array(BOARD_SEEN, np.uint8)[path] == 1]
        keys = tree.array(BOARD_KEY, np.uint64)[rows]
        origin = np.empty((len(rows), 4), np.int64)
        origin[:, 0], origin[:, 1], origin[:, 2], origin[:, 3] = self.generation, rows, 0, -1
        if self.needs_boards and simulation.boards is not None and len(simulation.boards):
            played = self.encoder.encode_boards(simulation.boards)
            leaf = int(path[-1])
            first = (int(simulation.actions[simulation.tree_moves])
                     if len(simulation.actions) > simulation.tree_moves else -1)
            more = np.empty((len(played), 4), np.int64)
            more[:, 0], more[:, 1], more[:, 3] = self.generation, leaf, first
            more[:, 2] = np.arange(1, len(played) + 1)
            keys = np.concatenate([keys, played])
            origin = np.concatenate([origin, more])
        self.table.add(keys, simulation.value, origin)
