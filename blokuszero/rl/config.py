"""The schema of a training run's config: one frozen dataclass per Hydra config group.

``conf/config.yaml`` composes the groups (``conf/<group>/*.yaml`` hold the named choices); these
dataclasses are the same groups as structured configs (``OmegaConf.structured(RunConfig)``
works), each field commented, with its type and allowed range. :func:`load_run_config` checks a
resolved config against them once, before a run starts anything or writes anything: a wrong
key, type or value is a one-line :class:`~blokuszero.settings.SettingError` naming the setting
(``search.simulations must be >= 1, not -5``).

The defaults are SPEC §3's (the paper's run); the CPU default's values are in the YAML files.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..nn.backends import BACKENDS
from ..search.mcts import MCTSConfig
from ..search.selection import PUCTSettings
from ..settings import SettingError, Settings, like, setting

SCHEDULES = ("paper", "async")
VALUE_TARGETS = ("outcome", "margin")
DEVICES = ("cpu", "cuda")


def _accepted_by(check: Callable[[Any], object], name: str, value: Any, problem: str) -> None:
    """SettingError naming ``name`` when ``check(value)`` raises ValueError."""
    try:
        check(value)
    except ValueError as err:
        raise SettingError(name, f"{problem}: {err}") from None


@dataclass(frozen=True)
class GameSettings(Settings):
    GROUP = "game"
    name: str = setting("blokus")  # a registry game with a network encoder: blokus, go9, go13, go19, goN
    rules: str | None = setting(None)  # game=ggp's GDL description (arena only: no encoder for GDL)

    def __post_init__(self) -> None:
        super().__post_init__()
        from ..games.registry import make_encoder

        _accepted_by(make_encoder, "name", self.name, "cannot be trained")


@dataclass(frozen=True)
class ModelSettings(Settings):
    GROUP = "model"
    name: str = setting("b10c128")  # a named size of nn/model.py (b10c128: the paper's)

    def __post_init__(self) -> None:
        super().__post_init__()
        from ..nn.model import MODEL_SIZES

        if self.name not in MODEL_SIZES:
            raise SettingError("name", f"must be one of {sorted(MODEL_SIZES)}, not {self.name!r}")


@dataclass(frozen=True)
class SearchSettings(PUCTSettings):
    """The PUCT MaxN search of self-play (SPEC §3): PUCT's c_base, c_init, q_init and the search
    settings as :class:`MCTSConfig` declares them, with self-play's defaults."""

    GROUP = "search"
    simulations: int = like(MCTSConfig, "simulations", low=1)  # simulations per move
    dirichlet_alpha: float = like(MCTSConfig, "dirichlet_alpha")  # root noise Dir(alpha) ...
    dirichlet_epsilon: float = like(MCTSConfig, "dirichlet_epsilon", 0.25)  # ... mixed in with this weight
    temperature_moves: int = setting(20, low=0)  # moves sampled by visit count, then the most visited
    # false: the paper's PUCT, Dirichlet noise and visit counts as target; true: Gumbel (Danihelka
    # et al. 2022: Gumbel-top-k and sequential halving at the root, the improved policy as
    # target, no Dirichlet noise, no temperature; search/alphazero.py).
    gumbel: bool = setting(False)
    gumbel_considered: int = like(MCTSConfig, "gumbel_considered")  # gumbel: root moves sampled (m)
    gumbel_scale: float = like(MCTSConfig, "gumbel_scale")  # gumbel: scale of the root's Gumbel noise
    c_visit: float = like(MCTSConfig, "c_visit")  # gumbel: sigma(q) = (c_visit + max N) * c_scale * q
    c_scale: float = like(MCTSConfig, "c_scale")
    # Playout cap randomisation (Wu 2019, KataGo): a share full_search_fraction of moves is
    # searched with `simulations` and recorded as policy targets, the rest with fast_simulations
    # (no root noise) and not recorded as policy targets (their values still train). 0: off.
    fast_simulations: int = setting(0, low=0)
    full_search_fraction: float = setting(0.25, above=0, high=1)
    # Expert iteration (rl/expert_iteration.py): self-play searches as the play-time `network`
    # preset does, every leaf valued by one uniform playout and the network asked only for the
    # priors of a node with expand_threshold visits (AlphaGo's n_thr), so each move gets many
    # more simulations per CPU-second; false: the network values every leaf (the paper's).
    leaf_playouts: bool = setting(False)
    expand_threshold: int = setting(16, low=1)  # leaf_playouts: visits before a node is expanded

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.fast_simulations >= self.simulations:
            raise SettingError("fast_simulations", f"must be fewer than search.simulations "
                               f"({self.simulations}), not {self.fast_simulations}")
        if self.leaf_playouts and self.gumbel:
            raise SettingError("leaf_playouts", "searches by PUCT with the visit counts as target: "
                               "set search.gumbel=false")
        if self.leaf_playouts and self.dirichlet_epsilon > 0:
            # The compiled loop that makes playout leaves fast adds no root noise; the first
            # temperature_moves moves are sampled by visit count instead.
            raise SettingError("leaf_playouts", "runs without root noise: set search.dirichlet_epsilon=0")


