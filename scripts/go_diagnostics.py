"""The cheap Go strength diagnostics' command line (playout-policy duels, in-process search duels):
:mod:`blokuszero.experiments.go_diagnostics` (its docstring has the usage)."""

from blokuszero.experiments.go_diagnostics import main

if __name__ == "__main__":
    main()
