"""AlphaGo's leaf mixing at play time (search.evaluators.PlayoutMixing, the network player's
mix_lambda / mix_playouts): V = (1 - lambda) v_net + lambda z_playout, on the search's scale."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import torch

from blokuszero.games.blokus.game import BlokusGame
from blokuszero.games.numba_random import seed_numba
from blokuszero.games.registry import make_encoder
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.nn.evaluator import NetworkEvaluator
from blokuszero.nn.model import build_model
from blokuszero.players.factory import make_player, player_settings
from blokuszero.search import MCTS, PlayoutMixing, PlayoutPriors, RolloutEvaluator
from blokuszero.search.alphazero import network_search
from blokuszero.search.evaluators import QUALITY, RANK, Evaluation, Evaluator, reward_values


class ConstantEvaluator(Evaluator):
    """A network stand-in: value ``value`` for every player, uniform priors."""

    provides_priors = True

    def __init__(self, num_players: int, value: float) -> None:
        self.num_players, self.value = num_players, value

    def evaluate(self, states: Sequence) -> list[Evaluation]:
        return [Evaluation(np.full(self.num_players, self.value),
                           np.full(len(s.legal_actions()), 1.0 / len(s.legal_actions())))
                for s in states]


def blokus_position(moves: int = 6):
    game = BlokusGame()
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(moves):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


def test_lambda_one_with_a_constant_network_is_the_playout_value():
    game, state = blokus_position()
    key, legal = state.key(), state.legal_actions().copy()
    mixed = PlayoutMixing(ConstantEvaluator(4, 0.7), 1.0, 1, (game.min_utility, game.max_utility))
    seed_numba(5)
    value = mixed.evaluate([state])[0]
    # The same playout by hand: numba's generator seeded alike, the returns on the value scale.
    seed_numba(5)
    end = state.clone()
    end.playout("uniform")
    assert end.is_terminal()
    assert np.array_equal(value.value, np.where(end.scores() == end.scores().max(), 1.0, -1.0))
    assert np.array_equal(value.prior, np.full(len(legal), 1.0 / len(legal)))  # the network's
    assert state.key() == key and np.array_equal(state.legal_actions(), legal)  # left as it was
    # lambda 0.5: halfway between the network's 0.7 and the same playout.
    seed_numba(5)
    half = PlayoutMixing(ConstantEvaluator(4, 0.7), 0.5).evaluate([state])[0]
    assert half.value == pytest.approx(0.5 * 0.7 + 0.5 * value.value)
    # mix_playouts 3: the mean of the next three playouts' values.
    seed_numba(5)
    three = PlayoutMixing(ConstantEvaluator(4, 0.7), 1.0, 3).evaluate([state])[0]
    seed_numba(5)
    ends = [state.clone() for _ in range(3)]
    for end in ends:
        end.playout("uniform")
    assert three.value == pytest.approx(np.mean([e.returns() for e in ends], axis=0))


def test_the_playouts_follow_the_given_policy():
    # Blokus's largest-piece playouts (hand-made knowledge, a switch): lambda 1 is exactly one
    # such playout, seeded alike.
    game, state = blokus_position()
    utility = (game.min_utility, game.max_utility)

    def by_hand(policy: str) -> np.ndarray:
        seed_numba(5)
        end = state.clone()
        end.playout(policy, 0.05)
        return np.where(end.scores() == end.scores().max(), 1.0, -1.0)

    mixed = PlayoutMixing(ConstantEvaluator(4, 0.7), 1.0, 1, utility, None, "largest_piece", 0.05)
    seed_numba(5)
    assert np.array_equal(mixed.evaluate([state])[0].value, by_hand("largest_piece"))
    player = make_player(game, {"preset": "alphazero", "mix_lambda": 0.5,
                                "mix_playout": "largest_piece", "mix_epsilon": 0.05}, seed=1)
    rollouts = player.mcts.evaluator.rollouts
    assert (rollouts.policy, rollouts.epsilon) == ("largest_piece", 0.05)
    uniform = make_player(game, {"preset": "alphazero", "mix_lambda": 0.5}, seed=1)
    assert (uniform.mcts.evaluator.rollouts.policy, uniform.mcts.evaluator.rollouts.epsilon) == (
        "uniform", 0.0)


def test_a_game_without_a_fast_playout_plays_out_from_the_given_generator():
    game = TicTacToeGame()
    state = game.new_initial_state()
    state.apply_action(4)
    mixed = PlayoutMixing(ConstantEvaluator(2, -0.2), 1.0, 2, (game.min_utility, game.max_utility),
                          np.random.default_rng(11))
    by_hand = RolloutEvaluator(rng=np.random.default_rng(11))
    ends = [state.clone() for _ in range(2)]
    expected = np.mean([by_hand.evaluate([e])[0].value for e in ends], axis=0)
    assert mixed.evaluate([state])[0].value == pytest.approx(expected)
    assert mixed.playouts_run == 2 and not state.is_terminal()


def test_at_lambda_one_the_network_value_does_not_matter():
    # Two "networks" that disagree on every value give the same search: only playouts count.
    game, state = blokus_position()
    results = []
    for constant in (0.9, -0.5):
        evaluator = PlayoutMixing(ConstantEvaluator(4, constant), 1.0, 1,
                                  (game.min_utility, game.max_utility))
        config, rule = network_search(simulations=40, expand_threshold=0)
        results.append(MCTS(game, config, rule, evaluator, rng=3).search(state))
    assert np.array_equal(results[0].visits, results[1].visits)
    assert np.array_equal(results[0].root_value, results[1].root_value)
    assert results[0].visits.sum() == 39


def _moves(player, game, moves: int = 3):
    state = game.new_initial_state()
    out = []
    for _ in range(moves):
        action = player.choose_action(state)
        r = player.last_result
        out.append((action, r.visits.copy(), r.values.copy()))
        player.inform(action, state.current_player())
        state.apply_action(action)
    return out


def _same(a, b) -> bool:
    return all(x[0] == y[0] and np.array_equal(x[1], y[1])
               and np.array_equal(x[2], y[2], equal_nan=True) for x, y in zip(a, b))


@pytest.mark.parametrize("gumbel", [False, True], ids=["puct", "gumbel"])
def test_lambda_zero_is_the_old_search(gumbel):
    game = BlokusGame()
    spec = {"preset": "alphazero", "simulations": 24, "gumbel": gumbel}
    player = make_player(game, {**spec, "mix_lambda": 0.0, "mix_playouts": 4}, seed=3)
    assert type(player.mcts.evaluator) is NetworkEvaluator  # no playouts run
    # The search the factory built before mixing existed, by hand from the same parts.
    s = player_settings(spec)
    torch.manual_seed(0)
    old = NetworkEvaluator(build_model("b2c32conv", "blokus"), make_encoder(game), backend="auto")  # the factory's
    config, rule = network_search(gumbel, c_base=s["c_base"], c_init=s["c_init"],
                                  expand_threshold=0, gumbel_scale=0.0, simulations=24)
    from blokuszero.players.search_players import MCTSPlayer
    by_hand = MCTSPlayer(MCTS(game, config, rule, old, np.random.default_rng(3).spawn(1)[0]))
    assert _same(_moves(player, game), _moves(by_hand, game))


def test_mixing_is_reproducible_with_a_seed():
    game = BlokusGame()
    spec = {"preset": "alphazero", "simulations": 24, "mix_lambda": 0.5, "mix_playouts": 2}
    first = make_player(game, spec, seed=3)
    assert isinstance(first.mcts.evaluator, PlayoutMixing)
    assert first.mcts.evaluator.mix_lambda == 0.5 and first.mcts.evaluator.playouts == 2
    a = _moves(first, game)
    assert first.mcts.evaluator.playouts_run > 0
    assert _same(a, _moves(make_player(game, spec, seed=3), game))
    # The playouts move the values away from the network's alone.
    plain = _moves(make_player(game, {**spec, "mix_lambda": 0.0}, seed=3), game)
    assert not np.allclose(a[0][2], plain[0][2], equal_nan=True)


@pytest.mark.parametrize("spec, message", [
    ({"preset": "alphazero", "mix_lambda": 1.5}, "^mix_lambda must be <= 1, not 1.5$"),
    ({"preset": "alphazero", "mix_lambda": -0.1}, "^mix_lambda must be >= 0, not -0.1$"),
    ({"preset": "alphazero", "mix_playouts": 0}, "^mix_playouts must be >= 1, not 0$"),
    ({"preset": "alphazero", "mix_epsilon": 1.5}, "^mix_epsilon must be <= 1, not 1.5$"),
    ({"preset": "mcts_maxn", "mix_lambda": 0.5}, r"unknown option\(s\) \['mix_lambda'\]"),
    ({"preset": "alphazero", "leaf_playouts": True, "mix_lambda": 0.5},
     "^leaf_playouts values each leaf by one playout alone"),
    ({"preset": "alphazero", "leaf_playouts": True, "mix_playouts": 4}, "^leaf_playouts values"),
    ({"preset": "alphazero", "leaf_playouts": "yes"}, "^leaf_playouts"),
    ({"preset": "alphazero", "reward": "rank"}, "^reward rewards the playouts that value the leaves"),
    ({"preset": "network", "reward": "score"}, "^reward must be one of"),
    ({"preset": "mcts_maxn", "reward": "places"}, "^reward must be one of"),
])
def test_bad_mixing_settings(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(BlokusGame(), spec)


def rank_values(scores, lo: float, hi: float) -> np.ndarray:
    out = np.empty(len(scores))
    reward_values(np.asarray(scores, dtype=np.float64), RANK, np.zeros((3, len(scores))), lo, hi, out)
    return out


def test_rank_values_known_cases():
    np.testing.assert_array_equal(rank_values([10, 5, 5, -3], 0.0, 1.0), [1.0, 0.5, 0.5, 0.0])
    np.testing.assert_allclose(rank_values([7, 7, 1, 0], 0.0, 1.0), [2.5 / 3, 2.5 / 3, 1 / 3, 0.0])
    np.testing.assert_array_equal(rank_values([4, 4, 4, 4], -1.0, 1.0), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(rank_values([3, 1], -1.0, 1.0), [1.0, -1.0])  # two: win and loss
    np.testing.assert_allclose(rank_values([0, 2, 1], -1.0, 1.0), [-1.0, 1.0, 0.0])


def test_the_quality_bonus_is_pentobis_on_the_searchs_own_scores():
    stats, out = np.zeros((3, 4)), np.empty(4)
    reward_values(np.array([-10.0, -20.0, -30.0, -40.0]), QUALITY, stats, 0.0, 1.0, out)
    np.testing.assert_allclose(out, [1.0, 2 / 3, 1 / 3, 0.0])  # one score each: no spread, no bonus
    reward_values(np.array([-6.0, -24.0, -30.0, -50.0]), QUALITY, stats, -1.0, 1.0, out)
    # two scores each: z = +1 for a score above the first, -1 below, 0 for the same score;
    # 2 / (1 + exp(-2 z)) - 1 = tanh(z), times the weight 0.3 and the scale's width 2
    bonus = 0.3 * 2 * np.tanh(1.0)
    np.testing.assert_allclose(out, [1.0 + bonus, 1 / 3 - bonus, -1 / 3, -1.0 - bonus])
    np.testing.assert_allclose(stats, [[2, 2, 2, 2], [-8, -22, -30, -45], [8, 8, 0, 50]])
    reward_values(np.array([-6.0, -24.0, -30.0, -50.0]), RANK, stats, -1.0, 1.0, out)
    np.testing.assert_allclose(out, [1.0, 1 / 3, -1 / 3, -1.0])  # rank: no bonus, statistics untouched
    assert stats[0, 0] == 2


def test_rank_reward_values_finished_games_by_place():
    state = BlokusGame().new_initial_state()
    while not state.is_terminal():
        state.apply_action(int(state.legal_actions()[0]))
    scores = state.scores()
    # place: the colours outscored plus half those tied, over the three others
    places = [((scores < s).sum() + 0.5 * ((scores == s).sum() - 1)) / 3 for s in scores]
    evaluator = RolloutEvaluator(reward="rank")
    np.testing.assert_allclose(evaluator.outcome(state), places)
    np.testing.assert_allclose(evaluator.evaluate([state])[0].value, places)
    # the win reward maps the returns: the top score's colours 1, the others 0
    np.testing.assert_array_equal(RolloutEvaluator().outcome(state, (-1.0, 1.0)), scores == scores.max())


def test_the_evaluator_checks_its_settings():
    with pytest.raises(ValueError, match=r"unknown reward 'score'; known: \('win', 'rank', 'quality'\)"):
        RolloutEvaluator(reward="score")
    finished = TicTacToeGame().new_initial_state()
    for action in (0, 3, 1, 4, 2):
        finished.apply_action(action)
    with pytest.raises(ValueError, match="reward 'rank' needs the game's scores; TicTacToeState has none"):
        RolloutEvaluator(reward="rank").outcome(finished)
    with pytest.raises(ValueError, match=r"mix_lambda must be in \[0, 1\]"):
        PlayoutMixing(ConstantEvaluator(2, 0.0), 2.0)
    with pytest.raises(ValueError, match="mix_playouts must be >= 1"):
        PlayoutMixing(ConstantEvaluator(2, 0.0), 0.5, 0)
    with pytest.raises(ValueError, match="RolloutEvaluator gives no priors to expand nodes with"):
        PlayoutPriors(RolloutEvaluator())

