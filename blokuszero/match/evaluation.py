"""Evaluating checkpoints (SPEC §3): one BlokusZero seat against three opponent seats.

The paper's protocol: the network plays without noise, choosing the most visited move after
800 simulations; the three other seats are MCTS-MaxN with 800 playouts; seating is random per
game, the first 4 moves uniformly random, 300 games, and the result is the win rate with its 95%
interval, read against the equal seat measured from the same games (a shared first place counts as
a win for each seat in it, so an equal seat wins a little over 25%; see :mod:`.summary`). Several checkpoints of a run
give a curve, win rate against training step, written as JSON, as a markdown table and drawn as
a PNG.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import write_atomic
from ..games.registry import make_game
from ..nn.checkpoint import checkpoint_paths, digest, load_checkpoint
from ..players.factory import TRAINED_SEARCH, resolve_spec
from .arena import Match
from .ladder import checkpoint_run, describe
from .runner import load_records, run_match

CANDIDATE = "blokuszero"
OPPONENT = "opponent"


@dataclass(frozen=True)
class Candidate:
    """A network to evaluate: a checkpoint, or the network a run started from (step 0): untrained,
    or the ``train.init_from`` network."""

    step: int
    label: str  # names the player in results and the ladder, e.g. "cpu-default@1500"
    spec: Mapping[str, Any] = field(default_factory=dict)  # checkpoint / model / init_seed
    # The untrained network's: its run's search settings (a checkpoint's come from its file);
    # the evaluation's network options override them.
    search: Mapping[str, Any] = field(default_factory=dict)


def find_checkpoints(where: str | Path) -> list[Path]:
    """Checkpoint files named by ``where``: a file, a glob, a run directory (its ``checkpoints/``)
    or a checkpoint directory; oldest first. ValueError if it names none."""
    path = Path(where)
    if path.is_dir():
        found = checkpoint_paths(path / "checkpoints" if (path / "checkpoints").is_dir() else path)
    elif path.is_file():
        found = [path]
    else:
        found = [Path(p) for p in glob.glob(str(where)) if Path(p).is_file() and p.endswith(".pt")]
        if not found and not glob.has_magic(str(where)):
            raise ValueError(f"checkpoint {where} does not exist")
    if not found:
        raise ValueError(f"no checkpoints (ckpt_*.pt) found in {where}")
    return sorted(found)


def candidates(where: str | Path, include_untrained: bool = False,
               report: Callable[[str], None] = print) -> list[Candidate]:
    """The networks to evaluate, by training step. A checkpoint that fails its digest or cannot
    be read is reported and skipped; ValueError if none is left."""
    out: dict[str, Candidate] = {}
    run_config = lineage = None
    for path in find_checkpoints(where):
        try:
            state = load_checkpoint(path)
        except ValueError as err:
            report(f"skipping {err}")
            continue
        step = int(state["learner"]["step"])
        label = f"{checkpoint_run(path)}@{step}"
        out[label] = Candidate(step, label, {"checkpoint": str(path)})
        run_config = run_config or (json.loads(state["config"]) if "config" in state else None)
        lineage = lineage or state.get("init_from")
    if not out:
        raise ValueError(f"none of the checkpoints in {where} could be read")
    if include_untrained:
        first = min(out.values(), key=lambda c: c.step)
        label = f"{first.label.rsplit('@', 1)[0]}@0"
        if lineage is not None:  # the run started from a network (train.init_from), not a random one
            out[label] = Candidate(0, label, {"checkpoint": _start_network(lineage)})
            return sorted(out.values(), key=lambda c: c.step)
        if run_config is None:
            raise ValueError(f"the checkpoints in {where} do not record their run's config, so "
                             f"the untrained network cannot be rebuilt")
        # A run initialises its network from torch seed `seed` (rl/trainer.py); so does this. It
        # searches as the run's checkpoints do (read from their files), so that step 0 differs
        # from the later points by its weights only.
        search = run_config.get("search", {})
        out[label] = Candidate(0, label, {"checkpoint": None, "model": run_config["model"]["name"],
                                          "init_seed": int(run_config["seed"])},
                               {k: search[k] for k in TRAINED_SEARCH if k in search})
    return sorted(out.values(), key=lambda c: c.step)


def _start_network(lineage: Mapping[str, Any]) -> str:
    """The file of the network a run started from (its checkpoints' ``init_from``), if it still
    holds that network; ValueError otherwise (a gate may have shipped another over it)."""
    path = lineage["path"]
    try:
        load_checkpoint(path)
    except ValueError as err:
        raise ValueError(f"the run started from {path} (train.init_from), which cannot be read now: {err}") from None
    if digest(path) != lineage["sha256"]:
        raise ValueError(f"the run started from {path} (sha256 {lineage['sha256'][:16]}), which holds "
                         f"another network now (sha256 {digest(path)[:16]}); evaluate without untrained=true")
    return str(path)


def evaluation_match(candidate: Candidate, network: Mapping[str, Any], opponent: Mapping[str, Any],
                     random_opening_moves: int = 4, game: str = "blokus") -> Match:
    """1 BlokusZero seat (``network`` options + the candidate's weights) vs ``opponent`` in every
    other seat of ``game`` (a registry name; Blokus: 3 seats, the paper's protocol)."""
    return Match(game, [CANDIDATE] + [OPPONENT] * (make_game(game).num_players - 1),
                 {CANDIDATE: {**candidate.search, **network, **candidate.spec}, OPPONENT: dict(opponent)},
                 random_opening_moves)


def evaluate(candidates_: Sequence[Candidate], network: Mapping[str, Any], opponent: Mapping[str, Any],
             games: int, seed: int, out_dir: str | Path, random_opening_moves: int = 4,
             game: str = "blokus", **run_options: Any) -> list[dict[str, Any]]:
    """Evaluate each candidate in ``out_dir/<label>/`` (resumable with ``resume=True`` among
    ``run_options``, see :func:`.runner.run_match`); return the curve, one point per candidate.

    Every candidate plays the same ``games`` seeds, so all meet the same openings and seatings.
    """
    out_dir = Path(out_dir)
    curve = []
    for c in candidates_:
        match = evaluation_match(c, network, opponent, random_opening_moves, game)
        where = out_dir / c.label.replace("/", "_")
        summary = run_match(match, games, seed, where,
                            label=f"{c.label} vs {describe(resolve_spec(opponent))}", **run_options)
        # CPU time of every stored game, those of earlier (interrupted) starts too.
        cpu = [r["cpu_seconds"] for r in load_records(where / "games.jsonl") if "cpu_seconds" in r]
        curve.append(curve_point(c, summary, sum(cpu) / len(cpu) if cpu else None))
    return curve


def curve_point(candidate: Candidate, summary: Mapping[str, Any],
                cpu_seconds_per_game: float | None = None) -> dict[str, Any]:
    """One evaluation's figures: win rate with its interval, the equal seat of its games, mean
    score of each seat type, speed
    (``cpu_seconds_per_game``: mean CPU time of the process that played a game, all its seats)."""
    mine, theirs = summary["players"][CANDIDATE], summary["players"][OPPONENT]
    return {"label": candidate.label, "step": candidate.step, "checkpoint": candidate.spec.get("checkpoint"),
            "games": mine["games"], "wins": mine["wins"], "win_rate": mine["win_rate"],
            "ci_low": mine["ci_low"], "ci_high": mine["ci_high"], "equal_seat": summary["equal_seat"],
            "mean_score": mine["mean_score"],
            "opponent_mean_score": theirs["mean_score"],
            "games_per_hour": summary["speed"]["games_per_hour"],
            "cpu_seconds_per_game": cpu_seconds_per_game}


def format_curve(curve: Sequence[Mapping[str, Any]]) -> str:
    """The curve as a console table."""
    lines = [f"{'network':28s} {'step':>7s} {'games':>6s} {'win rate':>9s}  {'95% interval':>17s} "
             f"{'equal seat':>10s} {'score':>7s} {'opp. score':>10s} {'games/h':>8s}"]
    for p in curve:
        speed = f"{p['games_per_hour']:8.1f}" if p["games_per_hour"] else f"{'-':>8s}"
        lines.append(f"{p['label']:28s} {p['step']:7d} {p['games']:6d} {p['win_rate']:9.1%}  "
                     f"[{p['ci_low']:6.1%}, {p['ci_high']:6.1%}] {p['equal_seat']:10.1%} "
                     f"{p['mean_score']:7.2f} {p['opponent_mean_score']:10.2f} {speed}")
    return "\n".join(lines)


def markdown_curve(curve: Sequence[Mapping[str, Any]]) -> str:
    """The curve as a markdown table (as BENCHMARKS.md prints results): win rates with their 95%
    Wilson intervals, the equal seat of the same games (winning seats per game / seats), mean
    scores, and the CPU seconds a game took where games were played."""
    lines = ["| network | step | games | wins | win rate | 95% Wilson interval | equal seat | mean score "
             "(network / opponents) | CPU s per game |", "|---|---|---|---|---|---|---|---|---|"]
    for p in sorted(curve, key=lambda p: p["step"]):
        cost = p.get("cpu_seconds_per_game")
        lines.append(f"| {p['label']} | {p['step']:,} | {p['games']} | {p['wins']:g} | {p['win_rate']:.1%} | "
                     f"[{p['ci_low']:.1%}, {p['ci_high']:.1%}] | {p['equal_seat']:.1%} | {p['mean_score']:.1f} / "
                     f"{p['opponent_mean_score']:.1f} | {f'{cost:.1f}' if cost else '-'} |")
    return "\n".join(lines)


def write_curve(curve: Sequence[Mapping[str, Any]], out_dir: str | Path, title: str,
                report: Callable[[str], None] = print, figure: str | Path | None = None) -> None:
    """``curve.json``, ``curve.md`` (a markdown table) and ``curve.png`` in ``out_dir``, and the
    PNG at ``figure`` too if given (e.g. under docs/). The figures are the result: a plot that
    fails is reported, never what fails the evaluation."""
    out_dir = Path(out_dir)
    write_atomic(out_dir / "curve.json", json.dumps({"title": title, "points": list(curve)}, indent=2))
    write_atomic(out_dir / "curve.md", f"{title}\n\n{markdown_curve(curve)}\n")
    for path in [out_dir / "curve.png"] + ([Path(figure)] if figure else []):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            plot_curve(curve, path, title)
        except Exception as err:  # noqa: BLE001 - matplotlib's errors are many and none matters here
            shown = path.name if path.parent == out_dir else path
            report(f"no {shown}: the plot failed ({type(err).__name__}: {err}); the figures are in curve.json")


def plot_curve(curve: Sequence[Mapping[str, Any]], path: str | Path, title: str) -> None:
    """Win rate against training step with 95% intervals (as the paper's figure 10), as PNG."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    points = sorted(curve, key=lambda p: p["step"])
    steps = [p["step"] for p in points]
    rates = [100 * p["win_rate"] for p in points]
    # Bars never below zero length, even for intervals from older files that missed the estimate.
    errors = [[100 * max(0.0, p["win_rate"] - p["ci_low"]) for p in points],
              [100 * max(0.0, p["ci_high"] - p["win_rate"]) for p in points]]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    ax.errorbar(steps, rates, yerr=errors, marker="o", capsize=4, label="BlokusZero (95% interval)")
    # An equal seat wins 1/seats of the games, more where first places are shared: measured.
    equal = 100 * sum(p["equal_seat"] * p["games"] for p in points) / sum(p["games"] for p in points)
    ax.axhline(equal, color="grey", linestyle="--", linewidth=1, label=f"equal seat ({equal:.1f}%)")
    ax.set_xlabel("training step")
    ax.set_ylabel("win rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
