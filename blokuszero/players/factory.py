"""Players from plain settings (config files, command lines) and the named presets.

A player spec is a mapping with ``preset`` (a name from :data:`PRESETS`) and/or ``kind`` (a name
in :data:`~.registry.KINDS`: ``random``, ``mcts``, ``depth_first``, ``alphazero``, ``gtp``,
``ggp_uct``, ``daihinmin_mc``, ``daihinmin_default``) plus options that override the preset's.
Unknown options are an error that names them. :func:`resolve_player` resolves a spec once into a
frozen :class:`PlayerSpec` (a network player's checkpoint read and verified then, once), which
:func:`make_player` makes a player of and :func:`make_client` a UECda table client (Daihinmin's
kinds); :func:`parse_client_spec` reads the command lines' shorthand for those (``mc:random:100``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

import numpy as np

from ..games.base import Game
from ..nn.backends import BACKENDS
from ..search.depth_first import DepthFirstConfig
from ..search.evaluators import REWARDS
from ..search.mcts import MCTSConfig
from ..search.selection import PUCTSettings
from ..settings import Settings, check_value, declared, setting
from .base import Player
from .registry import KINDS, PlayerKind, PlayerSpec, load, player_kind
from .search_players import SELECTION_RULES

#: MCTS-MaxN as SPEC §2 describes the paper's baseline.
MCTS_MAXN = {"kind": "mcts", "tree": "maxn", "selection": "progressive_history", "c": 0.2, "w": 5.0,
             "playout": "largest_piece", "epsilon": 0.05, "expand_threshold": 1, "simulations": 800}

#: Go (SPEC §4): Fuego-style RAVE, plain (k = l = 1), over eye-keeping random playouts; no tree
#: reuse, so AMAF statistics and pattern ids always refer to the current root.
GO_RAVE = {"kind": "mcts", "selection": "rave", "form": "fuego", "c": 0.0, "k": 1.0, "l": 1.0,
           "playout": "uniform", "simulations": 1000, "reuse_tree": False}
#: Go as Fuego plays it: its playout rules, even-game prior knowledge as virtual
#: wins on new nodes, and the subtree of the move played kept for the next search.
GO_FUEGO = {**GO_RAVE, "playout": "fuego", "n_prior": 10, "reuse_tree": True}

PRESETS: dict[str, dict[str, Any]] = {
    "random": {"kind": "random"},
    "mcts_maxn": MCTS_MAXN,
    "mcts_paranoid": {**MCTS_MAXN, "tree": "paranoid"},
    "mcts_brs": {**MCTS_MAXN, "tree": "brs"},
    "uct": {"kind": "mcts", "tree": "maxn", "selection": "ucb1", "c": 0.7, "playout": "uniform",
            "simulations": 800},
    "maxn": {"kind": "depth_first", "algorithm": "maxn", "max_depth": 4, "node_limit": 20_000},
    "paranoid": {"kind": "depth_first", "algorithm": "paranoid", "max_depth": 4, "node_limit": 20_000},
    "brs": {"kind": "depth_first", "algorithm": "brs", "max_depth": 4, "node_limit": 20_000},
    "go_rave": GO_RAVE,
    # The paper's best 9x9 setting: playouts whose move had the node's local pattern weigh 1.5x.
    "go_rave_pattern": {**GO_RAVE, "k": 1.5},
    "go_fuego": GO_FUEGO,
    # BlokusZero as evaluated in SPEC §3, the paper's protocol (``network`` below plays stronger):
    # no noise, the most visited move (with gumbel: true, the best of the most visited, and no
    # Gumbel noise unless gumbel_scale says so). A checkpoint's own search settings (those it was
    # trained with) replace these where the spec does not name them (player_settings).
    "alphazero": {"kind": "alphazero", "checkpoint": None, "model": "b2c32conv", "init_seed": 0,
                  "simulations": 800, "c_base": PUCTSettings().c_base, "c_init": PUCTSettings().c_init,
                  "device": "cpu"},
    # The network at its strongest measured play settings (BENCHMARKS, "Blokus: network calls and
    # strength against Pentobi"), what the GTP engine plays with --checkpoint: AlphaGo's
    # expansion threshold (every leaf valued by one uniform playout, the network's priors for
    # a node visited 16 times, PUCT with the checkpoint's constants), one CPU-second a move with
    # no simulation cap, the fastest backend for the device.
    "network": {"kind": "alphazero", "checkpoint": None, "model": "b2c32conv", "init_seed": 0, "gumbel": False,
                "leaf_playouts": True, "expand_threshold": 16, "simulations": 0, "time_limit": 1.0,
                "backend": "auto", "device": "cpu"},
    # The GGP player's UCT (the paper's C = 0.7 over uniform playouts); its budget is the play
    # clock's (time_limit) where a simulation count does not bound it.
    "ggp_uct": {"kind": "ggp_uct", "c": 0.7, "playout": "uniform"},
}

@dataclass(frozen=True)
class PlayerOptions(Settings):
    """The type and range of each player option besides the search settings (which
    :class:`MCTSConfig`, :class:`PUCTSettings` and :class:`DepthFirstConfig` declare): a schema
    for :func:`resolve_spec`, never made; where an option is not given, the part it configures
    keeps its own default. A family's options whose values its own modules know (GGP's
    ``policy``, Daihinmin's playout policies) are checked by its kind's ``check``."""

    selection: str = setting(choices=SELECTION_RULES)
    c: float = setting(low=0)
    w: float = setting(low=0)
    playout: str = setting()
    epsilon: float = setting(low=0, high=1)
    temperature_moves: int = setting(low=0)
    form: str = setting()
    c_rave: float = setting(low=0)
    k_rave: float = setting(low=0)
    k: float = setting(above=0)
    l: float = setting(above=0)  # noqa: E741 (the paper's name)
    beta_unweighted: bool = setting()
    first_play_urgency: float = setting()
    rave_weight_initial: float = setting(above=0)
    rave_weight_final: float = setting(above=0)
    n_prior: int = setting(low=0)
    prior: str = setting(choices=("simple", "fuego"))
    prior_rave: bool = setting()
    checkpoint: str | None = setting()
    model: str = setting()
    init_seed: int = setting(low=0)
    device: str = setting(choices=("cpu", "cuda"))
    cache_size: int = setting(low=0)
    command: str = setting()
    gumbel: bool = setting()
    mix_lambda: float = setting(low=0, high=1)
    mix_playouts: int = setting(low=1)
    mix_playout: str = setting()
    mix_epsilon: float = setting(low=0, high=1)
    leaf_playouts: bool = setting()
    reward: str = setting(choices=REWARDS)
    policy_temperature: float = setting(above=0)
    backend: str = setting(choices=BACKENDS)
    tau: float = setting(above=0)
    policy_file: str | None = setting()
    policy: Any = setting()
    experience: dict | str | None = setting()
    switch_time_limit: float | None = setting(low=0)
    self_playout: str = setting()
    always_lead: bool = setting()
    hand_weight: float = setting(low=0)
    hand_deals: int = setting(low=1)
    search_gifts: bool = setting()


# Type and allowed values of every option, checked by resolve_spec, so that a bad option stops
# a program before it starts.
_DECLARED = declared(MCTSConfig, PUCTSettings, DepthFirstConfig, PlayerOptions)
_MCTS_FIELDS = frozenset(f.name for f in fields(MCTSConfig))

#: The search settings of a training run (its ``search`` group) that a network player takes
#: from its checkpoint: how the network searched while it learnt. Self-play's exploration
#: (noise, temperature, playout caps) and its budget stay the player's own.
TRAINED_SEARCH = ("gumbel", "c_base", "c_init", "q_init", "gumbel_considered", "c_visit", "c_scale")


def _layers(spec: Mapping[str, Any]) -> tuple[PlayerKind, dict[str, Any], dict[str, Any]]:
    """(kind, the preset's options, the spec's own), each option's type and range checked."""
    own = dict(spec)
    preset = own.pop("preset", None)
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"unknown player preset {preset!r}; known: {sorted(PRESETS)}")
    below = dict(PRESETS.get(preset, {}))
    merged = {**below, **own}
    kind = player_kind(merged.pop("kind", None))
    below.pop("kind", None)
    own.pop("kind", None)
    _check_values(kind, merged)
    return kind, below, own


