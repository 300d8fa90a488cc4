"""The Monte Carlo Daihinmin client: UCB1-tuned, the table tracker against the rules on a real
record, determinizations, playout policies, and play strength against random movers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.daihinmin import DaihinminGame
from blokuszero.games.daihinmin import rules as K
from blokuszero.games.daihinmin.actions import A_CARDS, PASS, give_action
from blokuszero.games.daihinmin.cards import hand_to_table, table_to_hand
from blokuszero.games.daihinmin.determinization import known_and_forbidden
from blokuszero.games.daihinmin.game import DaihinminState
from blokuszero.games.daihinmin.log import read_log
from blokuszero.games.daihinmin.tracker import TableTracker
from blokuszero.games.numba_random import seed_numba
from blokuszero.knowledge.daihinmin.opponent_model import (
    IMPROVED,
    OpponentModel,
    _histogram,
    game_moves,
    log_probabilities,
    score,
    strengths,
)
from blokuszero.match.daihinmin.uecda_replay import replay_record, rules_of
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.players.base import RandomPlayer
from blokuszero.players.daihinmin.default_client import DefaultClient
from blokuszero.players.daihinmin.monte_carlo import MonteCarloPlayer, playout_roles
from blokuszero.players.daihinmin.playouts import RolePlayouts, play_out
from blokuszero.players.factory import make_client, parse_client_spec
from blokuszero.search.mcts import SearchResult
from blokuszero.search.ucb import ucb1_tuned_scores

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
    the tracked position with the engine's (``truth``: (position, cards this player knows each
    player holds, ranks at the deal) of its turns, in order)."""

    def __init__(self, truth, gifts):
        self.inner = DefaultClient()
        self.tracker = TableTracker()
        self.truth = truth
        self.gifts = gifts  # the engine's position at each of this player's gifts, in order
        self.gift_count = 0
        self.turns = 0
        self.exchange_known = 0  # turns at which the exchange told it where some card is
        self.games: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def on_deal(self, table):
        if self.tracker.actions:
            self.games.append(self.tracker.finished_game())
        self.tracker.on_deal(table)
        if table[5, 1] > 0:
            mine, true = self.tracker.gift_state(), self.gifts[self.gift_count]
            self.gift_count += 1
            p = mine.current_player()
            assert p == true.current_player() and mine.s[K.S_PHASE] == true.s[K.S_PHASE]
            assert mine.hand(p) == true.hand(p)
            assert [bin(mine.hand(q)).count("1") for q in range(5)] == [bin(true.hand(q)).count("1")
                                                                      for q in range(5)]
            assert int(np.bitwise_or.reduce(mine.s[K.S_HAND:K.S_HAND + 5])) == (1 << 53) - 1
            for field in ("S_SEAT", "S_RANK"):
                index = getattr(K, field)
                assert list(mine.s[index:index + 5]) == list(true.s[index:index + 5])
            assert int(mine.legal_actions().size) == int(true.legal_actions().size)
        return self.inner.on_deal(table)

    def on_hand(self, table):
        self.tracker.on_hand(table)
        if table[5, 2] == 1:
            mine = self.tracker.state().s
            true, exchange_known, ranks = self.truth[self.turns]
            self.turns += 1
            p = int(true[K.S_PLAYER])
            for field in ("S_PLAYER", "S_LAST", "S_FIELD", "S_REVOLUTION", "S_LOCK",
                          "S_JOKER_ALONE", "S_PASSED", "S_STALL", "S_OUT", "S_PLAYED"):
                index = getattr(K, field)
                assert mine[index] == true[index], (field, self.turns)
            assert mine[K.S_HAND + p] == true[K.S_HAND + p]
            assert list(mine[K.S_ORDER:K.S_ORDER + 5]) == list(true[K.S_ORDER:K.S_ORDER + 5])
            assert list(mine[K.S_RANK:K.S_RANK + 5]) == ranks
            counts = [bin(int(h)).count("1") for h in true[K.S_HAND:K.S_HAND + 5]]
            assert [bin(int(h)).count("1") for h in mine[K.S_HAND:K.S_HAND + 5]] == counts
            # What the exchange told this player about the others' hands, from the record.
            known = known_and_forbidden(mine, p)[0]
            assert list(known) == list(exchange_known), self.turns
            self.exchange_known += int(np.delete(known, p).any())
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
    for g, (states, movers, _) in zip(record.games, games):
        for s, m in zip(states, movers):
            known = np.zeros(5, np.int64)
            known[m] = s[K.S_HAND + m]
            for giver, taker, table in g.changes:  # its gift, or the cards taken from it
                if giver == m:
                    known[taker] = table_to_hand(table) & s[K.S_HAND + taker]
            turns[int(m)].append((s, known, g.ranks or [-1] * 5))
    gifts = {p: [] for p in range(5)}
    for g in record.games:
        if g.ranks is None:
            continue
        state = DaihinminState.from_deal(game, g.hands, g.seats, g.ranks)
        for _ in range(2):  # the daifugo's gift, then the fugo's
            giver = state.current_player()
            gifts[giver].append(state.clone())
            cards = [table_to_hand(table) for f, _, table in g.changes if f == giver][-1]
            state.apply_action(give_action(cards))
    checked = [_Checked(turns[p], gifts[p]) for p in range(5)]
    clients = iter(checked)
    report = replay_record(record, lambda: next(clients))
    assert report.ok, (report.first_disagreement, report.first_decision_miss)
    assert [c.turns for c in checked] == [len(turns[p]) for p in range(5)]
    assert sum(c.exchange_known for c in checked) > 100
    assert [c.gift_count for c in checked] == [len(gifts[p]) for p in range(5)]
    assert sum(len(g) for g in gifts.values()) > 50
    # After each game, the hands every turn was played from (all five when four went out).
    complete = 0
    for (states, movers, actions), (t_states, t_movers, t_actions) in zip(checked[0].games, games):
        if len(movers) == len(t_movers):
            complete += 1
            assert (movers == t_movers).all() and (actions == t_actions).all()
            rows = np.arange(len(movers))
            assert (states[rows, K.S_HAND + movers] == t_states[rows, K.S_HAND + t_movers]).all()
    assert complete >= 30


