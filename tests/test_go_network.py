"""Go through the network layer: the encoder, the generic conv policy head with the pass, the
network evaluator, and a 9x9 network trained through train.py."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from blokuszero.games.encoding import dihedral_square_maps
from blokuszero.games.go import GoGame, GoState
from blokuszero.games.go.encoder import GoEncoder
from blokuszero.games.registry import make_encoder
from blokuszero.nn import ConvPolicyHead, NetworkEvaluator, build_model
from blokuszero.nn.checkpoint import latest_checkpoint, load_network, save_network
from blokuszero.players.factory import make_player

ROOT = Path(__file__).resolve().parents[1]


def position(game: GoGame, rows: list[str], to_move: int = 0) -> GoState:
    """A state from a diagram: rows from the top, X black, O white, . empty."""
    state = game.new_initial_state()
    stones = [(".XO".index(ch) - 1, y * game.size + x) for y, row in enumerate(rows)
              for x, ch in enumerate(row) if ch != "."]
    state.set_up(stones, to_move)
    return state


def random_moves(game: GoGame, count: int, seed: int) -> list[int]:
    """Legal moves of a random game (passes only when nothing else is legal)."""
    rng = np.random.default_rng(seed)
    state, moves = game.new_initial_state(), []
    while len(moves) < count and not state.is_terminal():
        legal = state.legal_actions()
        move = int(rng.choice(legal[:-1])) if len(legal) > 1 else game.pass_action
        state.apply_action(move)
        moves.append(move)
    return moves


def test_planes_of_a_hand_made_position():
    game = GoGame(5)
    # White to move; A5 (top left) is a black eye, so suicide for White; C3 is empty and legal.
    state = position(game, [".X...", "X....", "..O..", ".....", "....."], to_move=1)
    planes = GoEncoder(game).encode(state)
    assert planes.shape == (5, 5, 5) and planes.dtype == np.float32
    assert np.argwhere(planes[0]).tolist() == [[2, 2]]  # the mover's (White's) stone
    assert np.argwhere(planes[1]).tolist() == [[0, 1], [1, 0]]  # Black's stones
    assert planes[2, 0, 0] == 0 and planes[2, 2, 3] == 1  # suicide and occupied points are not legal
    assert planes[2].sum() == 25 - 3 - 1
    assert (planes[3] == 0).all() and (planes[4] == 1).all()  # White to move; the board mask
    black = GoEncoder(game).encode(position(game, ["....."] * 5))
    assert (black[3] == 1).all()
    with pytest.raises(ValueError, match="state 1 of the batch is terminal"):
        terminal = game.new_initial_state()
        terminal.apply_action(game.pass_action)
        terminal.apply_action(game.pass_action)
        GoEncoder(game).encode_batch([state, terminal])


def test_square_symmetries_form_the_dihedral_group():
    maps = dihedral_square_maps(7)
    assert all(sorted(m) == list(range(49)) for m in maps)
    assert len({tuple(m) for m in maps}) == 8
    assert np.array_equal(maps[1][maps[1]], maps[2]) and np.array_equal(maps[1][maps[2]], maps[3])
    for k in range(4, 8):
        assert np.array_equal(maps[k][maps[k]], maps[0])  # mirrors are involutions


@pytest.mark.parametrize("k", range(8))
def test_symmetries_are_exact_on_whole_games(k):
    """The game of the mapped moves is legal move for move, and encodes to the mapped planes
    and legal moves: captures, ko and suicide all carry over."""
    game = GoGame(7)
    encoder = GoEncoder(game)
    moves = random_moves(game, 70, seed=k)
    state, image = game.new_initial_state(), game.new_initial_state()
    for t, move in enumerate(moves):
        if t % 7 == 0 and not state.is_terminal():
            assert np.array_equal(encoder.encode(image), encoder.transform_planes(encoder.encode(state), k))
            assert np.array_equal(image.legal_actions(),
                                  np.sort(encoder.transform_actions(state.legal_actions(), k)))
        state.apply_action(move)
        image.apply_action(int(encoder.transform_actions(np.array([move]), k)[0]))
    assert state.captures() == image.captures() and state.captures() != (0, 0)
    assert encoder.transform_actions(np.array([game.pass_action]), k)[0] == game.pass_action
    assert np.array_equal(encoder.transform_values(np.array([0.5, -0.5]), k), [0.5, -0.5])


def test_conv_head_reads_points_from_the_plane_and_the_pass_from_the_globals():
    encoder = GoEncoder(GoGame(5))
    head = ConvPolicyHead(filters=2, policy_map=encoder.policy_map(), board_size=5)
    assert head.planes.out_channels == 1 and head.globals.out_features == 1
    with torch.no_grad():
        head.planes.weight.zero_()
        head.planes.weight[0, 1] = 1  # the plane shows input channel 1: the square's index
        head.planes.bias.zero_()
        head.globals.weight.copy_(torch.tensor([[1000.0, 0.0]]))  # 1000 x the mean of channel 0
        head.globals.bias.zero_()
        x = torch.stack([torch.full((5, 5), 0.5), torch.arange(25, dtype=torch.float32).reshape(5, 5)])
        logits = head(x[None])[0]
    assert logits.tolist() == [*range(25), 500.0]  # action a = y * 5 + x at its square; the pass last


class FixedNet(nn.Module):
    """Zero logits and the mover's-frame values (0.3, -0.2) for every position."""

    action_cells = np.arange(82)

    def cells(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.zeros(len(planes), 82), torch.tensor([0.3, -0.2]).expand(len(planes), 2)


def test_network_evaluator_on_go():
    game = GoGame(9)
    black = game.new_initial_state()
    white = black.clone()
    white.apply_action(40)
    evaluations = NetworkEvaluator(FixedNet(), GoEncoder(game)).evaluate([black, white])
    np.testing.assert_allclose(evaluations[0].value, [0.3, -0.2], rtol=1e-6)
    np.testing.assert_allclose(evaluations[1].value, [-0.2, 0.3], rtol=1e-6)  # White's frame: its value first
    assert len(evaluations[1].prior) == 81 and evaluations[1].prior.sum() == pytest.approx(1.0)  # 80 points, pass
    torch.manual_seed(0)
    net = build_model("b2c32conv", "go9")
    assert net.config.game == "go9" and net.config.num_actions == 82 and net.config.input_planes == 5
    evaluation = NetworkEvaluator(net, make_encoder(game)).evaluate([white])[0]
    assert evaluation.prior.shape == (81,) and np.all(np.abs(evaluation.value) <= 1)
    with pytest.raises(ValueError, match=r"built for blokus .* the encoder of go gives \(5, 9, 82, 2\)"):
        NetworkEvaluator(build_model("b2c32conv", "blokus"), GoEncoder(game))


@pytest.mark.slow  # 15 s; .ci/run runs it in its slow line
def test_go_network_trains_through_train_py(tmp_path):
    """A 9x9 network trains for a few steps through train.py; the checkpoint's network is a Go
    network that the alphazero player plays with."""
    run_dir = tmp_path / "go9"
    command = [sys.executable, str(ROOT / "train.py"), "game=go9", "model=b2c32conv", f"run_dir={run_dir}",
               "train.schedule=paper", "train.total_steps=4", "train.initial_games=2",
               "train.buffer_games=10", "train.steps_per_iteration=4", "train.checkpoint_every=4",
               "train.log_every=1", "train.games_per_task=2", "search.simulations=2",
               "selfplay.games_in_parallel=2", "optimizer.batch_size=8", "progress=false",
               "hardware.num_cpus=1"]
    subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
                   capture_output=True, timeout=600)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["step"] == 4 and summary["games"] == 2 and summary["positions"] > 20
    path, state = latest_checkpoint(run_dir / "checkpoints")
    assert state["model_config"]["game"] == "go9" and state["model_config"]["num_actions"] == 82
    model, step = load_network(path)
    assert step == 4 and model.config.board_size == 9
    start, _ = load_network(run_dir / "checkpoints" / "ckpt_000000000.pt")  # before the first step
    assert any(not torch.equal(start.state_dict()[k], v) for k, v in model.state_dict().items())
    player = make_player(GoGame(9), {"preset": "alphazero", "checkpoint": str(path), "simulations": 4}, seed=1)
    move = player.choose_action(GoGame(9).new_initial_state())
    assert 0 <= move < 82


def test_a_network_stored_before_networks_named_their_game_loads_as_blokus(tmp_path):
    torch.manual_seed(0)
    net = build_model("b2c32conv", "blokus")
    stored = {k: v for k, v in dataclasses.asdict(net.config).items() if k != "game"}  # as written before
    path = save_network(tmp_path, 7, "b2c32conv", net.state_dict(), model_config=stored)
    loaded, step = load_network(path)
    assert step == 7 and loaded.config == net.config and loaded.config.game == "blokus"
    assert all(torch.equal(loaded.state_dict()[k], v) for k, v in net.state_dict().items())


def test_encoder_replays_records_and_names_a_move_out_of_turn():
    game = GoGame(9)
    encoder = GoEncoder(game)
    moves = random_moves(game, 30, seed=5)
    state = encoder.replay(np.arange(30) % 2, np.array(moves))
    expected = game.new_initial_state()
    for move in moves:
        expected.apply_action(move)
    assert state.key() == expected.key() and np.array_equal(encoder.board(state), expected.board() - 1)
    with pytest.raises(ValueError, match="move 40 is by player 1, but player 0 is to move"):
        encoder.replay(np.array([1]), np.array([40]))
