"""Player kinds by name: one entry per kind (the options it takes, how it is made and checked, what
it reads), read by the factory; and :class:`PlayerSpec`, a spec resolved once.

As in :mod:`blokuszero.games.registry`, an entry names its functions by import path
(``module:name`` under ``players/``), imported on use: resolving or making a player of one kind
imports no other kind's module, so a Blokus engine loads no GDL reasoner or Daihinmin kernel, and
no torch for a player without a network.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..search.depth_first import DepthFirstConfig
from ..search.mcts import MCTSConfig


def load(path: str) -> Any:
    """The object at ``module:name``, ``module`` a path under this package (``ggp.uct``), imported
    relative to it, so that a copy of the package under another name (``bench core``'s side by
    side versions) loads its own."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(f".{module}", __package__), name)


@dataclass(frozen=True)
class PlayerKind:
    """One kind of player: its options (besides ``preset`` and ``kind``) and its functions."""

    name: str
    options: frozenset[str]
    make: str | None  # ``module:function`` (game, PlayerSpec, rng) -> Player; None: a table client only
    check: str | None = None  # ``module:function`` (settings) -> None: SettingError where options clash
    budget: bool = False  # its simulations and time_limit are MCTSConfig's, checked together
    client: str | None = None  # ``module:function`` (game, PlayerSpec, rng) -> a UECda table client
    network: bool = False  # plays a network: a ``checkpoint`` option is read once, its trained search kept


_MCTS = frozenset(f.name for f in fields(MCTSConfig))
_DEPTH_FIRST = frozenset(f.name for f in fields(DepthFirstConfig))
#: RAVE's options, which the mcts kind passes to its selection rule.
RAVE_OPTIONS = ("form", "c", "c_rave", "k_rave", "k", "l", "beta_unweighted", "first_play_urgency",
                "rave_weight_initial", "rave_weight_final")

#: Every kind, by name.
KINDS: dict[str, PlayerKind] = {kind.name: kind for kind in (
    PlayerKind("random", frozenset(), "base:make_random_player"),
    # n_prior: virtual visits of prior knowledge on new nodes (0: none; games that have it);
    # prior: the game's scheme of it; prior_rave: it also seeds the AMAF statistics.
    PlayerKind("mcts", _MCTS | {"selection", "c", "w", "c_base", "c_init", "q_init", "playout", "epsilon",
                                "reward", "temperature_moves", "n_prior", "prior", "prior_rave", *RAVE_OPTIONS},
               "search_players:make_mcts_player", budget=True),
    PlayerKind("depth_first", _DEPTH_FIRST, "search_players:make_depth_first_player",
               check="search_players:check_depth_first"),
    # checkpoint: a training checkpoint (None: an untrained network of size `model`, initialised
    # from torch seed `init_seed`, as a run with that seed starts). mix_*: AlphaGo's leaf mixing,
    # leaf_playouts: its expansion threshold (see players/network_player.py), reward: what those
    # playouts' ends are worth (search/evaluators.py, REWARDS); policy_temperature:
    # the softmax temperature of the network's priors (Leela Chess Zero's PolicySoftmaxTemp).
    PlayerKind("alphazero", _MCTS | {"checkpoint", "model", "init_seed", "gumbel", "c_base", "c_init", "q_init",
                                     "device", "temperature_moves", "cache_size", "mix_lambda", "mix_playouts",
                                     "mix_playout", "mix_epsilon", "leaf_playouts", "reward", "backend",
                                     "policy_temperature"},
               "network_player:make_network_player",
               check="network_player:check_options", budget=True, network=True),
    # command: the command line of an external GTP engine (e.g. "pentobi-gtp --quiet", "gnugo --mode gtp").
    PlayerKind("gtp", frozenset({"command"}), "gtp_player:make_gtp_player"),
    # GDL games' UCT: playout uniform, mast (tau), nst (epsilon) or softmax (policy_file, or a
    # policy object), the search experience and its switching rule.
    PlayerKind("ggp_uct", frozenset({"c", "simulations", "time_limit", "reuse_tree", "playout", "tau",
                                     "epsilon", "policy_file", "policy", "experience",
                                     "switch_time_limit"}),
               "ggp.uct:make_uct_player", check="ggp.uct:check_options",
               budget=True),
    # The UECda standard client: a table client only.
    PlayerKind("daihinmin_default", frozenset(), None,
               client="daihinmin.default_client:make_default_client"),
    # Daihinmin's flat Monte Carlo (fumiya's): the budget as the other searches name it (each
    # simulation one playout; time_limit in wall seconds), the opponents' playout policy and the
    # searcher's own (self_playout), UCB1-tuned's c. A table client or a player.
    PlayerKind("daihinmin_mc", frozenset({"simulations", "time_limit", "playout", "self_playout", "c",
                                          "always_lead", "hand_weight", "hand_deals", "search_gifts"}),
               "daihinmin.monte_carlo:make_monte_carlo_player",
               check="daihinmin.monte_carlo:check_options", budget=True,
               client="daihinmin.monte_carlo:make_monte_carlo_client"),
)}


@dataclass(frozen=True)
class PlayerSpec:
    """A player spec resolved once (:func:`~.factory.resolve_player`): its kind, its options (the
    preset's overridden by the spec's own, as :func:`~.factory.resolve_spec` gives them), the
    settings the player plays with (the options, and for a network player the search its checkpoint
    trained with where the spec names none), and that checkpoint's contents, read and verified once.
    :func:`~.factory.make_player` takes it as it is. ``given`` is the spec as it was written (a
    preset's name and the options that override it)."""

    kind: PlayerKind
    options: Mapping[str, Any]
    settings: Mapping[str, Any]
    given: Mapping[str, Any]
    checkpoint: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)


def player_kind(name: Any) -> PlayerKind:
    """The kind called ``name``; ValueError for none."""
    if name not in KINDS:
        raise ValueError(f"player needs a preset or a kind in {sorted(KINDS)}, got {name!r}")
    return KINDS[name]