@dataclass(frozen=True)
class LockstepSettings(Settings):
    """How an actor plays its games together."""

    GROUP = "selfplay"
    games_in_parallel: int = setting(16, low=1)  # games in lockstep: their leaves form one batch
    leaves_per_tree: int = setting(1, low=1)  # leaves per tree per batch; > 1 uses virtual loss


@dataclass(frozen=True)
class LearnerSettings(Settings):
    """SGD with momentum and the paper's learning-rate drop (SPEC §3)."""

    GROUP = "optimizer"
    batch_size: int = setting(64, low=1)  # minibatch
    learning_rate: float = setting(1e-3, above=0)  # until step lr_drop_step - 1
    lr_drop_step: int = setting(40_001, low=1)  # from this step on, lr_after (SPEC §3: 40,001)
    lr_after: float = setting(1e-4, above=0)  # the rate from lr_drop_step on (SPEC §3: 1e-4)
    momentum: float = setting(0.9, low=0, high=1)  # SGD momentum (SPEC §3: 0.9)
    weight_decay: float = setting(1e-4, low=0)  # the c ||theta||^2 term


@dataclass(frozen=True)
class ScheduleSettings(Settings):
    """How self-play and learning alternate (see :mod:`.schedules`), and what is kept."""

    GROUP = "train"
    schedule: str = setting("paper", choices=SCHEDULES)  # paper | async
    total_steps: int = setting(70_000, low=1)  # learner updates of the whole run (SPEC §3: 70,000)
    buffer_games: int = setting(10_000, low=1)  # replay buffer capacity in games (SPEC §3: 10,000)
    initial_games: int = setting(10_000, low=0)  # paper: games played before training starts
    steps_per_iteration: int = setting(1_000, low=1)  # paper: steps between self-play phases
    games_per_iteration: int = setting(1_000, low=0)  # paper: games dropped and played per phase
    samples_per_position: float = setting(4.0, above=0)  # async: most training samples per position
    publish_every: int = setting(100, low=1)  # async: steps between weight versions
    games_per_task: int = setting(16, low=1)  # games an actor plays before it can take new weights
    augment: bool = setting(False)  # random board rotations of training positions (not in the paper)
    # outcome (+1 / -1, the paper's) or margin (graded by the score margin; see records.py).
    value_target: str = setting("outcome", choices=VALUE_TARGETS)
    # KataGo's auxiliary score target (Wu 2019): > 0 gives the network a score head (each seat's
    # final score, scaled by the game's encoder) trained with this loss weight; 0: no head.
    score_weight: float = setting(0.0, low=0)
    checkpoint_every: int = setting(1_000, low=1)  # steps between checkpoints (and at each phase's end)
    # Wall-clock limit of the whole run in minutes, every start of it together (0: none): at the
    # first step past it the learner stops, self-play in flight is dropped and the last checkpoint
    # is written; a rerun of a run out of time changes nothing (raise the limit to go on).
    max_minutes: float = setting(0.0, low=0)
    # Keep the network every this many minutes of training (and the last one) in
    # run_dir/curve/checkpoints, never rotated: the points of a learning curve (0: none).
    curve_every_minutes: float = setting(0.0, low=0)
    keep_checkpoints: int = setting(3, low=1)  # newest checkpoints kept
    # Every this many self-play games, one is kept in run_dir/games as its game's record file
    # (Blokus .blksgf, Go .sgf) for blokuszero-board or Pentobi to open (0: none).
    keep_games_every: int = setting(20, low=0)
    log_every: int = setting(50, low=1)  # steps between TensorBoard points
    # A network a new run starts from instead of a random one (a training checkpoint or a
    # network-only file such as checkpoints/blokus_b2c32conv_gumbel.pt, digest checked, of the
    # run's model shape): its weights only, the optimiser fresh, step 0. Its path and sha256 go
    # into config.json and every checkpoint. A run resuming from its own checkpoint ignores it.
    # None: the network is initialised from `seed`.
    init_from: str | None = setting(None)
    # Let an init_from network smaller than the run's model (fewer blocks or filters, the same
    # heads) grow into it with its outputs unchanged (nn/grow.py); off: another shape is an error.
    init_grow: bool = setting(False)


