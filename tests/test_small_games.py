"""The small games that prove the interface and the search core beyond turn-taking: a
simultaneous-move matrix game and 3-player Kuhn poker (hidden cards), searched through MCTS."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from blokuszero.games.base import CHANCE, TERMINAL, Game, State
from blokuszero.games.kuhn import BET, PASS, KuhnGame, KuhnState
from blokuszero.games.matrix import MatrixGame
from blokuszero.games.testing import check_game
from blokuszero.games.tictactoe import TicTacToeGame, TicTacToeState
from blokuszero.search import MCTS, PUCT, UCB1, Evaluation, MCTSConfig, RolloutEvaluator, choose_action

COOPERATE, DEFECT = 0, 1


class PeekingKuhn(KuhnGame):
    """A broken game: its determinizations change the player's own card."""

    def new_initial_state(self, seed=None):
        state = super().new_initial_state(seed)
        state.sample_determinization = lambda player, rng: KuhnState.sample_determinization(
            state, (player + 1) % self.num_players, rng)
        return state


def test_conformance_rejects_a_determinization_that_changes_what_the_player_knows():
    with pytest.raises(AssertionError, match="contradicts what"):
        check_game(PeekingKuhn(3), num_games=5)


def test_kuhn_rules_by_hand():
    game = KuhnGame(3)
    assert (game.min_utility, game.max_utility, game.num_actions) == (-2, 4, 4)
    state = game.deal([3, 0, 1])  # A, J, Q
    assert str(state) == "cards A J Q; bets -"
    for move in (PASS, PASS, PASS):
        state.apply_action(move)
    assert state.current_player() == TERMINAL and state.returns().tolist() == [2, -1, -1]
    # Player 1 bets; 2 folds; 0 calls with the ace: pot 3 antes + 2 bets, player 0 paid 2.
    state = game.deal([3, 0, 1])
    for move in ("pass", "bet", "pass"):
        state.apply_action(state.string_to_action(move))
    assert state.current_player() == 0 and state.returns().tolist() == [0, 0, 0]
    state.apply_action(BET)
    assert state.returns().tolist() == [3, -2, -1]
    # Everyone folds to a bet: the bettor takes the antes.
    state = game.deal([0, 1, 3])
    for move in (BET, PASS, PASS):
        state.apply_action(move)
    assert state.returns().tolist() == [2, -1, -1]
    with pytest.raises(ValueError, match="not a legal card"):
        game.deal([2, 2])
    before = game.deal([1, 2, 3])
    with pytest.raises(ValueError, match="not a legal move"):
        before.apply_action(2)
    assert before.bets == [] and before.current_player() == 0


def test_matrix_game_rules():
    game = MatrixGame(rounds=2)
    state = game.new_initial_state()
    assert (game.min_utility, game.max_utility) == (0, 200)
    with pytest.raises(ValueError, match="simultaneous"):
        state.apply_action(0)
    with pytest.raises(ValueError, match="2 entries"):
        state.apply_joint_action([0])
    with pytest.raises(ValueError, match="action 2 of player 1"):
        state.apply_joint_action([0, 2])
    state.apply_joint_action([DEFECT, COOPERATE])
    state.apply_joint_action([DEFECT, DEFECT])
    assert state.is_terminal() and state.returns().tolist() == [120, 20]


def search(game: Game, state: State, simulations: int, seed: int, **config):
    mcts = MCTS(game, MCTSConfig(simulations=simulations, **config), UCB1(0.7),
                RolloutEvaluator(rng=np.random.default_rng(seed)), rng=seed)
    return mcts, mcts.search(state)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_dominated_action_loses_its_visits(seed):
    """Prisoner's dilemma on a 0-100 scale: defecting strictly dominates for both roles, so
    each role's cooperation keeps only Exp3's exploration share (gamma / 2 = 5%)."""
    game = MatrixGame()
    share = {}
    for simulations in (200, 2000):
        _, result = search(game, game.new_initial_state(), simulations, seed)
        assert result.movers.tolist() == [0, 0, 1, 1] and result.actions.tolist() == [0, 1, 0, 1]
        assert result.visits[:2].sum() == result.visits[2:].sum() == simulations
        share[simulations] = result.visits[[0, 2]] / simulations
        for p in (0, 1):
            assert choose_action(result, player=p) == DEFECT
        # Rewards on the evaluator's [0, 1]: the payoffs / 100.
        assert np.all((result.values >= 0) & (result.values <= 1))
    assert np.all(share[2000] < 0.12) and np.all(share[2000] < share[200])


