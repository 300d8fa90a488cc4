"""BlokusZero's residual policy-value network (SPEC §3, seed 004 §4.1).

Trunk: conv 3x3 + BN + ReLU, then residual blocks of two 3x3 convolutions (BN, ReLU, skip).
Policy head, ``policy_head="fc"`` (the paper's): conv 1x1 (2 filters) + BN + ReLU, fully
connected to 30,433 logits. ``policy_head="conv"`` (not in the paper; for fast CPU runs, where
the 24M-weight FC dominates the cost of a small net): see :class:`ConvPolicyHead`.
Value head, ``value_head="fc"`` (the paper's): conv 1x1 (4 filters) + BN + ReLU, FC 256 + ReLU,
FC 4 + tanh, one value per player in the mover's frame (see :mod:`.encoder`).
``value_head="pool"`` (not in the paper; for short runs): see :class:`PooledValueHead`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..games.blokus import tables as T
from ..games.blokus.encoder import BOARD_SIZE, NUM_ACTIONS, NUM_PLANES, NUM_PLAYERS

POLICY_HEADS = ("fc", "conv")
VALUE_HEADS = ("fc", "pool")


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
    policy_head: str = "fc"  # one of POLICY_HEADS: "fc" (the paper's) or "conv"
    value_head: str = "fc"  # one of VALUE_HEADS: "fc" (the paper's) or "pool"

    def __post_init__(self) -> None:
        if self.policy_head not in POLICY_HEADS:
            raise ValueError(f"policy_head {self.policy_head!r} is not one of {POLICY_HEADS}")
        if self.value_head not in VALUE_HEADS:
            raise ValueError(f"value_head {self.value_head!r} is not one of {VALUE_HEADS}")


#: Named sizes, KataGo style: b<blocks>c<filters>; suffix "conv": no board-sized FC layer in
#: either head (the convolutional policy head and the pooled value head).
MODEL_SIZES: dict[str, ModelConfig] = {
    # Tests and smoke runs on a laptop CPU: the trunk is tiny; the policy FC (24M) stays.
    "b2c32": ModelConfig(blocks=2, filters=32),
    # CPU training runs: a trunk small enough for single-core self-play.
    "b4c64": ModelConfig(blocks=4, filters=64),
    # The paper's network (seed 004 §4.1), chosen there to train in about three months on 8 GPUs.
    "b10c128": ModelConfig(blocks=10, filters=128),
    # The same small trunks without the 24M-weight policy FC (fast CPU self-play) and with a
    # pooled value head (32 filters, 64 hidden units) that learns from few games.
    "b2c32conv": ModelConfig(blocks=2, filters=32, policy_head="conv", value_head="pool",
                             value_filters=32, value_hidden=64),
    "b4c64conv": ModelConfig(blocks=4, filters=64, policy_head="conv", value_head="pool",
                             value_filters=64, value_hidden=128),
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


def _placement_anchors() -> np.ndarray:
    """[30433] square of each placement's anchor: the centre of its bounding box (rounded
    down and to the left), i.e. the translation offset plus a constant per orientation."""
    cells = T.PLACEMENTS.astype(np.int64)
    real = cells >= 0
    x, y = cells % T.BOARD_SIZE, cells // T.BOARD_SIZE
    big = T.BOARD_SIZE  # ignored by min (padding)
    x_lo, x_hi = np.where(real, x, big).min(1), np.where(real, x, -1).max(1)
    y_lo, y_hi = np.where(real, y, big).min(1), np.where(real, y, -1).max(1)
    return (y_lo + (y_hi - y_lo) // 2) * T.BOARD_SIZE + x_lo + (x_hi - x_lo) // 2


class ConvPolicyHead(nn.Module):
    """Policy logits from a 1x1 convolution to one plane per piece orientation (91).

    The logit of placement m is plane ``PLACEMENT_ORIENTATION[m]`` at the placement's anchor
    square. Within one orientation the placements are the translations of one shape, so
    anchor = translation offset + a constant and every placement owns one (plane, square)
    cell. The constant puts the anchor at the centre of the bounding box rather than its
    corner: a 1x1 convolution sees only the trunk's receptive field around the anchor
    (radius 5 squares for 2 blocks), and from the centre the piece's cells and the edge and
    corner neighbours that decide its legality lie within 3 squares, against 5 from the corner.
    """

    def __init__(self, filters: int, board_size: int, num_actions: int) -> None:
        super().__init__()
        if (board_size, num_actions) != (T.BOARD_SIZE, T.NUM_PLACEMENTS):
            raise ValueError(f"the conv policy head is built on the Blokus placement table "
                             f"({T.BOARD_SIZE}x{T.BOARD_SIZE}, {T.NUM_PLACEMENTS} actions), "
                             f"not {board_size}x{board_size}, {num_actions}")
        self.planes = nn.Conv2d(filters, T.NUM_ORIENTATIONS, 1, bias=True)
        index = T.PLACEMENT_ORIENTATION.astype(np.int64) * T.NUM_SQUARES + _placement_anchors()
        # A buffer so that .to(device) moves it; not persistent: it derives from the tables,
        # and checkpoints should hold only weights.
        self.register_buffer("index", torch.from_numpy(index), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Trunk features [B, C, 20, 20] -> logits [B, 30433] (via the [B, 91, 400] map)."""
        return self.planes(x).flatten(1).index_select(1, self.index)


