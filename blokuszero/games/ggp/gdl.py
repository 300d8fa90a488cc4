"""A GDL description checked against the language's restrictions, ready for the reasoners.

Checks (Love et al., "General Game Playing: Game Description Language Specification", 2008):
safety (every variable of a rule's head, negations and ``distinct`` occurs in a positive
body literal), stratified negation (no relation depends on itself through ``not``), the
recursion restriction, and the use of the GDL keywords (no rules for ``true``/``does``,
``legal``/``goal``/``terminal`` free of ``does``, ``init``/``role`` free of ``true``/``does``).
Each failure raises :class:`GdlError` naming the rule at fault and its line.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from .kif import Rule, Term, is_var, parse_kif, to_kif, variables

INPUTS = ("true", "does")
_NOT_HEADS = ("true", "does", "distinct", "not", "or", "and")


class GdlError(ValueError):
    """A description that breaks a rule of GDL."""

    def __init__(self, message: str, rule: Rule | None = None) -> None:
        where = f" in the rule at line {rule.line}: {rule}" if rule is not None else ""
        super().__init__(message + where)
        self.rule = rule


def relation(atom: Term) -> str:
    """The relation name of an atom."""
    return atom if isinstance(atom, str) else atom[0]


def is_negation(lit: Term) -> bool:
    return isinstance(lit, tuple) and lit[0] == "not"


def is_distinct(lit: Term) -> bool:
    return isinstance(lit, tuple) and lit[0] == "distinct"


def _alternatives(lit: Term) -> list[list[Term]]:
    """``lit`` as a disjunction of conjunctions of plain literals (``or``/``and`` expanded)."""
    if isinstance(lit, tuple) and lit[0] == "or":
        return [alt for sub in lit[1:] for alt in _alternatives(sub)]
    if isinstance(lit, tuple) and lit[0] == "and":
        return [sum(combo, []) for combo in itertools.product(*(_alternatives(s) for s in lit[1:]))]
    if is_negation(lit) and isinstance(lit[1], tuple) and lit[1][0] in ("or", "and"):
        # De Morgan: not (a or b) = (not a) and (not b); not (a and b) = (not a) or (not b).
        inner = lit[1]
        swapped = ("and" if inner[0] == "or" else "or", *(("not", s) for s in inner[1:]))
        return _alternatives(swapped)
    return [[lit]]


@dataclass(frozen=True)
class Clause:
    """A rule with a flat body (``or`` expanded); ``source`` is the rule it came from."""

    head: Term
    body: tuple[Term, ...]
    source: Rule


@dataclass
class Description:
    """A checked GDL description."""

    clauses: list[Clause]
    roles: list[str]
    static: set[str]  # relations that depend on neither true nor does
    strata: list[list[str]]  # SCCs of relations, each after those it depends on
    recursive: set[str]  # relations in a cycle
    arity: dict[str, int] = field(default_factory=dict)

    def clauses_for(self, relations: set[str] | list[str]) -> list[Clause]:
        wanted = set(relations)
        return [c for c in self.clauses if relation(c.head) in wanted]


def _body_relations(clause: Clause):
    for lit in clause.body:
        if is_distinct(lit):
            continue
        if is_negation(lit):
            yield relation(lit[1]), True
        else:
            yield relation(lit), False


def _check_arity(clauses: list[Clause]) -> dict[str, int]:
    arity: dict[str, int] = {}
    for c in clauses:
        atoms = [c.head] + [lit[1] if is_negation(lit) else lit for lit in c.body
                            if not is_distinct(lit)]
        for atom in atoms:
            name, n = relation(atom), (0 if isinstance(atom, str) else len(atom) - 1)
            if arity.setdefault(name, n) != n:
                raise GdlError(f"relation {name} used with {n} arguments and elsewhere with "
                               f"{arity[name]}", c.source)
    return arity


def _check_safety(c: Clause) -> None:
    bound: set[str] = set()
    for lit in c.body:
        if not is_negation(lit) and not is_distinct(lit):
            variables(lit, bound)
    for what, term in [("head", c.head)] + [("negation" if is_negation(lit) else "distinct", lit)
                                              for lit in c.body
                                              if is_negation(lit) or is_distinct(lit)]:
        unbound = variables(term) - bound
        if unbound:
            raise GdlError(f"unsafe: variable {sorted(unbound)[0]} of the {what} {to_kif(term)} "
                           "occurs in no positive body literal", c.source)


def _sccs(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan), each listed after every component it reaches."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = itertools.count()
    for root in nodes:
        if root in index:
            continue
        # Iterative Tarjan: frames of (node, iterator over successors).
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = next(counter)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for succ in it:
                if succ not in index:
                    index[succ] = low[succ] = next(counter)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                out.append(sorted(comp))
    return out


def _check_recursion(c: Clause, scc_of: dict[str, int], recursive: set[str]) -> None:
    head_rel = relation(c.head)
    if head_rel not in recursive:
        return
    head_args = set(c.head[1:]) if isinstance(c.head, tuple) else set()
    positives = [lit for lit in c.body if not is_negation(lit) and not is_distinct(lit)]
    for lit in positives:
        if scc_of.get(relation(lit)) != scc_of[head_rel] or isinstance(lit, str):
            continue
        outside = set()
        for other in positives:
            if scc_of.get(relation(other)) != scc_of[head_rel]:
                variables(other, outside)
        for arg in lit[1:]:
            if not variables(arg) or arg in head_args or variables(arg) <= outside:
                continue
            raise GdlError(f"recursion restriction: argument {to_kif(arg)} of the recursive "
                           f"literal {to_kif(lit)} is not ground, not a head argument and not "
                           "bound by a literal outside the recursion", c.source)


def check_description(rules: list[Rule]) -> Description:
    """Flatten ``or``, check GDL's restrictions, order relations into strata."""
    clauses = []
    for rule in rules:
        if relation(rule.head) in _NOT_HEADS:
            raise GdlError(f"'{relation(rule.head)}' cannot be defined by a rule", rule)
        for alt in itertools.product(*(_alternatives(lit) for lit in rule.body)):
            clauses.append(Clause(rule.head, tuple(lit for part in alt for lit in part), rule))
    arity = _check_arity(clauses)
    for c in clauses:
        _check_safety(c)
    edges: dict[str, set[str]] = defaultdict(set)
    negative: dict[str, set[str]] = defaultdict(set)
    for c in clauses:
        for rel, neg in _body_relations(c):
            edges[relation(c.head)].add(rel)
            if neg:
                negative[relation(c.head)].add(rel)
    nodes = sorted(set(arity) | set(edges))
    strata = _sccs(nodes, edges)
    scc_of = {rel: i for i, comp in enumerate(strata) for rel in comp}
    recursive = {rel for comp in strata for rel in comp
                 if len(comp) > 1 or rel in edges.get(rel, ())}
    for c in clauses:
        for rel, neg in _body_relations(c):
            if neg and scc_of[rel] == scc_of[relation(c.head)]:
                raise GdlError(f"negation is not stratified: {relation(c.head)} depends on "
                               f"itself through (not ({rel} ...))", c.source)
        _check_recursion(c, scc_of, recursive)
    # Relations depending on true/does, in dependency order (strata are reverse-topological).
    dynamic: set[str] = set(INPUTS)
    for comp in strata:
        if any(rel in dynamic or edges.get(rel, set()) & dynamic for rel in comp):
            dynamic.update(comp)
    for c in clauses:
        head_rel = relation(c.head)
        deps = _depends(head_rel, edges)
        if head_rel in ("legal", "goal", "terminal") and "does" in deps:
            raise GdlError(f"{head_rel} must not depend on does", c.source)
        if head_rel in ("init", "role", "base", "input") and head_rel in dynamic:
            raise GdlError(f"{head_rel} must not depend on true or does", c.source)
        if any(relation(lit) == "next" or (is_negation(lit) and relation(lit[1]) == "next")
               for lit in c.body):
            raise GdlError("next cannot appear in a rule body", c.source)
    roles = [c.head[1] for c in clauses if isinstance(c.head, tuple) and c.head[0] == "role"
             and not c.body]
    if not roles:
        raise GdlError("the description declares no (role ...)")
    if len(set(roles)) != len(roles):
        raise GdlError(f"a role is declared twice: {roles}")
    static = set(arity) - dynamic
    return Description(clauses, roles, static, strata, recursive, arity)


