"""An independent GDL oracle for the tests: a description translated to Prolog and evaluated by
SWI-Prolog, with its own small reader, so that a mistake in the project's KIF reader, checks or
grounding cannot agree with itself.

The translation is the standard one: ``(<= head body...)`` becomes a clause; ``not`` becomes
``\\+``; ``or`` is expanded into one clause per alternative; ``distinct`` becomes ``\\==``, placed
with each negation right after the positive literals that bind its variables (GDL's safety makes
that point exist). Every relation ``r`` is the predicate ``g_r`` (so ``true``, ``not`` or
``member`` never meet Prolog's own), every constant a quoted atom, every derived predicate tabled
(recursive GDL such as successor chains then terminates), and ``true``/``does`` are dynamic
facts asserted per state. One ``swipl`` process per description answers the commands of
``prolog_oracle.pl``'s loop.

Run as a script it compares the project's reasoners with the oracle on random walks of every
rule sheet and prints a table (BENCHMARKS.md, "GDL against SWI-Prolog").
"""

from __future__ import annotations

import argparse
import itertools
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

Term = str | tuple

SWIPL = shutil.which("swipl")
HOW_TO_GET = "apt-get install swi-prolog-nox (.ci/run installs it)"
DRIVER = Path(__file__).with_suffix(".pl")

_TOKEN = re.compile(r";[^\n]*|\(|\)|[^\s();]+")


def read_gdl(text: str) -> list[Term]:
    """The top-level expressions of KIF text: symbols lower-cased (GDL is case-insensitive),
    ``(f a b)`` as the tuple ``("f", "a", "b")``, comments dropped."""
    stack: list[list[Term]] = [[]]
    for token in _TOKEN.findall(text):
        if token.startswith(";"):
            continue
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise ValueError("')' without '('")
            done = tuple(stack.pop())
            stack[-1].append(done)
        else:
            stack[-1].append(token.lower())
    if len(stack) != 1:
        raise ValueError("'(' never closed")
    return stack[0]


def _atom(symbol: str) -> str:
    return "'" + symbol.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _is_var(term: Term) -> bool:
    return isinstance(term, str) and term.startswith("?")


def _term(term: Term, names: dict[str, str]) -> str:
    """``term`` as Prolog text; ``names`` maps the GDL variables met so far to Prolog's."""
    if isinstance(term, str):
        return names.setdefault(term, f"V{len(names)}") if _is_var(term) else _atom(term)
    if not term or not isinstance(term[0], str) or _is_var(term[0]):
        raise ValueError(f"not a term: {term}")
    # (f) stays a compound of no arguments, as the KIF reads it, distinct from the constant f.
    return _atom(term[0]) + "(" + ", ".join(_term(a, names) for a in term[1:]) + ")"


def _signature(atom: Term) -> tuple[str, int]:
    return (atom, 0) if isinstance(atom, str) else (atom[0], len(atom) - 1)


def _predicate(atom: Term, names: dict[str, str]) -> str:
    """A relation's atom as a Prolog goal: relation r is predicate g_r."""
    name, arity = _signature(atom)
    args = "" if arity == 0 else "(" + ", ".join(_term(a, names) for a in atom[1:]) + ")"
    return _atom("g_" + name) + args


def _variables(term: Term) -> set[str]:
    if isinstance(term, str):
        return {term} if _is_var(term) else set()
    return set().union(*(_variables(t) for t in term))


def _kind(literal: Term) -> str:
    return literal[0] if isinstance(literal, tuple) and literal[0] in ("not", "or", "distinct") \
        else "atom"


def _alternatives(body: tuple[Term, ...]) -> list[list[Term]]:
    """The conjunctions a body with ``or`` literals stands for (their disjunction)."""
    choices = [[[lit]] if _kind(lit) != "or" else
               [alt for branch in lit[1:] for alt in _alternatives((branch,))] for lit in body]
    return [[lit for part in combo for lit in part] for combo in itertools.product(*choices)]


def _goal(literal: Term, names: dict[str, str]) -> str:
    kind = _kind(literal)
    if kind == "not":
        return "\\+ " + _goal(literal[1], names)
    if kind == "distinct":
        return f"{_term(literal[1], names)} \\== {_term(literal[2], names)}"
    if kind == "or":
        return "(" + " ; ".join(_goal(b, names) for b in literal[1:]) + ")"
    return _predicate(literal, names)


