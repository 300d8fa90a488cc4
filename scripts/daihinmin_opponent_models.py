"""The Daihinmin opponent models' accuracy experiment's command line:
:mod:`blokuszero.experiments.daihinmin_opponent_models` (its docstring has the usage)."""

import sys

from blokuszero.experiments.daihinmin_opponent_models import main

if __name__ == "__main__":
    sys.exit(main())
