"""Growing a trained network into a larger one (nn/grow.py): the same outputs, new capacity that
learns, and shapes that cannot grow refused by name."""

from __future__ import annotations

import pytest
import torch

from blokuszero.nn.grow import grow
from blokuszero.nn.model import build_model


def _trained_looking(name: str, game: str, seed: int, **overrides):
    """A network of random weights and batch-norm statistics far from their defaults, as training
    leaves them (defaults would hide a statistic copied into the wrong channel)."""
    torch.manual_seed(seed)
    net = build_model(name, game, **overrides)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-1, 1)
                module.running_var.uniform_(0.5, 2)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
    return net.eval()


def _grown(small, name: str, seed: int, **overrides):
    torch.manual_seed(seed)
    large = build_model(name, small.config.game, **overrides)
    large.load_state_dict(grow(small.state_dict(), small.config, large.state_dict(), large.config))
    return large.eval()


@pytest.mark.parametrize("game, overrides", [("blokus", {}), ("go9", {"score_head": True})])
def test_a_grown_network_answers_as_the_small_one(game, overrides):
    """b2c32conv into b4c64conv: twice the blocks, filters, value filters and hidden units (Go's
    policy head has a global pass logit; the score head grows too)."""
    small = _trained_looking("b2c32conv", game, 0, **overrides)
    large = _grown(small, "b4c64conv", 1, **overrides)
    planes = torch.rand(6, small.config.input_planes, small.config.board_size, small.config.board_size).round()
    with torch.no_grad():
        expected, got = small.heads(planes), large.heads(planes)
    for want, have in zip(expected, got, strict=True):
        if want is not None:
            assert torch.allclose(want, have, atol=1e-5), (want - have).abs().max()
    # Not a copy that ignores its new parts: the new blocks and channels hold weights of their own.
    assert not torch.equal(large.blocks[3].conv1.weight, torch.zeros_like(large.blocks[3].conv1.weight))
    assert large.blocks[0].conv1.weight[32:].abs().sum() > 0


def test_the_new_capacity_learns():
    """The zero weights out of the new channels and the new blocks' zero scales get gradients at
    the first step, so training moves the grown network away from the small one."""
    small = _trained_looking("b2c32conv", "blokus", 2)
    large = _grown(small, "b4c64conv", 3).train()
    planes = torch.rand(4, small.config.input_planes, 20, 20).round()
    logits, values = large(planes)
    (logits.logsumexp(1).sum() + values.sum()).backward()
    assert large.blocks[0].conv1.weight.grad[:32, 32:].abs().sum() > 0  # new into old channels
    assert large.blocks[3].bn2.weight.grad.abs().sum() > 0  # a new block's residual branch
    assert large.value_fc2.weight.grad[:, 64:].abs().sum() > 0  # new hidden units into the value


@pytest.mark.parametrize("small, large, overrides, message", [
    ("b4c64conv", "b2c32conv", {}, "blocks 4 is more than the run's 2, filters 64 is more than the run's 32"),
    ("b2c32conv", "b4c64", {}, "policy_head conv \\(run: fc\\), value_head pool \\(run: fc\\)"),
    ("b2c32", "b4c64", {"value_filters": 8}, "value_filters 4 \\(run: 8\\) of an fc value head"),
    ("b2c32conv", "b4c64conv", {"score_head": True}, "score_head False \\(run: True\\)"),
])
def test_shapes_that_cannot_grow_are_refused_by_name(small, large, overrides, message):
    torch.manual_seed(0)
    source, target = build_model(small, "blokus"), build_model(large, "blokus", **overrides)
    with pytest.raises(ValueError, match=f"cannot grow into this run's model: .*{message}"):
        grow(source.state_dict(), source.config, target.state_dict(), target.config)

