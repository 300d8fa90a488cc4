"""The compiler from a grounded GDL description to a propositional network
(:class:`~.propnet_network.Network`).

Only atoms that legal, goal, terminal or next can depend on are kept. Literals shared by
several instances of an atom are factored out into auxiliary atoms (:class:`_Factoring`), the
derived atoms are ordered by dependency (strongly connected components, positive cycles
marked), and each instance's literals are ordered by how often their atoms changed in random
games played at build time (the first literal not holding is the watched one, and a watch is
costly when its literal often comes to hold).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from .gdl import Description, _sccs, relation
from .kif import Term, to_kif
from .propnet_kernels import evaluate, start
from .propnet_network import Live, Network, new_live
from .propnet_playout import sample_changes
from .reasoner import Grounding

_ROOTS = ("legal", "goal", "terminal", "next")
#: Joint moves of random games played when the network is built, to order literals.
SAMPLE_STEPS = 1000
#: A literal shared by this many instances of an atom is factored out (see _Factoring).
_MIN_SHARED = 3


class _Factoring:
    """Shared conjuncts taken out of a derived atom's instances: when a literal ``c`` is in
    several instances, ``c & i1 | c & i2 | ...`` becomes ``c & x`` with the auxiliary atom
    ``x = i1 | i2 | ...`` (factored in turn); auxiliary atoms with the same instances are
    one atom. A change of ``c`` then visits one instance instead of many, and a frame axiom's
    "some move leaves this cell alone" is one atom per cell, not one instance per move."""

    def __init__(self, insts: dict[int, list[frozenset[int]]], next_id: int) -> None:
        self.insts = insts  # auxiliary atoms' definitions are added here
        self.next_id = next_id
        self.known: dict[frozenset, int] = {}

    def factor(self, group: list[frozenset[int]]) -> list[frozenset[int]]:
        count: dict[int, int] = defaultdict(int)
        for inst in group:
            for lit in inst:
                count[lit] += 1
        out, rest = [], set(range(len(group)))
        while rest:
            lit, n = max(count.items(), key=lambda kv: (kv[1], -kv[0]), default=(0, 0))
            if n < _MIN_SHARED:
                out.extend(group[i] for i in rest)
                break
            taken = [i for i in rest if lit in group[i]]
            rest.difference_update(taken)
            for i in taken:
                for other in group[i]:
                    count[other] -= 1
            remainders = [group[i] - {lit} for i in taken]
            if any(not r for r in remainders):  # the literal alone is an instance
                out.append(frozenset([lit]))
                continue
            out.append(frozenset([lit, 2 * self.define(remainders)]))
        return out

    def define(self, group: list[frozenset[int]]) -> int:
        """The auxiliary atom that is the OR of ``group``."""
        key = frozenset(group)
        if key not in self.known:
            self.known[key] = atom = self.next_id
            self.next_id += 1
            self.insts[atom] = self.factor(group)
        return self.known[key]


def compile_network(desc: Description, grounding: Grounding, roles: list[str], moves: list[Term],
                    sample_steps: int = SAMPLE_STEPS
                    ) -> tuple[list[Term], list[Term], Network, Live]:
    """The network of ``grounding`` (which must hold its instances) for ``roles`` and the
    game's numbered ``moves``: (base facts, every atom, the network, its state at the initial
    position). ``sample_steps`` joint moves of random games (a fixed stream of their own)
    order the literals."""
    move_index = {m: i for i, m in enumerate(moves)}
    by_head: dict[Term, list[tuple[tuple, tuple]]] = defaultdict(list)
    for head, pos, neg in grounding.instances:
        by_head[head].append((pos, neg))
    for rel in _ROOTS:  # wholly static (e.g. moves legal in every state): always true
        if rel in desc.static:
            for fact in grounding.static.get(rel):
                by_head[fact].append(((), ()))
    # Only atoms that legal/goal/terminal/next can depend on are kept.
    relevant, todo = set(), [h for h in by_head if relation(h) in _ROOTS]
    while todo:
        atom = todo.pop()
        if atom in relevant:
            continue
        relevant.add(atom)
        for pos, neg in by_head.get(atom, ()):
            todo.extend(a for a in pos + neg if a not in relevant)
    base = sorted((f[1] for f in grounding.possible.get("true")), key=to_kif)
    atoms: list[Term] = [("true", f) for f in base]
    does = [("does", r, m) for r in roles for m in moves
            if ("legal", r, m) in grounding.possible.get("legal")]
    atoms += does
    derived = sorted((a for a in relevant if a in by_head), key=to_kif)
    atoms += derived
    ids = {a: i for i, a in enumerate(atoms)}
    first_derived = len(base) + len(does)
    # Instances as sets of literals, each literal 2 * atom id + negated. A negated atom
    # never possible is always false: its literal holds and is left out.
    insts: dict[int, list[frozenset[int]]] = {
        ids[h]: list({frozenset([2 * ids[a] for a in pos] + [2 * ids[a] + 1 for a in neg
                                                              if a in ids])
                      for pos, neg in by_head[h]}) for h in derived}
    edges = {h: {lit // 2 for inst in ii for lit in inst if lit // 2 >= first_derived}
             for h, ii in insts.items()}
    cyclic_heads = {h for comp in _sccs(sorted(edges), edges) for h in comp
                    if len(comp) > 1 or h in edges[h]}
    factoring = _Factoring(insts, len(atoms))
    for h in sorted(insts):
        if h not in cyclic_heads:  # an auxiliary atom inside a cycle would join it
            insts[h] = factoring.factor(insts[h])
    atoms += [("#aux", k) for k in range(factoring.next_id - len(atoms))]
    # Dependency order over derived atoms (components listed after those they use).
    edges = {h: {lit // 2 for inst in ii for lit in inst if lit // 2 >= first_derived}
             for h, ii in insts.items()}
    comps = _sccs(sorted(edges), edges)
    order, comp_start, cyclic = [], [0], []
    inst_start, lit_start, lit_atom, lit_neg = [0], [0], [], []
    for comp in comps:
        cyclic.append(len(comp) > 1 or comp[0] in edges[comp[0]])
        for i in comp:
            order.append(i)
            for inst in insts[i]:
                for lit in sorted(inst):
                    lit_atom.append(lit // 2)
                    lit_neg.append(lit % 2)
                lit_start.append(len(lit_atom))
            inst_start.append(len(lit_start) - 1)
        comp_start.append(len(order))
    does_id = np.full((len(roles), max(len(moves), 1)), -1, dtype=np.int64)
    for r, m in [(roles.index(d[1]), d[2]) for d in does]:
        does_id[r, move_index[m]] = ids[("does", roles[r], m)]
    # A move never legal has no does atom (-1): the kernels refuse it.
    next_of_base = np.array([ids.get(("next", f), -1) for f in base], dtype=np.int64)
    legal_start, legal_atom, legal_action = [0], [], []
    goal_start, goal_atom, goal_value = [0], [], []
    for r in roles:
        for a, m in enumerate(moves):
            if ("legal", r, m) in ids:
                legal_atom.append(ids[("legal", r, m)])
                legal_action.append(a)
        legal_start.append(len(legal_atom))
        for atom in derived:
            if atom[0] == "goal" and atom[1] == r:
                goal_atom.append(ids[atom])
                goal_value.append(float(atom[2]))
        goal_start.append(len(goal_atom))
    init = np.zeros(len(atoms), dtype=np.uint8)
    base_index = {f: j for j, f in enumerate(base)}
    for f in grounding.static.get("init"):
        init[base_index[f[1]]] = 1

    comp_start_a = np.array(comp_start, dtype=np.int64)
    order_a = np.array(order, dtype=np.int64)
    inst_start_a = np.array(inst_start, dtype=np.int64)
    lit_start_a = np.array(lit_start, dtype=np.int64)
    inst_head = np.repeat(order_a, np.diff(inst_start_a)).astype(np.int32)
    comp_of = np.full(len(atoms), -1, dtype=np.int64)
    comp_of[order_a] = np.repeat(np.arange(len(comp_start) - 1), np.diff(comp_start_a))
    lit_inst = np.repeat(np.arange(len(inst_head), dtype=np.int32), np.diff(lit_start_a))

    def build(lit_atom_a: np.ndarray, lit_neg_a: np.ndarray) -> tuple[Network, Live]:
        """The network with the literals in this order, and its state with no move played."""
        fan_start = np.zeros(len(atoms) + 1, dtype=np.int64)
        fan_start[1:] = np.cumsum(np.bincount(lit_atom_a, minlength=len(atoms)))
        net = Network(
            num_base=len(base), comp_start=comp_start_a, comp_cyclic=np.array(cyclic, dtype=np.bool_),
            order=order_a, inst_start=inst_start_a, lit_start=lit_start_a, lit_atom=lit_atom_a,
            lit_neg=lit_neg_a, lit_inst=lit_inst, inst_head=inst_head, comp_of=comp_of,
            does_id=does_id, next_of_base=next_of_base, fan_start=fan_start,
            legal_start=np.array(legal_start, dtype=np.int64),
            legal_atom=np.array(legal_atom, dtype=np.int64),
            legal_action=np.array(legal_action, dtype=np.int64),
            goal_start=np.array(goal_start, dtype=np.int64),
            goal_atom=np.array(goal_atom, dtype=np.int64), goal_value=np.array(goal_value),
            terminal_atom=ids.get("terminal", -1))
        values = init.copy()
        evaluate(values, 0, len(comp_start) - 1, net.comp_start, net.comp_cyclic, net.order,
                 net.inst_start, net.lit_start, net.lit_atom, net.lit_neg)
        live = new_live(net, values)
        start(net, live)
        return net, live

    net, live = build(np.array(lit_atom, dtype=np.int64), np.array(lit_neg, dtype=np.uint8))
    # A literal's watch is costly when the literal often comes to hold: order each
    # instance's literals by how often their atoms changed in random games (the first
    # literal not holding is the watched one).
    initial = live.values.copy()
    sample_changes(initial, net, live, np.zeros(1, dtype=np.uint64), sample_steps)  # stream 0
    holds = initial[net.lit_atom] != net.lit_neg
    by_cost = np.lexsort((holds, live.changes[net.lit_atom], lit_inst))
    net, live = build(net.lit_atom[by_cost], net.lit_neg[by_cost])
    return base, atoms, net, live
