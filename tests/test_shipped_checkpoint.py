"""The network shipped in checkpoints/ loads (digest verified) and plays with the search settings
its run trained with, read from the file."""

from __future__ import annotations

from pathlib import Path

from blokuszero.games.blokus import BlokusGame
from blokuszero.players.factory import make_player, player_settings

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "blokus_b2c32conv_gumbel.pt"


def test_shipped_network_plays_with_its_trained_search():
    spec = {"preset": "alphazero", "checkpoint": str(SHIPPED), "simulations": 8}
    settings = player_settings(spec)
    # Expert iteration trained it with PUCT over playout leaves, not Gumbel's root.
    assert settings["gumbel"] is False and settings["model"] == "b2c32conv"
    assert settings["q_init"] == "parent" and settings["simulations"] == 8
    state = BlokusGame().new_initial_state()
    action = make_player(BlokusGame(), spec, seed=0).choose_action(state)
    assert action in state.legal_actions()