def test_determinizations_keep_own_cards_and_every_count():
    state = DaihinminGame().new_initial_state(3)
    while state.s[K.S_PHASE] != K.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    rng = np.random.default_rng(0)
    for _ in range(30):  # part-way through a game
        state.apply_action(int(rng.choice(state.legal_actions())))
    me = state.current_player()
    hands = state.s[K.S_HAND:K.S_HAND + 5]
    for k in range(50):
        d = state.sample_determinization(me, np.random.default_rng(k))
        other = d.s[K.S_HAND:K.S_HAND + 5]
        assert other[me] == hands[me]
        assert [bin(int(h)).count("1") for h in other] == [bin(int(h)).count("1") for h in hands]
        assert int(np.bitwise_or.reduce(other)) & int(state.s[K.S_PLAYED]) == 0
        assert int(np.bitwise_or.reduce(other)) == int(np.bitwise_or.reduce(hands))
        assert (np.delete(d.s, range(K.S_HAND, K.S_HAND + 5))
                == np.delete(state.s, range(K.S_HAND, K.S_HAND + 5))).all()


def test_determinizations_respect_what_the_exchange_forbids():
    """The daifugo took the daihinmin's strongest cards, the spade 3 the weakest of them: the
    daihinmin can hold no card above it, so of the unseen cards only the other three 3s fit
    its two cards; a plain re-deal almost never gives that (the fallback places them)."""
    rest = [c for c in range(53) if c not in (0, 1, 2) and c < 40 or c == 52]
    hands = [1 | sum(1 << c for c in range(40, 52))] + [0] * 4  # p0: spade 3 and every A, 2
    hands[4] = (1 << 1) | (1 << 2)
    for i, c in enumerate(rest):
        hands[1 + i % 3] |= 1 << c
    state = DaihinminState.from_deal(DaihinminGame(), hands, [0, 1, 2, 3, 4], None)
    state.s[K.S_RANK:K.S_RANK + 5] = [0, 1, 2, 3, 4]
    state.s[K.S_TOOK_DAIFUGO] = 1  # the spade 3
    forbidden = state.forbidden_cards(0)
    assert int(forbidden[4]) == ((1 << 53) - 1) & ~15 and not forbidden[[0, 1, 2, 3]].any()
    seen = 0
    for k in range(200):
        det = state.sample_determinization(0, np.random.default_rng(k))
        assert det.hand(0) == hands[0]
        assert [bin(det.hand(p)).count("1") for p in range(5)] == [13, 13, 13, 12, 2]
        assert det.hand(4) & ~0b1110 == 0
        seen |= det.hand(4)
        assert int(np.bitwise_or.reduce(det.s[K.S_HAND:K.S_HAND + 5])) == (1 << 53) - 1
    assert seen == 0b1110  # each of the three allowed 3s goes there in some deal


@pytest.mark.parametrize("roles", [(0, 0, 0, 0, 0), (1, 1, 1, 1, 1), (2, 2, 2, 2, 2),
                                   (3, 3, 3, 3, 3), (0, 2, 1, 3, 0)])
