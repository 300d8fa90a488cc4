"""The similar-board search experience experiment's command line (play, switch, report:
:mod:`blokuszero.experiments.ggp_experience`; ablation, ablation-report:
:mod:`blokuszero.experiments.ggp_experience_ablation`; their docstrings have the usage)."""

from blokuszero.experiments.ggp_experience_ablation import main

if __name__ == "__main__":
    main()