def _check_values(kind: PlayerKind, options: Mapping[str, Any]) -> None:
    unknown = set(options) - kind.options
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for a {kind.name} player; "
                         f"known: {sorted(kind.options)}")
    for key, value in options.items():
        annotation, bounds = _DECLARED[key]
        check_value(key, value, annotation, **bounds)


def _check_together(kind: PlayerKind, options: Mapping[str, Any]) -> None:
    """The search configs and the kind's own check: how the options go together (e.g.
    simulations or a time limit)."""
    if kind.budget:
        MCTSConfig(**{k: v for k, v in options.items() if k in _MCTS_FIELDS})
    if kind.check is not None:
        load(kind.check)(options)


def resolve_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The preset's settings overridden by ``spec``'s, checked: ValueError names an unknown
    option or one of the wrong type or out of range. Reads no checkpoint (see
    :func:`resolve_player`)."""
    kind, below, own = _layers(spec)
    options = {**below, **own}
    _check_together(kind, options)
    return {"kind": kind.name, **options}


def _trained(checkpoint: Mapping[str, Any]) -> dict[str, Any]:
    stored = checkpoint.get("config")
    search = json.loads(stored).get("search", {}) if stored else {}
    return {k: search[k] for k in TRAINED_SEARCH if k in search}


def trained_search(checkpoint: str) -> dict[str, Any]:
    """The :data:`TRAINED_SEARCH` settings of the run that wrote ``checkpoint`` (its stored
    config's ``search`` group); empty for a checkpoint that stores no config."""
    from ..nn.checkpoint import load_checkpoint

    return _trained(load_checkpoint(checkpoint))


def played_search(trained: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """Of a checkpoint's trained search settings, those a network player of ``options`` takes
    where its spec names none: all but Gumbel's rule under AlphaGo's expansion threshold
    (``leaf_playouts``), which selects by PUCT."""
    return {k: v for k, v in trained.items() if not (k == "gumbel" and options.get("leaf_playouts"))}


def resolve_player(spec: Mapping[str, Any] | PlayerSpec,
                   checkpoint: Mapping[str, Any] | None = None) -> PlayerSpec:
    """``spec`` resolved once (a :class:`PlayerSpec` is returned as it is): options checked as
    :func:`resolve_spec` checks them, then a network player's checkpoint read and verified (or
    ``checkpoint``, its contents already read), whose trained search settings
    (:data:`TRAINED_SEARCH`) the player plays with where the spec names none: preset <
    checkpoint < the spec's own. ValueError names what is wrong."""
    if isinstance(spec, PlayerSpec):
        return spec
    kind, below, own = _layers(spec)
    options = {**below, **own}
    trained: dict[str, Any] = {}
    if kind.network and options.get("checkpoint"):
        if checkpoint is None:
            from ..nn.checkpoint import load_checkpoint

            checkpoint = load_checkpoint(options["checkpoint"])
        trained = played_search(_trained(checkpoint), options)
        _check_values(kind, trained)
    else:
        checkpoint = None
    settings = {**below, **trained, **own}
    _check_together(kind, settings)
    return PlayerSpec(kind, MappingProxyType({"kind": kind.name, **options}),
                      MappingProxyType({"kind": kind.name, **settings}), MappingProxyType(dict(spec)), checkpoint)


def change_options(spec: PlayerSpec, **options: Any) -> PlayerSpec:
    """``spec`` with ``options`` changed, resolved again; its checkpoint is read again only if
    ``checkpoint`` changes."""
    changed = {**spec.options, **options}
    same = spec.checkpoint is not None and changed.get("checkpoint") == spec.options.get("checkpoint")
    return resolve_player(changed, spec.checkpoint if same else None)


def player_settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a player made from ``spec`` plays with (:attr:`PlayerSpec.settings`)."""
    return dict(resolve_player(spec).settings)


def make_player(game: Game, spec: Mapping[str, Any] | PlayerSpec, seed: int | None = None) -> Player:
    """A player for ``game`` from a spec (see the module docstring), resolved by
    :func:`resolve_player` unless it is a :class:`PlayerSpec` already."""
    resolved = resolve_player(spec)
    if resolved.kind.make is None:
        raise ValueError(f"the {resolved.kind.name} player is a UECda table client: make it with make_client")
    return load(resolved.kind.make)(game, resolved, np.random.default_rng(seed))


#: The kinds that make UECda table clients (:func:`make_client`).
CLIENT_KINDS = tuple(name for name, kind in KINDS.items() if kind.client is not None)


def make_client(game: Game, spec: Mapping[str, Any] | PlayerSpec, seed: int | None = None):
    """A UECda table client (``on_deal``, ``on_hand``, ``on_field`` from the table stream: not
    a :class:`Player`, which plays engine states) following ``game``'s rules, from a spec of a
    kind in :data:`CLIENT_KINDS`: ``daihinmin_default`` the standard client,
    ``daihinmin_mc`` the Monte Carlo client around the player :func:`make_player` makes of the
    same spec."""
    resolved = resolve_player(spec)
    if resolved.kind.client is None:
        raise ValueError(f"a {resolved.kind.name} player is no UECda table client; those are "
                         f"{', '.join(CLIENT_KINDS)}")
    return load(resolved.kind.client)(game, resolved, np.random.default_rng(seed))


#: The command lines' forms of a table client's spec, for their help.
CLIENT_SPECS = ("default | mc[:POLICY[/SELF][:PLAYOUTS or SECONDSs][:always-lead][:search-gifts][:hands=BETA]"
                "[:deals=N]] (e.g. mc, mc:default:500, mc:random:0.5s, mc:model/model:100, "
                "mc:model/default:3000:always-lead, mc:model/default:10000:search-gifts, "
                "mc:model/default:10000:hands=0.5) | a JSON spec ({\"kind\": \"daihinmin_mc\", ...})")

#: The shorthand's ``key=value`` options and the settings they give.
_CLIENT_OPTIONS = {"hands": ("hand_weight", float), "deals": ("hand_deals", int)}


def parse_client_spec(text: str) -> dict[str, Any]:
    """The spec of a table client written on a command line (:data:`CLIENT_SPECS`): ``default``
    the standard client; ``mc`` the Monte Carlo client, optionally with its playout policies
    (opponents'/own), budget, then any of ``always-lead`` (never pass on an empty field),
    ``search-gifts`` (the exchange's gift chosen by search, not the lowest cards), ``hands=BETA``
    (hand estimation's ``hand_weight``) and ``deals=N`` (``hand_deals``); or a
    JSON spec mapping. Options are checked by :func:`make_client`."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"client spec {text!r} is not JSON: {err}") from None
    if text == "default":
        return {"kind": "daihinmin_default"}
    parts = text.split(":")
    if parts[0] != "mc":
        raise ValueError(f"unknown client {text!r}; known: {CLIENT_SPECS}")
    spec: dict[str, Any] = {"kind": "daihinmin_mc"}
    for extra in parts[3:]:
        key, eq, value = extra.partition("=")
        if extra == "always-lead":
            spec["always_lead"] = True
        elif extra == "search-gifts":
            spec["search_gifts"] = True
        elif eq and key in _CLIENT_OPTIONS:
            name, kind = _CLIENT_OPTIONS[key]
            try:
                spec[name] = kind(value)
            except ValueError:
                wanted = "a number" if kind is float else "a whole number"
                raise ValueError(f"{key}={value!r} in {text!r} is not {wanted}") from None
        else:
            raise ValueError(f"unknown option {extra!r} in {text!r}; known: always-lead, "
                             f"search-gifts, hands=BETA, deals=N")
    parts = parts[:3]
    if len(parts) > 1:
        playout, _, own = parts[1].partition("/")
        spec["playout"] = playout
        if own:
            spec["self_playout"] = own
    if len(parts) > 2:
        budget = parts[2]
        try:
            if budget.endswith("s"):  # a time budget only: no playout count ends it first
                spec.update(time_limit=float(budget[:-1]), simulations=0)
            else:
                spec["simulations"] = int(budget)
        except ValueError:
            raise ValueError(f"budget {budget!r} in {text!r} is neither playouts nor SECONDSs") from None
    return spec