def _ordered(conjunction: list[Term]) -> list[Term]:
    """Positive literals in their order, each negation or distinct right after the first of
    them that leaves its variables bound (``\\+`` and ``\\==`` are only sound on ground terms)."""
    positive = [lit for lit in conjunction if _kind(lit) == "atom"]
    waiting = [lit for lit in conjunction if _kind(lit) != "atom"]
    bound: set[str] = set()
    out = []
    for lit in [None, *positive]:
        if lit is not None:
            out.append(lit)
            bound |= _variables(lit)
        ready = [w for w in waiting if _variables(w) <= bound]
        out += ready
        waiting = [w for w in waiting if w not in ready]
    if waiting:
        raise ValueError(f"unsafe literal {waiting[0]}: its variables are bound by no atom")
    return out


def translate(text: str) -> tuple[list[str], str]:
    """The roles (in order) and the Prolog program of a GDL description."""
    roles: list[str] = []
    clauses: dict[tuple[str, int], list[str]] = {}
    used: set[tuple[str, int]] = set()
    for sentence in read_gdl(text):
        if isinstance(sentence, tuple) and sentence and sentence[0] == "<=":
            head, body = sentence[1], sentence[2:]
        else:
            head, body = sentence, ()
        if _signature(head)[0] in ("true", "does", "not", "or", "distinct"):
            raise ValueError(f"{head} cannot be defined")
        if _signature(head) == ("role", 1):
            roles.append(head[1])
        for conjunction in _alternatives(body):
            names: dict[str, str] = {}
            goals = [_goal(lit, names) for lit in _ordered(conjunction)]
            clause = _predicate(head, names) + (" :-\n    " + ",\n    ".join(goals) if goals else "")
            clauses.setdefault(_signature(head), []).append(clause + ".")
            for lit in conjunction:
                used |= {_signature(a) for a in _atoms(lit)}
    undefined = used - set(clauses) - {("true", 1), ("does", 2)}
    lines = [":- style_check(-singleton)."]
    lines += [f":- table {_atom('g_' + n)}/{a}." for n, a in sorted(clauses)]
    lines += [f":- dynamic {_atom('g_' + n)}/{a}." for n, a in sorted(undefined)]
    for signature in sorted(clauses):
        lines += clauses[signature]
    return roles, "\n".join(lines) + "\n"


def _atoms(literal: Term) -> list[Term]:
    """The relation atoms a literal tests."""
    kind = _kind(literal)
    if kind == "distinct":
        return []
    if kind in ("not", "or"):
        return [a for lit in literal[1:] for a in _atoms(lit)]
    return [literal]


class OracleError(RuntimeError):
    """SWI-Prolog failed or answered an error."""


