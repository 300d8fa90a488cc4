"""Networks of several sizes trained side by side on one run's kept self-play, judged on held-out games.

Whether a larger network would learn more from the same self-play is a question of capacity that
a whole training run answers slowly. Here every network starts from one trained network (grown
into the larger sizes with its outputs unchanged, :mod:`blokuszero.nn.grow`), all of them take
the same minibatches in the same order from the run's older games, and their losses are measured
on positions of the run's newest games, which none of them trains on. The learners alternate
step by step, so that each one's CPU time per step is measured under the same load.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from ..games.registry import make_encoder
from ..match.stats import paired_difference
from ..nn.checkpoint import load_checkpoint, network_from, start_weights
from ..nn.loss import position_terms
from ..nn.model import build_model
from .config import LearnerSettings
from .learner import Learner, dense
from .replay import ReplayBuffer, TrainingBatch


@dataclass
class FitResult:
    """The held-out losses of each network after each measured step count, and its CPU per step."""

    models: list[str]
    steps: list[int] = field(default_factory=list)  # the step counts measured (0 first)
    value: dict[str, list[float]] = field(default_factory=dict)  # held-out value loss per step count
    policy: dict[str, list[float]] = field(default_factory=dict)  # held-out policy loss per step count
    # Each later network's loss minus the first's at the last step, paired by held-out game (the
    # mean of its positions' losses): stats.paired_difference's figures, "value" and "policy";
    # its "wins" are the games where the later network's loss is the higher.
    against_first: dict[str, dict[str, dict]] = field(default_factory=dict)
    cpu_per_step: dict[str, float] = field(default_factory=dict)  # process CPU seconds per SGD step
    # The mean entropy of the held-out policy targets: no network's policy loss on them is lower.
    target_entropy: float = 0.0
    train_games: int = 0
    heldout_games: int = 0
    heldout_positions: int = 0


def split_games(directory: str | Path, game: str, heldout: float) -> tuple[ReplayBuffer, ReplayBuffer]:
    """The games kept in a run's buffer ``directory``, oldest first, as two in-memory buffers: the
    older ``1 - heldout`` share to train on and the newest ``heldout`` share to judge by."""
    if not 0 < heldout < 1:
        raise ValueError(f"heldout must lie strictly between 0 and 1, not {heldout}")
    if not Path(directory).is_dir():
        raise ValueError(f"{directory} is not a directory (a run's buffer, e.g. runs/NAME/buffer)")
    encoder = make_encoder(game)
    kept = ReplayBuffer(10**9, encoder, directory)  # capacity above any run's: reading drops nothing
    games = [record for _, record in kept.games]
    cut = len(games) - max(1, round(heldout * len(games)))
    if cut < 1:
        raise ValueError(f"{directory} holds {len(games)} games: too few to hold some out")
    parts = ReplayBuffer(len(games), encoder), ReplayBuffer(len(games), encoder)
    for i, record in enumerate(games):
        parts[i >= cut].add(record)
    for part in parts:
        part.flush()
    return parts


def spread(buffer: ReplayBuffer, positions: int) -> list[tuple[int, int]]:
    """About ``positions`` positions ``(game, move)`` spread evenly over every game of ``buffer``
    (every k-th move, each game from another offset so that every phase is seen)."""
    buffer.flush()
    sizes = [record.num_positions for _, record in buffer.games]
    stride = max(1, -(-sum(sizes) // positions))
    return [(g, t) for g, n in enumerate(sizes) for t in range(g % stride, n, stride)]


def spread_positions(judge: ReplayBuffer, positions: int) -> tuple[TrainingBatch, np.ndarray]:
    """The batch of :func:`spread`'s positions of ``judge``, and the game of each."""
    which = spread(judge, positions)
    return judge.positions(which), np.array([g for g, _ in which])


