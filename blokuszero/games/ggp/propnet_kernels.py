"""The propositional network's numba kernels: evaluation from scratch, the differential update
(watched literals) and a joint move (:mod:`.propnet_network` holds the arrays they work on,
:mod:`.propnet_playout` plays whole games with them).

The network keeps one state of its own (:class:`~.propnet_network.Live`) and moves it
differentially (:func:`_change`): a changed atom visits only the instances watching it, and
only atoms whose value changes go on. A call first moves the network to the state asked about
(the base facts that differ), then plays the joint move: its ``does`` atoms replace the
previous move's, ``next`` is read off, and the changed base facts are set.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _atom_value(v, p, inst_start, lit_start, lit_atom, lit_neg):
    """Whether some instance of derived atom ``order[p]`` holds under ``v``."""
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
def evaluate(v, lo, hi, comp_start, comp_cyclic, order, inst_start, lit_start, lit_atom,
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
    comp_start, comp_cyclic, order = net.comp_start, net.comp_cyclic, net.order
    lit_start, lit_atom, lit_neg = net.lit_start, net.lit_atom, net.lit_neg
    lit_inst, inst_head, comp_of, fan_start = net.lit_inst, net.inst_head, net.comp_of, net.fan_start
    cur, inst_true, atom_count, pending = live.values, live.inst_true, live.atom_count, live.pending
    wcount, wl, wpos, snap, changes = live.wcount, live.wl, live.wpos, live.snap, live.changes
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
                evaluate(cur, c, c + 1, comp_start, comp_cyclic, order, net.inst_start,
                         lit_start, lit_atom, lit_neg)
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
def start(net, live):
    """Instance values, counters and watches from scratch for the values in ``live.values``."""
    order, inst_start = net.order, net.inst_start
    lit_start, lit_atom, lit_neg, fan_start = net.lit_start, net.lit_atom, net.lit_neg, net.fan_start
    cur, inst_true, atom_count = live.values, live.inst_true, live.atom_count
    wcount, wl, wpos = live.wcount, live.wl, live.wpos
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
    cur = live.values
    n = 0
    for j in range(net.num_base):
        n += v[j] != cur[j]
    inputs = np.empty(n, dtype=np.int64)
    n = 0
    for j in range(net.num_base):
        if v[j] != cur[j]:
            inputs[n] = j
            n += 1
    _change(inputs, v[inputs], net, live)


@nb.njit(cache=True, inline="always")
def _step(joint, net, live):
    """Play ``joint`` (one action per role) from the network's state: the moves replace
    the previous step's (kept set, so that what two steps share, e.g. frame axioms of
    untouched cells, stays settled), ``next`` is read off and the changed base facts set."""
    num_base, does_id, next_of_base = net.num_base, net.does_id, net.next_of_base
    cur, played = live.values, live.played
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
def next_state(v, joint, net, live):
    """The state after ``joint`` from ``v``."""
    _sync(v, net, live)
    _step(joint, net, live)
    return live.values.copy()
