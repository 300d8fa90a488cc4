"""The Monte Carlo Daihinmin client: UCB1-tuned, the table tracker against the engine on a real
record, determinizations, playout policies, and play strength against random movers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.daihinmin import DaihinminGame
from blokuszero.games.daihinmin import engine as E
from blokuszero.games.daihinmin.default_client import DefaultClient
from blokuszero.games.daihinmin.log import read_log
from blokuszero.games.daihinmin.match import MatchSettings
from blokuszero.games.daihinmin.opponent_model import OpponentModel, game_moves
from blokuszero.games.daihinmin.replay import replay_record, rules_of
from blokuszero.games.daihinmin.server import LocalSeat, run_match
from blokuszero.games.daihinmin.tracker import TableTracker
from blokuszero.players.base import RandomPlayer
from blokuszero.players.daihinmin_mc import MonteCarloClient, MonteCarloPlayer, make_client
from blokuszero.search.selection import ucb1_tuned_scores

LOG = Path(__file__).parent / "data" / "daihinmin_default5_match1.log"


def test_ucb1_tuned_formula():
    # Two children with 4 visits each, values on [-1, 1]: one constant, one spread.
    visits = np.array([8, 4, 4, 0], np.int32)
    value_sum = np.array([[0.0], [2.0], [0.0], [0.0]])
    value_sq = np.array([[0.0], [1.0], [4.0], [0.0]])
    mover = np.zeros(4, np.int8)
    out = ucb1_tuned_scores(1, 3, visits, value_sum, value_sq, mover, 8, 1.0, -1.0, 1.0,
                            visits, False)
    log_n = math.log(8)
    # Child 1: values all 0.5 -> mapped 0.75, variance 0.
    v1 = 0.0 + math.sqrt(2 * log_n / 4)
    assert out[0] == pytest.approx(0.75 + math.sqrt(log_n / 4 * min(0.25, v1)))
    # Child 2: values +-1 -> mapped 0 / 1, mean 0.5, variance 0.25 (capped).
    assert out[1] == pytest.approx(0.5 + math.sqrt(log_n / 4 * 0.25))
    assert out[2] == np.inf


class _Checked:
    """A default client that also tracks the table stream and, at each of its turns, compares
    the tracked position with the engine's (``truth``: positions of its turns, in order)."""

    def __init__(self, truth):
        self.inner = DefaultClient()
        self.tracker = TableTracker()
        self.truth = truth
        self.turns = 0
        self.games: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def on_deal(self, table):
        if self.tracker.actions:
            self.games.append(self.tracker.finished_game())
        self.tracker.on_deal(table)
        return self.inner.on_deal(table)

    def on_hand(self, table):
        self.tracker.on_hand(table)
        if table[5, 2] == 1:
            mine = self.tracker.state().s
            true = self.truth[self.turns]
            self.turns += 1
            p = int(true[E.S_PLAYER])
            for field in ("S_PLAYER", "S_LAST", "S_FIELD", "S_REVOLUTION", "S_LOCK",
                          "S_JOKER_ALONE", "S_PASSED", "S_STALL", "S_OUT", "S_PLAYED"):
                index = getattr(E, field)
                assert mine[index] == true[index], (field, self.turns)
            assert mine[E.S_HAND + p] == true[E.S_HAND + p]
            assert list(mine[E.S_ORDER:E.S_ORDER + 5]) == list(true[E.S_ORDER:E.S_ORDER + 5])
            counts = [bin(int(h)).count("1") for h in true[E.S_HAND:E.S_HAND + 5]]
            assert [bin(int(h)).count("1") for h in mine[E.S_HAND:E.S_HAND + 5]] == counts
        return self.inner.on_hand(table)

    def on_field(self, table):
        self.tracker.on_field(table)
        self.inner.on_field(table)


def test_tracker_rebuilds_the_engine_position_on_a_real_record():
    record = read_log(LOG)
    record.games = record.games[:40]
    game = DaihinminGame(rules_of(record)[0])
    turns = {p: [] for p in range(5)}
    games = [game_moves(g, game) for g in record.games]
    for states, movers, _ in games:
        for s, m in zip(states, movers):
            turns[int(m)].append(s)
    checked = [_Checked(turns[p]) for p in range(5)]
    clients = iter(checked)
    report = replay_record(record, lambda: next(clients))
    assert report.ok, (report.first_disagreement, report.first_decision_miss)
    assert [c.turns for c in checked] == [len(turns[p]) for p in range(5)]
    # After each game, the hands every turn was played from (all five when four went out).
    complete = 0
    for (states, movers, actions), (t_states, t_movers, t_actions) in zip(checked[0].games, games):
        if len(movers) == len(t_movers):
            complete += 1
            assert (movers == t_movers).all() and (actions == t_actions).all()
            rows = np.arange(len(movers))
            assert (states[rows, E.S_HAND + movers] == t_states[rows, E.S_HAND + t_movers]).all()
    assert complete >= 30


