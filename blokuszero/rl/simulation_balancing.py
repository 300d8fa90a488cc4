"""Learning simulation policies: Apprenticeship Learning against Policy-Gradient Simulation
Balancing (SPEC §6; seed 002, after Silver and Tesauro, "Monte-Carlo Simulation Balancing", 2009).

Training data (:func:`sample_states`, :func:`label_states`): distinct states, each drawn from a
fresh uniformly random game among its states not drawn before; V*(s) the mean outcome of
10,000 UCT simulations from s (the search core's MCTS, UCB1, uniform playouts), a*(s) the root
move with the highest mean reward for the mover; or, for small games, the exact minimax values
(``simulations=0``, :func:`exact_values`). Cached on disk with the settings that made
them (:func:`load_or_label`), resumable every ``chunk`` states.

Updates, for a linear softmax policy (:class:`LinearSoftmaxPolicy`) with learning rate alpha:

- AL (Apprenticeship Learning): ``theta += alpha psi(s, a*)``, ``psi = grad log pi``;
- SB (Algorithm 1): ``V = mean z`` over M playouts, ``g = sum z / (N T) sum_t psi(s_t, a_t)``
  over N further playouts, ``theta += alpha (V*(s) - V) g``; T is the playout's steps
  (s_1 .. s_T), the sum over its choices (a forced move's psi is 0). Two named variants
  (:class:`TrainSettings`): ``gradient="phi"`` sums ``phi`` as the seed paper's pseudo-code
  prints it (Silver and Tesauro's has ``psi``, the gradient of the mean outcome: the tests check
  it against finite differences); ``length="choices"`` divides by the choices instead of the
  steps (this module's reading until 2026-11-28).

Outcomes z are one reference role's (default the first), +1 / 0 / -1 for a win / draw / loss.
An epoch is one update per training state, in the data's order; after each (and before the
first: theta = 0 is uniform random) the test error is measured (:func:`evaluate`). Each epoch's
playouts draw from numba's generator seeded from (seed, epoch), every evaluation's from the
same seed (common random numbers), so a run resumed from its checkpoint repeats an unbroken
one exactly.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ..files import write_atomic
from ..games.base import Game, State
from ..games.numba_random import seed_numba
from ..search.evaluators import RolloutEvaluator
from ..search.mcts import MCTS, MCTSConfig
from ..search.selection import UCB1

log = logging.getLogger(__name__)

METHODS = ("al", "sb")
GRADIENTS = ("psi", "phi")  # what g sums: grad log pi (Silver and Tesauro), or phi as printed
LENGTHS = ("steps", "choices")  # T: the playout's steps (the paper's s_1 .. s_T), or its choices


def check_variant(name: str, value: str, known: tuple[str, ...]) -> None:
    """A one-line ValueError unless ``value`` is one of ``known``."""
    if value not in known:
        raise ValueError(f"unknown {name} {value!r}; known: {', '.join(known)}")


class LinearSoftmaxPolicy(Protocol):
    """What the learners need of ``pi(s, a) ∝ exp(phi(s, a) . theta)``; gradients are sparse
    (indices into theta, values)."""

    theta: np.ndarray  # [F] feature weights, updated in place

    def probabilities(self, state: State, role: int | None = None
                      ) -> tuple[np.ndarray, np.ndarray]: ...

    def log_gradient(self, state: State, action: int, role: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray]: ...

    def outcomes(self, state: State, sims: int, role: int = 0) -> np.ndarray: ...

    def outcome_gradient(self, state: State, sims: int, role: int = 0, use_phi: bool = False,
                         per_step: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


# ---------------------------------------------------------------- training data
def replay(game: Game, path: Sequence[int]) -> State:
    """The state reached from the initial state by the actions ``path``."""
    state = game.new_initial_state()
    for a in path:
        state.apply_action(int(a))
    return state


def sample_states(game: Game, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``count`` distinct non-terminal states as action paths from the initial state: play a
    uniformly random game, take one of its states not taken before (uniformly), repeat.
    Turn-taking games only (one mover per state)."""
    if count < 1:
        raise ValueError(f"count must be >= 1, not {count}")
    seen: set[int] = set()
    paths: list[np.ndarray] = []
    games = 0
    while len(paths) < count:
        games += 1
        if games > 1000 * count:
            raise ValueError(f"{game.name}: found only {len(paths)} distinct states of {count}")
        state = game.new_initial_state()
        path: list[int] = []
        fresh: dict[int, list[int]] = {}
        while not state.is_terminal():
            p = state.current_player()
            if p < 0:
                raise ValueError(f"{game.name}: state sampling needs turn-taking games "
                                 f"(a state with mover {p} was reached)")
            key = state.key()
            if key not in seen and key not in fresh:
                fresh[key] = list(path)
            a = int(rng.choice(state.legal_actions()))
            state.apply_action(a)
            path.append(a)
        if fresh:
            keys = list(fresh)
            key = keys[int(rng.integers(len(keys)))]
            seen.add(key)
            paths.append(np.array(fresh[key], dtype=np.int64))
    return paths