def target_entropy(batch: TrainingBatch) -> float:
    """The mean entropy (nats) of ``batch``'s policy targets, over the positions that have one."""
    probs = batch.policy_probs.astype(np.float64)
    totals = probs.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = probs[totals > 0] / totals[totals > 0, None]
        terms = np.where(shares > 0, -shares * np.log(shares), 0.0)
    return float(terms.sum(axis=1).mean())


def position_losses(model: torch.nn.Module, batch: TrainingBatch, chunk: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """The value and the policy loss of ``model`` (eval mode) at each position of ``batch``, as
    the learner's loss weighs them; the policy loss is NaN where a position has no policy target."""
    model.eval()
    cpu = torch.device("cpu")
    value, policy = np.empty(len(batch.planes)), np.empty(len(batch.planes))
    with torch.no_grad():
        for start in range(0, len(batch.planes), chunk):
            rows = slice(start, min(len(batch.planes), start + chunk))
            logits, values = model(torch.from_numpy(batch.planes[rows]))
            actions = logits.shape[1]
            target_pi = dense(batch.policy_index[rows], batch.policy_probs[rows], actions, torch.float32, cpu)
            legal = dense(batch.legal_index[rows], batch.legal_index[rows] >= 0, actions, torch.bool, cpu)
            value_terms, policy_terms = position_terms(logits, values, target_pi,
                                                       torch.from_numpy(batch.values[rows]), legal)
            value[rows] = value_terms.numpy()
            policy[rows] = np.where(target_pi.sum(dim=1).numpy() > 0, policy_terms.numpy(), np.nan)
    return value, policy


def _by_game(losses: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The mean of each game's positions (those with a figure)."""
    return np.array([np.nanmean(losses[games == g]) for g in np.unique(games)])


def fit(buffer: str | Path, start: str | Path, models: Sequence[str], steps: int, settings: LearnerSettings,
        measure_every: int, heldout: float = 0.1, heldout_positions: int = 4096, seed: int = 0,
        report=print) -> FitResult:
    """Train one network of each named size (``models``), all from ``start``, for ``steps`` SGD steps
    on the same minibatches of ``buffer``'s older games; held-out losses every ``measure_every`` steps."""
    state = load_checkpoint(start)
    game = network_from(state)[0].config.game
    train, judge = split_games(buffer, game, heldout)
    judged, judged_games = spread_positions(judge, heldout_positions)
    learners = {}
    for name in models:
        torch.manual_seed(seed)
        model = build_model(name, game)
        weights, _ = start_weights(start, dataclasses.asdict(model.config), model.state_dict())
        model.load_state_dict(weights)
        learners[name] = Learner(model, settings)
    result = FitResult(list(models), train_games=train.num_games, heldout_games=judge.num_games,
                       heldout_positions=len(judged.planes), target_entropy=target_entropy(judged))
    cpu = dict.fromkeys(models, 0.0)
    latest: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def measure(step: int) -> None:
        result.steps.append(step)
        for name, learner in learners.items():
            latest[name] = position_losses(learner.model, judged)
            result.value.setdefault(name, []).append(float(np.mean(latest[name][0])))
            result.policy.setdefault(name, []).append(float(np.nanmean(latest[name][1])))
        report(f"step {step}: " + ", ".join(f"{name} value {result.value[name][-1]:.4f} policy "
                                            f"{result.policy[name][-1]:.4f}" for name in models))

    measure(0)
    rng = np.random.default_rng(seed)
    for step in range(1, steps + 1):
        batch = train.sample(settings.batch_size, rng)
        order = list(learners.items()) if step % 2 else list(learners.items())[::-1]
        for name, learner in order:
            began = time.process_time()
            learner.train_step(batch)
            cpu[name] += time.process_time() - began
        if step % measure_every == 0 or step == steps:
            measure(step)
    result.cpu_per_step = {name: cpu[name] / steps for name in models}
    first = models[0]
    for name in models[1:]:
        result.against_first[name] = {
            kind: paired_difference(_by_game(latest[name][k], judged_games), _by_game(latest[first][k], judged_games))
            for k, kind in enumerate(("value", "policy"))}
    return result