@dataclass(frozen=True)
class HardwareSettings(Settings):
    GROUP = "hardware"
    ray_address: str | None = setting(None)  # join this Ray cluster ("auto", "host:6379"); None: start one
    num_cpus: int | None = setting(None, low=1)  # CPUs of a Ray instance started here (None: all)
    actors: int = setting(1, low=1)  # self-play actors
    actor_device: str = setting("cpu", choices=DEVICES)  # where self-play actors run their network
    gpus_per_actor: float = setting(0.0, low=0)  # Ray GPU share of each actor
    threads_per_actor: int = setting(1, low=1)  # torch threads in each actor
    half: bool = setting(False)  # float16 inference on CUDA
    # what runs the actors' network (nn/backends.py): torch, onnxruntime, or auto (onnxruntime on
    # the CPU, torch on CUDA); onnxruntime is re-exported whenever new weights arrive
    actor_backend: str = setting("torch", choices=BACKENDS)
    cache_size: int = setting(0, low=0)  # evaluations cached per actor (transpositions)
    learner_device: str = setting("cpu", choices=DEVICES)  # where the learner (in the driver) trains
    # Ray GPU share the learner reserves on the driver's node before the actors are placed, so that
    # no actor shares its GPU; with learner_device cuda it trains on the GPU Ray assigned (0: no
    # reservation, "cuda" is the driver's current device, which actors may share).
    learner_gpus: float = setting(0.0, low=0)
    learner_threads: int = setting(0, low=0)  # torch threads of the learner (0: torch's default)


@dataclass(frozen=True)
class EvalSettings(Settings):
    """Evaluation while training runs (see :mod:`blokuszero.match.evaluation`)."""

    GROUP = "eval"
    enabled: bool = setting(False)  # off: no evaluator actor
    every_steps: int = setting(1_000, low=1)  # least training steps between two evaluated checkpoints
    final: bool = setting(True)  # also evaluate the last step of the run (waits for it)
    games: int = setting(40, low=1)  # games per evaluation
    simulations: int = setting(200, low=1)  # BlokusZero's simulations per move
    opponent: dict[str, Any] = setting({"preset": "mcts_maxn", "simulations": 200})  # every other seat (3 in Blokus)
    random_opening_moves: int = setting(4, low=0)  # first moves of each game uniformly random
    workers: int = setting(1, low=1)  # processes the evaluator plays in (1: in the actor itself)
    num_cpus: float = setting(1.0, low=0)  # Ray CPUs the evaluator holds
    num_gpus: float = setting(0.0, low=0)  # Ray GPU share of the evaluator
    device: str = setting("cpu", choices=DEVICES)  # where the evaluated network runs

    def __post_init__(self) -> None:
        super().__post_init__()
        from ..players.factory import resolve_spec

        _accepted_by(resolve_spec, "opponent", self.opponent, "is not a valid player")


@dataclass(frozen=True)
class RunConfig(Settings):
    """A whole run: the groups of ``conf/config.yaml`` and the top-level keys."""

    game: GameSettings = setting(GameSettings())  # conf/game/: what is played
    model: ModelSettings = setting(ModelSettings())  # conf/model/: the network's named size
    search: SearchSettings = setting(SearchSettings())  # conf/search/: self-play's search
    selfplay: LockstepSettings = setting(LockstepSettings())  # conf/selfplay/: games in lockstep
    optimizer: LearnerSettings = setting(LearnerSettings())  # conf/optimizer/: SGD
    train: ScheduleSettings = setting(ScheduleSettings())  # conf/train/: schedule, buffer, checkpoints
    hardware: HardwareSettings = setting(HardwareSettings())  # conf/hardware/: Ray, actors, devices
    eval: EvalSettings = setting(EvalSettings())  # conf/eval/: evaluation while training
    seed: int = setting(0, low=0)  # every random choice of the run flows from this
    name: str = setting("cpu-default")  # run name; the run directory is runs/<name>
    run_dir: str = setting("runs/cpu-default")  # checkpoints, buffer, TensorBoard events, config
    progress: bool = setting(True)  # progress bar on the console

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.train.init_from is not None:
            from ..nn.checkpoint import start_weights
            from ..nn.model import ModelConfig, PolicyValueNet

            shape = self.network_shape()
            fresh = PolicyValueNet(ModelConfig(**shape)).state_dict() if self.train.init_grow else None
            _accepted_by(lambda path: start_weights(path, shape, fresh), "train.init_from",
                         self.train.init_from, "cannot start this run")

    def network_shape(self) -> dict[str, Any]:
        """The shape of the run's network (a ModelConfig as a dict), as the trainer builds it."""
        from ..nn.model import model_config

        return dataclasses.asdict(model_config(self.model.name, self.game.name,
                                               score_head=self.train.score_weight > 0))


def load_run_config(config: Mapping[str, Any]) -> RunConfig:
    """The checked settings of a resolved config (a plain dict, as Hydra composes it)."""
    hints = typing.get_type_hints(RunConfig)
    values: dict[str, Any] = {}
    for key, value in config.items():
        kind = hints.get(key)
        if kind is None:
            raise SettingError(key, f"is not a setting; known: {sorted(hints)}")
        if isinstance(kind, type) and issubclass(kind, Settings):
            if not isinstance(value, Mapping):
                raise SettingError(key, f"must be a config group (a mapping), not {value!r}")
            value = kind.from_mapping(value, key)
        values[key] = value
    return RunConfig(**values)
