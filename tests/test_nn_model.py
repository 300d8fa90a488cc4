"""The policy-value network: the paper's parameter counts, shapes, initialisation, a training step."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from torch import nn

from blokuszero.nn import MODEL_SIZES, ModelConfig, PolicyValueNet, policy_value_loss


def count(*modules: nn.Module) -> int:
    return sum(p.numel() for m in modules for p in m.parameters())


@pytest.fixture(scope="module")
def paper_net() -> PolicyValueNet:
    # On the meta device: shapes without memory or initialisation time.
    with torch.device("meta"):
        return PolicyValueNet(MODEL_SIZES["b10c128"])


@pytest.fixture(scope="module")
def small_net() -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(MODEL_SIZES["b2c32"])


def test_paper_parameter_counts(paper_net):
    # SPEC §3: policy 400 x 2 x 30,433 + 30,433; value (400 x 4 x 256 + 256) + (256 x 4 + 4).
    assert count(paper_net.policy_fc) == 2 * 400 * 30433 + 30433 == 24_376_833
    assert count(paper_net.value_fc1, paper_net.value_fc2) == (4 * 400 * 256 + 256) + (256 * 4 + 4) == 410_884
    convs = [m for m in paper_net.modules() if isinstance(m, nn.Conv2d) and m.kernel_size == (3, 3)]
    assert len(convs) == 21 and all(m.out_channels == 128 for m in convs)
    assert count(convs[0]) == 33 * 9 * 128 + 128 == 38_144
    assert all(count(m) == 128 * 9 * 128 + 128 == 147_584 for m in convs[1:])
    assert count(*convs) == 2_989_824
    # The paper's trunk figure, 1,513,984, counts one convolution per block.
    assert count(convs[0]) + 10 * count(convs[1]) == 1_513_984


def test_named_sizes_match_their_names():
    for name, config in MODEL_SIZES.items():
        assert name == f"b{config.blocks}c{config.filters}"
    with pytest.raises(dataclasses.FrozenInstanceError):
        MODEL_SIZES["b2c32"].blocks = 3  # type: ignore[misc]
    assert len(PolicyValueNet(ModelConfig(blocks=3, filters=8)).blocks) == 3


def test_forward_shapes_and_value_range(small_net):
    small_net.eval()
    logits, values = small_net(torch.randn(5, 33, 20, 20))
    assert logits.shape == (5, 30433) and values.shape == (5, 4)
    assert values.abs().max() <= 1


def test_initialisation_xavier_for_last_layers_msra_for_the_rest(small_net):
    xavier = {small_net.policy_fc, small_net.value_fc2}
    layers = [m for m in small_net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    assert len(layers) == 1 + 2 * 2 + 2 + 3
    for m in layers:
        w = m.weight.detach()
        fan_out, fan_in = w.shape[0], w[0].numel()
        if m in xavier:
            bound = math.sqrt(6 / (fan_in + fan_out))  # both are Linear
            assert w.abs().max() <= bound
            expected = bound / math.sqrt(3)
        else:
            expected = math.sqrt(2 / fan_in)
        # The sample std of n draws is off by about expected / sqrt(2n).
        assert abs(w.std().item() - expected) < 5 * expected / math.sqrt(2 * w.numel())
        assert not m.bias.detach().any()


def test_sgd_steps_with_weight_decay_lower_the_loss():
    torch.manual_seed(1)
    net = PolicyValueNet(MODEL_SIZES["b2c32"])
    opt = torch.optim.SGD(net.parameters(), lr=1e-2, momentum=0.9, weight_decay=1e-4)
    planes = torch.rand(4, 33, 20, 20)
    pi = torch.softmax(torch.randn(4, 30433), dim=1)
    z = torch.tensor([[1.0, -1, -1, -1], [-1, 1, -1, -1], [-1, -1, 1, 1], [-1, -1, -1, 1]])
    losses = []
    for _ in range(5):
        loss = policy_value_loss(*net(planes), pi, z).total
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
