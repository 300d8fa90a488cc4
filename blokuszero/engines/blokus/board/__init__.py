"""The Blokus web board: play the project's players, watch game records, analyse positions
in a browser (``blokuszero-board``, ``python -m blokuszero.engines.blokus.board``)."""
