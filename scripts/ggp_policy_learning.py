"""The learned GGP playout policies' experiment's command line (Apprenticeship Learning against
Simulation Balancing): :mod:`blokuszero.experiments.ggp_policy_learning` (its docstring has the usage)."""

from blokuszero.experiments.ggp_policy_learning import main

if __name__ == "__main__":
    main()
