"""The BlokusZero training loss ``E = ||z - v||^2 - pi . log P + c ||theta||^2`` (SPEC §3).

The value term sums over the 4 players (range 0..16, which the paper left unscaled), both
terms are averaged over the batch; the policy term over the positions that have a policy target
(playout cap randomisation leaves fast-searched positions without one: Wu 2019). The ``c
||theta||^2`` term is not computed here: the optimiser applies it as weight decay (SGD
``weight_decay=1e-4``; for plain SGD that is the gradient of ``(1e-4 / 2) ||theta||^2``).

Not in the paper: KataGo's auxiliary score target, ``score_weight * ||s - s_hat||^2`` over the
players (each player's final score, scaled by the game's encoder), when the network has a score
head.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Losses:
    """Batch means: ``total = value + policy``; each a scalar tensor."""

    total: torch.Tensor
    value: torch.Tensor
    policy: torch.Tensor
    score: torch.Tensor  # the auxiliary score term before its weight (0 without a score head)


def position_terms(logits: torch.Tensor, values: torch.Tensor, target_policy: torch.Tensor,
                   target_values: torch.Tensor, legal: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Each position's value term and policy (cross-entropy) term, [B] each, as
    :func:`policy_value_loss` averages them (the policy term is 0 where a row has no target)."""
    value = (target_values - values).square().sum(dim=1)
    if legal is None:
        log_p = torch.log_softmax(logits, dim=1)
    else:
        log_p = torch.log_softmax(logits.masked_fill(~legal, float("-inf")), dim=1)
        # log P is -inf off the legal moves, and 0 * -inf would be NaN where pi is 0 there.
        log_p = log_p.masked_fill(~legal, 0.0)
    return value, -(target_policy * log_p).sum(dim=1)


def policy_value_loss(logits: torch.Tensor, values: torch.Tensor, target_policy: torch.Tensor,
                      target_values: torch.Tensor, legal: torch.Tensor | None = None,
                      scores: torch.Tensor | None = None, target_scores: torch.Tensor | None = None,
                      score_weight: float = 0.0) -> Losses:
    """Loss of a batch.

    Args:
      logits: [B, A] policy logits.
      values: [B, P] predicted values, mover's frame.
      target_policy: [B, A] pi, normalised root visit counts (zero off the legal moves); a row
        of zeros: no policy target (the row is left out of the policy term's mean).
      target_values: [B, P] z, game outcomes (+1 win, -1 loss), mover's frame.
      legal: optional [B, A] bool; when given, the softmax P runs over legal moves only
        (illegal logits count as -inf), otherwise over all A outputs as in the paper.
      scores, target_scores: optional [B, P] predicted and final scores (mover's frame, scaled);
        their squared error, summed over players and averaged, enters with ``score_weight``.
    Returns:
      :class:`Losses` with the total, the value term, the policy (cross-entropy) term and the
      score term.
    """
    value_terms, policy_terms = position_terms(logits, values, target_policy, target_values, legal)
    value_loss = value_terms.mean()
    with_target = (target_policy.sum(dim=1) > 0).sum().clamp(min=1)
    policy_loss = policy_terms.sum() / with_target
    score_loss = torch.zeros((), device=logits.device)
    if scores is not None:
        score_loss = (target_scores - scores).square().sum(dim=1).mean()
    return Losses(total=value_loss + policy_loss + score_weight * score_loss, value=value_loss,
                  policy=policy_loss, score=score_loss)
