"""The policy-value network: the paper's parameter counts, shapes, initialisation, a training step,
the convolutional policy head's placement map, named sizes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from torch import nn

from blokuszero.games.blokus import tables as T
from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.nn import MODEL_SIZES, ConvPolicyHead, ModelConfig, PolicyValueNet, build_model, policy_value_loss


def count(*modules: nn.Module) -> int:
    return sum(p.numel() for m in modules for p in m.parameters())


@pytest.fixture(scope="module")
def paper_net() -> PolicyValueNet:
    # On the meta device: shapes without memory or initialisation time.
    with torch.device("meta"):
        return PolicyValueNet(dataclasses.replace(MODEL_SIZES["b10c128"], game="blokus"))


@pytest.fixture(scope="module", params=["b2c32", "b2c32conv"])
def small_net(request) -> PolicyValueNet:
    torch.manual_seed(0)
    return build_model(request.param, "blokus")


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
        suffix = "conv" if config.policy_head == "conv" else ""
        assert name == f"b{config.blocks}c{config.filters}{suffix}"
        assert (config.value_head == "pool") == (config.policy_head == "conv")
    assert MODEL_SIZES["b10c128"].policy_head == "fc"  # the paper's
    with pytest.raises(dataclasses.FrozenInstanceError):
        MODEL_SIZES["b2c32"].blocks = 3  # type: ignore[misc]
    assert len(PolicyValueNet(ModelConfig(blocks=3, filters=8, game="blokus")).blocks) == 3


def test_build_model():
    net = build_model("b2c32conv", "blokus", blocks=1)
    assert isinstance(net, PolicyValueNet)
    assert net.config == dataclasses.replace(MODEL_SIZES["b2c32conv"], blocks=1, game="blokus") and len(net.blocks) == 1
    with pytest.raises(ValueError, match="b2c32, b4c64, b10c128, b2c32conv, b4c64conv"):
        build_model("b20c256", "blokus")
    with pytest.raises(ValueError, match="policy_head 'attention'"):
        build_model("b2c32", "blokus", policy_head="attention")
    with pytest.raises(ValueError, match="value_head 'mlp'"):
        build_model("b2c32", "blokus", value_head="mlp")
    with pytest.raises(ValueError, match="policy map reads cells up to 36378, but 91 planes of 14x14"):
        PolicyValueNet(ModelConfig(blocks=1, filters=8, board_size=14, policy_head="conv", game="blokus"))


def test_forward_shapes_and_value_range(small_net):
    small_net.eval()
    logits, values = small_net(torch.randn(5, 33, 20, 20))
    assert logits.shape == (5, 30433) and values.shape == (5, 4)
    assert values.abs().max() <= 1


def test_initialisation_xavier_for_last_layers_msra_for_the_rest(small_net):
    xavier = {small_net.policy_out, small_net.value_fc2}
    layers = [m for m in small_net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    policy_layers = 2 if small_net.config.policy_head == "fc" else 1
    assert len(layers) == 1 + 2 * 2 + policy_layers + 3
    for m in layers:
        w = m.weight.detach()
        fan_out, fan_in = w.shape[0], w[0].numel()
        if m in xavier:
            bound = math.sqrt(6 / (fan_in + fan_out))  # Linear, or a 1x1 convolution
            assert w.abs().max() <= bound
            expected = bound / math.sqrt(3)
        else:
            expected = math.sqrt(2 / fan_in)
        # The sample std of n draws is off by about expected / sqrt(2n).
        assert abs(w.std().item() - expected) < 5 * expected / math.sqrt(2 * w.numel())
        assert not m.bias.detach().any()


@pytest.mark.parametrize("name", ["b2c32", "b2c32conv"])
def test_sgd_steps_with_weight_decay_lower_the_loss(name):
    torch.manual_seed(1)
    net = build_model(name, "blokus")
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


def bounding_box_centre(m: int) -> tuple[int, int]:
    """(x, y) of the centre of placement m's bounding box, rounded down."""
    cells = [int(sq) for sq in T.PLACEMENTS[m] if sq >= 0]
    xs, ys = [sq % 20 for sq in cells], [sq // 20 for sq in cells]
    return (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2


def test_conv_head_reads_each_placement_from_its_orientation_plane_at_its_anchor():
    head = ConvPolicyHead(filters=2, policy_map=BlokusEncoder().policy_map(), board_size=20)
    with torch.no_grad():
        # Plane k = 1000 k + (the square's index) + 0.5 (the bias): a logit names its plane and square.
        head.planes.weight.zero_()
        head.planes.weight[:, 0] = 1000 * torch.arange(T.NUM_ORIENTATIONS, dtype=torch.float32)[:, None, None]
        head.planes.weight[:, 1] = 1
        head.planes.bias.fill_(0.5)
        x = torch.stack([torch.ones(20, 20), torch.arange(400, dtype=torch.float32).reshape(20, 20)])
        logits = head(x[None])[0].double() - 0.5
    assert logits.shape == (T.NUM_PLACEMENTS,)
    plane, square = (logits // 1000).long().numpy(), (logits % 1000).long().numpy()
    assert np.array_equal(plane, T.PLACEMENT_ORIENTATION)
    for m in range(0, T.NUM_PLACEMENTS, 7):
        x_c, y_c = bounding_box_centre(m)
        assert square[m] == y_c * 20 + x_c
    # Two translations of one orientation read different squares, so get different logits.
    same = np.flatnonzero(T.PLACEMENT_ORIENTATION == T.PLACEMENT_ORIENTATION[12_345])
    assert len(set(square[same])) == len(same) and len(set(logits[same].tolist())) == len(same)


def test_conv_head_gather_index():
    net = build_model("b2c32conv", "blokus")
    index = net.policy_map.index
    assert index.dtype == torch.int64 and index.shape == (T.NUM_PLACEMENTS,)
    assert 0 <= index.min() and index.max() < T.NUM_ORIENTATIONS * T.NUM_SQUARES
    assert len(torch.unique(index)) == T.NUM_PLACEMENTS  # one (plane, square) per placement
    # A buffer (moves with .to(device)), left out of checkpoints: it derives from the tables.
    assert "policy_map.index" in dict(net.named_buffers())
    assert "policy_map.index" not in net.state_dict()
    assert net.to("meta").policy_map.index.device.type == "meta"


def test_conv_head_logits_depend_on_the_position():
    torch.manual_seed(2)
    net = build_model("b2c32conv", "blokus").eval()
    planes = torch.zeros(2, 33, 20, 20)
    planes[1, 0, 0, 0] = 1  # one square of the mover in the corner a1
    with torch.no_grad():
        logits, _ = net(planes)
    changed = (logits[0] - logits[1]).abs() > 1e-6
    # The 5 convolutions see 5 squares around a1: far placements cannot notice it, near ones do.
    anchors = net.policy_map.index % 400
    far = (anchors % 20 > 5) | (anchors // 20 > 5)
    assert changed.any() and not changed[far].any()


def test_pooled_value_head_sees_where_nothing_is_but_not_where():
    """The pooled head reads board-wide means: the same stones moved within the
    interior (beyond the trunk's 5-square reach from the edges) give the same value, which
    the paper's FC head, reading every square, does not."""
    torch.manual_seed(3)
    planes = torch.zeros(3, 33, 20, 20)
    planes[1, 0, 7:9, 7:9] = 1  # a 2x2 block of the mover's squares...
    planes[2, 0, 10:12, 9:11] = 1  # ...and the same block three rows down, two columns right
    for name, same in (("b2c32conv", True), ("b2c32", False)):
        net = build_model(name, "blokus").eval()
        with torch.no_grad():
            _, values = net(planes)
        assert not torch.allclose(values[0], values[1], atol=1e-6)
        assert torch.allclose(values[1], values[2], atol=1e-6) == same
    assert build_model("b2c32conv", "blokus").value_fc1.in_features == 32  # one mean per filter
