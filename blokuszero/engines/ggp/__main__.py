"""``python -m blokuszero.engines.ggp``: the GGP HTTP player (as ``blokuszero-ggp-player``)."""

from .cli import main

main()
