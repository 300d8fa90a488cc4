"""The network evaluator (SPEC §3): priors over the legal moves, values in absolute colour
order, the transposition cache and its invalidation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus.encoder import BlokusEncoder, encode_batch
from blokuszero.nn import NetworkEvaluator, build_model

BLUE, YELLOW, RED, GREEN = range(4)
BLOKUS = BlokusEncoder()


def replay(game: dict, placements: int) -> BlokusState:
    """The position after the first ``placements`` placements of a reference game."""
    state = BlokusGame().new_initial_state()
    for move in [m for m in game["moves"] if m != "pass"][:placements]:
        state.apply_action(state.string_to_action(move))
    return state


@pytest.fixture(scope="module")
def net() -> nn.Module:
    torch.manual_seed(0)
    return build_model("b2c32conv", "blokus")


@pytest.fixture
def positions(pentobi_games) -> list[BlokusState]:
    """Positions with 1 to 258 legal moves, every colour to move."""
    return [replay(pentobi_games[g], n)
            for g, n in ((0, 0), (0, 5), (1, 6), (2, 23), (3, 40), (5, 49), (4, 57))]


class FixedNet(nn.Module):
    """Zero logits and the mover's-frame values (0.1, 0.2, 0.3, 0.4) for every position."""

    action_cells = np.arange(30433)

    def cells(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values = torch.tensor([0.1, 0.2, 0.3, 0.4]).expand(len(planes), 4)
        return torch.zeros(len(planes), 30433), values


def test_priors_are_the_softmax_over_the_legal_moves_in_a_mixed_batch(net, positions):
    counts = [len(s.legal_actions()) for s in positions]
    assert len(set(counts)) == len(counts) and min(counts) < 5 < 50 < max(counts)
    evaluator = NetworkEvaluator(net, BLOKUS)
    evaluations = evaluator.evaluate(positions)
    with torch.no_grad():
        logits, _ = net.eval()(torch.from_numpy(encode_batch(positions)))
    for state, evaluation, row in zip(positions, evaluations, logits):
        legal = state.legal_actions()
        expected = torch.softmax(row[legal].double(), dim=0).numpy()
        assert evaluation.prior.dtype == np.float64 and evaluation.prior.shape == legal.shape
        assert evaluation.prior.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(evaluation.prior, expected, rtol=1e-4, atol=1e-7)
        assert evaluation.value.dtype == np.float64 and np.all(np.abs(evaluation.value) <= 1)
    # The same as one state at a time: padding the batch to the longest list changes nothing.
    for state, evaluation in zip(positions, evaluations):
        alone = evaluator.evaluate([state])[0]
        np.testing.assert_allclose(alone.prior, evaluation.prior, rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(alone.value, evaluation.value, atol=1e-6)
    assert (evaluator.evaluations, evaluator.batches) == (2 * len(positions), 1 + len(positions))
    assert evaluator.provides_priors and evaluator.value_bounds == (-1.0, 1.0)


@pytest.mark.parametrize("temperature", [0.5, 2.0])
def test_policy_temperature_divides_the_logits(net, positions, temperature):
    evaluations = NetworkEvaluator(net, BLOKUS, policy_temperature=temperature).evaluate(positions)
    with torch.no_grad():
        logits, _ = net.eval()(torch.from_numpy(encode_batch(positions)))
    plain = NetworkEvaluator(net, BLOKUS).evaluate(positions)
    for state, evaluation, before, row in zip(positions, evaluations, plain, logits):
        expected = torch.softmax(row[state.legal_actions()].double() / temperature, dim=0).numpy()
        np.testing.assert_allclose(evaluation.prior, expected, rtol=1e-4, atol=1e-7)
        np.testing.assert_array_equal(evaluation.value, before.value)  # the values untouched
    with pytest.raises(ValueError, match="policy_temperature"):
        NetworkEvaluator(net, BLOKUS, policy_temperature=0.0)


def test_values_come_back_in_absolute_colour_order():
    game = BlokusGame()
    yellow_to_move = game.new_initial_state()
    yellow_to_move.apply_action(yellow_to_move.string_to_action("a20"))
    red_to_move = BlokusState.from_moves([(BLUE, game.new_initial_state().string_to_action("a20"))],
                                         to_move=RED)
    assert (yellow_to_move.current_player(), red_to_move.current_player()) == (YELLOW, RED)
    evaluations = NetworkEvaluator(FixedNet(), BLOKUS).evaluate([game.new_initial_state(), yellow_to_move,
                                                         red_to_move])
    # The mover gets 0.1, the colour after it 0.2, and so on around the table.
    np.testing.assert_allclose(evaluations[0].value, [0.1, 0.2, 0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(evaluations[1].value, [0.4, 0.1, 0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(evaluations[2].value, [0.3, 0.4, 0.1, 0.2], rtol=1e-6)
    n = len(yellow_to_move.legal_actions())
    np.testing.assert_allclose(evaluations[1].prior, np.full(n, 1 / n))


def play(*moves: str) -> BlokusState:
    state = BlokusGame().new_initial_state()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    return state


def transposed_pair() -> tuple[BlokusState, BlokusState]:
    """One position reached by two move orders: Blue's second and third pieces swapped."""
    rounds = [("a20,a19,b19", "t20", "t1", "a1"), ("s19,r19", "s2,r2", "b2,c2"),
              ("q18,q17,q16", "q3,q4,q5", "d3,d4,d5")]
    first = play(*rounds[0], "c20,d20", *rounds[1], "c18,c17,c16", *rounds[2])
    second = play(*rounds[0], "c18,c17,c16", *rounds[1], "c20,d20", *rounds[2])
    return first, second


def test_cache_answers_a_transposition(net):
    first, second = transposed_pair()
    assert first.key() == second.key() and first.history() != second.history()
    assert first.current_player() == BLUE and np.array_equal(first.board(), second.board())
    assert not np.array_equal(*encode_batch([first, second]))  # the history planes differ
    evaluator = NetworkEvaluator(net, BLOKUS, cache_size=10)
    a = evaluator.evaluate([first])[0]
    b = evaluator.evaluate([second])[0]
    assert b is a
    assert (evaluator.cache_hits, evaluator.cache_misses, evaluator.evaluations) == (1, 1, 1)
    with pytest.raises(ValueError, match="read-only"):
        a.prior[0] = 0.5  # shared with every later hit
    # Within one batch the transposition goes to the network once.
    fresh = NetworkEvaluator(net, BLOKUS, cache_size=10)
    c, d = fresh.evaluate([first, second])
    assert c is d and (fresh.cache_hits, fresh.cache_misses, fresh.evaluations) == (1, 1, 1)
    np.testing.assert_allclose(c.prior, a.prior)


def test_cache_drops_the_least_recently_used(net, positions):
    s1, s2, s3 = positions[1:4]
    evaluator = NetworkEvaluator(net, BLOKUS, cache_size=2)
    evaluator.evaluate([s1, s2])
    evaluator.evaluate([s1])  # s1 is now the most recent
    evaluator.evaluate([s3])  # evicts s2
    assert list(evaluator.cache) == [s1.key(), s3.key()]
    evaluator.evaluate([s2])
    assert (evaluator.cache_hits, evaluator.cache_misses, evaluator.evaluations) == (1, 4, 4)


def test_set_weights_clears_the_cache(net, positions):
    state = positions[2]
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BLOKUS, cache_size=10)
    before = evaluator.evaluate([state])[0]
    evaluator.set_weights(net.state_dict(), version=3)
    assert evaluator.version == 3 and not evaluator.cache
    after = evaluator.evaluate([state])[0]
    assert evaluator.cache_misses == 2 and evaluator.evaluations == 2
    assert not np.allclose(after.prior, before.prior)
    np.testing.assert_allclose(after.prior, NetworkEvaluator(net, BLOKUS).evaluate([state])[0].prior)


def test_half_is_ignored_on_cpu(net, positions):
    evaluator = NetworkEvaluator(net, BLOKUS, half=True)
    assert not evaluator.half
    np.testing.assert_allclose(evaluator.evaluate(positions[:2])[1].prior,
                               NetworkEvaluator(net, BLOKUS).evaluate(positions[:2])[1].prior)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("half", [False, True])
def test_cuda_matches_cpu(positions, half):
    torch.manual_seed(0)
    cpu = NetworkEvaluator(build_model("b2c32conv", "blokus"), BLOKUS).evaluate(positions)
    torch.manual_seed(0)
    cuda = NetworkEvaluator(build_model("b2c32conv", "blokus"), BLOKUS, device="cuda", half=half).evaluate(positions)
    for a, b in zip(cpu, cuda):
        np.testing.assert_allclose(b.prior, a.prior, atol=1e-2 if half else 1e-4)
        np.testing.assert_allclose(b.value, a.value, atol=1e-2 if half else 1e-4)
        assert b.prior.sum() == pytest.approx(1.0, abs=1e-12)
