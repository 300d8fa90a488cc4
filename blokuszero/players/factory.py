"""Players from plain settings (config files, command lines) and the named presets.

A player spec is a mapping with ``preset`` (a name from :data:`PRESETS`) and/or ``kind``
(``random``, ``mcts``, ``depth_first``, ``alphazero``, ``gtp``, ``ggp_uct``, ``daihinmin_mc``,
``daihinmin_default``) plus options that override the preset's. Unknown options are an error
that names them. :func:`make_player` makes a player of a spec; :func:`make_client` makes a
UECda table client (Daihinmin's kinds) of the same specs, and :func:`parse_client_spec` reads
the command lines' shorthand for them (``mc:random:100``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..games.abilities import HasPassAction, HasPatternNeighbours, implements
from ..games.base import Game, State
from ..games.daihinmin import DaihinminGame
from ..games.ggp import GgpGame
from ..games.ggp.softmax_policy import SoftmaxPolicy
from ..games.registry import encoder_name, make_encoder
from ..nn.backends import BACKENDS
from ..search import time_manager
from ..search.alphazero import network_search
from ..search.depth_first import DepthFirstConfig, DepthFirstSearch, keep_order
from ..search.enhancements import PriorKnowledge
from ..search.evaluators import PlayoutMixing, PlayoutPriors, RolloutEvaluator
from ..search.mcts import MCTS, MCTSConfig
from ..search.rave import RAVE
from ..search.selection import PUCT, UCB1, ProgressiveHistory, PUCTSettings, UCB1Tuned
from ..settings import SettingError, Settings, check_value, declared, setting
from . import ggp_uct
from .base import Player, RandomPlayer
from .daihinmin_default_client import DefaultClient
from .daihinmin_mc import MonteCarloClient, MonteCarloPlayer
from .daihinmin_playouts import POLICIES as DAIHINMIN_PLAYOUTS
from .gtp_player import GtpPlayer
from .search_players import DepthFirstPlayer, MCTSPlayer

#: MCTS-MaxN as SPEC §2 describes the paper's baseline.
MCTS_MAXN = {"kind": "mcts", "tree": "maxn", "selection": "progressive_history", "c": 0.2, "w": 5.0,
             "playout": "largest_piece", "epsilon": 0.05, "expand_threshold": 1, "simulations": 800}

#: Go (SPEC §4): Fuego-style RAVE, plain (k = l = 1), over eye-keeping random playouts; no tree
#: reuse, so AMAF statistics and pattern ids always refer to the current root.
GO_RAVE = {"kind": "mcts", "selection": "rave", "form": "fuego", "c": 0.0, "k": 1.0, "l": 1.0,
           "playout": "uniform", "simulations": 1000, "reuse_tree": False}
#: Go as Fuego plays it (issue 19): its playout rules, even-game prior knowledge as virtual
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

_MCTS_FIELDS = {f.name for f in fields(MCTSConfig)}
_RAVE_OPTIONS = ("form", "c", "c_rave", "k_rave", "k", "l", "beta_unweighted", "first_play_urgency",
                 "rave_weight_initial", "rave_weight_final")
_DEPTH_FIRST_FIELDS = {f.name for f in fields(DepthFirstConfig)}
# Options besides the search configs': selection rule and its parameters, playouts, move choice.
_OPTIONS = {
    "random": set(),
    # n_prior: virtual visits of prior knowledge on new nodes (0: none; games that have it);
    # prior: the game's scheme of it; prior_rave: it also seeds the AMAF statistics.
    "mcts": _MCTS_FIELDS | {"selection", "c", "w", "c_base", "c_init", "q_init", "playout",
                            "epsilon", "temperature_moves", "n_prior", "prior", "prior_rave",
                            *_RAVE_OPTIONS},
    "depth_first": _DEPTH_FIRST_FIELDS,
    # checkpoint: a training checkpoint (None: an untrained network of size `model`, initialised
    # from torch seed `init_seed`, as a run with that seed starts).
    # mix_lambda, mix_playouts: AlphaGo's leaf mixing at play time (search.evaluators.PlayoutMixing):
    # each leaf's network value mixed with the result of mix_playouts random playouts, weight
    # mix_lambda (0, when not given: the network's value alone, no playouts run); mix_playout,
    # mix_epsilon: those playouts' policy, as the mcts kind's playout and epsilon (default
    # uniform, no knowledge; a game's own policy, such as Blokus's largest_piece, is hand-made).
    # leaf_playouts: AlphaGo's expansion threshold instead (search.evaluators.PlayoutPriors):
    # every leaf valued by one playout (mix_playout, mix_epsilon) and the network asked only for
    # the priors of a node the search expands, after expand_threshold visits.
    "alphazero": _MCTS_FIELDS | {"checkpoint", "model", "init_seed", "gumbel", "c_base", "c_init",
                                 "q_init", "device", "temperature_moves", "cache_size",
                                 "mix_lambda", "mix_playouts", "mix_playout", "mix_epsilon",
                                 "leaf_playouts", "backend"},
    # command: the command line of an external Blokus or Go GTP engine (e.g. "pentobi-gtp --quiet",
    # "gnugo --mode gtp").
    "gtp": {"command"},
    # GDL games' UCT (players.ggp_uct): playout uniform, mast (tau), nst (epsilon) or softmax
    # (policy_file, or a policy object), the search experience and its switching rule.
    "ggp_uct": set(ggp_uct.OPTIONS),
    # Daihinmin's flat Monte Carlo (fumiya's): the budget as the other searches name it (each
    # simulation one playout; time_limit in wall seconds), the opponents' playout policy and the
    # searcher's own (self_playout), UCB1-tuned's c. A table client (make_client) or a player.
    "daihinmin_mc": {"simulations", "time_limit", "playout", "self_playout", "c"},
    # The UECda standard client: a table client only (make_client).
    "daihinmin_default": set(),
}
#: The kinds that make UECda table clients (:func:`make_client`).
CLIENT_KINDS = ("daihinmin_default", "daihinmin_mc")
SELECTION_RULES = {"ucb1": (UCB1, ("c",)), "ucb1_tuned": (UCB1Tuned, ("c",)),
                   "progressive_history": (ProgressiveHistory, ("c", "w")),
                   "puct": (PUCT, ("c_base", "c_init", "q_init")), "rave": (RAVE, _RAVE_OPTIONS)}

@dataclass(frozen=True)
class PlayerOptions(Settings):
    """The type and range of each player option besides the search settings (which
    :class:`MCTSConfig`, :class:`PUCTSettings` and :class:`DepthFirstConfig` declare): a schema
    for :func:`resolve_spec`, never made; where an option is not given, the part it configures
    keeps its own default."""

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
    backend: str = setting(choices=BACKENDS)
    tau: float = setting(above=0)
    policy_file: str | None = setting()
    policy: SoftmaxPolicy | None = setting()
    experience: dict | str | None = setting()
    switch_time_limit: float | None = setting(low=0)
    self_playout: str = setting(choices=DAIHINMIN_PLAYOUTS)


# Type and allowed values of every option, checked by resolve_spec, so that a bad option stops
# a program before it starts.
_DECLARED = declared(MCTSConfig, PUCTSettings, DepthFirstConfig, PlayerOptions)

#: The search settings of a training run (its ``search`` group) that a network player takes
#: from its checkpoint: how the network searched while it learnt. Self-play's exploration
#: (noise, temperature, playout caps) and its budget stay the player's own.
TRAINED_SEARCH = ("gumbel", "c_base", "c_init", "q_init", "gumbel_considered", "c_visit", "c_scale")


def make_rule(name: str, options: Mapping[str, Any], game: Game | None = None):
    """A selection rule by name, with the options it takes from ``options``; RAVE also takes
    ``game``'s pattern neighbours and pass action where the game has them."""
    if name not in SELECTION_RULES:
        raise ValueError(f"unknown selection rule {name!r}; known: {sorted(SELECTION_RULES)}")
    cls, params = SELECTION_RULES[name]
    kwargs = {k: options[k] for k in params if k in options}
    if cls is RAVE and game is not None:
        if implements(game, HasPatternNeighbours):
            kwargs["neighbours"] = game.pattern_neighbours()
        kwargs["skip_action"] = game.pass_action if isinstance(game, HasPassAction) else -1
    return cls(**kwargs)


