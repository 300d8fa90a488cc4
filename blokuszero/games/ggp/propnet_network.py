"""The propositional network as named arrays: the compiled rules (:class:`Network`) and the
network's own state that the kernels move (:class:`Live`).

Both are NamedTuples of numpy arrays (and a few integers), so numba takes them as they are: a
field read (``net.lit_atom``) compiles to the same constant-index tuple access as ``net[6]``.

Every possible ground atom is one byte of a value array: first the ``num_base`` base
propositions ``(true f)``, then the inputs ``(does r m)``, then the derived atoms (and the
auxiliary ones from factoring). A derived atom is the OR of its clause instances, each the AND
of its literals; a literal is an atom and whether it is negated.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Network(NamedTuple):
    """The compiled rules; never written after compilation."""

    num_base: int  # atoms 0 .. num_base - 1 are the base propositions
    comp_start: np.ndarray  # component c: derived atoms order[comp_start[c]:comp_start[c + 1]]
    comp_cyclic: np.ndarray  # bool per component: a positive cycle (settled to a fixpoint)
    order: np.ndarray  # derived atoms, components in dependency order (after what they use)
    inst_start: np.ndarray  # instances of atom order[p]: inst_start[p] .. inst_start[p + 1] - 1
    lit_start: np.ndarray  # literals of instance i: lit_start[i] .. lit_start[i + 1] - 1
    lit_atom: np.ndarray  # per literal its atom
    lit_neg: np.ndarray  # per literal 1 if negated (uint8)
    lit_inst: np.ndarray  # per literal its instance (int32)
    inst_head: np.ndarray  # per instance the atom it derives (int32)
    comp_of: np.ndarray  # per atom its component (-1: not derived)
    does_id: np.ndarray  # [role, action] -> the does atom (-1: a move never legal)
    next_of_base: np.ndarray  # per base proposition the atom of its next (-1: none)
    fan_start: np.ndarray  # atom a's watch list is Live.wl[fan_start[a]:fan_start[a + 1]]
    legal_start: np.ndarray  # role r's legal atoms: legal_start[r] .. legal_start[r + 1] - 1
    legal_atom: np.ndarray  # per legal atom its atom
    legal_action: np.ndarray  # per legal atom the action it allows
    goal_start: np.ndarray  # role r's goal atoms: goal_start[r] .. goal_start[r + 1] - 1
    goal_atom: np.ndarray  # per goal atom its atom
    goal_value: np.ndarray  # per goal atom its value (0-100, float64)
    terminal_atom: int  # the atom of terminal (-1: never terminal)


class Live(NamedTuple):
    """The network's own state (see ``propnet_kernels._change``), moved in place by the kernels."""

    values: np.ndarray  # every atom's value (uint8)
    inst_true: np.ndarray  # per instance whether it holds (uint8)
    atom_count: np.ndarray  # per atom its true instances (int32)
    pending: np.ndarray  # per component whether it waits to be settled (uint8)
    wcount: np.ndarray  # per atom the length of its watch list (int32)
    wl: np.ndarray  # the watch lists: literal occurrences (int32)
    wpos: np.ndarray  # per literal its place in its watch list, -1 if not watched (int32)
    snap: np.ndarray  # scratch: a copy of the watch list being walked (int32)
    changes: np.ndarray  # per atom how often it changed (int64; orders the literals)
    played: np.ndarray  # per role the does atom of the last move played (-1: none)


def new_live(net: Network, values: np.ndarray) -> Live:
    """A network state for the atom values ``values`` (kept, not copied), before
    ``propnet_kernels.start`` fills its instances, counters and watches."""
    num_atoms, num_lits = len(values), len(net.lit_atom)
    return Live(values, np.zeros(len(net.inst_head), dtype=np.uint8),
                np.zeros(num_atoms, dtype=np.int32),
                np.zeros(len(net.comp_start) - 1, dtype=np.uint8),
                np.zeros(num_atoms, dtype=np.int32), np.zeros(num_lits, dtype=np.int32),
                np.full(num_lits, -1, dtype=np.int32),
                np.zeros(max(np.diff(net.fan_start).max(initial=0), 1), dtype=np.int32),
                np.zeros(num_atoms, dtype=np.int64),
                np.full(len(net.legal_start) - 1, -1, dtype=np.int64))
