"""Programs others talk to: a player wired to a protocol, each with its command line.

``blokus`` (Pentobi's GTP dialect, ``python -m blokuszero.engines.blokus``), ``go`` (GTP v2,
``python -m blokuszero.engines.go``), ``uecda`` (the UECda Daihinmin client, ``blokuszero-uecda``)
and ``ggp_player`` (the GGP HTTP player, ``blokuszero-ggp-player``).
"""
