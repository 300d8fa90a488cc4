"""The search experience's switching rule (SPEC §5; Uemiya and Yokoyama): before the game,
self-play a few short games measuring the tree distance between each reached node and the
similar boards found for it; use ``d = 2`` when the boards found are near in the tree (mean
distance <= 2.92) and their distance profile is stable from game to game (mean per-distance
standard deviation <= 2.6e-2), else ``d = 0`` (the paper's thresholds for 250 playouts).

A player's pre-game step (``players.ggp.uct.switch_distance`` runs it at the start clock),
so it lives with the players, not with the experiments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...games.base import Game
from ...referee.game_loop import play
from ...search import time_manager
from ...search.experience import SearchExperience

#: The paper's thresholds for 250 playouts (its section 5.2).
MAX_MEAN_DISTANCE = 2.92
MAX_MEAN_STD = 2.6e-2


@dataclass(frozen=True)
class SimilarityReport:
    """The switching rule's measurements over the pre-game self-play games."""

    counts: np.ndarray  # [G, D] similar boards found at each tree distance, per game
    mean_distance: float  # over every similar board found
    mean_std: float  # per distance: the std over games of its share; averaged over distances

    @property
    def games(self) -> int:
        return len(self.counts)


def summarize(counts: list[np.ndarray]) -> SimilarityReport:
    """Mean tree distance and mean per-distance std of the shares, from per-game counts."""
    width = max((len(c) for c in counts), default=0)
    table = np.array([np.pad(c, (0, width - len(c))) for c in counts], np.float64).reshape(
        len(counts), width)
    total = table.sum()
    mean = float((table.sum(axis=0) * np.arange(width)).sum() / total) if total else float("nan")
    games = table[table.sum(axis=1) > 0]
    share = games / games.sum(axis=1, keepdims=True) if len(games) else games
    std = float(share.std(axis=0).mean()) if len(games) and width else float("nan")
    return SimilarityReport(table.astype(np.int64), mean, std)


def choose_distance(report: SimilarityReport, max_mean: float = MAX_MEAN_DISTANCE,
                    max_std: float = MAX_MEAN_STD) -> int:
    """The paper's rule: ``d = 2`` if the similar boards are near (mean distance <=
    ``max_mean``) and stable (mean per-distance std <= ``max_std``), else ``d = 0`` (also when
    nothing similar was found, or fewer than 2 games were measured)."""
    if report.games < 2:
        return 0
    if not (report.mean_distance <= max_mean and report.mean_std <= max_std):
        return 0
    return 2


def measure_similarity(game: Game, make_search: Callable[[int], tuple[object, SearchExperience]],
                       games: int = 10, moves: int = 10, seed: int = 0,
                       time_limit: float | None = None) -> SimilarityReport:
    """Self-play ``games`` games of at most ``moves`` moves, each game played by a fresh
    ``make_search(seed)`` pair (an ``MCTSPlayer``-like object with ``choose_action`` and
    ``inform``, and its measuring :class:`SearchExperience`); counts the tree distances of the
    similar boards found, per game. With ``time_limit`` (seconds: the start clock's share),
    no game starts after it (the report then holds fewer games)."""
    if games < 2:
        raise ValueError("the per-distance std needs at least 2 games")
    rng = np.random.default_rng(seed)
    stop = None if time_limit is None else time_manager.WALL_CLOCK() + time_limit
    counts = []
    for _ in range(games):
        if stop is not None and time_manager.WALL_CLOCK() > stop:
            break
        player, experience = make_search(int(rng.integers(2**31)))
        if not experience.measure:
            raise ValueError("measure_similarity needs a SearchExperience built with measure=True")
        # One player holds every seat: self-play, each move told to it once.
        play(game, game.new_initial_state(), [player] * game.num_players, max_moves=moves)
        counts.append(experience.distance_counts.copy())
    return summarize(counts)
