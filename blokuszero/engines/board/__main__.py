"""``python -m blokuszero.engines.board``: the web board (see :mod:`.cli`)."""

from .cli import main

main()
