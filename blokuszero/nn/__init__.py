"""Networks, input encoders, losses and symmetries for BlokusZero (SPEC §3).

``encoder`` turns Blokus positions into the 33 input planes and converts values to and from
the mover's frame, ``model`` is the residual policy-value network with named sizes, ``loss``
the training loss, ``augment`` the board symmetries on encoded data, ``evaluator`` the
network as the search core's evaluator.
"""

from ..games.blokus.augment import SEAT_MAP, transform_planes, transform_policy, transform_value
from ..games.blokus.encoder import (HISTORY, NUM_ACTIONS, NUM_PLANES, encode, encode_batch, from_mover_frame,
                      to_mover_frame)
from .evaluator import NetworkEvaluator
from .loss import Losses, policy_value_loss
from .model import (MODEL_SIZES, POLICY_HEADS, ConvPolicyHead, ModelConfig, PolicyValueNet, ResidualBlock,
                    build_model)

__all__ = [
    "HISTORY", "MODEL_SIZES", "NUM_ACTIONS", "NUM_PLANES", "POLICY_HEADS", "SEAT_MAP", "ConvPolicyHead",
    "Losses", "ModelConfig", "NetworkEvaluator", "PolicyValueNet", "ResidualBlock", "build_model",
    "encode", "encode_batch", "from_mover_frame", "policy_value_loss", "to_mover_frame",
    "transform_planes", "transform_policy", "transform_value",
]
