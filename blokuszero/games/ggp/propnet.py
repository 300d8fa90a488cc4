"""The compiled reasoner: the grounded rules as a propositional network evaluated in numba.

Every possible ground atom (from the relaxed grounding) is one byte of a value array: first
the base propositions ``(true f)``, then the inputs ``(does r m)``, then the derived atoms
(and auxiliary ones from factoring). A derived atom is the OR of its clause instances, each
the AND of its literals; literals shared by several instances of an atom are factored out
into auxiliary atoms (:class:`_Factoring`).

The network keeps one state of its own and moves it differentially (:func:`_change`): a
changed atom visits only the instances watching it, and only atoms whose value changes go
on. A call first moves the network to the state asked about (the base facts that differ),
then plays the joint move: its ``does`` atoms replace the previous move's, ``next`` is read
off, and the changed base facts are set. A state handed out is a copy of every atom's value,
so legal, goal and terminal are read off it directly.
"""

from __future__ import annotations

import threading
from collections import defaultdict

import numba as nb
import numpy as np

from .gdl import Description, _sccs, relation
from .kif import Term, to_kif
from .reasoner import Grounding, Reasoner

_ROOTS = ("legal", "goal", "terminal", "next")
#: Joint moves of random games played when the network is built, to order literals.
SAMPLE_STEPS = 1000
#: A literal shared by this many instances of an atom is factored out (see _Factoring).
_MIN_SHARED = 3
_GLOBAL_RNG = np.empty(0, dtype=np.uint64)  # _random_below: numba's seeded global generator


@nb.njit(cache=True)
def _atom_value(v, p, inst_start, lit_start, lit_atom, lit_neg):
    for i in range(inst_start[p], inst_start[p + 1]):
        ok = True
        for k in range(lit_start[i], lit_start[i + 1]):
            if v[lit_atom[k]] == lit_neg[k]:
                ok = False
                break
        if ok:
            return 1
    return 0


@nb.njit(cache=True)
def _evaluate(v, lo, hi, comp_start, comp_cyclic, order, inst_start, lit_start, lit_atom,
              lit_neg):
    """Evaluate components ``lo`` .. ``hi - 1`` into ``v`` (in place)."""
    for c in range(lo, hi):
        a, b = comp_start[c], comp_start[c + 1]
        if not comp_cyclic[c]:
            for p in range(a, b):
                v[order[p]] = _atom_value(v, p, inst_start, lit_start, lit_atom, lit_neg)
        else:  # least fixpoint of a positive cycle, from all false
            for p in range(a, b):
                v[order[p]] = 0
            changed = True
            while changed:
                changed = False
                for p in range(a, b):
                    if v[order[p]] == 0 and _atom_value(v, p, inst_start, lit_start, lit_atom,
                                                        lit_neg):
                        v[order[p]] = 1
                        changed = True


@nb.njit(cache=True, inline="always")
def _false_literal(i, cur, lit_start, lit_atom, lit_neg):
    """A literal of instance ``i`` that is false under ``cur`` (its witness), or -1 if all hold."""
    for k in range(lit_start[i], lit_start[i + 1]):
        if cur[lit_atom[k]] == lit_neg[k]:
            return k
    return -1


@nb.njit(cache=True, inline="always")
def _watch(k, a, fan_start, wcount, wl, wpos):
    """Put literal occurrence ``k`` (of atom ``a``) on its atom's watch list: the list of
    atom ``a`` is ``wl[fan_start[a]:fan_start[a] + wcount[a]]``, ``wpos[k]`` the place of
    ``k`` in it (-1: not watched)."""
    p = fan_start[a] + wcount[a]
    wl[p] = k
    wpos[k] = p
    wcount[a] += 1


@nb.njit(cache=True, inline="always")
def _unwatch(k, a, fan_start, wcount, wl, wpos):
    """Take literal occurrence ``k`` (of atom ``a``) off its atom's watch list."""
    last = fan_start[a] + wcount[a] - 1
    moved = wl[last]
    wl[wpos[k]] = moved
    wpos[moved] = wpos[k]
    wpos[k] = -1
    wcount[a] -= 1


