"""The general reasoner: exact bottom-up evaluation of the dynamic clauses on each state.

Slower than the propositional network but with no grounding to fit in memory; chosen
automatically for descriptions too large to instantiate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .datalog import FactStore, Program
from .gdl import Description, relation
from .kif import Term, to_kif
from .reasoner import Grounding, Reasoner, dependency_strata


@dataclass(frozen=True)
class InterpState:
    """True facts and every dynamic fact that does not depend on ``does``."""

    facts: frozenset[Term]
    store: FactStore


class Interpreter(Reasoner):
    """A GDL game evaluated by the semi-naive Datalog engine."""

    kind = "interpreter"

    def __init__(self, desc: Description, grounding: Grounding) -> None:
        super().__init__(desc, grounding)
        self.static = grounding.static
        self.static_relations = set(desc.static)
        dynamic = set(desc.arity) - desc.static - {"true", "does"}
        uses_does = {"does"}
        for comp in dependency_strata(desc.clauses, dynamic | {"true", "does"}):
            for c in desc.clauses_for(comp):
                if any(relation(lit[1] if lit[0] == "not" else lit) in uses_does
                       for lit in c.body if isinstance(lit, tuple) and lit[0] != "distinct"):
                    uses_does.update(comp)
        self.after_does = (dynamic & uses_does)
        before = dynamic - uses_does
        clauses = desc.clauses_for(before)
        self.before_program = Program(clauses, dependency_strata(clauses, before))
        clauses = desc.clauses_for(self.after_does)
        # One does fact per role: joining it first binds the move's arguments at once.
        self.after_program = Program(clauses, dependency_strata(clauses, self.after_does),
                                     prefer={"does"})
        self.init_facts = frozenset(f[1] for f in self.static.get("init"))
        self._codes: dict[Term, int] = {}

    def _state(self, facts: frozenset[Term]) -> InterpState:
        store = self.static.overlay(self.static_relations)
        for f in facts:
            store.add(("true", f))
        self.before_program.run(store)
        return InterpState(facts, store)

    def initial(self) -> InterpState:
        return self._state(self.init_facts)

    def legal(self, state: InterpState, role: int) -> np.ndarray:
        name = self.roles[role]
        return np.array(sorted(self.move_index[f[2]] for f in state.store.get("legal")
                               if f[1] == name), dtype=np.int64)

    def is_terminal(self, state: InterpState) -> bool:
        return "terminal" in state.store.get("terminal")

    def goals(self, state: InterpState) -> np.ndarray:
        out = np.zeros(len(self.roles))
        index = {r: i for i, r in enumerate(self.roles)}
        for f in state.store.get("goal"):
            if f[1] in index:
                out[index[f[1]]] = max(out[index[f[1]]], float(f[2]))
        return out

    def next(self, state: InterpState, joint: np.ndarray) -> InterpState:
        store = state.store.overlay((set(state.store.facts) | self.static_relations)
                                    - self.after_does - {"does"})
        for role, a in zip(self.roles, joint):
            store.add(("does", role, self.moves[int(a)]))
        self.after_program.run(store)
        return self._state(frozenset(f[1] for f in store.get("next")))

    def facts(self, state: InterpState) -> frozenset[Term]:
        return state.facts

    def exact_key(self, state: InterpState) -> frozenset[Term]:
        return state.facts

    def key(self, state: InterpState) -> int:
        h = 0
        for f in state.facts:  # order-free: XOR of per-fact hashes, stable across processes
            code = self._codes.get(f)
            if code is None:
                # 63 bits, as the network's keys: search trees keep keys as int64.
                code = self._codes[f] = int.from_bytes(
                    hashlib.blake2b(to_kif(f).encode(), digest_size=8).digest(), "little") >> 1
            h ^= code
        return h
