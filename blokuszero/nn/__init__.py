"""Networks, losses and batched inference (SPEC §3); games are reached through their encoders.

``model`` is the residual policy-value network with named sizes, ``loss`` the training loss,
``evaluator`` the network as the search core's evaluator, ``checkpoint`` the files. Input
planes, the mover's frame and symmetries come from each game's encoder
(:mod:`blokuszero.games.encoding`, :func:`blokuszero.games.registry.make_encoder`).
"""

from .evaluator import NetworkEvaluator
from .loss import Losses, policy_value_loss
from .model import MODEL_SIZES, POLICY_HEADS, ConvPolicyHead, ModelConfig, PolicyValueNet, ResidualBlock, build_model

__all__ = [
    "MODEL_SIZES", "POLICY_HEADS", "ConvPolicyHead", "Losses", "ModelConfig", "NetworkEvaluator",
    "PolicyValueNet", "ResidualBlock", "build_model", "policy_value_loss",
]