def _depends(rel: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [rel]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def load_description(text: str) -> Description:
    """Parse and check a GDL description; KifError or GdlError if it is not valid."""
    return check_description(parse_kif(text))


__all__ = ["Clause", "Description", "GdlError", "check_description", "is_var", "load_description",
           "relation"]


_KEYWORDS = {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "base", "input"}


def _bind(pattern, ground_term, b: dict) -> bool:
    """Extend ``b`` so that ``pattern`` equals ``ground_term``; False if impossible."""
    if isinstance(pattern, str):
        if is_var(pattern):
            if b.setdefault(pattern, ground_term) != ground_term:
                return False
            return True
        return pattern == ground_term
    if not isinstance(ground_term, tuple) or len(ground_term) != len(pattern):
        return False
    return all(_bind(p, g, b) for p, g in zip(pattern, ground_term))


def _apply(term, b: dict):
    if isinstance(term, str):
        return b.get(term, term)
    return tuple(_apply(t, b) for t in term)


def specialize(desc: Description, rounds: int = 10) -> list[Clause]:
    """The clauses with helper relations cut down to the arguments they are called with.

    When every use of a non-recursive helper relation gives some argument positions ground
    terms (``(count f1 g1 g2 yellow ?payoff)``), only facts with those arguments can ever be
    read, so each of its clauses is instantiated once per such call instead of being
    evaluated for every combination. Repeated, since instantiated bodies call their own
    helpers with new constants. Keywords and recursive relations are left as they are.
    """
    clauses = list(desc.clauses)
    for _ in range(rounds):
        uses: dict[str, list[tuple]] = defaultdict(list)
        for c in clauses:
            for lit in c.body:
                if is_distinct(lit):
                    continue
                atom = lit[1] if is_negation(lit) else lit
                uses[relation(atom)].append(() if isinstance(atom, str) else atom[1:])
        changed = False
        out = []
        by_rel: dict[str, list[Clause]] = defaultdict(list)
        for c in clauses:
            by_rel[relation(c.head)].append(c)
        for rel, defs in by_rel.items():
            calls = uses.get(rel, [])
            positions = [] if (rel in _KEYWORDS or rel in desc.recursive or not calls) else [
                i for i in range(len(calls[0])) if all(not variables(args[i]) for args in calls)]
            if not positions:
                out.extend(defs)
                continue
            changed = True
            keys = sorted({tuple(args[i] for i in positions) for args in calls}, key=str)
            for c in defs:
                for key in keys:
                    b: dict = {}
                    if all(_bind(c.head[i + 1], k, b) for i, k in zip(positions, key)):
                        out.append(Clause(_apply(c.head, b), tuple(_apply(lit, b) for lit in c.body),
                                          c.source))
        # A specialised relation is specialised again to itself next round: stop when
        # nothing changes any more.
        if not changed or out == clauses:
            return out
        clauses = out
    return clauses