def test_simultaneous_tree_is_reused_along_the_joint_action_played():
    game = MatrixGame(rounds=2)
    state = game.new_initial_state()
    mcts, _ = search(game, state, 600, 0)
    child = mcts.tree.joint[0][(DEFECT, DEFECT)]
    kept = int(mcts.tree.visits[child])
    mcts.advance_joint((DEFECT, DEFECT))
    state.apply_joint_action((DEFECT, DEFECT))
    assert mcts.tree.visits[0] == kept > 0
    again = mcts.search(state)
    assert again.visits[:2].sum() == kept + 600 - 1  # the root's own first visit chose no row


def test_determinized_search_never_sees_the_opponents_cards():
    """Player 0 holds the king and nobody has bet: whatever the opponents really hold, the
    seeded search is the same. A perfect-information search (which reads the real cards)
    is not, so this test can fail."""
    game = KuhnGame(3)
    deals = [[2, 3, 0], [2, 0, 3], [2, 1, 0]]
    hidden = [search(game, game.deal(d), 1500, 4, determinized=True)[1] for d in deals]
    for other in hidden[1:]:
        assert np.array_equal(other.visits, hidden[0].visits)
        assert np.array_equal(other.values, hidden[0].values)
    seeing = [search(game, game.deal(d), 1500, 4)[1] for d in deals]
    assert not all(np.array_equal(s.values, seeing[0].values) for s in seeing[1:])
    # The opponents' real cards matter: with the ace behind, the king's values differ.
    assert seeing[0].values[0, 0] != seeing[2].values[0, 0]


class CardState(State):
    """Player 0 moves ("go"), then player 1, who holds a hidden card c in {0, 1, 2}, plays
    it (action c, worth c - 1 to player 1) or folds (action 3, worth 0)."""

    def __init__(self, card: int) -> None:
        self.card = card
        self.moves: list[int] = []

    def current_player(self):
        return TERMINAL if len(self.moves) == 2 else len(self.moves)

    def legal_actions(self, player=None):
        p = self.current_player()
        if p == TERMINAL or player not in (None, p):
            return np.empty(0, np.int64)
        return np.array([0]) if p == 0 else np.array(sorted({self.card, 3}))

    def apply_action(self, action):
        if action not in self.legal_actions():
            raise ValueError(f"illegal {action}")
        self.moves.append(int(action))

    def clone(self):
        other = CardState(self.card)
        other.moves = list(self.moves)
        return other

    def returns(self):
        if not self.is_terminal() or self.moves[1] == 3:
            return np.zeros(2)
        return np.array([1.0 - self.card, self.card - 1.0])

    def action_to_string(self, action):
        return str(action)

    def string_to_action(self, text):
        return int(text)

    def key(self):
        return hash((self.card, *self.moves)) % (1 << 62)

    def information_state_key(self, player):
        return hash((self.card if player == 1 else -1, *self.moves)) % (1 << 62)

    def sample_determinization(self, player, rng):
        other = self.clone()
        if player == 0:
            other.card = int(rng.integers(3))
        return other


class CardGame(Game):
    name, num_players, num_actions, max_game_length = "card", 2, 4, 2

    def new_initial_state(self, seed=None):
        return CardState(2)


def test_availability_counts_are_exact_on_a_hand_checked_tree():
    """Twelve simulations whose determinizations deal player 1 the cards 0, 1, 2, 0, 1, 2, ...
    Player 1's node meets card 0 and fold first, then card 1, then card 2 (its block moves
    twice); each card was available in 4 simulations, fold in all 12."""
    game = CardGame()
    cards = itertools.cycle([0, 1, 2])

    def sampler(state, player, rng):
        other = state.clone()
        other.card = next(cards)
        return other

    mcts = MCTS(game, MCTSConfig(simulations=12, expand_threshold=0, determinized=True), UCB1(0.7),
                RolloutEvaluator(), rng=0, sampler=sampler)
    mcts.search(game.new_initial_state())
    tree = mcts.tree
    go = int(tree.first_child[0])
    assert tree.avail[go] == 12 and tree.visits[go] == 12
    kids = tree.children(go)
    assert tree.action[kids].tolist() == [0, 3, 1, 2]  # in the order they were met
    assert tree.avail[kids].tolist() == [4, 12, 4, 4]
    assert tree.visits[kids].sum() == 12 and np.all(tree.visits[kids] <= tree.avail[kids])
    assert np.all(tree.parent[kids] == go)
    after_go = CardState(0)
    after_go.apply_action(0)
    assert tree.key[go] == after_go.information_state_key(0)  # player 0's view: no card
    # UCB1 takes each child's availability as its parent's visit count.
    scores = UCB1(0.7).scores(tree, go)
    for i, k in enumerate(kids):
        n = tree.visits[k]
        if n:
            q = tree.value_sum[k, 1] / n
            assert scores[i] == pytest.approx(q + 0.7 * math.sqrt(math.log(tree.avail[k]) / n))
    # The moved blocks left no trace in the tree kept for the next move.
    kept = tree.subtree(go)
    assert kept.size == 5 and kept.action[1:5].tolist() == [0, 3, 1, 2]
    assert kept.avail[1:5].tolist() == [4, 12, 4, 4]


