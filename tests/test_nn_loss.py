"""The training loss ||z - v||^2 - pi . log P (SPEC §3) on hand-computed examples."""

from __future__ import annotations

import math

import pytest
import torch

from blokuszero.nn import policy_value_loss


def test_hand_computed_example():
    logits = torch.zeros(1, 3)
    values = torch.tensor([[0.5, 0.0, 0.0, 0.0]])
    pi = torch.tensor([[1.0, 0.0, 0.0]])
    z = torch.tensor([[1.0, -1.0, -1.0, -1.0]])
    losses = policy_value_loss(logits, values, pi, z)
    assert losses.value.item() == pytest.approx(0.25 + 1 + 1 + 1)
    assert losses.policy.item() == pytest.approx(math.log(3))  # P = 1/3 each
    assert losses.total.item() == pytest.approx(3.25 + math.log(3))
    masked = policy_value_loss(logits, values, pi, z, legal=torch.tensor([[True, True, False]]))
    assert masked.policy.item() == pytest.approx(math.log(2))  # P = 1/2 over the legal two


def test_batch_mean():
    logits = torch.tensor([[0.0, 0.0], [math.log(3), 0.0]])  # P = (1/2, 1/2), (3/4, 1/4)
    values = torch.zeros(2, 4)
    pi = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    z = torch.tensor([[1.0, 1, 1, 1], [1.0, 0, 0, 0]])
    losses = policy_value_loss(logits, values, pi, z)
    assert losses.value.item() == pytest.approx((4 + 1) / 2)
    assert losses.policy.item() == pytest.approx((math.log(2) + math.log(4 / 3)) / 2)


def test_masking_stays_finite_and_ignores_illegal_logits():
    torch.manual_seed(0)
    logits = torch.randn(4, 50)
    logits[:, 0] = 1e30  # huge illegal logits must not matter
    logits.requires_grad_(True)
    legal = torch.rand(4, 50) < 0.3
    legal[:, 0] = False
    legal[:, 1] = True
    pi = torch.rand(4, 50) * legal
    pi = pi / pi.sum(dim=1, keepdim=True)
    losses = policy_value_loss(logits, torch.zeros(4, 4), pi, torch.ones(4, 4), legal=legal)
    losses.total.backward()
    assert torch.isfinite(losses.policy) and torch.isfinite(logits.grad).all()
    assert not logits.grad[~legal].any()
    # The same as a softmax over the legal logits alone.
    row = legal[0]
    expected = -(pi[0, row] * torch.log_softmax(logits[0, row], dim=0)).sum()
    single = policy_value_loss(logits[:1], torch.zeros(1, 4), pi[:1], torch.ones(1, 4), legal=legal[:1])
    assert single.policy.item() == pytest.approx(expected.item())
