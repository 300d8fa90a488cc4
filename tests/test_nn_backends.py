"""The network's inference backends (blokuszero/nn/backends.py): the same network, whichever runs it.

ONNX Runtime and torch must give the same policy cells, values and so the same priors to 1e-4 on
real positions, for every head the networks have (the shipped network, the paper's FC policy
head, Go's global pass logit, a score head), so that a backend never plays a different network;
and a backend that cannot run says so in one line naming the fix.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from blokuszero.games.go import GoGame
from blokuszero.games.registry import make_encoder, make_game
from blokuszero.nn import NetworkEvaluator, build_model
from blokuszero.nn.backends import BackendError, backend_name, make_forward
from blokuszero.nn.checkpoint import load_network
from blokuszero.players.factory import make_player, player_settings, resolve_spec
from tests.test_nn_evaluator import replay

SHIPPED = "checkpoints/blokus_b2c32conv_gumbel.pt"


def networks():
    torch.manual_seed(1)
    yield "shipped", load_network(SHIPPED)[0], "blokus"
    yield "b2c32 (FC heads)", build_model("b2c32", "blokus"), "blokus"
    yield "b2c32conv with a score head", build_model("b2c32conv", "blokus", score_head=True), "blokus"
    yield "go9 b2c32conv (a global pass logit)", build_model("b2c32conv", "go9"), "go9"


def go_positions() -> list:
    state = GoGame(9).new_initial_state()
    out = [state.clone()]
    for action in (40, 30, 50, 31, 81):  # 81: a pass
        state.apply_action(action)
        out.append(state.clone())
    return out


@pytest.mark.parametrize("label,model,game", list(networks()), ids=lambda x: x if isinstance(x, str) else "")
def test_onnxruntime_and_torch_give_the_same_evaluations(label, model, game, pentobi_games):
    positions = ([replay(pentobi_games[g], n) for g, n in ((0, 0), (1, 6), (2, 23), (3, 40), (4, 57))]
                 if game == "blokus" else go_positions())
    encoder = make_encoder(make_game(game))
    by_torch = NetworkEvaluator(model, encoder, backend="torch")
    by_onnx = NetworkEvaluator(model, encoder, backend="onnxruntime")
    planes = encoder.encode_batch(positions)
    for ours, theirs in zip(by_onnx.forward(planes), by_torch.forward(planes)):
        np.testing.assert_allclose(ours, theirs, atol=1e-4, rtol=0)
    # One at a time, as a search asks, and in one batch: the priors and values agree too.
    for batch in ([p] for p in positions):
        [a], [b] = by_onnx.evaluate(batch), by_torch.evaluate(batch)
        np.testing.assert_allclose(a.prior, b.prior, atol=1e-4, rtol=0)
        np.testing.assert_allclose(a.value, b.value, atol=1e-4, rtol=0)
        assert a.prior.shape == batch[0].legal_actions().shape and a.prior.sum() == pytest.approx(1, abs=1e-12)
    # New weights reach the exported graph too.
    changed = {k: v + 0.01 if v.is_floating_point() else v for k, v in model.state_dict().items()}
    by_torch.set_weights(changed, 1)
    by_onnx.set_weights(changed, 1)
    np.testing.assert_allclose(by_onnx.forward(planes)[1], by_torch.forward(planes)[1], atol=1e-4, rtol=0)
    assert not np.allclose(by_onnx.forward(planes)[1], NetworkEvaluator(
        build_model("b2c32conv", game), encoder).forward(planes)[1], atol=1e-4)


def test_auto_is_onnxruntime_on_the_cpu_and_torch_on_cuda():
    assert backend_name("auto", torch.device("cpu")) == "onnxruntime"
    assert backend_name("auto", torch.device("cuda")) == "torch"
    assert backend_name("torch", torch.device("cpu")) == "torch"


def test_a_backend_that_cannot_run_names_the_fix(monkeypatch):
    with pytest.raises(BackendError, match=r"^unknown network backend 'tensorrt'; known: auto, torch, onnxruntime$"):
        backend_name("tensorrt", torch.device("cpu"))
    with pytest.raises(BackendError, match=r"runs on the CPU, not cuda: use backend=torch"):
        backend_name("onnxruntime", torch.device("cuda"))
    model = build_model("b2c32conv", "blokus")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    with pytest.raises(BackendError, match=r"needs ONNX Runtime: pip install onnxruntime onnx \(or choose backend="):
        make_forward(model, "onnxruntime", (33, 20, 20), torch.device("cpu"))
    monkeypatch.undo()

    class Unexportable(torch.nn.Module):  # an operator ONNX has no translation for
        def cells(self, planes: torch.Tensor):
            singular = torch.linalg.svd(planes.flatten(2))[1].flatten(1)
            return singular, singular[:, :4]

    with pytest.raises(BackendError) as caught:
        make_forward(Unexportable(), "onnxruntime", (3, 4, 4), torch.device("cpu"))
    message = str(caught.value)
    assert "\n" not in message and "cannot be exported for onnxruntime" in message
    assert message.endswith("choose backend=torch")
    # A player spec with an unknown backend stops before anything is built.
    with pytest.raises(ValueError, match="backend"):
        resolve_spec({"preset": "network", "backend": "tensorrt"})


def test_the_network_preset_plays_the_strongest_settings_by_time_alone():
    s = player_settings({"preset": "network", "checkpoint": SHIPPED})
    # AlphaGo's expansion threshold with PUCT, whatever root policy the network trained with.
    assert s["gumbel"] is False and s["leaf_playouts"] and s["expand_threshold"] == 16
    assert (s["simulations"], s["time_limit"], s["backend"]) == (0, 1.0, "auto")
    assert player_settings({"preset": "network", "checkpoint": SHIPPED, "simulations": 300})["simulations"] == 300
    # The paper's protocol keeps its name and its settings: the root search the network trained
    # with (expert iteration's PUCT for the shipped one, Gumbel's root for a cpu_strong run's).
    paper = player_settings({"preset": "alphazero", "checkpoint": SHIPPED})
    assert paper["gumbel"] is False and paper["simulations"] == 800 and not paper.get("leaf_playouts")
    gumbel_trained = "checkpoints/candidates/blokus_b2c32conv_next27c.pt"
    assert player_settings({"preset": "alphazero", "checkpoint": gumbel_trained})["gumbel"] is True
    assert player_settings({"preset": "network", "checkpoint": gumbel_trained})["gumbel"] is False
    game = make_game("blokus")
    player = make_player(game, {"preset": "network", "checkpoint": SHIPPED, "time_limit": 0.05}, seed=0)
    state = game.new_initial_state(0)
    assert player.choose_action(state) in state.legal_actions()
