"""What a training run shows in TensorBoard, tags grouped by area, always at the learner's step.

``selfplay/*`` and ``search/*`` are rates over the run's session so far (since this start or
resume), ``weights/version_lag`` how many steps old the weights of a finished task were,
``loss/*``, ``policy/*``, ``value/*`` and ``train/*`` come from the learner, ``buffer/*`` from the
replay buffer and ``eval/*`` from the evaluator.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from torch.utils.tensorboard import SummaryWriter

from ..games.encoding import Encoder

EVAL_KEYS = ("win_rate", "ci_low", "ci_high", "equal_seat", "mean_score", "opponent_mean_score")
#: The final board's picture is at least this many pixels a side, so that TensorBoard shows it readably.
PICTURE_PIXELS = 400
_EMPTY = (235, 230, 218)


def board_image(encoder: Encoder, record, cell: int = 24) -> np.ndarray:
    """[3, H, W] uint8 picture of a game's final board as the encoder draws it: each player's
    colour on a grid (squares of at least ``cell`` pixels, the board at least
    :data:`PICTURE_PIXELS` a side) and beneath it every player's name and final score, the
    winners' in bold."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    board = encoder.board(encoder.replay(record.players, record.actions))
    players = encoder.players()
    rows, cols = board.shape
    cell = max(cell, -(-PICTURE_PIXELS // max(rows, cols)))
    palette = np.array([_EMPTY] + [colour for _, colour in players], np.uint8)
    dpi, margin, legend = 100, 12, 34 * (1 + (len(players) - 1) // 4)
    width, height = cols * cell + 2 * margin, rows * cell + 2 * margin + legend
    figure = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor="white")
    axes = figure.add_axes((margin / width, (margin + legend) / height, cols * cell / width, rows * cell / height))
    axes.imshow(palette[board + 1], interpolation="nearest", extent=(0, cols, rows, 0))
    axes.set_xticks(np.arange(cols + 1), minor=True)
    axes.set_yticks(np.arange(rows + 1), minor=True)
    axes.grid(which="minor", color="#6b6b6b", linewidth=0.6)
    axes.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    scores = np.asarray(record.scores, dtype=np.float64)
    best = scores.max()
    for p, (name, colour) in enumerate(players):
        text = "black" if sum(colour) > 380 else "white"
        figure.text((margin + (p % 4 + 0.5) * (width - 2 * margin) / 4) / width,
                    (legend - 17 - 34 * (p // 4)) / height, f"{name} {scores[p]:g}", ha="center", va="center",
                    fontsize=11, color=text, fontweight="bold" if scores[p] == best else "normal",
                    bbox={"facecolor": np.array(colour) / 255, "edgecolor": "#444", "boxstyle": "round,pad=0.3"})
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].transpose(2, 0, 1).copy()


class Metrics:
    """Writes a run's scalars and images to ``directory`` (TensorBoard event files)."""

    def __init__(self, directory: str, encoder: Encoder) -> None:
        self.writer = SummaryWriter(directory)
        self.encoder = encoder  # draws the final boards
        self.start = time.perf_counter()
        self.window = {"games": 0, "positions": 0, "sims": 0, "evals": 0, "capacity": 0, "seconds": 0.0}

    def selfplay(self, stats: Mapping[str, Any], step: int, version: int) -> None:
        """One finished self-play task's statistics (see ``SelfPlayWorker.play``)."""
        w = self.window
        w["games"] += stats["games"]
        w["positions"] += stats["positions"]
        w["sims"] += stats["simulations"]
        w["evals"] += stats["evaluations"]
        w["capacity"] += stats["batch_capacity"]
        w["seconds"] += stats["seconds"]
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        self.writer.add_scalar("selfplay/games_per_hour", w["games"] * 3600 / elapsed, step)
        self.writer.add_scalar("selfplay/positions_per_s", w["positions"] / elapsed, step)
        self.writer.add_scalar("search/nn_batch_fill", w["evals"] / max(w["capacity"], 1), step)
        self.writer.add_scalar("search/evals_per_s", w["evals"] / max(w["seconds"], 1e-9), step)
        self.writer.add_scalar("weights/version_lag", version - stats["version"], step)
        if stats["last_game"] is not None:
            self.writer.add_image("selfplay/final_board", board_image(self.encoder, stats["last_game"]), step)

    def training(self, metrics: Mapping[str, float], buffer_info: Mapping[str, int], step: int) -> None:
        """The learner's figures of one step (``loss/total``, ...) and the buffer's size."""
        for key, value in metrics.items():
            self.writer.add_scalar(key, value, step)
        self.writer.add_scalar("buffer/games", buffer_info["games"], step)
        self.writer.add_scalar("buffer/positions", buffer_info["positions"], step)

    def evaluation(self, point: Mapping[str, Any]) -> None:
        """An evaluator's curve point (see :func:`blokuszero.match.evaluation.curve_point`)."""
        for key in EVAL_KEYS:
            self.writer.add_scalar(f"eval/{key}", point[key], point["step"])

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
