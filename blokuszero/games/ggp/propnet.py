"""The compiled reasoner: the grounded rules as a propositional network evaluated in numba.

Every possible ground atom (from the relaxed grounding) is one byte of a value array: first
the base propositions ``(true f)``, then the inputs ``(does r m)``, then the derived atoms.
A derived atom is the OR of its clause instances, each the AND of its literals. Atoms are
evaluated in dependency order, strongly connected components (positive recursion, e.g. a
path relation) iterated to their least fixpoint. The atoms that do not depend on ``does``
(legal, goal, terminal and what they use) form phase 1, evaluated once per state; phase 2
(``next`` and its helpers) runs once per joint move.
"""

from __future__ import annotations

from collections import defaultdict

import numba as nb
import numpy as np

from .gdl import Description, _sccs, relation
from .kif import Term, to_kif
from .reasoner import Grounding, Reasoner

_ROOTS = ("legal", "goal", "terminal", "next")


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


@nb.njit(cache=True)
def _next(v, joint, net):
    """The phase-1 values of the state after ``joint`` (one action per role) from ``v``."""
    (num_base, phase1, phase2, comp_start, comp_cyclic, order, inst_start, lit_start, lit_atom,
     lit_neg, does_id, next_of_base) = net
    w = v.copy()
    for r in range(joint.shape[0]):
        w[does_id[r, joint[r]]] = 1
    _evaluate(w, phase1, phase2, comp_start, comp_cyclic, order, inst_start, lit_start,
              lit_atom, lit_neg)
    out = np.zeros_like(v)
    for j in range(num_base):
        if next_of_base[j] >= 0:
            out[j] = w[next_of_base[j]]
    _evaluate(out, 0, phase1, comp_start, comp_cyclic, order, inst_start, lit_start, lit_atom,
              lit_neg)
    return out


@nb.njit(cache=True)
def _playout(v, net, legal_start, legal_atom, legal_action, terminal_atom, max_steps, record):
    """Uniformly random joint moves to the end (or to a state where a role has no legal
    move). Returns the final values, the steps played, the (role, action) of every real
    choice (roles with one legal move only are left out, except that a step where nobody has
    a choice records the first role, as it is the mover) and, with ``record``, the base
    propositions of every position after a step ([steps, num_base]; else [0, num_base])."""
    num_roles = legal_start.shape[0] - 1
    num_base = net[0]
    movers = np.empty(max_steps * num_roles, dtype=np.int64)
    actions = np.empty(max_steps * num_roles, dtype=np.int64)
    joint = np.empty(num_roles, dtype=np.int64)
    trace = np.empty((64 if record else 0, num_base), dtype=np.uint8)
    n = 0
    steps = 0
    while not (terminal_atom >= 0 and v[terminal_atom] == 1):
        if steps == max_steps:
            return v, -1, movers[:n], actions[:n], trace[:0]
        chose = False
        for r in range(num_roles):
            count = 0
            for k in range(legal_start[r], legal_start[r + 1]):
                count += v[legal_atom[k]]
            if count == 0:  # not well formed: ends the game, as GgpState does
                return v, steps, movers[:n], actions[:n], trace[:steps if record else 0]
            pick = np.random.randint(count)
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
        v = _next(v, joint, net)
        if record:
            if steps == trace.shape[0]:  # double the rows kept
                grown = np.empty((2 * steps, num_base), dtype=np.uint8)
                grown[:steps] = trace
                trace = grown
            trace[steps] = v[:num_base]
        steps += 1
    return v, steps, movers[:n], actions[:n], trace[:steps if record else 0]


class PropNet(Reasoner):
    """A grounded GDL game; states are uint8 arrays of every atom's value after phase 1."""

    kind = "propnet"

    def __init__(self, desc: Description, grounding: Grounding) -> None:
        super().__init__(desc, grounding)
        by_head: dict[Term, list[tuple[tuple, tuple]]] = defaultdict(list)
        for head, pos, neg in grounding.instances:
            by_head[head].append((pos, neg))
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
        # Dependency order over derived atoms (components listed after those they use).
        edges = {ids[h]: {ids[a] for pos, neg in by_head[h] for a in pos + neg
                          if ids.get(a, -1) >= first_derived} for h in derived}
        comps = _sccs(sorted(edges), edges)
        uses_does = np.zeros(len(atoms), dtype=bool)
        uses_does[len(self.base):first_derived] = True
        phase1, phase2 = [], []
        for comp in comps:
            dep = any(uses_does[ids[a]] for i in comp for pos, neg in by_head[atoms[i]]
                      for a in pos + neg if a in ids)
            for i in comp:
                uses_does[i] = dep
            (phase2 if dep else phase1).append(comp)
        order, comp_start, cyclic, inst_start, lit_start, lit_atom, lit_neg = [], [0], [], [0], [0], [], []
        for comp in phase1 + phase2:
            cyclic.append(len(comp) > 1 or comp[0] in edges[comp[0]])
            for i in comp:
                order.append(i)
                for pos, neg in by_head[atoms[i]]:
                    # Moves first: most does atoms are false, so most next instances fail
                    # on their first test.
                    lits = sorted([(ids[a], 0) for a in pos] + [(ids[a], 1) for a in neg if a in ids],
                                  key=lambda lit: not len(self.base) <= lit[0] < first_derived)
                    for a, n in lits:
                        lit_atom.append(a)
                        lit_neg.append(n)
                    lit_start.append(len(lit_atom))
                inst_start.append(len(lit_start) - 1)
            comp_start.append(len(order))
        num_roles = len(self.roles)
        does_id = np.full((num_roles, max(len(self.moves), 1)), -1, dtype=np.int64)
        for r, m in [(self.roles.index(d[1]), d[2]) for d in does]:
            does_id[r, self.move_index[m]] = ids[("does", self.roles[r], m)]
        # A move never legal has no does atom; writing to index -1 would hit the last atom, so
        # such moves must never reach _next (legality is checked before).
        next_of_base = np.array([ids.get(("next", f), -1) for f in self.base], dtype=np.int64)
        self.net = (len(self.base), len(phase1), len(phase1) + len(phase2),
                    np.array(comp_start, dtype=np.int64), np.array(cyclic, dtype=np.bool_),
                    np.array(order, dtype=np.int64), np.array(inst_start, dtype=np.int64),
                    np.array(lit_start, dtype=np.int64), np.array(lit_atom, dtype=np.int64),
                    np.array(lit_neg, dtype=np.uint8), does_id, next_of_base)
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
        _evaluate(init, 0, len(phase1), *self.net[3:10])
        self._initial = init

    def initial(self) -> np.ndarray:
        return self._initial.copy()

    def legal(self, state: np.ndarray, role: int) -> np.ndarray:
        s, e = self.legal_start[role], self.legal_start[role + 1]
        return self.legal_action[s:e][state[self.legal_atom[s:e]] == 1]

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
        return _next(state, np.asarray(joint, dtype=np.int64), self.net)

    def playout(self, state: np.ndarray, max_steps: int, record: bool = False):
        """Uniform random joint moves to the end: (final state, steps, movers, actions), and
        with ``record`` the base propositions after each step ([steps, num_base] uint8)."""
        v, steps, movers, actions, trace = _playout(
            state, self.net, self.legal_start, self.legal_atom, self.legal_action,
            self.terminal_atom, max_steps, record)
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