def test_determinizations_keep_own_cards_and_every_count():
    state = DaihinminGame().new_initial_state(3)
    while state.s[E.S_PHASE] != E.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    rng = np.random.default_rng(0)
    for _ in range(30):  # part-way through a game
        state.apply_action(int(rng.choice(state.legal_actions())))
    me = state.current_player()
    hands = state.s[E.S_HAND:E.S_HAND + 5]
    for k in range(50):
        d = state.sample_determinization(me, np.random.default_rng(k))
        other = d.s[E.S_HAND:E.S_HAND + 5]
        assert other[me] == hands[me]
        assert [bin(int(h)).count("1") for h in other] == [bin(int(h)).count("1") for h in hands]
        assert int(np.bitwise_or.reduce(other)) & int(state.s[E.S_PLAYED]) == 0
        assert int(np.bitwise_or.reduce(other)) == int(np.bitwise_or.reduce(hands))
        assert (np.delete(d.s, range(E.S_HAND, E.S_HAND + 5))
                == np.delete(state.s, range(E.S_HAND, E.S_HAND + 5))).all()


@pytest.mark.parametrize("policy", ["random", "default", "model", "model_sample"])
def test_playout_policies_finish_games(policy):
    state = DaihinminGame().new_initial_state(7)
    while state.s[E.S_PHASE] != E.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    E.seed(1)
    if policy.startswith("model"):
        model = OpponentModel(True)
        model.learn_game(state.s[None], np.array([state.legal_actions()[-1]]))
        state.playout_models = (np.stack([model.logp] * 5), np.ones(5, np.bool_), True)
    start = state.clone()
    players, actions = state.playout(policy)
    assert state.is_terminal() and len(actions) > 10
    replay = start.clone()
    for p, a in zip(players, actions):  # every move legal, and never a pass on an empty field
        if policy == "random" and replay.s[E.S_FIELD] < 0 and p >= 0:
            assert a != 0
        replay.apply_action(int(a))
    assert (replay.s == state.s).all()
    with pytest.raises(ValueError, match="unknown Daihinmin playout"):
        start.playout("greedy")
    start.playout_models = None
    with pytest.raises(ValueError, match="playout_models"):
        start.playout("model")


def _play(players, games: int, seed: int) -> np.ndarray:
    """Points (5 best .. 1 worst) per game and player, seats drawn by the game's seed."""
    game = DaihinminGame()
    points = np.zeros((games, 5))
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_initial_state(int(rng.integers(2**31)))
        while not state.is_terminal():
            p = state.current_player()
            if p == -3:
                outcomes, _ = state.chance_outcomes()
                state.apply_action(int(rng.choice(outcomes)))
            else:
                state.apply_action(players[p].choose_action(state))
        points[g] = state.points()
    return points


def test_mc_beats_random_players_clearly():
    players = [MonteCarloPlayer(playouts=30, seed=1)] + [RandomPlayer(k) for k in range(4)]
    points = _play(players, 150, seed=2)
    mean = points[:, 0].mean()
    half = 1.96 * points[:, 0].std(ddof=1) / math.sqrt(len(points))
    assert mean - half > 3.5, (mean, half)  # random play averages 3


def test_model_client_learns_its_opponents():
    client = make_client("mc:model:10", seed=1)
    run_match([LocalSeat(client, "mc0")] + [LocalSeat(DefaultClient(), f"dflt{p}")
                                            for p in range(1, 5)],
              MatchSettings(games=4), seed=6)
    assert client.me == 0 and client.player.playout_models is not None
    logp, modelled, improved = client.player.playout_models
    assert list(modelled) == [False, True, True, True, True] and improved
    assert client.models[0].counts.sum() == 0 and all(m.counts.sum() > 0 for m in client.models[1:])


def test_mc_client_plays_a_match_through_the_tables():
    result = run_match([LocalSeat(make_client("mc:random:20", seed=1), "mc0")]
                       + [LocalSeat(DefaultClient(), f"dflt{p}") for p in range(1, 5)],
                       MatchSettings(games=6), seed=4)
    assert len(result.points) == 6
    timed = make_client("mc:default:0.05s").player.mcts.config
    assert timed.time_limit == 0.05 and timed.simulations == 0
    with pytest.raises(ValueError, match="unknown client"):
        make_client("mcts")
    with pytest.raises(ValueError, match="budget"):
        make_client("mc:random:fast")
    with pytest.raises(ValueError, match="playout policy"):
        MonteCarloClient(playout="greedy")
