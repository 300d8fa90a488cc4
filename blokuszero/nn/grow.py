"""Growing a trained network into a larger one with the same outputs (Net2Net's idea).

A network of more blocks and filters starts from a smaller trained one instead of from nothing:
the small network's weights fill the first channels of every layer, the weights from the new
channels into the old ones are zero (so the old channels compute what they computed), and every
new residual block ends in a batch norm of zero scale and shift, which makes it the identity on its
input (a block's input has been through a ReLU, so relu(x + 0) = x). The new channels keep the
larger network's own initialisation, so they are not copies of each other; the zero weights out of
them get gradients from the first step and the new capacity opens as training goes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch

from .model import ModelConfig

# Fields that must agree between the two networks: what they read and what they answer.
_SAME = ("input_planes", "board_size", "num_actions", "num_players", "policy_head", "value_head",
         "policy_filters", "score_head", "game")
# Fields the larger network may have more of.
_AT_LEAST = ("blocks", "filters", "value_filters", "value_hidden")
_NEW_BLOCK = re.compile(r"blocks\.(\d+)\.")


def growth_problems(small: ModelConfig, large: ModelConfig) -> list[str]:
    """Why ``small`` cannot grow into ``large`` (empty if it can)."""
    problems = [f"{name} {getattr(small, name)} (run: {getattr(large, name)})" for name in _SAME
                if getattr(small, name) != getattr(large, name)]
    problems += [f"{name} {getattr(small, name)} is more than the run's {getattr(large, name)}"
                 for name in _AT_LEAST if getattr(small, name) > getattr(large, name)]
    if small.value_head == "fc" and small.value_filters != large.value_filters:
        # The fc value head reads value_filters x squares inputs, laid out filter by filter.
        problems.append(f"value_filters {small.value_filters} (run: {large.value_filters}) of an fc value head")
    return problems


def grow(weights: Mapping[str, torch.Tensor], small: ModelConfig,
         fresh: Mapping[str, torch.Tensor], large: ModelConfig) -> dict[str, torch.Tensor]:
    """The weights of a ``large`` network that computes what the ``small`` one with ``weights``
    computes: ``fresh`` (an initialised ``large`` network's state dict, which gives the new
    channels and blocks their starting weights) with ``weights`` embedded as the module doc says.
    ValueError naming the difference if the shapes do not allow it."""
    problems = growth_problems(small, large)
    if problems:
        raise ValueError(f"a {small.blocks}-block, {small.filters}-filter network cannot grow into this "
                         f"run's model: {', '.join(problems)}")
    grown = {key: value.clone() for key, value in fresh.items()}
    for key, new in grown.items():
        old = weights.get(key)
        if old is None:
            block = _NEW_BLOCK.match(key)
            if block is None or int(block.group(1)) < small.blocks:
                raise ValueError(f"the network to grow has no {key}")
            if key.endswith(("bn2.weight", "bn2.bias")):
                new.zero_()  # the new block's residual branch adds nothing: the block is the identity
            continue
        if old.dim() == 0 or old.shape == new.shape:
            new.copy_(old)
            continue
        if old.dim() != new.dim() or any(o > n for o, n in zip(old.shape, new.shape, strict=True)):
            raise ValueError(f"{key} is {tuple(old.shape)} in the network to grow, {tuple(new.shape)} in the run's")
        new[tuple(slice(0, size) for size in old.shape)] = old
        if old.dim() >= 2:  # [out, in, ...]: nothing flows from a new input into an old output
            new[: old.shape[0], old.shape[1]:] = 0
    return grown

