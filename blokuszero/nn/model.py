"""BlokusZero's residual policy-value network (SPEC §3, seed 004 §4.1).

Trunk: conv 3x3 + BN + ReLU, then residual blocks of two 3x3 convolutions (BN, ReLU, skip).
Policy head: conv 1x1 (2 filters) + BN + ReLU, fully connected to 30,433 logits.
Value head: conv 1x1 (4 filters) + BN + ReLU, FC 256 + ReLU, FC 4 + tanh, one value per
player in the mover's frame (see :mod:`.encoder`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .encoder import BOARD_SIZE, NUM_ACTIONS, NUM_PLANES, NUM_PLAYERS


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the network; the defaults other than ``blocks``/``filters`` are the paper's."""

    blocks: int  # residual blocks, two 3x3 convolutions each
    filters: int  # channels of every trunk convolution
    policy_filters: int = 2  # 1x1 convolution of the policy head
    value_filters: int = 4  # 1x1 convolution of the value head
    value_hidden: int = 256  # units of the value head's hidden FC layer
    input_planes: int = NUM_PLANES
    board_size: int = BOARD_SIZE
    num_actions: int = NUM_ACTIONS
    num_players: int = NUM_PLAYERS


#: Named sizes, KataGo style: b<blocks>c<filters>.
MODEL_SIZES: dict[str, ModelConfig] = {
    # Tests and smoke runs on a laptop CPU: the trunk is tiny; the policy FC (24M) stays.
    "b2c32": ModelConfig(blocks=2, filters=32),
    # CPU training runs: a trunk small enough for single-core self-play.
    "b4c64": ModelConfig(blocks=4, filters=64),
    # The paper's network (seed 004 §4.1), chosen there to train in about three months on 8 GPUs.
    "b10c128": ModelConfig(blocks=10, filters=128),
}


def _conv(in_channels: int, out_channels: int, kernel: int) -> nn.Conv2d:
    # Biases although BN follows: the paper counts them (3^2 x 33 x 128 + 128, ...).
    return nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=True)


class ResidualBlock(nn.Module):
    """x -> relu(x + bn(conv(relu(bn(conv(x))))))."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1 = _conv(filters, filters, 3)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = _conv(filters, filters, 3)
        self.bn2 = nn.BatchNorm2d(filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class PolicyValueNet(nn.Module):
    """The BlokusZero ResNet; ``forward(planes)`` gives (policy logits, values).

    Initialisation as in the paper: xavier for the last layer of each head (policy FC, value
    FC 4: the paper's layers 23 and 24), msra (He) for every other weight; biases zero.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        squares = c.board_size * c.board_size
        self.stem = nn.Sequential(_conv(c.input_planes, c.filters, 3), nn.BatchNorm2d(c.filters), nn.ReLU())
        self.blocks = nn.Sequential(*(ResidualBlock(c.filters) for _ in range(c.blocks)))
        self.policy_conv = nn.Sequential(_conv(c.filters, c.policy_filters, 1),
                                         nn.BatchNorm2d(c.policy_filters), nn.ReLU())
        self.policy_fc = nn.Linear(c.policy_filters * squares, c.num_actions)
        self.value_conv = nn.Sequential(_conv(c.filters, c.value_filters, 1),
                                        nn.BatchNorm2d(c.value_filters), nn.ReLU())
        self.value_fc1 = nn.Linear(c.value_filters * squares, c.value_hidden)
        self.value_fc2 = nn.Linear(c.value_hidden, c.num_players)
        self._initialise()

    def _initialise(self) -> None:
        xavier = {self.policy_fc, self.value_fc2}
        for module in self.modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                if module in xavier:
                    nn.init.xavier_uniform_(module.weight)
                else:
                    nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
                nn.init.zeros_(module.bias)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """planes [B, 33, 20, 20] -> (policy logits [B, 30433], values in [-1, 1] [B, 4])."""
        x = self.blocks(self.stem(planes))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        hidden = torch.relu(self.value_fc1(self.value_conv(x).flatten(1)))
        return logits, torch.tanh(self.value_fc2(hidden))
