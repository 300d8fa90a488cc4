"""The replay buffer: the newest games, positions sampled uniformly, persisted in shards.

Games are written to ``directory`` in shard files of up to ``shard_games`` games (atomically:
:func:`blokuszero.files.write_atomic`); a partly filled shard is written at least every
``flush_seconds``, so a crash loses at most the games of the last few seconds. On start the
buffer loads every shard in the directory and keeps the newest ``capacity`` games; shards
whose games have all been dropped are deleted.

Memory: a game holds its moves and the visited root moves of every position with their
visit shares (:attr:`ReplayBuffer.nbytes`; BENCHMARKS.md gives the size of 10,000 games).
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..files import write_atomic
from ..games.encoding import Encoder
from .records import GameRecord

_SHARD = re.compile(r"shard_(\d{8})\.npz")


@dataclass
class TrainingBatch:
    """A minibatch, compact for transfer between processes; the learner densifies it."""

    planes: np.ndarray  # [B, C, H, W] float32 input planes
    policy_index: np.ndarray  # [B, K] int64 actions with a target (-1: padding)
    policy_probs: np.ndarray  # [B, K] float32 pi at those actions
    legal_index: np.ndarray  # [B, L] int64 legal actions (-1: padding)
    values: np.ndarray  # [B, P] float32 z in the mover's frame
    scores: np.ndarray  # [B, P] float32 final scores / the encoder's score_scale, mover's frame


def _pad(rows: list[np.ndarray], fill, dtype) -> np.ndarray:
    out = np.full((len(rows), max(1, max(len(r) for r in rows))), fill, dtype=dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


class ReplayBuffer:
    """The newest ``capacity`` games; persisted to ``directory`` when one is given. ``encoder``
    (the game's) rebuilds, encodes and turns the sampled positions."""

    def __init__(self, capacity: int, encoder: Encoder, directory: str | Path | None = None,
                 shard_games: int = 64, flush_seconds: float = 5.0, value_target: str = "outcome") -> None:
        self.capacity = capacity
        self.encoder = encoder
        self.value_target = value_target  # "outcome" (the paper's) or "margin", see GameRecord
        self.directory = Path(directory) if directory is not None else None
        self.shard_games = shard_games
        self.flush_seconds = flush_seconds
        self.games: deque[tuple[tuple[int, int], GameRecord]] = deque()  # ((shard, index), game), oldest first
        # Games and positions ever added to this buffer (its directory), kept in every shard and in
        # oldest.json: the run's count of self-play played, whatever checkpoint it resumes from.
        self.games_added = 0
        self.positions_added = 0
        self._pending: list[GameRecord] = []
        self._pending_since = 0.0
        self._next_shard = 0
        self._cumulative: np.ndarray | None = None
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._load()

    # ---------------------------------------------------------------- contents
    @property
    def num_games(self) -> int:
        return len(self.games) + len(self._pending)

    @property
    def num_positions(self) -> int:
        return sum(g.num_positions for _, g in self.games) + sum(g.num_positions for g in self._pending)

    @property
    def nbytes(self) -> int:
        return sum(g.nbytes for _, g in self.games) + sum(g.nbytes for g in self._pending)

    def add(self, game: GameRecord) -> None:
        """Add a finished game (dropping the oldest beyond capacity)."""
        if not self._pending:
            self._pending_since = time.monotonic()
        self._pending.append(game)
        self.games_added += 1
        self.positions_added += game.num_positions
        if len(self._pending) >= self.shard_games or time.monotonic() - self._pending_since >= self.flush_seconds:
            self.flush()
        self._trim()

    def drop_oldest(self, n: int) -> None:
        """Forget the ``n`` oldest games (the paper's schedule, every 1,000 steps)."""
        self.flush()
        for _ in range(min(n, len(self.games))):
            self.games.popleft()
        self._forget_dropped_shards()

    def flush(self) -> None:
        """Write pending games to a new shard (or just keep them in memory without a directory)."""
        if not self._pending:
            return
        shard = self._next_shard
        self._next_shard += 1
        if self.directory is not None:
            arrays = {}
            for i, game in enumerate(self._pending):
                arrays.update(game.to_arrays(f"g{i}_"))
            write_atomic(self.directory / f"shard_{shard:08d}.npz",
                         lambda f: np.savez(f, count=len(self._pending), games_total=self.games_added,
                                            positions_total=self.positions_added, **arrays))
        self.games.extend(((shard, i), g) for i, g in enumerate(self._pending))
        self._pending = []
        self._cumulative = None

    def _trim(self) -> None:
        dropped = False
        while len(self.games) + len(self._pending) > self.capacity and self.games:
            self.games.popleft()
            dropped = True
        if dropped:
            self._forget_dropped_shards()
            self._cumulative = None

    def _forget_dropped_shards(self) -> None:
        """Record the oldest game kept (a shard may be partly dropped) and delete dropped shards."""
        self._cumulative = None
        if self.directory is None:
            return
        shard, index = self.games[0][0] if self.games else (self._next_shard, 0)
        write_atomic(self.directory / "oldest.json", json.dumps(
            {"shard": shard, "index": index, "games_total": self.games_added,
             "positions_total": self.positions_added}))
        for path in self.directory.glob("shard_*.npz"):
            m = _SHARD.fullmatch(path.name)
            if m and int(m.group(1)) < shard:
                path.unlink()

    def _load(self) -> None:
        oldest = {"shard": 0, "index": 0}
        if (self.directory / "oldest.json").exists():
            oldest = json.loads((self.directory / "oldest.json").read_text())
        totals = [(oldest.get("games_total", 0), oldest.get("positions_total", 0))]
        shards = sorted((int(m.group(1)), p) for p in self.directory.iterdir()
                        if (m := _SHARD.fullmatch(p.name)))
        for shard, path in shards:
            try:
                with np.load(path) as data:
                    games = [GameRecord.from_arrays(data, f"g{i}_") for i in range(int(data["count"]))]
                    if "games_total" in data:  # shards before the totals were kept lack them
                        totals.append((int(data["games_total"]), int(data["positions_total"])))
            except Exception as err:  # a torn or corrupt shard: report, keep the rest
                print(f"replay buffer: skipping unreadable shard {path.name}: {err}")
                continue
            self.games.extend(((shard, i), g) for i, g in enumerate(games)
                              if (shard, i) >= (oldest["shard"], oldest["index"]))
        self._next_shard = shards[-1][0] + 1 if shards else 0
        kept = (len(self.games), sum(g.num_positions for _, g in self.games))
        self.games_added, self.positions_added = max(*totals, kept)
        self._trim()

    # ---------------------------------------------------------------- sampling
    def sample(self, batch_size: int, rng: np.random.Generator, augment: bool = False) -> TrainingBatch:
        """``batch_size`` positions drawn uniformly from all positions in the buffer.

        With ``augment``, each position is turned by a random one of the encoder's exact
        symmetries (Blokus: the rotations; see games/blokus/encoder.py).
        """
        self.flush()
        if not self.games:
            raise ValueError("the replay buffer is empty")
        if self._cumulative is None:
            self._cumulative = np.cumsum([g.num_positions for _, g in self.games])
        picks = rng.integers(self._cumulative[-1], size=batch_size)
        game_index = np.searchsorted(self._cumulative, picks, side="right")
        which = [(int(g), int(pick - (self._cumulative[g - 1] if g > 0 else 0))) for g, pick in zip(game_index, picks)]
        return self.positions(which, rng if augment else None)

    def positions(self, which: Sequence[tuple[int, int]], rng: np.random.Generator | None = None) -> TrainingBatch:
        """The batch of position ``t`` of kept game ``g`` (0: the oldest) for each ``(g, t)`` of
        ``which``; with ``rng``, each turned by a random one of the encoder's symmetries."""
        self.flush()
        encoder = self.encoder
        states, pol_idx, pol_p, legal, values, scores = [], [], [], [], [], []
        for g, t in which:
            game = self.games[g][1]
            state = encoder.replay(game.players[:t], game.actions[:t])
            states.append(state)
            actions, probs = game.policy(t)
            pol_idx.append(actions)
            pol_p.append(probs)
            legal.append(state.legal_actions())
            values.append(encoder.to_mover_frame(game.value_target(self.value_target), int(game.players[t])))
            scores.append(encoder.to_mover_frame(game.scores, int(game.players[t])))
        planes = encoder.encode_batch(states)
        values = np.asarray(values, np.float32)
        scores = (np.asarray(scores, np.float64) / encoder.score_scale).astype(np.float32)
        if rng is not None:
            symmetries = np.asarray(encoder.symmetries)
            for i, k in enumerate(symmetries[rng.integers(len(symmetries), size=len(which))]):
                planes[i] = encoder.transform_planes(planes[i], int(k))
                values[i] = encoder.transform_values(values[i], int(k))
                scores[i] = encoder.transform_values(scores[i], int(k))
                pol_idx[i] = encoder.transform_actions(pol_idx[i], int(k))
                legal[i] = encoder.transform_actions(legal[i], int(k))
        return TrainingBatch(planes=planes, policy_index=_pad(pol_idx, -1, np.int64),
                             policy_probs=_pad(pol_p, 0.0, np.float32),
                             legal_index=_pad(legal, -1, np.int64), values=values, scores=scores)

