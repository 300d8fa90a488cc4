"""The search of network players and self-play: AlphaZero's and the paper's (PUCT everywhere,
Dirichlet noise on the root, the visit counts as move and target) or, with ``gumbel``, Gumbel
MuZero's (:class:`~.root_policies.GumbelRoot` at the root, the deterministic
:class:`~.gumbel.GumbelInterior` below it, no Dirichlet noise). One builder for both callers.
"""

from __future__ import annotations

from typing import Any

from .gumbel import GumbelInterior
from .mcts import MCTSConfig
from .selection import PUCT, PUCTSettings, SelectionRule

_PUCT = PUCTSettings()


def network_search(gumbel: bool = False, *, c_base: float = _PUCT.c_base, c_init: float = _PUCT.c_init,
                   q_init: float | str = _PUCT.q_init, **config: Any) -> tuple[MCTSConfig, SelectionRule]:
    """(search config, selection rule): PUCT's, or with ``gumbel`` Gumbel's; ``config``:
    :class:`MCTSConfig`'s fields (``dirichlet_epsilon`` is dropped with ``gumbel``, whose noise
    is its own); ``c_base``, ``c_init``, ``q_init``: PUCT's, unused with ``gumbel``."""
    if not gumbel:
        return MCTSConfig(**{**config, "root_policy": "visits"}), PUCT(c_base, c_init, q_init)
    cfg = MCTSConfig(**{**config, "root_policy": "gumbel", "dirichlet_epsilon": 0.0})
    return cfg, GumbelInterior(cfg.c_visit, cfg.c_scale)
