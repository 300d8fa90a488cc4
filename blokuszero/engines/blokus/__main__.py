"""``python -m blokuszero.engines.blokus``: the engine on standard input/output."""

from .cli import main

main()
