"""Programs others talk to: a player wired to a protocol, each with its command line, one folder
per family.

``blokus`` (Pentobi's GTP dialect, ``python -m blokuszero.engines.blokus``), ``go`` (GTP v2,
``python -m blokuszero.engines.go``), ``daihinmin`` (the UECda client, ``blokuszero-uecda``),
``ggp`` (the GGP HTTP player, ``blokuszero-ggp-player``) and ``board`` (the Blokus web board).
"""
