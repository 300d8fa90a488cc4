"""``python -m blokuszero.engines.blokus.board``: the web board (see :mod:`.cli`)."""

from .cli import main

main()
