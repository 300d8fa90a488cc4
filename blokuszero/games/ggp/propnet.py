"""The compiled reasoner: a GDL game's rules as a propositional network evaluated in numba
(:mod:`.propnet_compiler` builds it, :mod:`.propnet_kernels` runs it, :mod:`.propnet_network`
names its arrays).

A state handed out is a copy of every atom's value, so legal, goal and terminal are read off it
directly; the network itself keeps one state of its own, moved to the state asked about on
each call.
"""

from __future__ import annotations

import threading

import numpy as np

from ..numba_random import stream_seed
from .gdl import Description
from .kif import Term
from .propnet_compiler import SAMPLE_STEPS, compile_network
from .propnet_kernels import next_state
from .propnet_playout import uniform_playout
from .reasoner import Grounding, Reasoner


class PropNet(Reasoner):
    """A grounded GDL game; states are uint8 arrays of every atom's value (base facts, and
    legal, goal, terminal with what they use, exact; the rest is the network's scratch)."""

    kind = "propnet"

    def __init__(self, desc: Description, grounding: Grounding,
                 sample_steps: int = SAMPLE_STEPS) -> None:
        """Compile ``grounding`` (which must hold its instances); ``sample_steps`` joint moves
        of random games (a fixed stream of their own) order the literals."""
        super().__init__(desc, grounding)
        self.base, self.atoms, self.net, self._live = compile_network(
            desc, grounding, self.roles, self.moves, sample_steps)
        net = self.net
        self._legal_of = [(net.legal_atom[s:e], net.legal_action[s:e])
                          for s, e in zip(net.legal_start[:-1], net.legal_start[1:])]
        self.zobrist = np.random.default_rng(0x66D9).integers(
            0, 2**63, size=len(self.base), dtype=np.int64).astype(np.uint64)
        self._initial = self._live.values.copy()
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
        return self.net.terminal_atom >= 0 and bool(state[self.net.terminal_atom])

    def goals(self, state: np.ndarray) -> np.ndarray:
        net = self.net
        out = np.zeros(len(self.roles))
        for r in range(len(self.roles)):
            s, e = net.goal_start[r], net.goal_start[r + 1]
            held = net.goal_value[s:e][state[net.goal_atom[s:e]] == 1]
            if len(held):
                out[r] = held.max()
        return out

    def next(self, state: np.ndarray, joint: np.ndarray) -> np.ndarray:
        with self._lock:
            return next_state(state, np.asarray(joint, dtype=np.int64), self.net, self._live)

    def playout(self, state: np.ndarray, max_steps: int, record: bool = False):
        """Uniform random joint moves to the end (a stream seeded from numba's global
        generator, see ``numba_random``): (final state, steps, movers, actions), and with
        ``record`` the base propositions after each step ([steps, num_base] uint8)."""
        stream = np.array([stream_seed()], dtype=np.uint64)
        with self._lock:
            v, steps, movers, actions, trace = uniform_playout(state, self.net, self._live, stream,
                                                               max_steps, record)
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
