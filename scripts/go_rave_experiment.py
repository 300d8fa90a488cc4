"""The 9x9 pattern-weighted RAVE experiment's command line: :mod:`blokuszero.experiments.go_rave`
(its docstring has the usage)."""

from blokuszero.experiments.go_rave import main

if __name__ == "__main__":
    main()
