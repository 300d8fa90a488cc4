"""What the Game adapter asks of a GDL reasoner, and the relaxed grounding both reasoners (the
compiled propositional network and the interpreter) start from; ``game.make_reasoner`` chooses.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from .datalog import FactStore, Program, substitute
from .gdl import Clause, Description, _sccs, is_distinct, is_negation, relation
from .kif import Rule, Term, to_kif

#: Clause derivations (ground instances, counted with repeats) past which the propositional
#: network is not built and the interpreter is used instead: about 25 CPU-s of grounding and
#: compiling on the 2-core machine of BENCHMARKS.md (checkers, 262,113, takes 13 s).
MAX_INSTANCES = 500_000

_BRIDGE = Rule(("relaxation",), (), 0)
#: Relaxed reachability: every possible next fact may be true, every possible legal move played.
BRIDGES = [Clause(("true", "?f"), (("init", "?f"),), _BRIDGE),
           Clause(("true", "?f"), (("next", "?f"),), _BRIDGE),
           Clause(("does", "?r", "?m"), (("legal", "?r", "?m"),), _BRIDGE)]


class TooLarge(ValueError):
    """Grounding passed its size limit."""


@dataclass
class Grounding:
    """Every ground atom a reachable state can make true (a superset) and, when they fit,
    the ground instances of the dynamic clauses: (head, positive dynamic literals, negated
    dynamic literals); static literals are already decided and left out."""

    static: FactStore  # exact facts of the static relations
    possible: FactStore  # overlay holding the possible dynamic facts
    instances: set[tuple[Term, tuple[Term, ...], tuple[Term, ...]]] | None
    reason: str  # why instances is None, or ""


def dependency_strata(clauses: list[Clause], relations: set[str]) -> list[list[str]]:
    """SCCs of ``relations`` over the clauses' positive and negative body edges, each after
    the ones it depends on."""
    edges: dict[str, set[str]] = {r: set() for r in relations}
    for c in clauses:
        h = relation(c.head)
        if h not in relations:
            continue
        for lit in c.body:
            if is_distinct(lit):
                continue
            r = relation(lit[1] if is_negation(lit) else lit)
            if r in relations:
                edges[h].add(r)
    return _sccs(sorted(relations), edges)


def static_facts(desc: Description) -> FactStore:
    """The exact facts of every static relation (role, init, the board geometry ...)."""
    store = FactStore()
    clauses = [c for c in desc.clauses if relation(c.head) in desc.static]
    Program(clauses, dependency_strata(clauses, desc.static), adaptive=True).run(store)
    return store


def ground(desc: Description, max_instances: int = MAX_INSTANCES) -> Grounding:
    """Relaxed bottom-up evaluation of the dynamic clauses (see :class:`Grounding`); past
    ``max_instances`` it starts again listing the possible facts only."""
    static = static_facts(desc)
    dynamic = set(desc.arity) - desc.static
    clauses = [c for c in desc.clauses if relation(c.head) in dynamic] + BRIDGES
    instances: set = set()
    derivations = 0

    def record(c: Clause, b: dict, head: Term) -> None:
        nonlocal derivations
        if c.source is _BRIDGE:
            return
        derivations += 1
        if derivations > max_instances:
            raise TooLarge(f"grounding needs more than {max_instances:,} clause instances")
        pos = tuple(substitute(lit, b) for lit in c.body
                    if not is_negation(lit) and not is_distinct(lit)
                    and relation(lit) not in desc.static)
        neg = tuple(substitute(lit[1], b) for lit in c.body
                    if is_negation(lit) and relation(lit[1]) not in desc.static)
        instances.add((head, pos, neg))

    # Negations of dynamic relations are not tested: the grounding must cover every state.
    program = Program(clauses, dependency_strata(clauses, dynamic | {"true", "does"}),
                      skip_negated=dynamic | {"true", "does"}, adaptive=True)
    possible = static.overlay(desc.static)
    try:
        program.run(possible, record)
        return Grounding(static, possible, instances, "")
    except TooLarge as err:
        possible = static.overlay(desc.static)
        program.run(possible)
        return Grounding(static, possible, None, str(err))


class Reasoner(abc.ABC):
    """A GDL game's rules as functions of a state (an opaque value of the reasoner's).

    Moves are numbered once for the whole game: ``moves[a]`` is the ground move term of
    action ``a`` (shared by all roles), sorted by its KIF text.
    """

    roles: list[str]
    moves: list[Term]
    kind: str

    def __init__(self, desc: Description, grounding: Grounding) -> None:
        self.roles = list(desc.roles)
        legal = grounding.possible.get("legal")
        self.moves = sorted({f[2] for f in legal}, key=to_kif)
        self.move_index = {m: i for i, m in enumerate(self.moves)}

    @abc.abstractmethod
    def initial(self):
        """The initial state."""

    @abc.abstractmethod
    def legal(self, state, role: int) -> np.ndarray:
        """Sorted action indices legal for ``role``."""

    @abc.abstractmethod
    def is_terminal(self, state) -> bool:
        """Whether ``terminal`` holds."""

    @abc.abstractmethod
    def goals(self, state) -> np.ndarray:
        """Goal value (0-100) per role; the highest if several hold, 0 if none."""

    @abc.abstractmethod
    def next(self, state, joint: np.ndarray):
        """The state after every role plays ``joint[role]`` (assumed legal)."""

    @abc.abstractmethod
    def facts(self, state) -> frozenset[Term]:
        """The true facts of ``state`` (the ``f`` of each ``(true f)``)."""

    @abc.abstractmethod
    def exact_key(self, state) -> bytes | frozenset:
        """A hashable value equal exactly for states with the same true facts."""

    @abc.abstractmethod
    def key(self, state) -> int:
        """A 64-bit hash of the true facts."""

