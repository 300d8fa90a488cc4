"""The learner: SGD on sampled positions, the paper's learning-rate schedule (SPEC §3)."""

from __future__ import annotations

import torch

from ..nn.loss import policy_value_loss
from .config import LearnerSettings
from .replay import TrainingBatch

__all__ = ["Learner", "LearnerSettings", "dense"]


def dense(index, values, num_actions: int, dtype, device: torch.device) -> torch.Tensor:
    """A batch's compact [B, K] ``index``/``values`` (padding -1) as a dense [B, num_actions] tensor."""
    index = torch.tensor(index, device=device)
    out = torch.zeros(index.shape[0], num_actions + 1, dtype=dtype, device=device)
    # Padding (-1) lands in the extra last column, then dropped.
    out.scatter_(1, torch.where(index < 0, num_actions, index), torch.tensor(values, device=device).to(dtype))
    return out[:, :num_actions]


class Learner:
    """Owns the model being trained and its optimiser; ``step`` counts updates done.
    ``score_weight > 0`` trains the model's score head too (it must have one)."""

    def __init__(self, model: torch.nn.Module, settings: LearnerSettings, device: str = "cpu",
                 score_weight: float = 0.0) -> None:
        if score_weight > 0 and not getattr(getattr(model, "config", None), "score_head", False):
            raise ValueError("a score weight needs a network with a score head (score_head=True)")
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.settings = settings
        self.score_weight = score_weight
        self.optimizer = torch.optim.SGD(model.parameters(), lr=settings.learning_rate,
                                         momentum=settings.momentum, weight_decay=settings.weight_decay)
        self.step = 0

    def to(self, device: str | torch.device) -> Learner:
        """Move the model and the optimiser's state (momentum) to ``device``."""
        self.device = torch.device(device)
        self.model.to(self.device)
        for state in self.optimizer.state.values():
            for key, value in state.items():
                if torch.is_tensor(value):
                    state[key] = value.to(self.device)
        return self

    def learning_rate(self, step: int) -> float:
        """The rate used for update number ``step`` (1-based)."""
        s = self.settings
        return s.learning_rate if step < s.lr_drop_step else s.lr_after

    def train_step(self, batch: TrainingBatch) -> dict[str, float]:
        """One SGD update; returns losses, policy entropy, mean value per seat and the rate."""
        self.step += 1
        lr = self.learning_rate(self.step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.model.train()
        planes = torch.tensor(batch.planes, device=self.device)  # Ray hands over read-only arrays
        if self.score_weight > 0:
            logits, values, scores = self.model.heads(planes)
        else:
            (logits, values), scores = self.model(planes), None
        num_actions = logits.shape[1]
        target_pi = dense(batch.policy_index, batch.policy_probs, num_actions, torch.float32, self.device)
        legal = dense(batch.legal_index, batch.legal_index >= 0, num_actions, torch.bool, self.device)
        target_z = torch.tensor(batch.values, device=self.device)
        target_scores = torch.tensor(batch.scores, device=self.device) if scores is not None else None
        losses = policy_value_loss(logits, values, target_pi, target_z, legal, scores, target_scores,
                                   self.score_weight)
        self.optimizer.zero_grad(set_to_none=True)
        losses.total.backward()
        self.optimizer.step()
        with torch.no_grad():
            log_p = torch.log_softmax(logits.masked_fill(~legal, float("-inf")), dim=1)
            entropy = -(log_p.exp() * log_p.masked_fill(~legal, 0.0)).sum(dim=1).mean()
            seat_values = values.mean(dim=0)
        metrics = {"loss/total": losses.total.item(), "loss/value": losses.value.item(),
                   "loss/policy": losses.policy.item(), "loss/score": losses.score.item(),
                   "policy/entropy": entropy.item(),
                   "train/learning_rate": lr}
        metrics.update({f"value/seat_{j}": float(v) for j, v in enumerate(seat_values)})
        return metrics

    def weights(self) -> dict[str, torch.Tensor]:
        """The model's weights on the CPU (what actors load)."""
        return {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}

    def state_dict(self) -> dict:
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "step": self.step}

    def load_state_dict(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = int(state["step"])
