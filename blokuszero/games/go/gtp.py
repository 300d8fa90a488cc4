"""``python -m blokuszero.games.go.gtp``: the Go GTP engine (see :mod:`blokuszero.protocols.gtp`).

Only an entry point: the engine lives in the protocols layer, above the rules.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> None:
    """Serve GTP on stdin / stdout (``--help`` lists the options)."""
    from ...protocols.gtp import main as serve

    serve(argv)


if __name__ == "__main__":
    main()