@nb.njit(cache=True, inline="always")
def _change(inputs, values, net, live):
    """Give the input atoms ``inputs`` their ``values`` and bring every atom depending on
    them up to date, visiting only what can change.

    Watched literals, as in SAT solvers: a false instance watches one literal that does not
    hold (its first in the instance's order), a true instance all of its literals, so a
    change reaches only the instances it can make true or false. An atom's counter holds
    its true instances. Components whose counters moved are settled in dependency order,
    each once: an acyclic atom is true when its counter is positive, a positive cycle is
    recomputed to its least fixpoint (counters cannot retract self-supporting truths).
    """
    (_, comp_start, comp_cyclic, order, inst_start, lit_start, lit_atom, lit_neg, lit_inst,
     inst_head, comp_of) = net[:11]
    fan_start = net[13]
    cur, inst_true, atom_count, pending = live[0], live[1], live[2], live[3]
    wcount, wl, wpos, snap, changes = live[4:9]
    lo, hi = pending.shape[0], -1  # the range of pending components

    def assign(a, value, lo, hi):
        cur[a] = value
        changes[a] += 1
        n = wcount[a]  # the list changes while it is walked: walk a copy
        snap[:n] = wl[fan_start[a]:fan_start[a] + n]
        for m in range(n):
            k = snap[m]
            if wpos[k] < 0:
                continue
            i = lit_inst[k]
            if cur[a] != lit_neg[k]:  # the literal holds now
                if inst_true[i]:
                    continue
                witness = _false_literal(i, cur, lit_start, lit_atom, lit_neg)
                if witness >= 0:
                    _unwatch(k, a, fan_start, wcount, wl, wpos)
                    if wpos[witness] < 0:
                        _watch(witness, lit_atom[witness], fan_start, wcount, wl, wpos)
                    continue
                inst_true[i] = 1
                for k2 in range(lit_start[i], lit_start[i + 1]):
                    if wpos[k2] < 0:
                        _watch(k2, lit_atom[k2], fan_start, wcount, wl, wpos)
                atom_count[inst_head[i]] += 1
            elif inst_true[i]:  # it held, so the instance was true: no longer
                inst_true[i] = 0
                for k2 in range(lit_start[i], lit_start[i + 1]):
                    if k2 != k and wpos[k2] >= 0:
                        _unwatch(k2, lit_atom[k2], fan_start, wcount, wl, wpos)
                atom_count[inst_head[i]] -= 1
            else:
                continue
            c = comp_of[inst_head[i]]
            if pending[c] == 0:
                pending[c] = 1
                lo = min(lo, c)
                hi = max(hi, c)
        return lo, hi

    for x in range(inputs.shape[0]):
        if cur[inputs[x]] != values[x]:
            lo, hi = assign(inputs[x], values[x], lo, hi)
    c = lo
    while c <= hi:
        if pending[c]:
            pending[c] = 0
            a, b = comp_start[c], comp_start[c + 1]
            if not comp_cyclic[c]:
                h = order[a]
                value = 1 if atom_count[h] > 0 else 0
                if value != cur[h]:
                    lo, hi = assign(h, value, lo, hi)
            else:
                old = np.empty(b - a, dtype=np.uint8)
                for p in range(a, b):
                    old[p - a] = cur[order[p]]
                _evaluate(cur, c, c + 1, comp_start, comp_cyclic, order, inst_start, lit_start,
                          lit_atom, lit_neg)
                new = np.empty(b - a, dtype=np.uint8)
                for p in range(a, b):
                    new[p - a] = cur[order[p]]
                    cur[order[p]] = old[p - a]
                for p in range(a, b):
                    if new[p - a] != old[p - a]:
                        lo, hi = assign(order[p], new[p - a], lo, hi)
                pending[c] = 0  # its members' own changes are already in
        c += 1


@nb.njit(cache=True)
def _start(net, live):
    """Instance values, counters and watches from scratch for the values in ``live[0]``."""
    order, inst_start, lit_start, lit_atom, lit_neg = net[3:8]
    cur, inst_true, atom_count = live[0], live[1], live[2]
    fan_start = net[13]
    wcount, wl, wpos = live[4:7]
    atom_count[:] = 0
    wcount[:] = 0
    wpos[:] = -1
    for p in range(order.shape[0]):
        for i in range(inst_start[p], inst_start[p + 1]):
            witness = _false_literal(i, cur, lit_start, lit_atom, lit_neg)
            if witness >= 0:
                inst_true[i] = 0
                _watch(witness, lit_atom[witness], fan_start, wcount, wl, wpos)
            else:
                inst_true[i] = 1
                atom_count[order[p]] += 1
                for k in range(lit_start[i], lit_start[i + 1]):
                    _watch(k, lit_atom[k], fan_start, wcount, wl, wpos)


