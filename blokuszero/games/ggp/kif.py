"""KIF reader for the Game Description Language (GDL).

Terms are plain Python values, cheap to hash and compare:

- a constant (numbers included, GDL treats them as symbols) is a ``str``, lower-cased;
- a variable is a ``str`` starting with ``?``, lower-cased (GDL symbols are case-insensitive);
- a compound term or atom ``(f a b)`` is the tuple ``("f", "a", "b")``.

A rule ``(<= head body...)`` becomes a :class:`Rule`; a bare sentence is a rule with an empty
body. Malformed text raises :class:`KifError` naming the line and column.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

Term = str | tuple

_TOKEN = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")


class KifError(ValueError):
    """Malformed KIF/GDL text, with where it is."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Rule:
    """``head <= body``: body literals are atoms, ``("not", atom)``, ``("distinct", s, t)`` or
    ``("or", literal...)``; ``line`` is where the rule starts in the source."""

    head: Term
    body: tuple[Term, ...]
    line: int

    def __str__(self) -> str:
        if not self.body:
            return to_kif(self.head)
        return "(<= " + " ".join(to_kif(t) for t in (self.head, *self.body)) + ")"


def is_var(term: Term) -> bool:
    """Whether ``term`` is a variable."""
    return isinstance(term, str) and term.startswith("?")


def to_kif(term: Term) -> str:
    """``term`` written back as KIF text."""
    if isinstance(term, str):
        return term
    return "(" + " ".join(to_kif(t) for t in term) + ")"


def variables(term: Term, out: set[str] | None = None) -> set[str]:
    """The variables occurring in ``term``."""
    out = set() if out is None else out
    if isinstance(term, str):
        if term.startswith("?"):
            out.add(term)
    else:
        for t in term:
            variables(t, out)
    return out


def _sentence(atom: Term) -> Term:
    """A relation's atom with ``(p)`` read as the proposition ``p``: both are relation p of no
    arguments, and facts are matched by equal terms."""
    return atom[0] if isinstance(atom, tuple) and len(atom) == 1 else atom


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def error(self, message: str, offset: int) -> KifError:
        return KifError(message, *self.where(offset))

    def tokens(self) -> list[tuple[str, int]]:
        out, pos = [], 0
        while pos < len(self.text):
            m = _TOKEN.match(self.text, pos)
            if m is None:  # only a stray character the pattern cannot start on
                raise self.error(f"unexpected character {self.text[pos]!r}", pos)
            tok = m.group()
            if not tok[0].isspace() and tok[0] != ";":
                out.append((tok, pos))
            pos = m.end()
        return out

    def sexprs(self) -> list[tuple[object, int]]:
        """Top-level s-expressions as nested lists of (token, offset) leaves."""
        stack: list[tuple[list, int]] = []
        top: list[tuple[object, int]] = []
        for tok, pos in self.tokens():
            if tok == "(":
                stack.append(([], pos))
            elif tok == ")":
                if not stack:
                    raise self.error("')' without a matching '('", pos)
                items, start = stack.pop()
                (stack[-1][0] if stack else top).append((items, start))
            else:
                (stack[-1][0] if stack else top).append((tok.lower(), pos))
        if stack:
            raise self.error("'(' is never closed", stack[-1][1])
        return top

    def term(self, node: tuple[object, int], what: str) -> Term:
        value, pos = node
        if isinstance(value, str):
            return value
        if not value:
            raise self.error(f"empty list '()' where {what} was expected", pos)
        head = value[0]
        if not isinstance(head[0], str):
            raise self.error(f"a list cannot be the name of {what}", head[1])
        if is_var(head[0]):
            raise self.error(f"variable {head[0]} cannot be the name of {what}", head[1])
        return (head[0], *(self.term(a, "a term") for a in value[1:]))

    def literal(self, node: tuple[object, int]) -> Term:
        value, pos = node
        lit = self.term(node, "a literal")
        if is_var(lit):
            raise self.error(f"variable {lit} cannot be a literal", pos)
        if isinstance(lit, tuple):
            name, arity = lit[0], len(lit) - 1
            if name == "not" and arity != 1:
                raise self.error(f"'not' takes one literal, got {arity}", pos)
            if name == "distinct" and arity != 2:
                raise self.error(f"'distinct' takes two terms, got {arity}", pos)
            if name in ("not", "or", "and"):
                lit = (name, *(self.literal(a) for a in value[1:]))
                # Not an atom: relation 'distinct' or 'not' would have no facts, so the
                # negation would hold always (found by the Prolog oracle).
                if name == "not" and isinstance(lit[1], tuple) and lit[1][0] in ("distinct", "not"):
                    raise self.error(f"'not' of '{lit[1][0]}' is not GDL: 'not' takes an atom, "
                                     "'or' or 'and' (an equality is a shared variable)", pos)
                return lit
        return _sentence(lit)

    def rules(self) -> list[Rule]:
        out = []
        for node in self.sexprs():
            value, pos = node
            line = self.where(pos)[0]
            if isinstance(value, list) and value and value[0][0] == "<=":
                if len(value) < 2:
                    raise self.error("rule '<=' has no head", pos)
                head = _sentence(self.term(value[1], "a rule head"))
                if is_var(head):
                    raise self.error(f"variable {head} cannot be a rule head", value[1][1])
                out.append(Rule(head, tuple(self.literal(b) for b in value[2:]), line))
            else:
                head = _sentence(self.term(node, "a sentence"))
                if is_var(head):
                    raise self.error(f"variable {head} cannot be a sentence", pos)
                out.append(Rule(head, (), line))
        return out


def parse_kif(text: str) -> list[Rule]:
    """The rules and facts of a GDL description, in file order; KifError if malformed."""
    return _Reader(text).rules()


def parse_term(text: str) -> Term:
    """One ground term (a move such as ``(mark 1 2)`` or ``noop``); KifError if malformed."""
    reader = _Reader(text)
    nodes = reader.sexprs()
    if len(nodes) != 1:
        raise KifError(f"expected one term, found {len(nodes)}", 1, 1)
    term = reader.term(nodes[0], "a term")
    if variables(term):
        raise KifError(f"a move cannot contain variables: {to_kif(term)}", 1, 1)
    return term


SExpr = str | list


def parse_sexpr(text: str) -> SExpr:
    """One s-expression as nested lists of lower-cased symbols (a GGP message); KifError if
    there is not exactly one."""
    reader = _Reader(text)
    nodes = reader.sexprs()
    if len(nodes) != 1:
        raise KifError(f"expected one expression, found {len(nodes)}", 1, 1)

    def strip(node):
        value, _ = node
        return value if isinstance(value, str) else [strip(n) for n in value]

    return strip(nodes[0])


def sexpr_to_kif(expr: SExpr) -> str:
    """An s-expression written back as text."""
    return expr if isinstance(expr, str) else "(" + " ".join(sexpr_to_kif(e) for e in expr) + ")"
