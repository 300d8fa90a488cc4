"""Searches on small games: textbook answers, agreement between searches, tactics, budgets."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.testing import check_game
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.games.toy import ClaimGame, ExplicitTreeGame
from blokuszero.search import (
    MCTS,
    PUCT,
    UCB1,
    MCTSConfig,
    ProgressiveHistory,
    RolloutEvaluator,
    UCB1Tuned,
    UniformEvaluator,
    choose_action,
)
from blokuszero.search.compiled import TIMED_CHUNK
from blokuszero.search.depth_first import DepthFirstConfig, DepthFirstSearch

GOLDEN = Path(__file__).parent / "data" / "golden_search_blokus.json"


def leaves(*payoffs):
    return (2, [tuple(p) for p in payoffs])


# Three players, player 0 at the root, 1 then 2 below. Worked by hand:
#   MaxN: player 2 keeps its best leaf, player 1 its best of those, player 0 its best:
#     a0 -> b0: (0.3, 0.1, 0.5), b1: (0.2, 0.7, 0.0) -> player 1 takes b1: (0.2, 0.7, 0.0)
#     a1 -> b0: (0.35, 0.6, 0.3), b1: (0.4, 0.5, 0.4) -> player 1 takes b0: (0.35, 0.6, 0.3)
#     player 0: a1 (0.35 > 0.2).
#   Paranoid (1 and 2 minimise player 0): a0 -> min(0.3, 0.2) = 0.2; a1 -> min(0.35, -0.9) = -0.9
#     player 0: a0 with 0.2.
TEXTBOOK = (0, [
    (1, [leaves((0.6, 0.2, 0.1), (0.3, 0.1, 0.5)), leaves((0.2, 0.7, 0.0), (0.8, 0.3, -0.2))]),
    (1, [leaves((0.5, 0.4, 0.2), (0.35, 0.6, 0.3)), leaves((0.4, 0.5, 0.4), (-0.9, 0.0, 0.1))]),
])


def test_toy_games_pass_conformance():
    check_game(ExplicitTreeGame(TEXTBOOK, 3), num_games=10)
    check_game(ClaimGame([5, 4, 3, 1, 2]), num_games=10)


@pytest.mark.parametrize("algorithm, action, value", [("maxn", 1, [0.35, 0.6, 0.3]),
                                                      ("paranoid", 0, None)])
def test_depth_first_textbook_tree(algorithm, action, value):
    game = ExplicitTreeGame(TEXTBOOK, 3)
    search = DepthFirstSearch(game, DepthFirstConfig(algorithm, max_depth=3, node_limit=None),
                              lambda s: s.returns())
    result = search.search(game.new_initial_state())
    assert result.action == action and result.depth == 3
    if value is not None:
        assert result.value.tolist() == value
    else:
        assert result.value[0] == 0.2


@pytest.mark.parametrize("shape, action", [("maxn", 1), ("paranoid", 0)])
def test_mcts_agrees_with_depth_first_on_textbook_tree(shape, action):
    game = ExplicitTreeGame(TEXTBOOK, 3)
    mcts = MCTS(game, MCTSConfig(tree=shape, simulations=3000), UCB1(c=0.3), RolloutEvaluator(), rng=0)
    result = mcts.search(game.new_initial_state())
    assert choose_action(result) == action
    if shape == "maxn":
        # Mean values approach the MaxN value of the chosen child on the [0, 1] reward scale.
        best = result.values[list(result.actions).index(action)]
        assert np.allclose(best, (np.array([0.35, 0.6, 0.3]) + 1) / 2, atol=0.05)


def margin(state) -> np.ndarray:
    """Each player's points minus the best opponent's."""
    p = state.points()
    return np.array([p[i] - np.delete(p, i).max() for i in range(len(p))])


def test_brs_on_claim_game_by_hand():
    # Cells worth 5, 4, 3, 1. Depth 3 from player 0. BRS: 0 takes 5, the best reply of
    # opponents 1 or 2 takes 4, 0 takes 3: margin 5 + 3 - 4 = 4. Paranoid plays 1 then 2:
    # 0 takes 5, 1 takes 4, 2 takes 3: margin 5 - 4 = 1.
    game = ClaimGame([5, 4, 3, 1])
    for algorithm, value in (("brs", 4.0), ("paranoid", 1.0)):
        search = DepthFirstSearch(game, DepthFirstConfig(algorithm, max_depth=3, node_limit=None), margin)
        result = search.search(game.new_initial_state())
        assert (result.action, result.value[0]) == (0, value), algorithm


def test_mcts_brs_matches_depth_first_brs_on_claim_game():
    game = ClaimGame([1, 6, 2, 5, 3])
    state = game.new_initial_state()
    df = DepthFirstSearch(game, DepthFirstConfig("brs", max_depth=5, node_limit=None),
                          lambda s: s.returns())
    mcts = MCTS(game, MCTSConfig(tree="brs", simulations=2000), UCB1(c=0.5),
                RolloutEvaluator(rng=np.random.default_rng(1)), rng=1)
    chosen = choose_action(mcts.search(state))
    best = df.search(state)
    assert best.action == 1 and best.value[0] == 1
    # Moves 1, 3 and 4 all win under BRS (0 and 2 lose): MCTS must pick a winning one. Its
    # value: the same depth-first BRS with the root's moves narrowed to it.
    root_key = state.key()

    def only_chosen(s, player, actions):
        return np.array([chosen]) if s.key() == root_key else actions

    narrowed = DepthFirstSearch(game, DepthFirstConfig("brs", max_depth=5, node_limit=None),
                                lambda s: s.returns(), only_chosen)
    assert narrowed.search(state).value[0] == best.value[0]


def test_maxn_shallow_pruning_keeps_the_answer():
    # One big cell: once player 0 has it, a sibling where player 1 takes it is cut short.
    game = ClaimGame([1, 1, 10, 1, 1, 1])
    total = float(sum(game.values))

    def points(state):  # claimed points plus a fair share of the rest: >= 0, summing to total
        claimed = state.points()
        return claimed + (total - claimed.sum()) / 3

    plain = DepthFirstSearch(game, DepthFirstConfig("maxn", max_depth=4, node_limit=None), points)
    pruned = DepthFirstSearch(game, DepthFirstConfig("maxn", max_depth=4, node_limit=None), points,
                              max_sum=lambda s, d: total)
    a, b = plain.search(game.new_initial_state()), pruned.search(game.new_initial_state())
    assert (a.action, a.value.tolist()) == (b.action, b.value.tolist())
    assert b.nodes < a.nodes


def test_iterative_deepening_respects_node_budget():
    game = BlokusGame()
    search = DepthFirstSearch(game, DepthFirstConfig("brs", max_depth=6, node_limit=300),
                              lambda s: s.squares_placed().astype(float))
    result = search.search(game.new_initial_state())
    assert result.depth >= 1 and result.nodes <= 301
    assert result.action in game.new_initial_state().legal_actions()


@pytest.mark.parametrize("moves, answer, what", [
    ((0, 3, 1, 4), 2, "x wins at once"),  # x: 0 1, o: 3 4 -> x completes 0 1 2
    ((0, 3, 1), 2, "o blocks"),  # x threatens 0 1 2
    ((0, 3, 1, 4, 8), 5, "o wins at once rather than block"),  # x: 0 1 8, o: 3 4
])
@pytest.mark.parametrize("evaluator", ["rollouts", "uniform"])
def test_puct_with_uniform_prior_solves_tictactoe_tactics(moves, answer, what, evaluator):
    game = TicTacToeGame()
    state = game.new_initial_state()
    for m in moves:
        state.apply_action(m)
    ev = RolloutEvaluator(rng=np.random.default_rng(0)) if evaluator == "rollouts" else UniformEvaluator(2)
    mcts = MCTS(game, MCTSConfig(simulations=1500, expand_threshold=0), PUCT(c_base=19_625, c_init=1.25), ev, rng=2)
    assert choose_action(mcts.search(state)) == answer, what


@pytest.mark.parametrize("moves, answer, what", [
    ((0, 3, 1, 4), 2, "x wins at once"),
    ((0, 3, 1), 2, "o blocks"),
])
def test_ucb1_tuned_solves_tictactoe_tactics(moves, answer, what):
    game = TicTacToeGame()
    state = game.new_initial_state()
    for m in moves:
        state.apply_action(m)
    mcts = MCTS(game, MCTSConfig(simulations=1500), UCB1Tuned(),
                RolloutEvaluator(rng=np.random.default_rng(0)), rng=2)
    result = mcts.search(state)
    assert choose_action(result) == answer, what
    # The squared values kept for the rule: a row's sum of squares is at least sum^2 / visits.
    sq = mcts.tree.array("value_sq", shape=(2,))[:mcts.tree.size]
    n = np.maximum(mcts.tree.visits[:mcts.tree.size], 1)[:, None]
    assert (sq >= mcts.tree.value_sum[:mcts.tree.size] ** 2 / n - 1e-9).all() and sq.sum() > 0


def run_golden_search() -> dict:
    game = BlokusGame()
    state = game.new_initial_state()
    for move in ["a20", "t20,t19", "t1,s1,r1", "a1,a2,b2,c2"]:
        state.apply_action(state.string_to_action(move))
    mcts = MCTS(game, MCTSConfig(simulations=300), ProgressiveHistory(0.2, 5.0),
                RolloutEvaluator("largest_piece", 0.05), rng=7)
    result = mcts.search(state)
    visited = result.visits > 0
    return {"chosen": choose_action(result), "actions": result.actions[visited].tolist(),
            "visits": result.visits[visited].tolist(), "tree_size": result.tree_size}


def test_seeded_search_matches_golden_file():
    result = run_golden_search()
    assert result == run_golden_search()  # the same seed gives the same search
    assert result == json.loads(GOLDEN.read_text())


def test_tree_reuse_keeps_the_subtree():
    game = TicTacToeGame()
    state = game.new_initial_state()
    mcts = MCTS(game, MCTSConfig(simulations=400), UCB1(0.7), RolloutEvaluator(rng=np.random.default_rng(0)), rng=0)
    result = mcts.search(state)
    action = choose_action(result)
    kept = int(result.visits[list(result.actions).index(action)])
    mcts.advance(action)
    state.apply_action(action)
    assert mcts.tree.visits[0] == kept
    again = mcts.search(state)
    assert again.visits.sum() + 1 == kept + 400  # the root's own first visit is not a child's
    mcts.advance(99)  # an action the tree does not know: the tree is dropped
    assert mcts.tree is None


def test_time_budget_and_noise():
    game = BlokusGame()
    mcts = MCTS(game, MCTSConfig(simulations=0, time_limit=0.3, dirichlet_epsilon=0.25),
                PUCT(), RolloutEvaluator(), rng=0)
    start = time.perf_counter()
    result = mcts.search(game.new_initial_state())
    # On the real clock only what no load changes: a timed search never ends before its deadline.
    assert time.perf_counter() - start >= 0.3
    assert result.simulations >= 1
    assert result.prior.sum() == pytest.approx(1.0, abs=1e-5)
    assert result.prior.std() > 0  # Dirichlet noise made the uniform prior uneven


@pytest.mark.parametrize("compiled, per_reading", [(False, 1), (True, TIMED_CHUNK)],
                         ids=["python loop", "compiled"])
def test_a_timed_search_stops_at_the_first_clock_reading_past_its_deadline(compiled, per_reading):
    # The clock reads 0, 1, 2, ...: the deadline is 0 + 30, and the readings 1 .. 29 each let one
    # simulation (the compiled loop: one chunk) run; 30 stops the search.
    ticks = itertools.count()
    mcts = MCTS(BlokusGame(), MCTSConfig(simulations=0, time_limit=30, compiled=compiled), UCB1(),
                RolloutEvaluator(), rng=0, clock=lambda: float(next(ticks)))
    result = mcts.search(BlokusGame().new_initial_state())
    assert next(ticks) == 31
    assert result.simulations == 29 * per_reading
    # A simulation budget the time allows ends the search first.
    ticks = itertools.count()
    assert mcts.search(BlokusGame().new_initial_state(), simulations=5).simulations == 5


def test_config_errors():
    with pytest.raises(ValueError, match="tree must be one of .*, not .minimax."):
        MCTSConfig(tree="minimax")
    with pytest.raises(ValueError, match="algorithm must be one of .*, not .alphabeta."):
        DepthFirstConfig("alphabeta")
    game = TicTacToeGame()
    state = game.new_initial_state()
    for m in (0, 3, 1, 4, 2):
        state.apply_action(m)
    with pytest.raises(ValueError, match="terminal"):
        MCTS(game, MCTSConfig(), UCB1(), RolloutEvaluator()).search(state)
    with pytest.raises(ValueError, match="needs the game's own fast playout"):
        MCTS(game, MCTSConfig(simulations=5), UCB1(), RolloutEvaluator("largest_piece")).search(
            game.new_initial_state())


def test_virtual_loss_spreads_pending_leaves_and_leaves_no_trace():
    game = BlokusGame()
    state = game.new_initial_state()
    mcts = MCTS(game, MCTSConfig(simulations=0, time_limit=1, expand_threshold=0, virtual_loss=True),
                PUCT(), UniformEvaluator(4), rng=0)
    mcts.begin(state)
    root_leaf = mcts.select_leaf(state)  # the root itself: its expansion needs priors
    mcts.complete(root_leaf, mcts.evaluator.evaluate([root_leaf.state])[0])
    leaves = [mcts.select_leaf(state) for _ in range(8)]
    chosen = [int(leaf.path[1]) for leaf in leaves]
    assert len(set(chosen)) == 8  # eight different root moves
    # While pending, each counts as a visit that Blue (the mover) lost: -1 on [-1, 1].
    assert mcts.tree.visits[chosen].tolist() == [1] * 8
    assert mcts.tree.value_sum[chosen, 0].tolist() == [-1.0] * 8
    for leaf in leaves:
        mcts.complete(leaf, mcts.evaluator.evaluate([leaf.state])[0])
    tree = mcts.tree
    kids = tree.children(0)
    assert tree.visits[0] == 9 and tree.visits[kids].sum() == 8
    assert np.all(tree.value_sum[kids] == 0)  # the uniform evaluator's 0 values, no losses left


class BatchCounting(UniformEvaluator):
    """The uniform evaluator, keeping the size of every batch it was given."""

    def __init__(self, num_players: int) -> None:
        super().__init__(num_players)
        self.batches: list[int] = []

    def evaluate(self, states):
        self.batches.append(len(states))
        return super().evaluate(states)


def test_a_search_evaluates_its_leaves_in_batches_of_leaves_per_batch():
    game = BlokusGame()
    state = game.new_initial_state()
    evaluator = BatchCounting(4)
    config = MCTSConfig(simulations=30, expand_threshold=0, virtual_loss=True, leaves_per_batch=8)
    result = MCTS(game, config, PUCT(), evaluator, rng=0).search(state)
    # The root alone first (nothing to spread over yet), then batches of 8, the last one cut to
    # the budget: 30 simulations, every one of them counted once.
    assert evaluator.batches == [1, 8, 8, 8, 5]
    assert result.simulations == 30 and result.visits.sum() == 29
    # Virtual loss spreads each batch: the first batch of 8 leaves went to 8 different moves.
    assert np.count_nonzero(result.visits) >= 8
    # One leaf per batch is the search as it always was.
    one = BatchCounting(4)
    plain = MCTS(game, MCTSConfig(simulations=30, expand_threshold=0), PUCT(), one, rng=0).search(state)
    assert one.batches == [1] * 30 and plain.visits.sum() == 29
    with pytest.raises(ValueError, match="leaves_per_batch > 1 needs virtual_loss"):
        MCTSConfig(leaves_per_batch=4)
    with pytest.raises(ValueError, match="leaves_per_batch must be >= 1, not 0"):
        MCTSConfig(leaves_per_batch=0, virtual_loss=True)


def test_searches_side_by_side_do_not_share_randomness():
    """Lockstep self-play interleaves the simulations of many trees: each tree must grow as it
    would alone (ties among equal priors are frequent with a uniform prior)."""
    game = TicTacToeGame()
    state = game.new_initial_state()

    def mcts(seed):
        return MCTS(game, MCTSConfig(simulations=200, expand_threshold=0), PUCT(),
                    UniformEvaluator(2), rng=seed)

    def grown(m):
        return m.tree.action[:m.tree.size].tolist(), m.tree.visits[:m.tree.size].tolist()

    alone = mcts(1)
    alone.search(state)
    a, b = mcts(1), mcts(2)
    a.begin(state)
    b.begin(state)
    for _ in range(200):
        for m in (b, a):
            leaf = m.select_leaf(state)
            m.complete(leaf, None if leaf.state is None else m.evaluator.evaluate([leaf.state])[0])
    assert grown(a) == grown(alone)
    assert grown(b) != grown(a)


def test_a_shape_object_plugs_in_without_the_config():
    from blokuszero.search import Paranoid

    game = ExplicitTreeGame(TEXTBOOK, 3)
    def rollouts():
        return RolloutEvaluator(rng=np.random.default_rng(0))

    by_name = MCTS(game, MCTSConfig(tree="paranoid", simulations=500), UCB1(0.3), rollouts(), rng=0)
    by_object = MCTS(game, MCTSConfig(simulations=500), UCB1(0.3), rollouts(), rng=0,
                     shape=Paranoid())
    a, b = by_name.search(game.new_initial_state()), by_object.search(game.new_initial_state())
    assert np.array_equal(a.visits, b.visits) and choose_action(b) == 0


def test_enhancements_combine_and_seed_new_nodes():
    """Progressive History's table, RAVE's AMAF statistics and a third enhancement that seeds
    every new "centre" child with 20 won visits run in one search."""
    from blokuszero.search import AmafStatistics, Enhancement

    class CentreBonus(Enhancement):
        def __init__(self):
            self.expanded, self.backups, self.keys = 0, 0, set()

        def on_expand(self, tree, node, state):
            self.expanded += 1
            kids = tree.children(node)
            centre = kids[tree.action[kids] == 4]
            tree.visits[centre] += 20
            tree.value_sum[centre, tree.mover[centre]] += 20.0

        def on_backup(self, tree, simulation):
            self.backups += 1
            self.keys.update(tree.key[simulation.path].tolist())
            assert len(simulation.players) == len(simulation.actions) >= simulation.tree_moves

    game = TicTacToeGame()
    bonus, amaf = CentreBonus(), AmafStatistics()
    rule = ProgressiveHistory(0.2, 5.0)
    mcts = MCTS(game, MCTSConfig(simulations=30), rule, RolloutEvaluator(rng=np.random.default_rng(0)),
                rng=0, enhancements=[amaf, bonus])
    assert mcts.enhancements == (rule.history, amaf, bonus)
    result = mcts.search(game.new_initial_state())
    assert choose_action(result) == 4  # seeded: centre first, and kept
    assert bonus.backups == 30 and bonus.expanded >= 1 and len(bonus.keys) > 10
    # Every move of every simulation (tree and playout) is in the history table...
    assert rule.history.hist_count.sum() > 30 * 5
    # ...and the AMAF rows of the root's children are filled.
    assert mcts.tree.extra["amaf_u"][mcts.tree.children(0)].sum() > 0
