"""BlokusZero's residual policy-value network (SPEC §3, seed 004 §4.1), for any game with an encoder.

Trunk: conv 3x3 + BN + ReLU, then residual blocks of two 3x3 convolutions (BN, ReLU, skip).
Policy head, ``policy_head="fc"`` (the paper's): conv 1x1 (2 filters) + BN + ReLU, fully
connected to one logit per action (30,433 for Blokus). ``policy_head="conv"`` (not in the
paper; for fast CPU runs, where the 24M-weight FC dominates the cost of a small net): see
:class:`ConvPolicyHead`. Value head, ``value_head="fc"`` (the paper's): conv 1x1 (4 filters) +
BN + ReLU, FC 256 + ReLU, FC P + tanh, one value per player in the mover's frame (see
:mod:`blokuszero.games.encoding`). ``value_head="pool"`` (not in the paper; for short runs): the
mean of each value filter over the board instead of every square (see :class:`PolicyValueNet`).

The game enters only through its encoder (:func:`blokuszero.games.registry.make_encoder` of
``ModelConfig.game``): the input planes, board size, actions, players and the policy map.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..games.encoding import Encoder, PolicyMap
from ..games.registry import make_encoder

POLICY_HEADS = ("fc", "conv")
VALUE_HEADS = ("fc", "pool")


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the network; the defaults other than ``blocks``/``filters`` are the paper's.

    The game's sizes (``input_planes`` ... ``num_players``) left at None are the encoder's of
    ``game``; checkpoints store them all, so that a stored network is rebuilt as it was.
    """

    blocks: int  # residual blocks, two 3x3 convolutions each
    filters: int  # channels of every trunk convolution
    policy_filters: int = 2  # 1x1 convolution of the policy head
    value_filters: int = 4  # 1x1 convolution of the value head
    value_hidden: int = 256  # units of the value head's hidden FC layer
    input_planes: int | None = None  # C of the encoder's planes
    board_size: int | None = None  # H = W
    num_actions: int | None = None  # policy outputs, one per action of the game
    num_players: int | None = None  # value outputs
    policy_head: str = "fc"  # one of POLICY_HEADS: "fc" (the paper's) or "conv"
    value_head: str = "fc"  # one of VALUE_HEADS: "fc" (the paper's) or "pool"
    score_head: bool = False  # KataGo's auxiliary head: each player's final score (not in the paper)
    game: str | None = None  # the registry name (blokus, go9, ...) whose encoder feeds it; None in MODEL_SIZES

    def __post_init__(self) -> None:
        if self.policy_head not in POLICY_HEADS:
            raise ValueError(f"policy_head {self.policy_head!r} is not one of {POLICY_HEADS}")
        if self.value_head not in VALUE_HEADS:
            raise ValueError(f"value_head {self.value_head!r} is not one of {VALUE_HEADS}")
        sizes = {"input_planes": "num_planes", "board_size": "board_size",
                 "num_actions": "num_actions", "num_players": "num_players"}
        if self.game is not None and any(getattr(self, field) is None for field in sizes):
            encoder = make_encoder(self.game)
            for field, attribute in sizes.items():
                if getattr(self, field) is None:
                    object.__setattr__(self, field, int(getattr(encoder, attribute)))


#: Named sizes, KataGo style: b<blocks>c<filters>; suffix "conv": no board-sized FC layer in
#: either head (the convolutional policy head and the pooled value head). The game is chosen
#: apart (``build_model(name, game)``), which fills in the sizes; the comments give Blokus' costs.
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


