"""Bottom-up (semi-naive) evaluation of GDL clauses over ground facts.

One engine serves both reasoners: the interpreter evaluates the dynamic clauses exactly on
each state's facts, and the grounder runs them *relaxed* (negated dynamic literals assumed
true, every ``next`` fact a possible ``true`` fact) to list every ground atom and ground
clause instance any reachable state can use.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from .gdl import Clause, is_distinct, is_negation, relation
from .kif import Term, is_var, variables


def substitute(term: Term, b: dict[str, Term]) -> Term:
    """``term`` with the bound variables replaced."""
    if isinstance(term, str):
        return b.get(term, term) if term[0] == "?" else term
    return tuple(substitute(t, b) for t in term)


def _match(pat: Term, fact: Term, b: dict[str, Term]) -> bool:
    """Extend ``b`` (in place) so that ``pat`` equals the ground ``fact``; False if impossible."""
    if isinstance(pat, str):
        if pat[0] == "?":
            v = b.get(pat)
            if v is None:
                b[pat] = fact
                return True
            return v == fact
        return pat == fact
    if not isinstance(fact, tuple) or len(fact) != len(pat):
        return False
    for p, f in zip(pat, fact):
        if not _match(p, f, b):
            return False
    return True


class FactStore:
    """Ground facts by relation, with hash indexes on bound argument positions built on demand.

    An overlay (:meth:`overlay`) shares the relations of ``shared`` (read-only there) and keeps
    its own facts for the others.
    """

    def __init__(self, shared: FactStore | None = None, shared_relations: frozenset = frozenset()):
        self.facts: dict[str, set[Term]] = defaultdict(set)
        self.indexes: dict[tuple[str, tuple[int, ...]], dict[tuple, list[Term]]] = {}
        self.shared = shared
        self.shared_relations = shared_relations

    def overlay(self, relations: Iterable[str]) -> FactStore:
        """A store reading ``relations`` from this one and holding everything else itself."""
        return FactStore(self, frozenset(relations))

    def get(self, rel: str) -> set[Term]:
        if rel in self.shared_relations:
            return self.shared.get(rel)
        return self.facts.get(rel, set())

    def add(self, fact: Term) -> bool:
        """Add ``fact``; whether it was new."""
        rel = relation(fact)
        facts = self.facts[rel]
        if fact in facts:
            return False
        facts.add(fact)
        for (r, paths), index in self.indexes.items():
            if r == rel:
                k = _leaves(fact, paths)
                if k is not None:
                    index.setdefault(k, []).append(fact)
        return True

    def lookup(self, rel: str, paths: tuple[tuple[int, ...], ...], key: tuple) -> Iterable[Term]:
        """Facts of ``rel`` whose leaves at ``paths`` (index sequences into nested terms)
        equal ``key``."""
        if rel in self.shared_relations:
            return self.shared.lookup(rel, paths, key)
        if not paths:
            return self.facts.get(rel, ())
        index = self.indexes.get((rel, paths))
        if index is None:
            index = {}
            for f in self.facts.get(rel, ()):
                k = _leaves(f, paths)
                if k is not None:
                    index.setdefault(k, []).append(f)
            self.indexes[(rel, paths)] = index
        return index.get(key, ())


def _leaves(fact: Term, paths: tuple[tuple[int, ...], ...]) -> tuple | None:
    """The subterms of ``fact`` at ``paths``; None where ``fact`` has another shape."""
    out = []
    for path in paths:
        t = fact
        for i in path:
            if not isinstance(t, tuple) or i >= len(t):
                return None
            t = t[i]
        out.append(t)
    return tuple(out)


def _leaf_paths(term: Term, prefix: tuple[int, ...] = ()):
    """(path, leaf) for every constant or variable inside ``term`` (functors left out)."""
    if isinstance(term, str):
        yield prefix, term
        return
    for i in range(1, len(term)):
        yield from _leaf_paths(term[i], prefix + (i,))


class _Plan:
    """An evaluation order for a clause's body: ``first`` (if given) from a delta, the other
    positive literals greedily by how many of their variables are already bound, each test
    (distinct, negation) as soon as its variables are."""

    def __init__(self, clause: Clause, first: int | None, skip_negated: frozenset[str],
                 prefer: frozenset[str] = frozenset()):
        body = list(enumerate(clause.body))
        positives = [(i, lit) for i, lit in body if not is_negation(lit) and not is_distinct(lit)]
        tests = [(i, lit) for i, lit in body if is_negation(lit) or is_distinct(lit)]
        bound: set[str] = set()
        self.steps: list[tuple] = []
        self.recorded_negations: list[Term] = []
        remaining = list(positives)
        if first is not None:
            remaining = [p for p in remaining if p[0] != first]
            lit = clause.body[first]
            self.steps.append(("delta", lit, relation(lit)))
            variables(lit, bound)
        while True:
            for t in list(tests):
                if variables(t[1]) <= bound:
                    tests.remove(t)
                    lit = t[1]
                    if is_negation(lit) and relation(lit[1]) in skip_negated:
                        self.recorded_negations.append(lit[1])
                    else:
                        self.steps.append(("neg", lit[1]) if is_negation(lit)
                                          else ("distinct", lit[1], lit[2]))
            if not remaining:
                break
            best = max(remaining, key=lambda p: (relation(p[1]) in prefer, sum(
                1 if not is_var(leaf) or leaf in bound else -1 for _, leaf in _leaf_paths(p[1]))))
            remaining.remove(best)
            lit = best[1]
            # Index on every leaf known by then, nested ones included: (true (cell ?x ?y ?p))
            # with ?x, ?y bound looks up by both.
            paths = tuple(path for path, leaf in _leaf_paths(lit)
                          if not is_var(leaf) or leaf in bound) if isinstance(lit, tuple) else ()
            self.steps.append(("pos", lit, relation(lit), paths))
            variables(lit, bound)
        self.head = clause.head
        # The step after which the head is ground: when only facts are wanted, a known head
        # cuts the branch there and a new one needs just one completion of the body.
        head_vars, seen, self.head_ground_at = variables(clause.head), set(), 0
        for k, step in enumerate(self.steps):
            if head_vars <= seen:
                break
            if step[0] in ("pos", "delta"):
                variables(step[1], seen)
            self.head_ground_at = k + 1


def _solutions(plan: _Plan, store: FactStore, delta: dict[str, list[Term]] | None,
               facts_only: bool):
    """Every binding satisfying the plan's body; with ``facts_only``, one per new head."""
    steps = plan.steps
    cut = plan.head_ground_at if facts_only else -1
    heads = store.get(relation(plan.head))
    found: set[Term] = set()

    def walk(k: int, b: dict[str, Term]):
        if k == cut:
            head = substitute(plan.head, b)
            if head in heads or head in found:
                return
            for solution in walk_from(k, b):
                found.add(head)
                yield solution
                return
            return
        yield from walk_from(k, b)

    def walk_from(k: int, b: dict[str, Term]):
        if k == len(steps):
            yield b
            return
        step = steps[k]
        kind = step[0]
        if kind == "pos":
            _, lit, rel, paths = step
            if isinstance(lit, str):
                if lit in store.get(rel):
                    yield from walk(k + 1, b)
                return
            key = _leaves(substitute(lit, b), paths)
            for fact in store.lookup(rel, paths, key):
                nb = dict(b)
                if _match(lit, fact, nb):
                    yield from walk(k + 1, nb)
        elif kind == "delta":
            _, lit, rel = step
            for fact in delta.get(rel, ()):
                nb = dict(b)
                if _match(lit, fact, nb):
                    yield from walk(k + 1, nb)
        elif kind == "neg":
            atom = substitute(step[1], b)
            if atom not in store.get(relation(atom)):
                yield from walk(k + 1, b)
        elif substitute(step[1], b) != substitute(step[2], b):  # distinct
            yield from walk(k + 1, b)

    yield from walk(0, {})


