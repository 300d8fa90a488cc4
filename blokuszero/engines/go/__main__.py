"""``python -m blokuszero.engines.go``: the engine on standard input/output."""

from .cli import main

main()
