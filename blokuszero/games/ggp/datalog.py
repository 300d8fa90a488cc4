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


#: Positive literals past which :class:`_Plan` orders a body greedily instead of by search
#: over every subset (2^n plans).
_MAX_SEARCHED = 10


def _estimate(lit: Term, bound: set[str], sizes: dict[str, int]) -> float:
    """Expected matches of ``lit`` with ``bound`` variables known: its relation's size to the
    power of the share of its leaves still unknown (the facts spread evenly over the values)."""
    n = sizes.get(relation(lit), 0)
    if isinstance(lit, str) or n == 0:
        return min(n, 1)
    leaves = [leaf for _, leaf in _leaf_paths(lit)]
    unknown = sum(1 for leaf in leaves if is_var(leaf) and leaf not in bound)
    return float(n) ** (unknown / len(leaves)) if leaves else 1.0


def _cheapest_order(lits: list[Term], bound: set[str], sizes: dict[str, int]) -> list[int]:
    """The order of ``lits`` (indices) with the least expected work: the sum over the steps of
    the bindings reached there, each step multiplying them by the literal's :func:`_estimate`.
    Searched over subsets (dynamic programming), so that a literal binding many variables at
    once (a move) goes before two that bind fewer each but multiply more."""
    n = len(lits)
    lit_vars = [variables(lit) for lit in lits]
    best: dict[int, tuple[float, float, list[int]]] = {0: (0.0, 1.0, [])}
    for subset in range(1, 1 << n):
        choice = None
        for i in range(n):
            if not subset >> i & 1:
                continue
            cost, size, order = best[subset & ~(1 << i)]
            known = set(bound)
            for j in order:
                known |= lit_vars[j]
            size = size * _estimate(lits[i], known, sizes)
            if choice is None or cost + size < choice[0]:
                choice = (cost + size, size, order + [i])
        best[subset] = choice
    return best[(1 << n) - 1][2]


class _Plan:
    """An evaluation order for a clause's body: ``first`` (if given) from a delta, then the
    other positive literals, each test (distinct, negation) as soon as its variables are bound.

    Given the relations' current ``sizes``, the positive literals go in the order of least
    expected work (:func:`_cheapest_order`); without them, greedily by how many of their
    variables are already bound (``prefer`` relations, known to hold few facts, first).
    """

    def __init__(self, clause: Clause, first: int | None, skip_negated: frozenset[str],
                 prefer: frozenset[str] = frozenset(), sizes: dict[str, int] | None = None):
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
        if sizes is not None and 1 < len(remaining) <= _MAX_SEARCHED:
            order = _cheapest_order([lit for _, lit in remaining], bound, sizes)
            remaining = [remaining[i] for i in order]
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
            if sizes is not None and len(remaining) <= _MAX_SEARCHED:
                best = remaining[0]
            elif sizes is not None:
                best = min(remaining, key=lambda p: _estimate(p[1], bound, sizes))
            else:
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
    facts, e.g. ``does`` on one state) are joined first. With ``adaptive``, each clause's
    join order is chosen from the sizes its relations have when it fires (and chosen again
    when one of them has doubled or halved): for one long run such as the grounding, where
    a fixed order can cost millions of useless steps.
    """

    def __init__(self, clauses: list[Clause], strata: list[list[str]],
                 skip_negated: Iterable[str] = (), prefer: Iterable[str] = (),
                 adaptive: bool = False):
        self.skip, self.prefer = frozenset(skip_negated), frozenset(prefer)
        self.adaptive = adaptive
        self._plans: dict[tuple, _Plan] = {}
        by_head: dict[str, list[Clause]] = defaultdict(list)
        for c in clauses:
            by_head[relation(c.head)].append(c)
        # Per stratum: its clauses fired on all facts, then those fired on each delta, as
        # (clause, index of the delta literal or None, plan, relations of its positives).
        self.strata: list[tuple[list, list]] = []
        for comp in strata:
            members = set(comp)
            full, deltas = [], []
            for rel in comp:
                for c in by_head.get(rel, ()):
                    rels = tuple(relation(lit) for lit in c.body
                                 if not is_negation(lit) and not is_distinct(lit))
                    full.append((c, None, _Plan(c, None, self.skip, self.prefer), rels))
                    for i, lit in enumerate(c.body):
                        if not is_negation(lit) and not is_distinct(lit) and relation(lit) in members:
                            deltas.append((c, i, _Plan(c, i, self.skip, self.prefer), rels))
            if full:
                self.strata.append((full, deltas))

    def _plan(self, c: Clause, first: int | None, plan: _Plan, rels: tuple[str, ...],
              store: FactStore) -> _Plan:
        """``plan``, or with ``adaptive`` the plan for the relations' current sizes."""
        if not self.adaptive:
            return plan
        sizes = {r: len(store.get(r)) for r in rels}
        key = (id(c), first, tuple(sizes[r].bit_length() for r in rels))
        adapted = self._plans.get(key)
        if adapted is None:
            adapted = self._plans[key] = _Plan(c, first, self.skip, self.prefer, sizes)
        return adapted

    def run(self, store: FactStore, record: Recorder | None = None) -> None:
        """Derive every fact into ``store``; ``record(clause, binding, head)`` sees each
        derivation when given (the same instance may be reported more than once); without
        it, one derivation per fact is enough and the search stops there."""
        for full, deltas in self.strata:
            new: dict[str, list[Term]] = defaultdict(list)
            for c, first, plan, rels in full:
                self._fire(c, self._plan(c, first, plan, rels, store), store, None, new, record)
            while deltas and new:
                delta, new = new, defaultdict(list)
                for c, first, plan, rels in deltas:
                    if plan.steps[0][2] in delta:
                        self._fire(c, self._plan(c, first, plan, rels, store), store, delta, new,
                                   record)

    @staticmethod
    def _fire(c: Clause, plan: _Plan, store: FactStore, delta, new, record) -> None:
        # Heads are added after the last solution: a recursive clause must not grow the set
        # it is iterating over. Each derivation is recorded at once, so that a recorder
        # counting against a limit stops a large clause early.
        heads = []
        for b in _solutions(plan, store, delta, facts_only=record is None):
            head = substitute(plan.head, b)
            if record is not None:
                record(c, b, head)
            heads.append(head)
        for head in heads:
            if store.add(head):
                new[relation(head)].append(head)


__all__ = ["FactStore", "Program", "is_var", "substitute"]
