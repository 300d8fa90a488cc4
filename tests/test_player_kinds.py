"""The factory's game-family kinds (``ggp_uct``, ``daihinmin_mc``, ``daihinmin_default``): made
from a spec, a bad option named, the same spec and seed giving the same moves."""

from __future__ import annotations

import pytest
from ggp_sheets import sheet_game

from blokuszero.games.daihinmin import DaihinminGame
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.players.daihinmin.default_client import DefaultClient
from blokuszero.players.daihinmin.monte_carlo import MonteCarloClient, MonteCarloPlayer
from blokuszero.players.factory import make_client, make_player, parse_client_spec
from blokuszero.players.search_players import MCTSPlayer

GGP = {"preset": "ggp_uct", "simulations": 40}
MC = {"kind": "daihinmin_mc", "simulations": 20, "playout": "default"}


def _moves(game, state, spec, seed, n=4):
    player, moves = make_player(game, spec, seed), []
    for _ in range(n):
        if state.is_terminal():
            break
        action = player.choose_action(state)
        player.inform(action, state.current_player())
        moves.append(action)
        state.apply_action(action)
    return moves


def test_each_kind_is_made_from_a_spec():
    assert isinstance(make_player(sheet_game("tictactoe"), GGP, 0), MCTSPlayer)
    game = DaihinminGame()
    assert isinstance(make_player(game, MC, 0), MonteCarloPlayer)
    assert isinstance(make_client(game, MC, 0), MonteCarloClient)
    assert isinstance(make_client(game, {"kind": "daihinmin_default"}), DefaultClient)
    assert parse_client_spec("default") == {"kind": "daihinmin_default"}
    assert parse_client_spec('{"kind": "daihinmin_mc", "simulations": 5}')["simulations"] == 5


@pytest.mark.parametrize("spec, message", [
    ({"kind": "ggp_uct", "c": -1}, "^c must be >= 0, not -1$"),
    ({"preset": "ggp_uct", "playout": "greedy"}, "^playout must be one of"),
    ({"preset": "ggp_uct", "playout": "softmax"}, "^playout softmax needs policy_file"),
    ({"preset": "ggp_uct", "tau": 0}, "^tau must be > 0, not 0$"),
    ({"preset": "ggp_uct", "experience": {"encoding": "zobrist"}}, "^experience encoding must be"),
    ({"preset": "ggp_uct", "depth": 3}, r"unknown option\(s\) \['depth'\] for a ggp_uct player"),
    ({"kind": "daihinmin_mc", "self_playout": "greedy"}, "^self_playout must be one of"),
    ({"kind": "daihinmin_mc", "simulations": 0}, "simulations >= 1 or a time_limit"),
])
def test_a_bad_option_names_itself(spec, message):
    game = sheet_game("tictactoe") if "ggp" in str(spec) else DaihinminGame()
    with pytest.raises(ValueError, match=message):
        make_player(game, spec, 0)


def test_kinds_refuse_what_they_cannot_make():
    with pytest.raises(ValueError, match="make_client"):
        make_player(DaihinminGame(), {"kind": "daihinmin_default"})
    with pytest.raises(ValueError, match="no UECda table client"):
        make_client(DaihinminGame(), {"preset": "uct"})
    with pytest.raises(ValueError, match="plays GDL games"):
        make_player(DaihinminGame(), GGP)


@pytest.mark.parametrize("family", ["ggp_uct", "daihinmin_mc"])
def test_the_same_spec_and_seed_give_the_same_moves(family):
    game, spec = (sheet_game("connectfour"), GGP) if family == "ggp_uct" else (DaihinminGame(), MC)
    start = game.new_initial_state() if family == "ggp_uct" else game.new_initial_state(2)
    assert _moves(game, start.clone(), spec, 3) == _moves(game, start.clone(), spec, 3)


def test_the_same_client_spec_and_seed_play_the_same_match():
    def points():
        seats = [LocalSeat(make_client(DaihinminGame(), MC, 5), "mc0")]
        seats += [LocalSeat(DefaultClient(), f"dflt{p}") for p in range(1, 5)]
        return [list(p) for p in serve_match(seats, MatchSettings(games=2), seed=1).points]

    assert points() == points()