class PolicyValueNet(nn.Module):
    """The BlokusZero ResNet; ``forward(planes)`` gives (policy logits, values).

    Initialisation as in the paper: xavier for the last layer of each head (policy FC, value
    FC 4: the paper's layers 23 and 24; the conv head's 1x1 convolution in place of the policy
    FC), msra (He) for every other weight; biases zero.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        squares = c.board_size * c.board_size
        self.stem = nn.Sequential(_conv(c.input_planes, c.filters, 3), nn.BatchNorm2d(c.filters), nn.ReLU())
        self.blocks = nn.Sequential(*(ResidualBlock(c.filters) for _ in range(c.blocks)))
        if c.policy_head == "fc":
            self.policy_conv = nn.Sequential(_conv(c.filters, c.policy_filters, 1),
                                             nn.BatchNorm2d(c.policy_filters), nn.ReLU())
            self.policy_fc = nn.Linear(c.policy_filters * squares, c.num_actions)
        else:
            self.policy_map = ConvPolicyHead(c.filters, c.board_size, c.num_actions)
        self.value_conv = nn.Sequential(_conv(c.filters, c.value_filters, 1),
                                        nn.BatchNorm2d(c.value_filters), nn.ReLU())
        # "pool" reads the value from the mean of each filter over the board instead of from
        # every square: filters inputs, not filters x 400. Counting squares per colour is then
        # one weight per filter, and the head has far fewer weights with which to memorise the
        # few hundred games of a short run. (Board-wide maxima, tried too, are several times
        # larger than means and drove tanh into saturation at the CPU default's learning rate.)
        value_inputs = c.value_filters if c.value_head == "pool" else c.value_filters * squares
        self.value_fc1 = nn.Linear(value_inputs, c.value_hidden)
        self.value_fc2 = nn.Linear(c.value_hidden, c.num_players)
        self._initialise()

    @property
    def policy_out(self) -> nn.Module:
        """The policy head's last layer: the FC to 30,433, or the 1x1 conv to 91 planes."""
        return self.policy_fc if self.config.policy_head == "fc" else self.policy_map.planes

    def _initialise(self) -> None:
        xavier = {self.policy_out, self.value_fc2}
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
        if self.config.policy_head == "fc":
            logits = self.policy_fc(self.policy_conv(x).flatten(1))
        else:
            logits = self.policy_map(x)
        v = self.value_conv(x)
        if self.config.value_head == "pool":
            v = v.mean(dim=(2, 3))
        hidden = torch.relu(self.value_fc1(v.flatten(1)))
        return logits, torch.tanh(self.value_fc2(hidden))


def build_model(name: str, **overrides) -> PolicyValueNet:
    """A freshly initialised network of the named size, with ``ModelConfig`` fields overridden
    (e.g. ``build_model("b2c32", policy_head="conv")``)."""
    if name not in MODEL_SIZES:
        raise ValueError(f"unknown model size {name!r}; known sizes: {', '.join(MODEL_SIZES)}")
    return PolicyValueNet(dataclasses.replace(MODEL_SIZES[name], **overrides))