def test_playout_policies_finish_games(roles):
    state = DaihinminGame().new_initial_state(7)
    while state.s[K.S_PHASE] != K.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    model = OpponentModel(IMPROVED)
    model.learn_game(state.s[None], np.array([state.legal_actions()[-1]]))
    roles, logp = np.array(roles, np.int64), np.stack([model.logp] * 5)
    start = state.clone()
    seed_numba(1)
    players, actions = play_out(state, roles, logp, True)
    assert state.is_terminal() and len(actions) > 10
    replay = start.clone()
    for p, a in zip(players, actions):  # every move legal, never a pass on an empty field
        if replay.s[K.S_FIELD] < 0 and p >= 0:  # (random: fumiya's rule; the others by design)
            assert a != 0
        replay.apply_action(int(a))
    assert (replay.s == state.s).all()
    # The search's evaluator plays the same playout and reports the game's returns.
    evaluator = RolePlayouts()
    evaluator.roles, evaluator.logp = roles, logp
    seed_numba(1)
    [evaluation] = evaluator.evaluate([start.clone()])
    assert (evaluation.actions == actions).all() and (evaluation.value == state.returns()).all()
    assert evaluation.utility and evaluator.value_bounds == (0.0, 1.0)
    with pytest.raises(ValueError, match="unknown Daihinmin playout"):
        start.playout("greedy")


def test_model_roles_play_the_models_best_moves():
    """A player whose role is 'model' plays exactly its model's choice at every turn."""
    state = DaihinminGame().new_initial_state(9)
    while state.s[K.S_PHASE] != K.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    model = OpponentModel(IMPROVED)
    record = read_log(LOG)
    game = DaihinminGame(rules_of(record)[0])
    for g in record.games[:30]:
        states, movers, actions = game_moves(g, game)
        model.learn_game(states[movers == 0], actions[movers == 0])
    start = state.clone()
    seed_numba(3)
    players, actions = play_out(state, np.array([2, 0, 0, 0, 0], np.int64),
                                np.stack([model.logp] * 5), True)
    replay = start.clone()
    checked = 0
    for p, a in zip(players, actions):
        if p == 0:
            options = {int(x) for x in replay.legal_actions()} - {0}
            if len(options) == 1:
                assert a in options
            elif options:  # the model's score of the move played is the best of them
                table = strengths(replay.s, True)
                hist = _histogram(replay.s[K.S_HAND], table)
                scores = {o: score(model.logp, replay.s, o, table, hist, IMPROVED) for o in options}
                assert scores[int(a)] >= max(scores.values()) - 1e-9
                checked += 1
        replay.apply_action(int(a))
    assert checked >= 2


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


@pytest.mark.parametrize("spec", ["mc:model:10", "mc:model_sample/model:10"])
def test_model_client_learns_its_opponents(spec):
    client = make_client(DaihinminGame(), parse_client_spec(spec), seed=1)
    serve_match([LocalSeat(client, "mc0")] + [LocalSeat(DefaultClient(), f"dflt{p}")
                                            for p in range(1, 5)],
              MatchSettings(games=4), seed=6)
    assert client.me == 0 and client.player.playout_models is not None
    logp, modelled = client.player.playout_models
    own = client.player.own_role == 2
    assert list(modelled) == [own, True, True, True, True]
    assert client.models[0].counts.sum() == 0 and all(m.counts.sum() > 0 for m in client.models[1:])
    roles = client.player.roles(0)
    assert list(roles) == ([2] if own else [0]) + [client.player.opponent_role] * 4
    if own:  # the searcher plays the four opponents' models pooled
        pooled = sum(m.counts for m in client.models[1:])
        assert np.allclose(logp[0], log_probabilities(pooled))


def test_playout_specs():
    assert playout_roles("random") == (0, 0) and playout_roles("default") == (1, 1)
    assert playout_roles("model") == (2, 0) and playout_roles("model_sample", "default") == (3, 1)
    for bad in (("greedy", None), ("model", "greedy")):
        with pytest.raises(ValueError, match="playout policy"):
            playout_roles(*bad)
    assert parse_client_spec("mc:model_sample/default:10") == {
        "kind": "daihinmin_mc", "playout": "model_sample", "self_playout": "default", "simulations": 10}
    player = MonteCarloPlayer(playouts=5, playout="model", self_playout="model")
    assert list(player.roles(2)) == [0] * 5  # nothing learned yet: random for all
    player.playout_models = (np.zeros((5, 1)), np.array([True, False, True, True, True]))
    assert list(player.roles(2)) == [2, 0, 2, 2, 2]


def test_mc_client_plays_a_match_through_the_tables():
    game = DaihinminGame()
    result = serve_match([LocalSeat(make_client(game, parse_client_spec("mc:random:20"), seed=1), "mc0")]
                       + [LocalSeat(DefaultClient(), f"dflt{p}") for p in range(1, 5)],
                       MatchSettings(games=6), seed=4)
    assert len(result.points) == 6
    timed = make_client(game, parse_client_spec("mc:default:0.05s")).player.mcts.config
    assert timed.time_limit == 0.05 and timed.simulations == 0
    with pytest.raises(ValueError, match="unknown client"):
        parse_client_spec("mcts")
    with pytest.raises(ValueError, match="budget"):
        parse_client_spec("mc:random:fast")
    with pytest.raises(ValueError, match="playout must be one of"):
        make_client(game, parse_client_spec("mc:greedy"))
    with pytest.raises(ValueError, match="self_playout must be one of"):
        make_client(game, parse_client_spec("mc:model/greedy"))


