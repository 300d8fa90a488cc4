"""A training run's sample of its self-play games, kept as game records a person can open
(``run_dir/games/selfplay_NNNNNNN.blksgf`` for Blokus, ``.sgf`` for Go; the web board and
Pentobi open the Blokus ones): every ``keep_games_every``-th game, in its family's record format
(:func:`blokuszero.games.registry.record_format`); a game without one keeps none.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..files import write_atomic
from ..games.encoding import Encoder
from ..games.registry import record_format


class GameSampler:
    """Writes every ``every``-th game it is shown (0: none) into ``directory``; ``played`` is
    how many games the run had played before (a resumed run goes on counting)."""

    def __init__(self, directory: str | Path, encoder: Encoder, every: int, played: int = 0) -> None:
        self.directory = Path(directory)
        self.encoder = encoder
        self.form = record_format(encoder.game)
        self.every = every if self.form is not None else 0
        self.played = played

    def add(self, games: Iterable[tuple[np.ndarray, np.ndarray]], comment: str) -> list[Path]:
        """Count each finished game (its players and actions) and write the ones due; returns
        the files written."""
        written = []
        for players, actions in games:
            self.played += 1
            if self.every <= 0 or self.played % self.every:
                continue
            state = self.encoder.replay(players, actions)
            moves = list(zip(np.asarray(players).tolist(), np.asarray(actions).tolist()))
            seating = ["self-play"] * self.encoder.num_players
            text = self.form.write(self.encoder.game, state, moves, seating,
                                   f"self-play game {self.played}, {comment}", None)
            self.directory.mkdir(parents=True, exist_ok=True)
            written.append(write_atomic(self.directory / f"selfplay_{self.played:07d}{self.form.suffix}", text))
        return written