@nb.njit(cache=True, inline="always")
def _sync(v, net, live):
    """Move the network to state ``v`` (only the base facts that differ are changed)."""
    cur = live[0]
    n = 0
    for j in range(net[0]):
        n += v[j] != cur[j]
    inputs = np.empty(n, dtype=np.int64)
    n = 0
    for j in range(net[0]):
        if v[j] != cur[j]:
            inputs[n] = j
            n += 1
    _change(inputs, v[inputs], net, live)


@nb.njit(cache=True, inline="always")
def _step(joint, net, live):
    """Play ``joint`` (one action per role) from the network's state: the moves replace
    the previous step's (kept set, so that what two steps share, e.g. frame axioms of
    untouched cells, stays settled), ``next`` is read off and the changed base facts set."""
    num_base, does_id, next_of_base = net[0], net[11], net[12]
    cur, played = live[0], live[9]
    num_roles = joint.shape[0]
    inputs = np.empty(max(2 * num_roles, num_base), dtype=np.int64)
    values = np.zeros(inputs.shape[0], dtype=np.uint8)
    n = 0
    for r in range(num_roles):
        move = does_id[r, joint[r]]
        if move < 0:
            raise ValueError("a move that is never legal")
        if move != played[r]:
            if played[r] >= 0:
                inputs[n] = played[r]
                n += 1
            inputs[n] = move
            values[n] = 1
            n += 1
            played[r] = move
    _change(inputs[:n], values[:n], net, live)
    n = 0
    for j in range(num_base):
        after = cur[next_of_base[j]] if next_of_base[j] >= 0 else 0
        if after != cur[j]:
            inputs[n] = j
            values[n] = after
            n += 1
    _change(inputs[:n], values[:n], net, live)


@nb.njit(cache=True)
def _next(v, joint, net, live):
    """The state after ``joint`` from ``v``."""
    _sync(v, net, live)
    _step(joint, net, live)
    return live[0].copy()


@nb.njit(cache=True)
def _random_below(n, rng):
    """A uniform integer in [0, n): numba's global generator, or with a one-word ``rng``
    that xorshift state (a stream of its own, leaving the global one untouched)."""
    if rng.shape[0] == 0:
        return np.random.randint(n)
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return int(x % np.uint64(n))


@nb.njit(cache=True)
def _playout(v, net, live, legal_start, legal_atom, legal_action, terminal_atom, max_steps,
             rng, record):
    """Uniformly random joint moves to the end (or to a state where a role has no legal
    move). Returns the final values, the steps played (-1 past ``max_steps``), the
    (role, action) of every real choice (roles with one legal move only are left out, except
    that a step where nobody has a choice records the first role, as it is the mover) and,
    with ``record``, the base propositions of every position after a step ([steps, num_base];
    else [0, num_base])."""
    _sync(v, net, live)
    v = live[0]
    num_base = net[0]
    num_roles = legal_start.shape[0] - 1
    movers = np.empty(max_steps * num_roles, dtype=np.int64)
    actions = np.empty(max_steps * num_roles, dtype=np.int64)
    joint = np.empty(num_roles, dtype=np.int64)
    trace = np.empty((64 if record else 0, num_base), dtype=np.uint8)
    n = 0
    steps = 0
    while not (terminal_atom >= 0 and v[terminal_atom] == 1):
        if steps == max_steps:
            return v.copy(), -1, movers[:n], actions[:n], trace[:0]
        chose = False
        for r in range(num_roles):
            count = 0
            for k in range(legal_start[r], legal_start[r + 1]):
                count += v[legal_atom[k]]
            if count == 0:  # not well formed: ends the game, as GgpState does
                return v.copy(), steps, movers[:n], actions[:n], trace[:steps if record else 0]
            pick = _random_below(count, rng)
            for k in range(legal_start[r], legal_start[r + 1]):
                if v[legal_atom[k]] == 1:
                    if pick == 0:
                        joint[r] = legal_action[k]
                        break
                    pick -= 1
            if count > 1:
                movers[n] = r
                actions[n] = joint[r]
                n += 1
                chose = True
        if not chose:
            movers[n] = 0
            actions[n] = joint[0]
            n += 1
        _step(joint, net, live)
        if record:
            if steps == trace.shape[0]:  # double the rows kept
                grown = np.empty((2 * steps, num_base), dtype=np.uint8)
                grown[:steps] = trace
                trace = grown
            trace[steps] = v[:num_base]
        steps += 1
    return v.copy(), steps, movers[:n], actions[:n], trace[:steps if record else 0]