Recorder = Callable[[Clause, dict[str, Term], Term], None]


class Program:
    """Clauses compiled into evaluation plans, run stratum by stratum to a fixpoint.

    ``strata`` lists groups of relations, each after those it depends on; ``skip_negated``
    names relations whose negations are not tested (relaxed evaluation) but passed to
    ``record`` with every derivation; literals of ``prefer`` relations (known to hold few
    facts, e.g. ``does`` on one state) are joined first.
    """

    def __init__(self, clauses: list[Clause], strata: list[list[str]],
                 skip_negated: Iterable[str] = (), prefer: Iterable[str] = ()):
        skip, prefer = frozenset(skip_negated), frozenset(prefer)
        by_head: dict[str, list[Clause]] = defaultdict(list)
        for c in clauses:
            by_head[relation(c.head)].append(c)
        self.strata: list[tuple[list, list]] = []
        for comp in strata:
            members = set(comp)
            full, deltas = [], []
            for rel in comp:
                for c in by_head.get(rel, ()):
                    plan = _Plan(c, None, skip, prefer)
                    full.append((c, plan))
                    for i, lit in enumerate(c.body):
                        if not is_negation(lit) and not is_distinct(lit) and relation(lit) in members:
                            deltas.append((c, _Plan(c, i, skip, prefer)))
            if full:
                self.strata.append((full, deltas))

    def run(self, store: FactStore, record: Recorder | None = None) -> None:
        """Derive every fact into ``store``; ``record(clause, binding, head)`` sees each
        derivation when given (the same instance may be reported more than once); without
        it, one derivation per fact is enough and the search stops there."""
        for full, deltas in self.strata:
            new: dict[str, list[Term]] = defaultdict(list)
            for c, plan in full:
                self._fire(c, plan, store, None, new, record)
            while deltas and new:
                delta, new = new, defaultdict(list)
                for c, plan in deltas:
                    if plan.steps[0][2] in delta:
                        self._fire(c, plan, store, delta, new, record)

    @staticmethod
    def _fire(c: Clause, plan: _Plan, store: FactStore, delta, new, record) -> None:
        # Solutions are gathered before any head is added: a recursive clause must not grow
        # the set it is iterating over.
        found = [(b, substitute(plan.head, b))
                 for b in _solutions(plan, store, delta, facts_only=record is None)]
        for b, head in found:
            if record is not None:
                record(c, b, head)
            if store.add(head):
                new[relation(head)].append(head)


__all__ = ["FactStore", "Program", "is_var", "substitute"]