class PrologGame:
    """A GDL description evaluated by one long-lived ``swipl`` process. States are the sets of
    true facts; :meth:`set_state` chooses the one the queries ask about."""

    def __init__(self, text: str, swipl: str | None = SWIPL) -> None:
        if swipl is None:
            raise OracleError(f"swipl is not installed: {HOW_TO_GET}")
        self.roles, program = translate(text)
        self._dir = tempfile.TemporaryDirectory(prefix="gdl_prolog_")
        game = Path(self._dir.name) / "game.pl"
        game.write_text(program)
        self._stderr = open(Path(self._dir.name) / "stderr.txt", "w+")
        self._proc = subprocess.Popen(
            [swipl, "-q", "--no-packs", "-g", "oracle_main", "-t", "halt(1)", str(DRIVER), str(game)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True)

    def _ask(self, command: str) -> str:
        self._proc.stdin.write(command + ".\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line or line.startswith("error"):
            self._stderr.seek(0)
            raise OracleError(f"swipl on {command[:80]!r}: {line.strip() or 'no answer'}\n"
                              f"{self._stderr.read()[-2000:]}")
        return line.strip()

    def _terms(self, command: str) -> frozenset[Term]:
        return frozenset(read_gdl(self._ask(command))[0])

    def initial(self) -> frozenset[Term]:
        """The ``init`` facts."""
        return self._terms("init")

    def set_state(self, facts: frozenset[Term]) -> None:
        """Makes ``facts`` the true facts."""
        self._ask("state([" + ", ".join(_term(f, {}) for f in facts) + "])")

    def legal(self, role: str) -> frozenset[Term]:
        """The legal moves of ``role``."""
        return self._terms(f"legal({_atom(role)})")

    def goals(self, role: str) -> frozenset[Term]:
        """Every goal value of ``role`` that holds."""
        return self._terms(f"goals({_atom(role)})")

    def is_terminal(self) -> bool:
        """Whether ``terminal`` holds."""
        return self._ask("terminal") == "true"

    def next(self, joint: dict[str, Term]) -> frozenset[Term]:
        """The facts after each role plays ``joint[role]``."""
        moves = ", ".join(f"does({_atom(r)}, {_term(m, {})})" for r, m in joint.items())
        return self._terms(f"next([{moves}])")

    def close(self) -> None:
        """Ends the process."""
        self._proc.stdin.close()
        self._proc.wait(timeout=10)
        self._stderr.close()
        self._dir.cleanup()

    def __enter__(self) -> PrologGame:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class Walks:
    """What comparing the reasoner with the oracle on random walks found."""

    walks: int = 0
    states: int = 0
    ended: int = 0  # walks that reached a terminal state
    disagreements: list[str] = field(default_factory=list)


def _kif(term: Term) -> str:
    return term if isinstance(term, str) else "(" + " ".join(_kif(t) for t in term) + ")"


def _differs(what: str, ours, theirs) -> str | None:
    if ours == theirs:
        return None
    if isinstance(ours, frozenset):
        def only(a: frozenset, b: frozenset) -> str:
            return " ".join(sorted(_kif(t) for t in a - b)) or "-"

        return f"{what}: only ours {only(ours, theirs)}; only Prolog's {only(theirs, ours)}"
    return f"{what}: ours {ours}, Prolog's {theirs}"


def compare_walks(reasoner, oracle: PrologGame, walks: int, seed: int,
                  max_steps: int = 10_000) -> Walks:
    """Random walks of seeded uniform joint moves (every role moves each step, as GDL has it)
    chosen by ``reasoner`` (the project's), comparing roles, the true facts, terminality, goals
    and legal moves with ``oracle`` at every state; a walk stops at its first disagreement."""
    out = Walks()
    if list(reasoner.roles) != oracle.roles:
        out.disagreements.append(f"roles: ours {reasoner.roles}, Prolog's {oracle.roles}")
        return out
    rng = np.random.default_rng(seed)
    for walk in range(walks):
        out.walks += 1
        ours, theirs = reasoner.initial(), oracle.initial()
        for step in range(max_steps + 1):
            found = _compare_state(reasoner, ours, oracle, theirs)
            out.states += 1
            if found:
                out.disagreements.append(f"walk {walk} step {step}: {found}")
                break
            if reasoner.is_terminal(ours) or step == max_steps:
                out.ended += reasoner.is_terminal(ours)
                break
            joint = np.array([rng.choice(reasoner.legal(ours, r)) for r in range(len(oracle.roles))])
            theirs = oracle.next({role: reasoner.moves[a] for role, a in zip(oracle.roles, joint)})
            ours = reasoner.next(ours, joint)
    return out


def _compare_state(reasoner, ours, oracle: PrologGame, theirs: frozenset[Term]) -> str | None:
    """The first difference between the reasoner's state and the oracle's, or None."""
    found = _differs("true facts", reasoner.facts(ours), theirs)
    if found:
        return found
    oracle.set_state(theirs)
    terminal = oracle.is_terminal()
    found = _differs("terminal", reasoner.is_terminal(ours), terminal)
    goals = reasoner.goals(ours)
    for r, role in enumerate(oracle.roles):
        # The reasoner reports the highest goal value that holds, 0 if none does.
        values = oracle.goals(role)
        found = found or _differs(f"goal of {role}", goals[r],
                                  max((float(v) for v in values), default=0.0))
        if not terminal:
            legal = frozenset(reasoner.moves[a] for a in reasoner.legal(ours, r))
            found = found or _differs(f"legal moves of {role}", legal, oracle.legal(role))
            found = found or (None if legal else f"{role} has no legal move before the end")
    return found


def main(argv: list[str] | None = None) -> None:
    """Compares every rule sheet's reasoner with the oracle and prints a Markdown table (the
    seconds include compiling the sheet on our side)."""
    from ggp_sheets import RULES_DIR, SHEETS, sheet_game

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--sheets", nargs="*", default=SHEETS)
    parser.add_argument("--walks", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reasoner", choices=["auto", "propnet", "interpreter"], default="auto")
    args = parser.parse_args(argv)
    print("| sheet | reasoner | walks | ended | states compared | disagreements | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in args.sheets:
        start = time.perf_counter()
        reasoner = sheet_game(name, args.reasoner).reasoner
        with PrologGame((RULES_DIR / f"{name}.kif").read_text()) as oracle:
            found = compare_walks(reasoner, oracle, args.walks, args.seed, args.max_steps)
        print(f"| {name} | {reasoner.kind} | {found.walks} | {found.ended} | {found.states:,} "
              f"| {len(found.disagreements)} | {time.perf_counter() - start:.1f} |", flush=True)
        for d in found.disagreements:
            print(f"  {name}: {d}", flush=True)


if __name__ == "__main__":
    main()