@nb.njit(cache=True)
def _sample_changes(init, net, live, legal_start, legal_atom, legal_action, terminal_atom,
                    steps):
    """Random games from ``init`` (a fixed xorshift stream) for about ``steps`` joint moves;
    the network counts how often each atom changes (``live[8]``)."""
    rng = np.array([0x9E3779B97F4A7C15], dtype=np.uint64)
    played = 0
    while played < steps:
        n = _playout(init, net, live, legal_start, legal_atom, legal_action, terminal_atom,
                     steps - played, rng, False)[1]
        played += steps - played if n < 0 else max(n, 1)


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


class PropNet(Reasoner):
    """A grounded GDL game; states are uint8 arrays of every atom's value (base facts, and
    legal, goal, terminal with what they use, exact; the rest is the network's scratch)."""

    kind = "propnet"

    def __init__(self, desc: Description, grounding: Grounding,
                 sample_steps: int = SAMPLE_STEPS) -> None:
        """Compile ``grounding`` (which must hold its instances); ``sample_steps`` joint moves
        of random games (a fixed stream of its own) order the literals."""
        super().__init__(desc, grounding)
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
        self.base = sorted((f[1] for f in grounding.possible.get("true")), key=to_kif)
        atoms: list[Term] = [("true", f) for f in self.base]
        does = [("does", r, m) for r in self.roles for m in self.moves
                if ("legal", r, m) in grounding.possible.get("legal")]
        atoms += does
        derived = sorted((a for a in relevant if a in by_head), key=to_kif)
        atoms += derived
        self.atoms = atoms
        ids = {a: i for i, a in enumerate(atoms)}
        first_derived = len(self.base) + len(does)
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
        num_roles = len(self.roles)
        does_id = np.full((num_roles, max(len(self.moves), 1)), -1, dtype=np.int64)
        for r, m in [(self.roles.index(d[1]), d[2]) for d in does]:
            does_id[r, self.move_index[m]] = ids[("does", self.roles[r], m)]
        # A move never legal has no does atom (-1): _step refuses it.
        next_of_base = np.array([ids.get(("next", f), -1) for f in self.base], dtype=np.int64)
        legal_start, legal_atom, legal_action = [0], [], []
        goal_start, goal_atom, goal_value = [0], [], []
        for r in self.roles:
            for a, m in enumerate(self.moves):
                if ("legal", r, m) in ids:
                    legal_atom.append(ids[("legal", r, m)])
                    legal_action.append(a)
            legal_start.append(len(legal_atom))
            for atom in derived:
                if atom[0] == "goal" and atom[1] == r:
                    goal_atom.append(ids[atom])
                    goal_value.append(float(atom[2]))
            goal_start.append(len(goal_atom))
        self.legal_start = np.array(legal_start, dtype=np.int64)
        self.legal_atom = np.array(legal_atom, dtype=np.int64)
        self.legal_action = np.array(legal_action, dtype=np.int64)
        self._legal_of = [(self.legal_atom[s:e], self.legal_action[s:e])
                          for s, e in zip(legal_start[:-1], legal_start[1:])]
        self.goal_start = np.array(goal_start, dtype=np.int64)
        self.goal_atom = np.array(goal_atom, dtype=np.int64)
        self.goal_value = np.array(goal_value)
        self.terminal_atom = ids.get("terminal", -1)
        self.num_atoms = len(atoms)
        self.num_instances = len(lit_start) - 1
        self.zobrist = np.random.default_rng(0x66D9).integers(
            0, 2**63, size=len(self.base), dtype=np.int64).astype(np.uint64)
        init = np.zeros(len(atoms), dtype=np.uint8)
        base_index = {f: j for j, f in enumerate(self.base)}
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

        def compile_net(lit_atom_a: np.ndarray, lit_neg_a: np.ndarray) -> None:
            fan_start = np.zeros(len(atoms) + 1, dtype=np.int64)
            fan_start[1:] = np.cumsum(np.bincount(lit_atom_a, minlength=len(atoms)))
            self.net = (len(self.base), comp_start_a, np.array(cyclic, dtype=np.bool_), order_a,
                        inst_start_a, lit_start_a, lit_atom_a, lit_neg_a, lit_inst, inst_head,
                        comp_of, does_id, next_of_base, fan_start)
            # The network's own state: every atom's value with no move played, per instance
            # whether it holds, per atom its true instances, the pending components, the watch
            # lists, a scratch list, each atom's count of changes and each role's move set.
            values = init.copy()
            _evaluate(values, 0, len(comp_start) - 1, *self.net[1:8])
            n_lits = len(lit_atom_a)
            self._live = (values, np.zeros(len(inst_head), dtype=np.uint8),
                          np.zeros(len(atoms), dtype=np.int32),
                          np.zeros(len(comp_start) - 1, dtype=np.uint8),
                          np.zeros(len(atoms), dtype=np.int32), np.zeros(n_lits, dtype=np.int32),
                          np.full(n_lits, -1, dtype=np.int32),
                          np.zeros(max(np.diff(fan_start).max(initial=0), 1), dtype=np.int32),
                          np.zeros(len(atoms), dtype=np.int64), np.full(num_roles, -1))
            _start(self.net, self._live)

        compile_net(np.array(lit_atom, dtype=np.int64), np.array(lit_neg, dtype=np.uint8))
        # A literal's watch is costly when the literal often comes to hold: order each
        # instance's literals by how often their atoms changed in random games (the first
        # literal not holding is the watched one).
        start = self._live[0].copy()
        _sample_changes(start, self.net, self._live, self.legal_start, self.legal_atom,
                        self.legal_action, self.terminal_atom, sample_steps)
        lit_atom_a, lit_neg_a = self.net[6], self.net[7]
        holds = start[lit_atom_a] != lit_neg_a
        by_cost = np.lexsort((holds, self._live[8][lit_atom_a], lit_inst))
        compile_net(lit_atom_a[by_cost], lit_neg_a[by_cost])
        self._initial = self._live[0].copy()
        # One network per game, shared by every state: calls into it take turns.
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def initial(self) -> np.ndarray:
        return self._initial.copy()

    def legal(self, state: np.ndarray, role: int) -> np.ndarray:
        atoms, actions = self._legal_of[role]
        return actions[state[atoms] == 1]

    def is_terminal(self, state: np.ndarray) -> bool:
        return self.terminal_atom >= 0 and bool(state[self.terminal_atom])

    def goals(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros(len(self.roles))
        for r in range(len(self.roles)):
            s, e = self.goal_start[r], self.goal_start[r + 1]
            held = self.goal_value[s:e][state[self.goal_atom[s:e]] == 1]
            if len(held):
                out[r] = held.max()
        return out

    def next(self, state: np.ndarray, joint: np.ndarray) -> np.ndarray:
        with self._lock:
            return _next(state, np.asarray(joint, dtype=np.int64), self.net, self._live)

    def playout(self, state: np.ndarray, max_steps: int, record: bool = False):
        """Uniform random joint moves to the end: (final state, steps, movers, actions), and
        with ``record`` the base propositions after each step ([steps, num_base] uint8)."""
        with self._lock:
            v, steps, movers, actions, trace = _playout(
                state, self.net, self._live, self.legal_start, self.legal_atom,
                self.legal_action, self.terminal_atom, max_steps, _GLOBAL_RNG, record)
        if steps == -1:
            raise RuntimeError(f"a playout passed {max_steps} joint moves without ending")
        return (v, steps, movers, actions, trace) if record else (v, steps, movers, actions)

    def facts(self, state: np.ndarray) -> frozenset[Term]:
        return frozenset(self.base[j] for j in np.flatnonzero(state[:len(self.base)]))

    def exact_key(self, state: np.ndarray) -> bytes:
        return state[:len(self.base)].tobytes()

    def key(self, state: np.ndarray) -> int:
        return int(np.bitwise_xor.reduce(self.zobrist[state[:len(self.base)] == 1],
                                         initial=np.uint64(0)))