class CoinState(State):
    """Player 0 calls heads (0) or tails (1); then a coin lands heads with probability 0.8;
    a right call wins."""

    def __init__(self) -> None:
        self.moves: list[int] = []

    def current_player(self):
        return (0, CHANCE, TERMINAL)[len(self.moves)]

    def legal_actions(self, player=None):
        if self.is_terminal() or player not in (None, self.current_player()):
            return np.empty(0, np.int64)
        return np.array([0, 1])

    def chance_outcomes(self):
        return np.array([0, 1]), np.array([0.8, 0.2])

    def apply_action(self, action):
        if action not in self.legal_actions():
            raise ValueError(f"illegal {action}")
        self.moves.append(int(action))

    def clone(self):
        other = CoinState()
        other.moves = list(self.moves)
        return other

    def returns(self):
        if not self.is_terminal():
            return np.zeros(1)
        return np.array([1.0 if self.moves[0] == self.moves[1] else -1.0])

    def action_to_string(self, action):
        return "HT"[action]

    def string_to_action(self, text):
        return "HT".index(text)

    def key(self):
        return 1 + sum(m << (2 * i) for i, m in enumerate(self.moves))


class CoinGame(Game):
    name, num_players, num_actions, max_game_length = "coin", 1, 2, 2

    def new_initial_state(self, seed=None):
        return CoinState()


def test_chance_nodes_inside_the_tree_follow_their_probabilities():
    game = CoinGame()
    check_game(game)
    mcts, result = search(game, game.new_initial_state(), 2000, 0, expand_threshold=0)
    assert choose_action(result) == 0 and result.visits[0] > 0.9 * 2000
    heads_call = int(mcts.tree.first_child[0])
    outcomes = mcts.tree.joint[heads_call]  # the coin's children, one per outcome seen
    heads, tails = mcts.tree.visits[outcomes[(0,)]], mcts.tree.visits[outcomes[(1,)]]
    assert heads + tails == result.visits[0] and abs(heads / (heads + tails) - 0.8) < 0.03
    assert result.values[0, 0] == pytest.approx(0.8, abs=0.03)  # P(win) on [0, 1]


class NoCornerState(TicTacToeState):
    """Tic-tac-toe where search skips the corner a3 (action 0), as Go skips own-eye fills."""

    def search_actions(self):
        legal = self.legal_actions()
        return legal[legal != 0]

    def clone(self):
        other = NoCornerState()
        other._cells, other._to_move, other._winner = list(self._cells), self._to_move, self._winner
        return other


class RisingPrior(RolloutEvaluator):
    """Priors 1, 2, 3, ... (normalised) over the legal actions in order; value 0."""

    provides_priors = True
    value_bounds = (-1.0, 1.0)

    def evaluate(self, states):
        out = []
        for s in states:
            k = len(s.legal_actions())
            out.append(Evaluation(np.zeros(2), np.arange(1.0, k + 1) / (k * (k + 1) / 2)))
        return out


def test_priors_reach_the_children_by_action_id():
    game = TicTacToeGame()
    mcts = MCTS(game, MCTSConfig(simulations=2, expand_threshold=0), PUCT(), RisingPrior(), rng=0)
    result = mcts.search(NoCornerState())
    # Children: cells 1..8 of the 9 legal; each keeps its own prior (2..9, renormalised),
    # not the prior of the legal action at the same position (1..8).
    assert result.actions.tolist() == list(range(1, 9))
    assert np.allclose(result.prior, np.arange(2.0, 10.0) / 44)


def test_a_determinized_player_from_the_factory():
    from blokuszero.players.factory import make_player

    game = KuhnGame(3)
    player = make_player(game, {"kind": "mcts", "determinized": True, "simulations": 300,
                                "c": 0.7}, seed=0)
    state = game.deal([3, 0, 1])
    assert player.choose_action(state) in (PASS, BET)
    assert player.mcts.tree.track_availability


def test_determinized_tree_is_reused_by_information_state():
    """Player 0 passes, 1 bets, 2 calls: player 0's next search starts from the node its first
    search reached along those moves, found by its own information-state key."""
    from blokuszero.players.factory import make_player

    game = KuhnGame(3)
    state = game.deal([2, 0, 3])
    player = make_player(game, {"kind": "mcts", "determinized": True, "simulations": 400, "c": 0.7},
                         seed=0)
    player.choose_action(state)
    for move in (PASS, BET, BET):
        mover = state.current_player()
        state.apply_action(move)
        player.inform(move, mover)
    kept = int(player.mcts.tree.visits[0])
    assert kept > 0 and player.mcts.tree.key[0] == state.information_state_key(0)
    player.choose_action(state)
    assert player.mcts.tree.visits[0] == kept + 400
