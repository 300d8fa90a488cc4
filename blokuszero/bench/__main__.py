"""``python -m blokuszero.bench NAME [options]``: run one benchmark; ``--help`` lists them."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

#: Every benchmark: a module of this folder with a ``main(argv)``.
NAMES = ("blokus", "core", "daihinmin", "ggp", "ggp_experience", "ggp_prepare", "go", "gumbel", "nn", "search",
         "selfplay")


def summary(name: str) -> str:
    """The first paragraph of benchmark ``name``'s docstring, read without importing it (torch, numba)."""
    tree = ast.parse((Path(__file__).parent / f"{name}.py").read_text())
    return " ".join((ast.get_docstring(tree) or "").split("\n\n")[0].split())


def usage() -> str:
    width = max(map(len, NAMES))
    return ("usage: python -m blokuszero.bench NAME [options]   (NAME --help: its options)\n\nbenchmarks:\n"
            + "\n".join(f"  {name:{width}s}  {summary(name)}" for name in NAMES))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(usage())
        return
    if not argv or argv[0] not in NAMES:
        problem = f"no benchmark named {argv[0]!r}" if argv else "which benchmark? Give its NAME"
        print(f"python -m blokuszero.bench: {problem}\n\n{usage()}", file=sys.stderr)
        raise SystemExit(2)
    importlib.import_module(f".{argv[0]}", __package__).main(argv[1:])


if __name__ == "__main__":
    main()
