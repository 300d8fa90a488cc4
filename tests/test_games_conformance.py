"""Every registered game family, made by name with small options, passes the interface's
conformance check (games/testing.check_game), the checks of the optional abilities its games
and states have (games/abilities.py), and its spec's encoder and record writer work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.abilities import (
    GAME_ABILITIES,
    STATE_ABILITIES,
    HasCompact,
    HasDepthFirstHeuristics,
    HasGtpDialect,
    HasMovesOutOfTurn,
    HasNumbaKernels,
    HasPassAction,
    HasPatternNeighbours,
    HasPlayouts,
    HasPriorKnowledge,
    HasScores,
    HasSearchActions,
    HasTracedPlayouts,
)
from blokuszero.games.base import CHANCE, SIMULTANEOUS, TERMINAL, Game, State
from blokuszero.games.numba_random import seed_numba
from blokuszero.games.registry import SPECS, encoder_name, game_spec, make_encoder, make_game
from blokuszero.games.testing import check_game, random_positions, random_step

GGP_RULES = Path(__file__).parent / "data" / "ggp"

# (make_game name, options, check_game's arguments, the abilities its games and states have).
CASES = [
    ("blokus", {}, {"num_games": 3},
     {HasScores, HasPlayouts, HasMovesOutOfTurn, HasCompact, HasNumbaKernels, HasDepthFirstHeuristics,
      HasGtpDialect}),
    ("tictactoe", {}, {"num_games": 50, "max_strings": 9}, set()),
    ("go9", {}, {"num_games": 3, "seed": 9},
     {HasScores, HasPlayouts, HasSearchActions, HasPriorKnowledge, HasPatternNeighbours, HasPassAction,
      HasGtpDialect}),
    ("daihinmin", {"first_game": False}, {"num_games": 4}, {HasPlayouts}),
    ("daihinmin", {"first_game": True}, {"num_games": 4}, {HasPlayouts}),
    ("kuhn_poker", {"num_players": 3}, {"num_games": 30}, set()),
    ("kuhn_poker", {"num_players": 2}, {"num_games": 30}, set()),
    ("prisoners_dilemma", {}, {"num_games": 30}, set()),
    ("prisoners_dilemma", {"rounds": 3}, {"num_games": 30}, set()),
    (f"ggp:{GGP_RULES / 'tictactoe.kif'}", {}, {"num_games": 3, "max_strings": 5},
     {HasPlayouts, HasTracedPlayouts}),
]


def _case_id(case) -> str:
    name, options = case[0], case[1]
    name = name if not name.startswith("ggp:") else f"ggp-{Path(name[4:]).stem}"
    return "-".join([name, *(f"{k}={v}" for k, v in options.items())])


def test_every_family_has_a_case():
    covered = {id(game_spec(case[0])) for case in CASES}
    assert covered == {id(spec) for spec in SPECS}


@pytest.mark.parametrize("name, options, check, abilities", CASES, ids=[_case_id(c) for c in CASES])
def test_family_conforms(name, options, check, abilities):
    game = make_game(name, **options)
    check_game(game, **check)
    positions = random_positions(game, seed=1)
    had = {a for a in GAME_ABILITIES if isinstance(game, a)}
    had |= {a for a in STATE_ABILITIES if all(isinstance(s, a) for s in positions)}
    assert had == abilities, "a game lost or gained an ability: update the case, or restore it"
    for ability in had:
        ABILITY_CHECKS[ability](game, positions[::max(1, len(positions) // 8)] + positions[-1:])
    spec = game_spec(name)
    if spec.encoder is not None:
        _check_encoder(game)
    if spec.record is not None:
        _check_record(game, spec.record)


def _turn_positions(positions: list[State]) -> list[State]:
    return [s for s in positions if s.current_player() >= 0]


def _check_scores(game: Game, positions: list[State]) -> None:
    scores = np.asarray(positions[-1].scores())
    assert scores.shape == (game.num_players,) and np.all(np.isfinite(scores))


def _check_playouts(game: Game, positions: list[State], traced: bool = False) -> None:
    for i, state in enumerate(positions):
        seed_numba(i)
        copy = state.clone()
        if traced:
            players, actions, boards = copy.traced_playout("uniform", 0.0)
            assert boards.ndim == 2 and boards.shape[1] == len(copy.board())
            assert len(boards) == 0 or np.array_equal(boards[-1], copy.board())
        else:
            players, actions = copy.playout("uniform", 0.0)
        assert copy.is_terminal() and len(players) == len(actions)
        assert np.all((np.asarray(players) >= 0) & (np.asarray(players) < game.num_players))
        assert np.all((np.asarray(actions) >= 0) & (np.asarray(actions) < game.num_actions))


def _check_traced_playouts(game: Game, positions: list[State]) -> None:
    _check_playouts(game, positions, traced=True)


def _check_moves_out_of_turn(game: Game, positions: list[State]) -> None:
    for state in _turn_positions(positions):
        in_turn = state.clone()
        in_turn.apply_action(int(state.legal_actions()[0]))
        if in_turn.is_terminal():
            continue
        out_of_turn = state.clone()
        out_of_turn.apply_action_for(state.current_player(), int(state.legal_actions()[0]),
                                     in_turn.current_player())
        assert (out_of_turn.key(), out_of_turn.current_player()) == (in_turn.key(), in_turn.current_player())


def _check_search_actions(game: Game, positions: list[State]) -> None:
    for state in _turn_positions(positions):
        legal, search = state.legal_actions(), state.search_actions()
        assert len(search) > 0 and np.all(np.diff(search) > 0) and np.all(np.isin(search, legal))


def _check_compact(game: Game, positions: list[State]) -> None:
    for state in positions:
        copy = state.clone()
        copy.compact()
        assert (copy.key(), copy.current_player()) == (state.key(), state.current_player())
        assert np.array_equal(copy.legal_actions(), state.legal_actions())


def _check_numba_kernels(game: Game, positions: list[State]) -> None:
    arrays, tables = positions[0].numba_state()
    assert arrays is not None and tables is not None
    assert isinstance(positions[0].playout_code("uniform"), int)


def _check_prior_knowledge(game: Game, positions: list[State]) -> None:
    for state in _turn_positions(positions):
        value, weight = state.prior_knowledge("simple")
        assert value.shape == weight.shape == (game.num_actions,)
        assert np.all((value >= 0) & (value <= 1)) and np.all(weight >= 0)


def _check_pattern_neighbours(game: Game, positions: list[State]) -> None:
    neighbours = game.pattern_neighbours()
    assert neighbours.shape[0] == game.num_actions
    assert np.all((neighbours >= -1) & (neighbours < game.num_actions))


def _check_pass_action(game: Game, positions: list[State]) -> None:
    assert 0 <= game.pass_action < game.num_actions
    assert all(game.pass_action in s.legal_actions() for s in _turn_positions(positions))


def _check_depth_first_heuristics(game: Game, positions: list[State]) -> None:
    evaluate, order, max_sum = game.depth_first_heuristics()
    for state in _turn_positions(positions):
        values, actions = evaluate(state), state.legal_actions()
        assert values.shape == (game.num_players,)
        assert sorted(order(state, state.current_player(), actions)) == sorted(actions)
        assert max_sum is None or max_sum(state, 1) >= values.sum()


def _check_gtp_dialect(game: Game, positions: list[State]) -> None:
    colours = [game.gtp_colour(p) for p in range(game.num_players)]
    assert len(set(colours)) == game.num_players and all(c and " " not in c for c in colours)
    assert all(isinstance(command, str) and command for command in game.gtp_setup())
    assert isinstance(game.gtp_passes(), bool)


ABILITY_CHECKS = {
    HasScores: _check_scores, HasPlayouts: _check_playouts, HasTracedPlayouts: _check_traced_playouts,
    HasMovesOutOfTurn: _check_moves_out_of_turn, HasSearchActions: _check_search_actions,
    HasCompact: _check_compact, HasNumbaKernels: _check_numba_kernels,
    HasPriorKnowledge: _check_prior_knowledge, HasPatternNeighbours: _check_pattern_neighbours,
    HasPassAction: _check_pass_action, HasDepthFirstHeuristics: _check_depth_first_heuristics,
    HasGtpDialect: _check_gtp_dialect,
}


def test_every_ability_has_a_check():
    assert set(ABILITY_CHECKS) == set(STATE_ABILITIES) | set(GAME_ABILITIES)


def _check_encoder(game: Game) -> None:
    encoder = make_encoder(game)
    state = game.new_initial_state(0)
    assert encoder.encode(state).shape == encoder.shape
    assert len(encoder.policy_map().index) == game.num_actions
    assert make_encoder(encoder_name(game)).shape == encoder.shape  # what a stored network rebuilds


def _check_record(game: Game, record) -> None:
    rng = np.random.default_rng(2)
    state = game.new_initial_state(rng)
    moves = []
    while not state.is_terminal():
        player = state.current_player()
        assert player not in (CHANCE, SIMULTANEOUS), "records of moves by turn only"
        moves.append((player, random_step(state, game.num_players, rng)))
    assert state.current_player() == TERMINAL
    seating = [f"player {p}" for p in range(game.num_players)]
    text = record.write(game, state, moves, seating, "conformance", None)
    assert isinstance(text, str) and "conformance" in text and record.suffix.startswith(".")


def test_importing_the_registry_makes_no_game():
    code = ("import sys, blokuszero.games.registry; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numba') "
            "or m.startswith(('blokuszero.games.blokus', 'blokuszero.games.go', 'blokuszero.games.ggp', "
            "'blokuszero.games.daihinmin'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_names_and_games_without_an_encoder():
    with pytest.raises(ValueError, match="unknown game 'chess'; known: blokus, tictactoe, go"):
        make_game("chess")
    with pytest.raises(ValueError, match="'daihinmin' has no network encoder"):
        make_encoder("daihinmin")
    with pytest.raises(ValueError, match="'tictactoe' has no network encoder"):
        encoder_name(make_game("tictactoe"))


def test_games_without_options_ignore_the_shared_rules_option():
    # conf/game/*.yaml all carry ``rules`` (null but for ggp), and the arena passes it on.
    assert make_game("blokus", rules=None).name == "blokus"
    assert make_game("tictactoe", rules=None).name == "tictactoe"
