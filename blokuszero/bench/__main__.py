"""``python -m blokuszero.bench NAME [options]``: run one benchmark; ``--help`` lists them."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

#: Every benchmark: a module of this folder with a ``main(argv)``.
NAMES = ("blokus", "blokus_mcts", "daihinmin", "ggp", "ggp_experience", "ggp_prepare", "go", "gumbel", "nn",
         "search_parts", "selfplay")
#: Earlier names of benchmarks, still accepted so that recorded commands run.
ALIASES = {"core": "search_parts", "search": "blokus_mcts"}


def summary(name: str) -> str:
    """The first paragraph of benchmark ``name``'s docstring, read without importing it (torch, numba)."""
    tree = ast.parse((Path(__file__).parent / f"{name}.py").read_text())
    return " ".join((ast.get_docstring(tree) or "").split("\n\n")[0].split())


def usage() -> str:
    width = max(map(len, NAMES))
    earlier = {name: alias for alias, name in ALIASES.items()}
    return ("usage: python -m blokuszero.bench NAME [options]   (NAME --help: its options)\n\nbenchmarks:\n"
            + "\n".join(f"  {name:{width}s}  {summary(name)}"
                         + (f" (also: {earlier[name]})" if name in earlier else "") for name in NAMES))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(usage())
        return
    name = ALIASES.get(argv[0], argv[0]) if argv else None
    if name not in NAMES:
        problem = f"no benchmark named {argv[0]!r}" if argv else "which benchmark? Give its NAME"
        print(f"python -m blokuszero.bench: {problem}\n\n{usage()}", file=sys.stderr)
        raise SystemExit(2)
    importlib.import_module(f".{name}", __package__).main(argv[1:])


if __name__ == "__main__":
    main()
