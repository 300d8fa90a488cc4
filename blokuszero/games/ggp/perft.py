"""Distinct states and move paths by depth (perft) for any GDL description.

``python -m blokuszero.games.ggp.perft RULES.kif --depth D`` prints one JSON object per depth:
``depth`` (joint moves from the initial state), ``states`` (distinct sets of true facts at that
depth), ``paths`` (joint-move sequences of that length) and ``terminal`` (terminal states
among them); terminal states are not expanded.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator

import numpy as np

from .game import make_reasoner
from .gdl import load_description
from .reasoner import Reasoner


def perft(reasoner: Reasoner, depth: int) -> Iterator[dict[str, int]]:
    """One record per depth 1 .. ``depth``."""
    frontier = {reasoner.exact_key(s): (s, 1) for s in [reasoner.initial()]}
    roles = range(len(reasoner.roles))
    for d in range(1, depth + 1):
        reached: dict = {}
        for state, paths in frontier.values():
            if reasoner.is_terminal(state):
                continue
            for joint in itertools.product(*(reasoner.legal(state, r) for r in roles)):
                nxt = reasoner.next(state, np.array(joint, dtype=np.int64))
                k = reasoner.exact_key(nxt)
                old = reached.get(k)
                reached[k] = (nxt, paths + (old[1] if old else 0))
        frontier = reached
        yield {"depth": d, "states": len(reached),
               "paths": sum(p for _, p in reached.values()),
               "terminal": sum(reasoner.is_terminal(s) for s, _ in reached.values())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", help="a GDL description (.kif)")
    parser.add_argument("--depth", type=int, required=True, help="deepest depth counted")
    parser.add_argument("--reasoner", default="auto", choices=("auto", "propnet", "interpreter"))
    args = parser.parse_args(argv)
    try:
        with open(args.rules) as f:
            reasoner = make_reasoner(load_description(f.read()), args.reasoner)
    except (OSError, ValueError) as err:  # KifError and GdlError are ValueErrors
        parser.exit(2, f"{args.rules}: {err}\n")
    for record in perft(reasoner, args.depth):
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    sys.exit(main())
