"""The Monte Carlo Daihinmin client (SPEC §7, fumiya's design) on the one search core.

Each decision is a determinized search (``MCTSConfig(determinized=True)``): every simulation
starts from a fresh determinization of the searching player's information state, the root's
children are its legal moves, chosen by UCB1-tuned, and nothing is expanded below them
(``expand_threshold`` out of reach), so a simulation is one root move and one playout. The
playout's result is the player's final rank mapped onto [0, 1] (the game's returns, linear in
the rank). The move played is the most visited. The rules let a player pass on an empty field; two
searchers left last may then pass in turn until the stall rule draws their ranks at random, which
a client that replays games by its own rules may never see end (FujiGokoro's hangs). With
``always_lead`` the searcher never passes on an empty field, as the default client never does.

:class:`MonteCarloPlayer` plays engine states (in-process matches, tests);
:class:`MonteCarloClient` plays from the UECda table stream (``blokuszero-uecda --player mc``,
``scripts/daihinmin_match.py``; both made by :func:`~.factory.make_client`) through
:class:`~..games.daihinmin.tracker.TableTracker`.
Playouts are :mod:`.playouts`'s, one policy per player, the model ones playing the
opponent models of :mod:`blokuszero.knowledge.daihinmin.opponent_model`.

With ``hand_weight`` above 0 the client estimates the other hands (SPEC §7, snowl's hand
estimation): before each decision it draws ``hand_deals`` determinizations and weights them by
its opponent models' likelihood of the plays seen this game
(:mod:`blokuszero.knowledge.daihinmin.hand_estimation`); the search's simulations then start
from deals drawn from that pool by weight (:class:`DealPool`, the search core's ``sampler``
hook) instead of uniform ones.

Only this player knows search: the games layer gives positions, uniform playouts and
determinizations, the players layer adds the playout policies and the models, and the search
core gained one general rule (UCB1-tuned) and nothing of Daihinmin.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...games.base import Game, State
from ...games.daihinmin import DaihinminGame
from ...games.daihinmin import rules as K
from ...games.daihinmin.actions import A_CARDS, NUM_PLAYERS, PASS
from ...games.daihinmin.cards import hand_to_table
from ...games.daihinmin.game import DaihinminState
from ...games.daihinmin.tables import action_to_table
from ...games.daihinmin.tracker import TableTracker
from ...knowledge.daihinmin.hand_estimation import effective_size, weighted_deals
from ...knowledge.daihinmin.opponent_model import IMPROVED, NUM_MODEL_ENTRIES, OpponentModel, log_probabilities
from ...search.mcts import MCTS, MCTSConfig
from ...search.root_policies import choose_action
from ...search.selection import UCB1Tuned
from ...settings import SettingError
from ..base import Player
from ..registry import PlayerSpec
from .default_client import DefaultClient
from .playouts import DEFAULT, MODEL, POLICIES, RANDOM, RolePlayouts

ROOT_ONLY = 1 << 30  # an expansion threshold no node reaches: flat Monte Carlo at the root
_NO_MODELS = np.zeros((NUM_PLAYERS, NUM_MODEL_ENTRIES))


def playout_roles(playout: str, self_playout: str | None = None) -> tuple[int, int]:
    """(the opponents' role, the searcher's own role), indices into
    :data:`~.playouts.POLICIES`, from their names. Without ``self_playout`` the
    searcher plays ``random`` and ``default`` as its opponents do, and ``random`` (fumiya's)
    beside model opponents."""
    for name in (playout, self_playout):
        if name is not None and name not in POLICIES:
            raise ValueError(f"unknown playout policy {name!r}; known: {', '.join(POLICIES)}")
    opponents = POLICIES.index(playout)
    own = POLICIES.index(self_playout) if self_playout is not None else (
        opponents if opponents in (RANDOM, DEFAULT) else RANDOM)
    return opponents, own


class DealPool:
    """Where a determinized search's simulations start (the search core's ``sampler``): a deal
    drawn by weight from the pool :meth:`use` set for the coming search, or without one a
    uniform determinization (``state.sample_determinization``)."""

    def __init__(self) -> None:
        self.root: np.ndarray | None = None
        self.deals = np.zeros((0, NUM_PLAYERS), np.int64)
        self.cdf = np.zeros(0)

    def use(self, root: np.ndarray | None, deals: np.ndarray | None = None,
            weights: np.ndarray | None = None) -> None:
        """Draw from ``deals`` [N, 5] (the hands) by ``weights`` [N] in searches from the
        position vector ``root``; ``None``: uniform determinizations again."""
        self.root = None if root is None else root.copy()
        if root is not None:
            self.deals, self.cdf = deals, np.cumsum(weights)

    def __call__(self, state: State, player: int, rng: np.random.Generator) -> State:
        if self.root is None:
            return state.sample_determinization(player, rng)
        if not np.array_equal(state.s, self.root):
            raise ValueError("the deal pool was drawn for another position than the search's root")
        i = min(int(np.searchsorted(self.cdf, rng.random() * self.cdf[-1], side="right")),
                len(self.cdf) - 1)
        out = state.s.copy()
        out[K.S_HAND:K.S_HAND + NUM_PLAYERS] = self.deals[i]
        return DaihinminState(state.game, out, state.dealt)


class MonteCarloPlayer(Player):
    """Flat determinized Monte Carlo with UCB1-tuned at the root; budget ``playouts`` per
    decision and/or ``seconds`` (whichever ends first); ``playout`` the opponents' playout
    policy and ``self_playout`` the searcher's own (:func:`playout_roles`); ``always_lead``: never
    pass on an empty field. Model roles play the models in
    :attr:`playout_models`; a player without a model plays ``random``. ``hand_weight`` and
    ``hand_deals`` are the client's hand estimation (the module's docstring); the player itself
    searches from the deals :meth:`choose_action` is given, or uniform ones."""

    def __init__(self, playouts: int = 1000, seconds: float | None = None,
                 playout: str = "random", self_playout: str | None = None, c: float = 1.0,
                 always_lead: bool = False, hand_weight: float = 0.0, hand_deals: int = 1000,
                 seed: int | np.random.Generator | None = None,
                 game: DaihinminGame | None = None) -> None:
        self.opponent_role, self.own_role = playout_roles(playout, self_playout)
        self.always_lead = always_lead
        if hand_weight < 0 or hand_deals < 1:
            raise ValueError(f"hand estimation needs hand_weight >= 0 and hand_deals >= 1, not "
                             f"{hand_weight} and {hand_deals}")
        self.hand_weight = float(hand_weight)
        self.hand_deals = int(hand_deals)
        self.deal_pool = DealPool()
        config = MCTSConfig(simulations=playouts,
                            time_limit=seconds, expand_threshold=ROOT_ONLY, reuse_tree=False,
                            determinized=True)
        self.role_playouts = RolePlayouts()
        self.mcts = MCTS(game or DaihinminGame(), config, UCB1Tuned(c), self.role_playouts,
                         rng=np.random.default_rng(seed), sampler=self.deal_pool)
        #: (logp [5, K], modelled [5]): the learned models the model roles play.
        self.playout_models: tuple[np.ndarray, np.ndarray] | None = None
        self.last_result = None

    @property
    def uses_models(self) -> bool:
        return max(self.opponent_role, self.own_role) >= MODEL

    def roles(self, me: int) -> np.ndarray:
        """[5] each player's playout role when ``me`` searches."""
        roles = np.full(NUM_PLAYERS, self.opponent_role, np.int64)
        roles[me] = self.own_role
        if self.uses_models:
            modelled = self.playout_models[1] if self.playout_models else np.zeros(5, np.bool_)
            roles[(roles >= MODEL) & ~modelled] = RANDOM
        return roles

    def choose_action(self, state: State, deals: tuple[np.ndarray, np.ndarray] | None = None) -> int:
        """The move to play in ``state``; the search starts its simulations from ``deals``
        (hands [N, 5], weights [N]) drawn by weight if given, else from uniform determinizations."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])  # nothing to decide (a pass, a forced gift)
        self.role_playouts.roles = self.roles(state.current_player())
        self.role_playouts.logp = self.playout_models[0] if self.playout_models else _NO_MODELS
        self.deal_pool.use(state.s if deals else None, *(deals or ()))
        try:
            self.last_result = result = self.mcts.search(state)
        finally:
            self.deal_pool.use(None)
        keep = result.actions != PASS
        if self.always_lead and state.s[K.S_FIELD] < 0 and keep.any():  # an empty field: play, never pass
            # The search still spends simulations on the pass: the root's moves are the state's.
            result = dataclasses.replace(result, actions=result.actions[keep], movers=result.movers[keep],
                                         visits=result.visits[keep], values=result.values[keep],
                                         prior=result.prior[keep])
        return choose_action(result, 0.0, self.mcts.rng)


class MonteCarloClient:
    """:class:`MonteCarloPlayer` as a UECda table client: gifts as the standard client gives
    them (its lowest cards), or with ``search_gifts`` by a search of the gifts from the
    position at its gift (:meth:`~..games.daihinmin.tracker.TableTracker.gift_state`, the same
    search and playouts as its plays); plays by search from the tracked position. With model playouts
    it keeps an improved naive-Bayes model per opponent, learned after every game from that
    game's moves and the hands they were made from (SPEC §7); a searcher playing a model
    itself plays the opponents' models pooled (their counts summed: how this table plays).
    With hand estimation (``hand_weight`` > 0) it learns the same models and weights each
    decision's deals by them (:attr:`last_effective_deals`: what that decision's weights were
    worth in equal deals)."""

    def __init__(self, player: MonteCarloPlayer, search_gifts: bool = False) -> None:
        self.player = player
        self.search_gifts = search_gifts
        self.tracker = TableTracker(self.player.mcts.game)
        self.me = -1  # our player number, read at our first turn
        self.models = [OpponentModel(IMPROVED) for _ in range(NUM_PLAYERS)]
        self.last_effective_deals = float("nan")

    def on_deal(self, table: np.ndarray) -> np.ndarray | None:
        if (self.player.uses_models or self.player.hand_weight > 0) and self.tracker.actions:
            self._learn()
        self.tracker.on_deal(table)
        if not (self.search_gifts and int(table[5, 1]) in (1, 2)):
            return DefaultClient().on_deal(table)
        try:
            state = self.tracker.gift_state()
        except ValueError as err:  # a deal table this tracker cannot read: give, never stall the match
            warnings.warn(f"the gift is the lowest cards, not searched: {err}", stacklevel=2)
            return DefaultClient().on_deal(table)
        return hand_to_table(int(A_CARDS[self.player.choose_action(state)]))

    def _learn(self) -> None:
        states, movers, actions = self.tracker.finished_game()
        for p, model in enumerate(self.models):
            if p != self.me:
                model.learn_game(states[movers == p], actions[movers == p])
        logp = np.stack([m.logp for m in self.models])
        modelled = np.array([p != self.me for p in range(NUM_PLAYERS)])
        if self.player.own_role >= MODEL and 0 <= self.me:
            pooled = sum(m.counts for p, m in enumerate(self.models) if p != self.me)
            logp[self.me] = log_probabilities(pooled)
            modelled[self.me] = True
        self.player.playout_models = (logp, modelled)

    def on_hand(self, table: np.ndarray) -> np.ndarray | None:
        self.tracker.on_hand(table)
        if table[5, 2] != 1:
            return None
        self.me = int(table[5, 3])
        state = self.tracker.state()
        deals = None
        if self.player.hand_weight > 0:
            seen = len(self.tracker.actions)  # the turns played so far this game
            deals = weighted_deals(state.s, self.me, np.array(self.tracker.turns[:seen]),
                                   np.array(self.tracker.movers[:seen]), np.array(self.tracker.actions),
                                   np.stack([m.logp for m in self.models]), IMPROVED,
                                   self.player.hand_deals, self.player.hand_weight, self.player.mcts.rng)
            self.last_effective_deals = effective_size(deals[1])
        action = self.player.choose_action(state, deals)
        return None if action == PASS else action_to_table(action)

    def on_field(self, table: np.ndarray) -> None:
        self.tracker.on_field(table)


def check_options(s: Mapping[str, Any]) -> None:
    """SettingError naming a playout policy that is none of :data:`~.playouts.POLICIES`."""
    if "self_playout" in s and s["self_playout"] not in POLICIES:
        raise SettingError("self_playout", f"must be one of {sorted(POLICIES)}, not {s['self_playout']!r}")
    if s.get("playout", "random") not in POLICIES:
        raise SettingError("playout", f"must be one of {list(POLICIES)}, not {s['playout']!r}")


def make_monte_carlo_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> MonteCarloPlayer:
    """The ``daihinmin_mc`` kind as a player of Daihinmin's states."""
    if not isinstance(game, DaihinminGame):
        raise ValueError(f"a daihinmin_mc player plays Daihinmin, not {game.name}")
    names = {"simulations": "playouts", "time_limit": "seconds", "playout": "playout",
             "self_playout": "self_playout", "c": "c", "always_lead": "always_lead",
             "hand_weight": "hand_weight", "hand_deals": "hand_deals"}
    return MonteCarloPlayer(**{names[k]: v for k, v in spec.settings.items() if k in names}, seed=rng,
                            game=game)


def make_monte_carlo_client(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> MonteCarloClient:
    """The ``daihinmin_mc`` kind as a UECda table client around :func:`make_monte_carlo_player`."""
    return MonteCarloClient(make_monte_carlo_player(game, spec, rng),
                            search_gifts=bool(spec.settings.get("search_gifts", False)))