def player_options(kind: str) -> frozenset[str]:
    """The options a player of ``kind`` takes (besides ``preset`` and ``kind``)."""
    return frozenset(_OPTIONS[kind])


def resolve_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The preset's settings overridden by ``spec``'s, checked: ValueError names an unknown
    option or one of the wrong type or out of range."""
    spec = dict(spec)
    preset = spec.pop("preset", None)
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"unknown player preset {preset!r}; known: {sorted(PRESETS)}")
    merged = {**PRESETS.get(preset, {}), **spec}
    kind = merged.pop("kind", None)
    if kind not in _OPTIONS:
        raise ValueError(f"player needs a preset or a kind in {sorted(_OPTIONS)}, got {kind!r}")
    unknown = set(merged) - _OPTIONS[kind]
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for a {kind} player; "
                         f"known: {sorted(_OPTIONS[kind])}")
    for key, value in merged.items():
        annotation, bounds = _DECLARED[key]
        check_value(key, value, annotation, **bounds)
    # The search configs check how their settings go together (e.g. simulations or a time limit).
    if kind in ("mcts", "alphazero", "ggp_uct", "daihinmin_mc"):
        MCTSConfig(**{k: v for k, v in merged.items() if k in _MCTS_FIELDS})
    if kind == "ggp_uct":
        ggp_uct.check_options(merged)
    elif kind == "daihinmin_mc" and merged.get("playout", "random") not in DAIHINMIN_PLAYOUTS:
        raise SettingError("playout", f"must be one of {list(DAIHINMIN_PLAYOUTS)}, "
                           f"not {merged['playout']!r}")
    elif kind == "alphazero" and merged.get("leaf_playouts") and (
            merged.get("mix_lambda", 0.0) > 0 or "mix_playouts" in merged):
        raise SettingError("leaf_playouts", "values each leaf by one playout alone: it takes "
                           "no mix_lambda or mix_playouts")
    elif kind == "depth_first":
        DepthFirstConfig(**{k: v for k, v in merged.items() if k in _DEPTH_FIRST_FIELDS})
    return {"kind": kind, **merged}


def _blokus_heuristics():
    from ..games.blokus import tables as T

    def evaluate(state: State) -> np.ndarray:
        return state.squares_placed().astype(np.float64)

    def order(state: State, player: int, actions: np.ndarray) -> np.ndarray:
        # Larger pieces first (SPEC §2), stable so the rest keeps its order.
        return actions[np.argsort(-T.PLACEMENT_SIZE[actions], kind="stable")]

    def max_sum(state: State, depth: int) -> float:
        return float(state.squares_placed().sum() + T.MAX_PIECE_SIZE * depth)

    return evaluate, order, max_sum


def depth_first_heuristics(game: Game):
    """(evaluation, move ordering, sum bound or None) for the depth-first searches.

    Blokus: squares placed per colour, larger pieces first (SPEC §2). Other games: the
    returns at the end of the game and 0 before it, in the given order.
    """
    if game.name == "blokus":
        return _blokus_heuristics()
    return (lambda state: np.asarray(state.returns(), dtype=np.float64)), keep_order, None


def _alphazero_player(game: Game, s: dict[str, Any], rng: np.random.Generator) -> Player:
    # torch is imported here, not at module level: only network players need it, and arena
    # workers set their thread count before it is imported.
    import torch

    from ..nn.checkpoint import load_network
    from ..nn.evaluator import NetworkEvaluator
    from ..nn.model import build_model

    encoder = make_encoder(game)  # ValueError for a game without one
    if s.get("checkpoint"):
        model, _ = load_network(s["checkpoint"])
    else:
        torch.manual_seed(s.get("init_seed", 0))
        model = build_model(s.get("model", "b2c32conv"), encoder_name(game))
    # The evaluator checks that the network was built for this game's encoding.
    evaluator = NetworkEvaluator(model, encoder, device=s.get("device", "cpu"),
                                 cache_size=s.get("cache_size", 0), backend=s.get("backend", "auto"))
    search_rng = rng.spawn(1)[0]
    if s.get("leaf_playouts", False):  # the playouts draw from the search's generator
        evaluator = PlayoutPriors(evaluator, search_rng, s.get("mix_playout", "uniform"),
                                  s.get("mix_epsilon", 0.0))
    elif s.get("mix_lambda", 0.0) > 0:
        evaluator = PlayoutMixing(evaluator, s["mix_lambda"], s.get("mix_playouts", 1),
                                  (game.min_utility, game.max_utility), search_rng,
                                  s.get("mix_playout", "uniform"), s.get("mix_epsilon", 0.0))
    puct = {k: s[k] for k in ("c_base", "c_init", "q_init") if k in s}
    config, rule = network_search(s.get("gumbel", False), **puct, **{
        "expand_threshold": 0, "gumbel_scale": 0.0, **{k: v for k, v in s.items() if k in _MCTS_FIELDS}})
    return MCTSPlayer(MCTS(game, config, rule, evaluator, search_rng, clock=time_manager.CPU_CLOCK),
                      temperature_moves=s.get("temperature_moves", 0))


def trained_search(checkpoint: str) -> dict[str, Any]:
    """The :data:`TRAINED_SEARCH` settings of the run that wrote ``checkpoint`` (its stored
    config's ``search`` group); empty for a checkpoint that stores no config."""
    import json

    from ..nn.checkpoint import load_checkpoint

    stored = load_checkpoint(checkpoint).get("config")
    search = json.loads(stored).get("search", {}) if stored else {}
    return {k: search[k] for k in TRAINED_SEARCH if k in search}


def player_settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a player made from ``spec`` plays with: :func:`resolve_spec`'s, and for a
    network player with a checkpoint the search settings its run trained with
    (:func:`trained_search`) where the spec names none: preset < checkpoint < the spec's own."""
    s = resolve_spec(spec)
    if s["kind"] == "alphazero" and s.get("checkpoint"):
        own = {k: v for k, v in spec.items() if k != "preset"}
        trained = trained_search(s["checkpoint"])
        if s.get("leaf_playouts"):  # AlphaGo's expansion threshold selects by PUCT, never Gumbel's rule
            trained.pop("gumbel", None)
        s = resolve_spec({**PRESETS.get(spec.get("preset"), {}), **trained, **own})
    return s


def make_player(game: Game, spec: Mapping[str, Any], seed: int | None = None) -> Player:
    """A player for ``game`` from a spec (see the module docstring), with
    :func:`player_settings`."""
    s = player_settings(spec)
    rng = np.random.default_rng(seed)
    if s["kind"] == "random":
        return RandomPlayer(rng)
    if s["kind"] == "depth_first":
        config = DepthFirstConfig(**{k: v for k, v in s.items() if k in _DEPTH_FIRST_FIELDS})
        evaluate, order, max_sum = depth_first_heuristics(game)
        return DepthFirstPlayer(DepthFirstSearch(game, config, evaluate, order, max_sum))
    if s["kind"] == "alphazero":
        return _alphazero_player(game, s, rng)
    if s["kind"] == "ggp_uct":
        if not isinstance(game, GgpGame):
            raise ValueError(f"a ggp_uct player plays GDL games, not {game.name}")
        return ggp_uct.uct_player(game, s, rng)
    if s["kind"] == "daihinmin_mc":
        return _monte_carlo_player(game, s, rng)
    if s["kind"] == "daihinmin_default":
        raise ValueError("the daihinmin_default player is a UECda table client: make it with "
                         "make_client")
    if s["kind"] == "gtp":
        if not s.get("command"):
            raise ValueError(f"a gtp player needs the engine's command line as 'command' "
                             f"(got {s.get('command')!r})")
        return GtpPlayer(s["command"], game, int(rng.integers(2**31)))
    rule = make_rule(s.get("selection", "ucb1"), s, game)
    config = MCTSConfig(**{k: v for k, v in s.items() if k in _MCTS_FIELDS})
    evaluator = RolloutEvaluator(s.get("playout", "uniform"), s.get("epsilon", 0.0), rng.spawn(1)[0])
    extra = ([PriorKnowledge(s["n_prior"], s.get("prior", "simple"), s.get("prior_rave", False))]
             if s.get("n_prior", 0) > 0 else [])
    return MCTSPlayer(MCTS(game, config, rule, evaluator, rng.spawn(1)[0], enhancements=extra,
                           clock=time_manager.CPU_CLOCK),
                      temperature_moves=s.get("temperature_moves", 0))


def _monte_carlo_player(game: Game, s: dict[str, Any], rng: np.random.Generator) -> MonteCarloPlayer:
    if not isinstance(game, DaihinminGame):
        raise ValueError(f"a daihinmin_mc player plays Daihinmin, not {game.name}")
    names = {"simulations": "playouts", "time_limit": "seconds", "playout": "playout",
             "self_playout": "self_playout", "c": "c"}
    return MonteCarloPlayer(**{names[k]: v for k, v in s.items() if k in names}, seed=rng,
                            game=game)


def make_client(game: DaihinminGame, spec: Mapping[str, Any], seed: int | None = None):
    """A UECda table client (``on_deal``, ``on_hand``, ``on_field`` from the table stream: not
    a :class:`Player`, which plays engine states) following ``game``'s rules, from a spec of a
    kind in :data:`CLIENT_KINDS`: ``daihinmin_default`` the standard client,
    ``daihinmin_mc`` the Monte Carlo client around the player :func:`make_player` makes of the
    same spec."""
    s = resolve_spec(spec)
    if s["kind"] not in CLIENT_KINDS:
        raise ValueError(f"a {s['kind']} player is no UECda table client; those are "
                         f"{', '.join(CLIENT_KINDS)}")
    if s["kind"] == "daihinmin_default":
        return DefaultClient()
    return MonteCarloClient(_monte_carlo_player(game, s, np.random.default_rng(seed)))


#: The command lines' forms of a table client's spec, for their help.
CLIENT_SPECS = ("default | mc[:POLICY[/SELF][:PLAYOUTS or SECONDSs]] (e.g. mc, mc:default:500, "
                "mc:random:0.5s, mc:model/model:100) | a JSON spec ({\"kind\": \"daihinmin_mc\", ...})")


def parse_client_spec(text: str) -> dict[str, Any]:
    """The spec of a table client written on a command line (:data:`CLIENT_SPECS`): ``default``
    the standard client; ``mc`` the Monte Carlo client, optionally with its playout policies
    (opponents'/own) and budget; or a JSON spec mapping. Options are checked by
    :func:`make_client`."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"client spec {text!r} is not JSON: {err}") from None
    if text == "default":
        return {"kind": "daihinmin_default"}
    parts = text.split(":")
    if parts[0] != "mc" or len(parts) > 3:
        raise ValueError(f"unknown client {text!r}; known: {CLIENT_SPECS}")
    spec: dict[str, Any] = {"kind": "daihinmin_mc"}
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