class ConvPolicyHead(nn.Module):
    """Policy logits gathered from a 1x1 convolution's planes, as the encoder's policy map says.

    The convolution gives ``policy_map.planes`` maps over the board; ``policy_map.globals``
    more logits (actions tied to no square, Go's pass) come from a linear layer on the
    board-averaged features. Action a's logit is cell ``policy_map.index[a]`` of the flattened
    [planes * H * W + globals] result; each game's encoder chooses the planes (e.g. one per
    piece orientation, or one of points plus a global pass logit).
    """

    def __init__(self, filters: int, policy_map: PolicyMap, board_size: int) -> None:
        super().__init__()
        cells = policy_map.planes * board_size * board_size + policy_map.globals
        if len(policy_map.index) and not 0 <= policy_map.index.min() <= policy_map.index.max() < cells:
            raise ValueError(f"the policy map reads cells up to {policy_map.index.max()}, but "
                             f"{policy_map.planes} planes of {board_size}x{board_size} and "
                             f"{policy_map.globals} globals have {cells}")
        self.planes = nn.Conv2d(filters, policy_map.planes, 1, bias=True)
        # No module (and so no weights) without globals: Blokus checkpoints stay as they were.
        self.globals = nn.Linear(filters, policy_map.globals) if policy_map.globals else None
        # A buffer so that .to(device) moves it; not persistent: it derives from the encoder,
        # and checkpoints should hold only weights.
        self.register_buffer("index", torch.from_numpy(policy_map.index), persistent=False)

    def cells(self, x: torch.Tensor) -> torch.Tensor:
        """Trunk features [B, C, H, W] -> the [B, planes * H * W + globals] map the logits are read from."""
        cells = self.planes(x).flatten(1)
        if self.globals is not None:
            cells = torch.cat([cells, self.globals(x.mean(dim=(2, 3)))], dim=1)
        return cells

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Trunk features [B, C, H, W] -> logits [B, A]."""
        return self.cells(x).index_select(1, self.index)


class PolicyValueNet(nn.Module):
    """The BlokusZero ResNet; ``forward(planes)`` gives (policy logits, values).

    ``config.game``'s encoder (``encoder``, where the caller has made it) gives the conv policy
    head its map (see :class:`ConvPolicyHead`).

    Initialisation as in the paper: xavier for the last layer of each head (policy FC, value
    FC 4: the paper's layers 23 and 24; the conv head's 1x1 convolution in place of the policy
    FC), msra (He) for every other weight; biases zero.
    """

    def __init__(self, config: ModelConfig, encoder: Encoder | None = None) -> None:
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
            policy_map = (encoder or make_encoder(c.game)).policy_map()
            if len(policy_map.index) != c.num_actions:
                raise ValueError(f"{c.game}'s policy map has {len(policy_map.index)} actions, "
                                 f"the network {c.num_actions}")
            self.policy_map = ConvPolicyHead(c.filters, policy_map, c.board_size)
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
        if c.score_head:  # a head of its own on the value head's features: no tanh, any scale
            self.score_fc1 = nn.Linear(value_inputs, c.value_hidden)
            self.score_fc2 = nn.Linear(c.value_hidden, c.num_players)
        self._initialise()

    @property
    def policy_out(self) -> nn.Module:
        """The policy head's last layer: the FC to the actions, or the 1x1 conv to the policy planes."""
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
        """planes [B, C, H, W] -> (policy logits [B, A], values in [-1, 1] [B, P])."""
        logits, values, _ = self.heads(planes, scores=False)
        return logits, values

    @property
    def action_cells(self) -> np.ndarray:
        """Action a's logit is ``cells(planes)[0][:, action_cells[a]]``: the conv head's policy
        map, or every action its own cell for the FC head."""
        if self.config.policy_head == "fc":
            return np.arange(self.config.num_actions)
        return self.policy_map.index.cpu().numpy()

    def cells(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """planes -> (policy cells [B, K], values [B, P]): the logits before the gather by
        :attr:`action_cells`, so that a search can read the legal moves' logits alone."""
        logits, values, _ = self.heads(planes, scores=False, gather=False)
        return logits, values

    def heads(self, planes: torch.Tensor, scores: bool = True, gather: bool = True):
        """planes -> (policy logits [B, A], values [B, P], scores [B, P] or None): the score
        head's output (each player's final score in the mover's frame, scaled by the encoder's
        ``score_scale``) where the network has one and ``scores`` asks for it. ``gather=False``
        gives the policy cells (:meth:`cells`) in place of the logits."""
        x = self.blocks(self.stem(planes))
        if self.config.policy_head == "fc":
            logits = self.policy_fc(self.policy_conv(x).flatten(1))
        elif gather:
            logits = self.policy_map(x)
        else:
            logits = self.policy_map.cells(x)
        v = self.value_conv(x)
        if self.config.value_head == "pool":
            v = v.mean(dim=(2, 3))
        v = v.flatten(1)
        values = torch.tanh(self.value_fc2(torch.relu(self.value_fc1(v))))
        predicted = None
        if scores and self.config.score_head:
            predicted = self.score_fc2(torch.relu(self.score_fc1(v)))
        return logits, values, predicted


def model_config(name: str, game: str, **overrides) -> ModelConfig:
    """The shape :func:`build_model` gives a network of the named size for ``game``, without
    building it (e.g. to compare with a stored network's ``model_config``)."""
    if name not in MODEL_SIZES:
        raise ValueError(f"unknown model size {name!r}; known sizes: {', '.join(MODEL_SIZES)}")
    sizes = {"input_planes": None, "board_size": None, "num_actions": None, "num_players": None}
    return dataclasses.replace(MODEL_SIZES[name], game=game, **{**sizes, **overrides})


def build_model(name: str, game: str, encoder: Encoder | None = None, **overrides) -> PolicyValueNet:
    """A freshly initialised network of the named size for ``game`` (a registry name), with
    ``ModelConfig`` fields overridden (e.g. ``build_model("b2c32", "blokus", policy_head="conv")``);
    ``encoder``: the game's, where the caller has made it."""
    return PolicyValueNet(model_config(name, game, **overrides), encoder)
