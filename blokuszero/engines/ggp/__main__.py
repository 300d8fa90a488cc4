"""``python -m blokuszero.engines.ggp``: the GGP HTTP player (as ``blokuszero-ggp-player``)."""

from .http_player import main

main()