def test_always_lead_never_passes_on_an_empty_field(monkeypatch):
    # Two searchers left last may pass in turn on the empty field until the stall rule draws their
    # ranks (a record FujiGokoro's client never finishes replaying); always_lead plays instead.
    state = DaihinminGame(first_game=True).new_initial_state(seed=3)
    while state.current_player() < 0:
        outcomes, _ = state.chance_outcomes()
        state.apply_action(int(outcomes[0]))
    assert state.s[K.S_FIELD] < 0 and PASS in state.legal_actions()
    legal = state.legal_actions()
    visits = np.where(legal == PASS, 50, np.arange(len(legal)))  # the search favours passing
    result = SearchResult(actions=legal, movers=np.full(len(legal), state.current_player()), visits=visits,
                          values=np.full((len(legal), 5), 0.5), prior=np.full(len(legal), 1 / len(legal)),
                          root_value=np.full(5, 0.5), simulations=int(visits.sum()), tree_size=len(legal) + 1)
    chosen = {}
    for always_lead in (False, True):
        player = MonteCarloPlayer(playouts=5, always_lead=always_lead, seed=0)
        monkeypatch.setattr(player.mcts, "search", lambda s: result)
        chosen[always_lead] = player.choose_action(state)
    assert chosen == {False: PASS, True: int(legal[-1])}  # the most visited play
    spec = parse_client_spec("mc:model/default:3000:always-lead")
    assert spec == {"kind": "daihinmin_mc", "playout": "model", "self_playout": "default", "simulations": 3000,
                    "always_lead": True}
    assert make_client(DaihinminGame(), spec, seed=1).player.always_lead
    with pytest.raises(ValueError, match="unknown option 'lead'"):
        parse_client_spec("mc:model:10:lead")


def test_gifts_by_search_are_the_searchs_and_the_server_takes_them(tmp_path):
    game = DaihinminGame()
    spec = parse_client_spec("mc:default:60:search-gifts")
    assert spec["search_gifts"] and not make_client(game, parse_client_spec("mc:default:300"), seed=1).search_gifts
    client = make_client(game, spec, seed=1)
    gifts = []  # (cards sent, the search behind them, the standard client's lowest cards)
    on_deal = client.on_deal

    def deal(table):
        answer = on_deal(table)
        if table[5, 1] > 0:
            gifts.append((table_to_hand(answer), client.player.last_result,
                          table_to_hand(DefaultClient().on_deal(table)), bin(table_to_hand(table)).count("1")))
        return answer

    client.on_deal = deal
    serve_match([LocalSeat(client, "mc0")] + [LocalSeat(DefaultClient(), f"dflt{p}") for p in range(1, 5)],
                MatchSettings(games=10), seed=5, log_path=str(tmp_path / "match.log"))
    record = read_log(tmp_path / "match.log")
    taken = [table_to_hand(t) for g in record.games if g.ranks and g.ranks[0] <= 1
             for f, _, t in g.changes if f == 0]
    assert len(gifts) >= 3 and taken == [g[0] for g in gifts]  # none replaced by the server
    for cards, result, _, held in gifts:
        n = bin(cards).count("1")
        assert len(result.actions) == (held * (held - 1) // 2 if n == 2 else held)  # every gift searched
        chosen = [int(A_CARDS[a]) for a in result.actions].index(cards)
        assert result.visits[chosen] == result.visits.max()  # a most visited gift
    assert any(cards != lowest for cards, _, lowest, _ in gifts)
    with pytest.raises(ValueError, match="no gift to make"):
        TableTracker().gift_state()
    # A deal table whose counts disagree with the hand: warned, and the lowest cards given.
    table = hand_to_table(sum(1 << c for c in range(13)))
    table[5, 0], table[5, 1], table[5, 3] = 1, 2, 6
    table[6, 0:5], table[6, 5:10], table[6, 10:15] = [11, 11, 11, 10, 10], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]
    assert client.tracker.on_deal(table) is None and client.tracker.gift_state().current_player() == 0
    table[6, 0:5] = [12, 11, 11, 10, 9]
    with pytest.warns(UserWarning, match="lowest cards, not searched: the deal table disagrees"):
        given = client.on_deal(table)
    assert table_to_hand(given) == table_to_hand(DefaultClient().on_deal(table)) == 0b11
