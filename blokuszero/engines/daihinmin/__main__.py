"""``python -m blokuszero.engines.daihinmin``: the UECda client (as ``blokuszero-uecda``)."""

import sys

from .uecda_client import main

sys.exit(main())
