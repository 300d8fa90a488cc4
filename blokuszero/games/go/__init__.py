"""Go (SPEC §4): numba rules with a fast eye-keeping playout, Chinese area scoring, SGF."""

from .game import GoGame, GoState

__all__ = ["GoGame", "GoState"]
