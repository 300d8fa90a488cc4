"""The math libraries' thread count: one setting for every process that plays games, engines and
match workers alike."""

from __future__ import annotations

import os
import sys


def set_math_threads(threads: int = 1) -> None:
    """Limit this process's math-library (torch, BLAS) threads, before or after torch is imported.

    A game's searches evaluate one position at a time, where extra threads only spin: on the
    2 busy cores of the development machine, a 4-simulation game took 12 s with 2 torch threads
    and 0.3 s with 1; and workers side by side oversubscribe the cores (5x slower with 2 workers).
    """
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    # Spawned workers import the parent's main module first, and torch with it if that imports
    # torch (scripts/evaluate.py does): the variables then come too late for torch.
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