@dataclass(frozen=True)
class LabelSettings:
    """What made a set of labelled states (stored beside them; a cache with others is remade)."""

    game: str  # the game's name
    digest: str  # the rules' digest (a different sheet of the same name is a different game)
    states: int  # how many states
    seed: int  # the seed of the sampling and of the searches
    simulations: int = 10_000  # UCT simulations per state; 0: exact minimax (small games)
    c: float = 0.7  # UCB1's exploration constant on [0, 1] rewards (the GGP player's)
    role: int = 0  # the role whose outcome V* is
    draw: int = 0  # which independent draw of states of this seed (the test set's is 1)

    def stream(self, *key: int) -> np.random.Generator:
        """The generator of this draw's sampling (``key`` 0) or state ``k``'s search (1, k)."""
        return np.random.default_rng([self.seed, *key] + ([self.draw] if self.draw else []))


def exact_values(game: Game, states: Sequence[State], role: int = 0) -> tuple[list[float], list[set[int]]]:
    """Exact minimax values (of ``role``, on -1..1) and the optimal moves of two-player
    zero-sum turn-taking ``states`` by memoised search (small games only)."""
    memo: dict[int, float] = {}

    def children(state) -> dict[int, float]:
        """Each legal move's child value, signed so that the mover maximises it."""
        sign = 1 if state.current_player() == role else -1
        kids = {}
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(int(a))
            kids[int(a)] = sign * value(child)
        return kids

    def value(state) -> float:
        key = state.key()
        if key not in memo:
            if state.is_terminal():
                lo, hi = game.min_utility, game.max_utility  # onto -1 .. 1
                memo[key] = 2.0 * (float(state.returns()[role]) - lo) / (hi - lo) - 1.0
            else:
                sign = 1 if state.current_player() == role else -1
                memo[key] = sign * max(children(state).values())
        return memo[key]

    values, best = [], []
    for s in states:
        values.append(value(s))
        kids = children(s)
        top = max(kids.values())
        best.append({a for a, v in kids.items() if v == top})
    return values, best


