"""The Blokus engine replays 200 games of the Pentobi engine move for move."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus.tables import COLOR_NAMES


def test_replay_pentobi_games(pentobi_games):
    assert len(pentobi_games) == 200
    game = BlokusGame()
    for record in pentobi_games:
        state = game.new_initial_state()
        for k, (move, colour, n_legal) in enumerate(
                zip(record["moves"], record["to_move"], record["n_legal"])):
            legal = state.legal_actions(COLOR_NAMES.index(colour))
            assert len(legal) == n_legal, (record["game"], k, move)
            if move == "pass":
                # Pentobi lists the pass; our engine skips a colour that cannot move.
                assert state.current_player() != COLOR_NAMES.index(colour)
                continue
            assert COLOR_NAMES[state.current_player()] == colour, (record["game"], k)
            action = state.string_to_action(move)
            assert action in legal
            state.apply_action(action)
        assert state.is_terminal(), record["game"]
        assert state.scores().tolist() == record["official_score"]
        assert state.scores().tolist() == [s - 89 for s in record["final_score"]]
        best = max(record["official_score"])
        assert state.returns().tolist() == [1.0 if s == best else -1.0 for s in record["official_score"]]
        placed = np.bincount([c for c, _ in state.history()], minlength=4)
        assert placed.tolist() == record["pieces_placed"]


def test_fast_replay_matches_move_by_move_play(pentobi_games):
    for record in pentobi_games[:20]:
        state = BlokusGame().new_initial_state()
        for move in record["moves"]:
            if move != "pass":
                state.apply_action(state.string_to_action(move))
        players, actions = map(np.array, zip(*state.history()))
        again = BlokusState.replay(players, actions)
        assert again.key() == state.key() and again.is_terminal()
        half = len(actions) // 2
        partial = BlokusState.replay(players[:half], actions[:half])
        assert partial.history() == state.history()[:half]
        assert partial.current_player() == players[half]
    with pytest.raises(ValueError, match="recorded move 1 is by Red, but Yellow is to move"):
        BlokusState.replay(np.array([0, 2]), np.array([actions[0], actions[2]]))
