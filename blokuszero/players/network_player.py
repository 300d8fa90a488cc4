"""The network player (the factory's ``alphazero`` kind): the network's search, PUCT or Gumbel, with
AlphaGo's leaf mixing or expansion threshold where asked.

``mix_lambda``, ``mix_playouts``: AlphaGo's leaf mixing (:class:`~blokuszero.search.evaluators.PlayoutMixing`):
each leaf's network value mixed with the result of ``mix_playouts`` random playouts, weight
``mix_lambda`` (0, when not given: the network's value alone, no playouts run); ``mix_playout``,
``mix_epsilon``: those playouts' policy, as the mcts kind's ``playout`` and ``epsilon`` (default
uniform, no knowledge; a game's own policy, such as Blokus's largest_piece, is hand-made).
``leaf_playouts``: AlphaGo's expansion threshold instead
(:class:`~blokuszero.search.evaluators.PlayoutPriors`): every leaf valued by one playout and the
network asked only for the priors of a node the search expands, after ``expand_threshold`` visits;
``reward``: what those playouts' ends are worth (``win``, the game's returns; ``rank``, the
player's place among the scores; ``quality``, that place and a bonus for a high score:
:data:`~blokuszero.search.evaluators.REWARDS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..games.base import Game
from ..games.registry import encoder_name, make_encoder
from ..search import time_manager
from ..search.alphazero import network_search
from ..search.evaluators import PlayoutMixing, PlayoutPriors
from ..search.mcts import MCTS, MCTSConfig
from ..settings import SettingError
from .registry import PlayerSpec
from .search_players import MCTSPlayer

_MCTS_FIELDS = frozenset(MCTSConfig.__dataclass_fields__)


def check_options(s: Mapping[str, Any]) -> None:
    """SettingError where the leaf's valuations clash: the expansion threshold values each leaf by
    one playout alone."""
    if s.get("leaf_playouts") and (s.get("mix_lambda", 0.0) > 0 or "mix_playouts" in s):
        raise SettingError("leaf_playouts", "values each leaf by one playout alone: it takes "
                           "no mix_lambda or mix_playouts")
    if s.get("reward", "win") != "win" and not s.get("leaf_playouts"):
        raise SettingError("reward", "rewards the playouts that value the leaves: it needs "
                           "leaf_playouts: true")


def make_network_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> MCTSPlayer:
    """The ``alphazero`` kind: the network of ``spec``'s checkpoint (read once, when the spec was
    resolved) or an untrained one, as the search's evaluator."""
    # torch is imported here, not at module level: only network players need it, and arena
    # workers set their thread count before it is imported.
    import torch

    from ..nn.checkpoint import network_from
    from ..nn.evaluator import NetworkEvaluator
    from ..nn.model import build_model

    s = spec.settings
    encoder = make_encoder(game)  # ValueError for a game without one
    if spec.checkpoint is not None:
        model, _ = network_from(spec.checkpoint, encoder)
    else:
        torch.manual_seed(s.get("init_seed", 0))
        model = build_model(s.get("model", "b2c32conv"), encoder_name(game), encoder=encoder)
    # The evaluator checks that the network was built for this game's encoding.
    evaluator = NetworkEvaluator(model, encoder, device=s.get("device", "cpu"),
                                 cache_size=s.get("cache_size", 0), backend=s.get("backend", "auto"),
                                 policy_temperature=s.get("policy_temperature", 1.0))
    search_rng = rng.spawn(1)[0]
    if s.get("leaf_playouts", False):  # the playouts draw from the search's generator
        evaluator = PlayoutPriors(evaluator, search_rng, s.get("mix_playout", "uniform"),
                                  s.get("mix_epsilon", 0.0), s.get("reward", "win"))
    elif s.get("mix_lambda", 0.0) > 0:
        evaluator = PlayoutMixing(evaluator, s["mix_lambda"], s.get("mix_playouts", 1),
                                  (game.min_utility, game.max_utility), search_rng,
                                  s.get("mix_playout", "uniform"), s.get("mix_epsilon", 0.0))
    puct = {k: s[k] for k in ("c_base", "c_init", "q_init") if k in s}
    config, rule = network_search(s.get("gumbel", False), **puct, **{
        "expand_threshold": 0, "gumbel_scale": 0.0, **{k: v for k, v in s.items() if k in _MCTS_FIELDS}})
    return MCTSPlayer(MCTS(game, config, rule, evaluator, search_rng, clock=time_manager.CPU_CLOCK),
                      temperature_moves=s.get("temperature_moves", 0))
