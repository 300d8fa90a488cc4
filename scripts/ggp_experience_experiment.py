"""The similar-board search experience experiment's command line (play, switch, report):
:mod:`blokuszero.experiments.ggp_experience` (its docstring has the usage)."""

from blokuszero.experiments.ggp_experience import main

if __name__ == "__main__":
    main()
