"""Entry point of BlokusZero training (Hydra app).

Training arrives with issue #4 (network, batched self-play on Ray, replay buffer, learner).
Until then this says so and exits non-zero, so no script mistakes it for a finished run.
"""

import sys

if __name__ == "__main__":
    sys.exit("train.py: training is not built yet (issue #4: BlokusZero training system). "
             "What works now: the Blokus engine, see README.md and scripts/bench_blokus.py.")