def label_states(game: Game, paths: Sequence[np.ndarray], settings: LabelSettings,
                 first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(V*, a*) of each state: V* the mean outcome of the reference role over
    ``settings.simulations`` UCT simulations, rescaled to [-1, 1]; a* the root move with the
    highest mean reward for the mover. ``paths[i]`` is state number ``first + i`` of the data,
    whose search is seeded by (seed, number). ``simulations=0``: the exact minimax values and
    the first optimal move (:func:`exact_values`; small games only)."""
    if settings.simulations == 0:
        exact, optimal = exact_values(game, [replay(game, p) for p in paths], settings.role)
        return np.array(exact), np.array([min(o) for o in optimal], dtype=np.int64)
    values, best = [], []
    for k, path in enumerate(paths, start=first):
        rng = settings.stream(1, k)
        state = replay(game, path)
        mcts = MCTS(game, MCTSConfig(simulations=settings.simulations, reuse_tree=False),
                    UCB1(c=settings.c), RolloutEvaluator(rng=rng.spawn(1)[0]), rng)
        result = mcts.search(state)
        mover = state.current_player()
        mean = np.where(result.visits > 0, result.values[:, mover], -np.inf)
        best.append(int(result.actions[int(np.argmax(mean))]))
        values.append(2.0 * float(result.root_value[settings.role]) - 1.0)
    return np.array(values), np.array(best, dtype=np.int64)


@dataclass
class LabelledStates:
    """States (as action paths), their V* and a*, and the settings that made them."""

    paths: list[np.ndarray]
    value: np.ndarray  # [S] V*(s) in [-1, 1] for settings.role
    best: np.ndarray  # [S] a*(s)
    settings: LabelSettings

    def states(self, game: Game) -> list[State]:
        return [replay(game, p) for p in self.paths]

    def split(self, first: int) -> tuple[LabelledStates, LabelledStates]:
        """The first ``first`` states and the rest."""
        return (LabelledStates(self.paths[:first], self.value[:first], self.best[:first],
                               self.settings),
                LabelledStates(self.paths[first:], self.value[first:], self.best[first:],
                               self.settings))


def _save_labels(path: Path, paths: list[np.ndarray], value: np.ndarray, best: np.ndarray,
                 settings: LabelSettings) -> None:
    lengths = np.array([len(p) for p in paths], dtype=np.int64)
    flat = np.concatenate(paths) if paths else np.zeros(0, dtype=np.int64)

    def write(f) -> None:
        np.savez(f, lengths=lengths, moves=flat, value=value, best=best,
                 settings=json.dumps(asdict(settings)))

    write_atomic(path, write)


def _read_labels(path: Path) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, dict]:
    with np.load(path) as data:
        cuts = np.cumsum(data["lengths"])[:-1]
        paths = np.split(data["moves"], cuts) if len(data["lengths"]) else []
        return paths, data["value"], data["best"], json.loads(str(data["settings"]))


def load_or_label(game: Game, path: str | Path, settings: LabelSettings,
                  chunk: int = 25, workers: int = 1) -> LabelledStates:
    """The labelled states cached at ``path`` if made with ``settings``; otherwise they are
    sampled and labelled, the file rewritten every ``chunk`` states (an interrupted run goes
    on from there). ``workers`` processes label chunks side by side; as each state's search
    is seeded by its number, the labels do not depend on how many. States are drawn in
    sequence and labelled by number, so a cache of more states of otherwise the same settings
    serves their first ``settings.states``, and one of fewer is extended."""
    path = Path(path)
    paths = value = best = None
    if path.exists():
        paths, value, best, stored = _read_labels(path)
        stored = asdict(LabelSettings(**stored))  # older files lack the newer fields' defaults
        if {**stored, "states": 0} != {**asdict(settings), "states": 0}:
            log.warning("%s was made with %s; remaking it for %s", path, stored, asdict(settings))
            paths = None
        elif len(value) >= settings.states:
            n = settings.states
            return LabelledStates(paths[:n], value[:n], best[:n], settings)
        else:  # fewer states labelled: the same draw, longer, labelled on from there
            paths = sample_states(game, settings.states, settings.stream(0))
    if paths is None:
        paths = sample_states(game, settings.states, settings.stream(0))
        value, best = np.zeros(0), np.zeros(0, dtype=np.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    _save_labels(path, paths, value, best, settings)
    pool = None
    if workers > 1 and len(value) < len(paths):
        import concurrent.futures
        import multiprocessing

        pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"))
    try:
        while len(value) < len(paths):
            starts = range(len(value), len(paths), chunk)[:workers]
            jobs = [(k, paths[k:k + chunk]) for k in starts]
            if pool is None:
                done = [label_states(game, p, settings, k) for k, p in jobs]
            else:
                done = list(pool.map(label_states, [game] * len(jobs), [p for _, p in jobs],
                                     [settings] * len(jobs), [k for k, _ in jobs]))
            value = np.concatenate([value] + [v for v, _ in done])
            best = np.concatenate([best] + [b for _, b in done])
            _save_labels(path, paths, value, best, settings)
            log.info("%s: labelled %d / %d states", path, len(value), len(paths))
    finally:
        if pool is not None:
            pool.shutdown()
    return LabelledStates(paths, value, best, settings)


# ---------------------------------------------------------------- learning
def al_update(policy: LinearSoftmaxPolicy, state: State, best: int, alpha: float) -> None:
    """Apprenticeship Learning: ``theta += alpha psi(s, a*)``."""
    idx, psi = policy.log_gradient(state, best)
    policy.theta[idx] += alpha * psi


def sb_update(policy: LinearSoftmaxPolicy, state: State, value: float, alpha: float, M: int,
              N: int, role: int = 0, gradient: str = "psi", length: str = "steps") -> float:
    """Policy-gradient simulation balancing (Algorithm 1) on one state; returns V - V*.
    ``gradient`` and ``length`` name the variant (:data:`GRADIENTS`, :data:`LENGTHS`)."""
    check_variant("gradient", gradient, GRADIENTS)
    check_variant("length", length, LENGTHS)
    v = float(policy.outcomes(state, M, role).mean())
    idx, g, _ = policy.outcome_gradient(state, N, role, gradient == "phi", length == "steps")
    policy.theta[idx] += alpha * (value - v) * g
    return v - value


@dataclass(frozen=True)
class TrainSettings:
    """A learning run (the seed paper's values by default)."""

    method: str  # al | sb
    epochs: int = 50
    alpha: float = 0.01  # learning rate (the paper: 1 and 0.1 skew the policy at once)
    M: int = 100  # SB: playouts estimating V
    N: int = 100  # SB: playouts estimating g
    test_sims: int = 100  # playouts per test state after each epoch
    seed: int = 0
    role: int = 0  # the role whose outcomes are learned
    train_eval: bool = False  # also measure the errors on the training states after each epoch
    gradient: str = "psi"  # SB: what g sums (GRADIENTS)
    length: str = "steps"  # SB: what T counts (LENGTHS)

    def __post_init__(self) -> None:
        check_variant("method", self.method, METHODS)
        check_variant("gradient", self.gradient, GRADIENTS)
        check_variant("length", self.length, LENGTHS)
        if min(self.epochs, self.M, self.N, self.test_sims) < 1 or self.alpha <= 0:
            raise ValueError(f"epochs, M, N, test_sims must be >= 1 and alpha > 0: {self}")


def epoch_seed(seed: int, epoch: int, stream: int) -> int:
    """numba's seed for one epoch's training (stream 0) or the evaluations (stream 1)."""
    return int(np.random.SeedSequence([seed, epoch, stream]).generate_state(1)[0] >> 1)


def evaluate(policy: LinearSoftmaxPolicy, states: Sequence[State], values: np.ndarray,
             sims: int, role: int = 0) -> dict[str, float]:
    """The paper's two errors against V*: ``mse_mean``, the mean over states of (mean of
    ``sims`` outcomes - V*)^2, and ``mse_single``, the mean of (z - V*)^2 over every single
    playout; ``top_prob``, the mean probability of the mover's likeliest move (1 = deterministic)."""
    sq_mean, sq_single, top = [], [], []
    for state, v in zip(states, values):
        z = policy.outcomes(state, sims, role)
        sq_mean.append((z.mean() - v) ** 2)
        sq_single.append(np.mean((z - v) ** 2))
        top.append(policy.probabilities(state)[1].max())
    return {"mse_mean": float(np.mean(sq_mean)), "mse_single": float(np.mean(sq_single)),
            "top_prob": float(np.mean(top))}


def train(policy: LinearSoftmaxPolicy, settings: TrainSettings, train_data: LabelledStates,
          test_data: LabelledStates, game: Game, checkpoint: str | Path | None = None,
          on_epoch=None) -> list[dict]:
    """Run ``settings.epochs`` epochs of AL or SB from ``policy.theta`` (or from the checkpoint,
    if it holds a run of the same settings and data), writing the checkpoint after every
    epoch. Returns the history: one dict per epoch 0 .. epochs (``mse_mean``, ``mse_single``,
    ``top_prob``, ``epoch``, and with ``train_eval`` the same on the training states prefixed
    ``train_``); ``on_epoch(record)`` is called after each."""
    if settings.role != train_data.settings.role:
        raise ValueError(f"V* is role {train_data.settings.role}'s, training learns role "
                         f"{settings.role}'s outcomes")
    train_states, test_states = train_data.states(game), test_data.states(game)
    ident = {"train": asdict(settings), "data": asdict(train_data.settings),
             "train_states": len(train_states), "test_states": len(test_states)}
    history: list[dict] = []
    checkpoint = Path(checkpoint) if checkpoint is not None else None
    if checkpoint is not None and checkpoint.exists():
        with np.load(checkpoint) as data:
            stored = json.loads(str(data["ident"]))
            same = {k: v for k, v in stored.items() if k != "train"} == {
                k: v for k, v in ident.items() if k != "train"} and {
                k: v for k, v in stored["train"].items() if k != "epochs"} == {
                k: v for k, v in ident["train"].items() if k != "epochs"}
            if same:
                policy.theta[:] = data["theta"]
                history = json.loads(str(data["history"]))
                log.info("%s: resuming after epoch %d", checkpoint, history[-1]["epoch"])
            else:
                log.warning("%s holds another run (%s); starting afresh", checkpoint, stored)

    def save() -> None:
        if checkpoint is None:
            return
        checkpoint.parent.mkdir(parents=True, exist_ok=True)

        def write(f) -> None:
            np.savez(f, theta=policy.theta, history=json.dumps(history), ident=json.dumps(ident))

        write_atomic(checkpoint, write)

    def measure(epoch: int) -> None:
        # The same draws at every evaluation (common random numbers): curves move with the
        # policy, not with the evaluation's luck.
        seed_numba(epoch_seed(settings.seed, 0, 1))
        record = {"epoch": epoch, **evaluate(policy, test_states, test_data.value,
                                             settings.test_sims, settings.role)}
        if settings.train_eval:  # the training states' errors too: is it learning or fitting?
            seed_numba(epoch_seed(settings.seed, 0, 2))
            fit = evaluate(policy, train_states, train_data.value, settings.test_sims,
                           settings.role)
            record.update({"train_" + k: v for k, v in fit.items()})
        history.append(record)
        save()
        if on_epoch is not None:
            on_epoch(record)

    if not history:
        measure(0)
    for epoch in range(history[-1]["epoch"] + 1, settings.epochs + 1):
        seed_numba(epoch_seed(settings.seed, epoch, 0))
        for k, state in enumerate(train_states):
            if settings.method == "al":
                al_update(policy, state, int(train_data.best[k]), settings.alpha)
            else:
                sb_update(policy, state, float(train_data.value[k]), settings.alpha, settings.M,
                          settings.N, settings.role, settings.gradient, settings.length)
        measure(epoch)
    return history
