"""The network as the search core's evaluator: values and priors at a leaf (SPEC §3).

The search wants per-player values in absolute player order and priors over the legal moves
only, renormalised (SPEC §3: "Priors renormalised over legal moves"). The network gives
values in the mover's frame and one logit per action of the game; the conversion happens
here, through the game's encoder, and only the legal moves' logits leave the device.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from ..games.base import State
from ..games.encoding import Encoder
from ..search.evaluators import Evaluation, Evaluator
from .backends import make_forward


class NetworkEvaluator(Evaluator):
    """Batched network evaluation of leaves, with an optional transposition cache.

    ``encoder`` turns states into planes [B, C, H, W]; ``model.cells`` maps those to (policy
    cells [B, K], mover's-frame values [B, P]) and ``model.action_cells`` says which cell holds
    each action's logit, as :class:`.model.PolicyValueNet` does; ``backend`` (:data:`.backends.BACKENDS`)
    runs that forward pass, and only the legal moves' logits are read from it. The evaluator owns
    the model: it moves it to ``device`` and keeps it in eval mode, so train a separate copy and
    hand its weights over with :meth:`set_weights`.

    ``policy_temperature`` divides the logits before the softmax: above 1 flattens the priors.
    Only network players' specs set it; self-play's evaluators keep 1.

    ``cache_size > 0`` keeps the evaluations of the last ``cache_size`` distinct positions,
    keyed by ``state.key()`` (Blokus: squares and colour to move). Blokus reaches one position
    by several move orders; their inputs differ only in the history planes, and a cache hit
    returns the evaluation of the move order seen first. Cached arrays are read-only because
    they are shared between callers.

    Counters: ``evaluations`` (positions sent to the network), ``batches`` (forward passes),
    ``cache_hits`` and ``cache_misses``; ``version`` is the one given to :meth:`set_weights`
    (0 before).
    """

    provides_priors = True
    value_bounds = (-1.0, 1.0)

    def __init__(self, model: nn.Module, encoder: Encoder, device: str | torch.device = "cpu",
                 half: bool = False, cache_size: int = 0, backend: str = "torch",
                 policy_temperature: float = 1.0) -> None:
        config = getattr(model, "config", None)
        if config is not None:
            built = (config.input_planes, config.board_size, config.num_actions, config.num_players)
            wanted = (*encoder.shape[:2], encoder.num_actions, encoder.num_players)
            if built != wanted:
                raise ValueError(f"the network was built for {config.game} (planes, board, actions, "
                                 f"players = {built}), the encoder of {encoder.game.name} gives {wanted}")
        self.encoder = encoder
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        # float16 autocast only on CUDA: CPU autocast runs bfloat16 only, and is no faster
        # than float32 on most CPUs.
        self.half = half and self.device.type == "cuda"
        self.backend = backend
        self.action_cells = model.action_cells
        self.forward = make_forward(self.model, backend, encoder.shape, self.device, self.half)
        self.cache_size = cache_size
        if policy_temperature <= 0:
            raise ValueError(f"policy_temperature must be above 0, got {policy_temperature}")
        self.policy_temperature = policy_temperature
        self.cache: OrderedDict[int, Evaluation] = OrderedDict()
        self.version = 0
        self.evaluations = self.batches = self.cache_hits = self.cache_misses = 0

    def set_weights(self, state_dict: Mapping[str, torch.Tensor], version: int) -> None:
        """Load new weights; the cached evaluations came from the old ones, so drop them."""
        self.model.load_state_dict(state_dict)
        self.model.eval()
        self.forward = make_forward(self.model, self.backend, self.encoder.shape, self.device, self.half)
        self.cache.clear()
        self.version = version

    def evaluate(self, states: Sequence[State]) -> list[Evaluation]:
        if self.cache_size <= 0:
            return self._run(states)
        out: list[Evaluation | None] = [None] * len(states)
        todo: dict[int, list[int]] = {}  # key -> indices of the batch with that position
        for i, state in enumerate(states):
            key = state.key()
            if key in self.cache:
                self.cache.move_to_end(key)
                out[i] = self.cache[key]
                self.cache_hits += 1
            elif key in todo:  # a transposition within the batch: evaluated once
                todo[key].append(i)
                self.cache_hits += 1
            else:
                todo[key] = [i]
                self.cache_misses += 1
        fresh = self._run([states[idx[0]] for idx in todo.values()])
        for (key, idx), evaluation in zip(todo.items(), fresh):
            evaluation.value.flags.writeable = False
            evaluation.prior.flags.writeable = False
            self.cache[key] = evaluation
            for i in idx:
                out[i] = evaluation
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return out  # type: ignore[return-value]

    def _run(self, states: Sequence[State]) -> list[Evaluation]:
        """One forward pass over ``states``, none of them terminal."""
        if not states:
            return []
        legal = [s.legal_actions() for s in states]
        counts = np.array([len(a) for a in legal])
        index = np.zeros((len(states), counts.max()), np.int64)  # padding reads cell 0, masked below
        for row, actions in zip(index, legal):
            row[:len(actions)] = self.action_cells[actions]
        picked, values = self.forward(self.encoder.encode_batch(states), index)
        self.evaluations += len(states)
        self.batches += 1
        # float64: priors that sum to 1 to double precision.
        logits = np.where(np.arange(index.shape[1]) < counts[:, None],
                          picked.astype(np.float64) / self.policy_temperature, -np.inf)
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        priors /= priors.sum(axis=1, keepdims=True)
        movers = np.array([s.current_player() for s in states])
        values = self.encoder.from_mover_frame(values.astype(np.float64), movers)
        return [Evaluation(value=values[i].copy(), prior=priors[i, :n].copy()) for i, n in enumerate(counts)]
