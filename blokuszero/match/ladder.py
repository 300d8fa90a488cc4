"""An Elo ladder of every player in stored match results, fitted by maximum likelihood.

Each game of n seats gives a pairwise result for every two seats held by different players:
1 to the higher score, 1/2 each on equal scores. The Bradley-Terry model (Elo's logistic curve,
P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))) is fitted to all of them at once by Newton's
method, with one player (the anchor) held at 0. The pairs of one game are not independent (one
good game lifts a player above all three others), so the standard errors are the cluster-robust
(sandwich) ones with the game as cluster, or the model-based ones where those are larger; with
one pair per game the two are equal.

Beside the Elo, the ladder prints each player's ``pair score`` (the share of its pairwise results
it won; an equal player scores 50%) and its seat win rate with the equal seat of the games it
played (:func:`.stats.seat_win_rates`: a shared first place is a win for every seat in it, so
an equal seat of four wins a little over 25%).
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..games.registry import make_game
from ..players.factory import PRESETS, played_search, resolve_spec, trained_search
from .runner import load_records
from .stats import seat_win_rates

ELO_PER_NATURAL_UNIT = 400 / math.log(10)  # Elo points per unit of the logistic model's log-odds


@dataclass(frozen=True)
class Rating:
    """One player's place on the ladder."""

    player: str
    elo: float
    se: float  # standard error (0 for the anchor, which is fixed)
    games: int  # games the player took part in
    score: float  # share of its pairwise results won (draws count half)


Game = Sequence[tuple[str, float]]  # (player, score) per seat


def _pairs(games: Sequence[Game], index: Mapping[str, int]) -> tuple[np.ndarray, ...]:
    i, j, y, g = [], [], [], []
    for number, game in enumerate(games):
        for a in range(len(game)):
            for b in range(a + 1, len(game)):
                (pa, sa), (pb, sb) = game[a], game[b]
                if pa != pb:
                    i.append(index[pa])
                    j.append(index[pb])
                    y.append(1.0 if sa > sb else 0.5 if sa == sb else 0.0)
                    g.append(number)
    return np.array(i, int), np.array(j, int), np.array(y), np.array(g, int)


def _check_connected(players: list[str], i: np.ndarray, j: np.ndarray) -> None:
    parent = list(range(len(players)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(i, j):
        parent[root(a)] = root(b)
    groups: dict[int, list[str]] = {}
    for k, name in enumerate(players):
        groups.setdefault(root(k), []).append(name)
    if len(groups) > 1:
        raise ValueError("the players fall into groups that never met, so their ratings cannot be "
                         "compared: " + " | ".join(", ".join(g) for g in groups.values()))


def fit_elo(games: Sequence[Game], anchor: str | None = None, prior_sd: float | None = 2000.0,
            iterations: int = 100) -> list[Rating]:
    """Maximum-likelihood Elo ratings with standard errors, best first.

    Args:
      games: per game, (player, score) for each seat.
      anchor: the player rated 0 (default: the one in the most games).
      prior_sd: a weak normal prior on each rating (Elo points) so that a player who won or lost
        every comparison gets a large finite rating instead of none; None for the pure MLE.
    """
    players = sorted({p for game in games for p, _ in game})
    if len(players) < 2:
        raise ValueError(f"a ladder needs at least two players, got {players}")
    index = {p: k for k, p in enumerate(players)}
    i, j, y, g = _pairs(games, index)
    _check_connected(players, i, j)
    appearances = {p: sum(1 for game in games if any(q == p for q, _ in game)) for p in players}
    anchor = anchor if anchor is not None else max(players, key=lambda p: (appearances[p], p))
    if anchor not in index:
        raise ValueError(f"anchor {anchor!r} played no game; players: {players}")
    n = len(players)
    free = np.array([k for k in range(n) if k != index[anchor]])
    precision = 0.0 if prior_sd is None else (ELO_PER_NATURAL_UNIT / prior_sd) ** 2
    theta = np.zeros(n)
    won = np.bincount(i, y, n) + np.bincount(j, 1 - y, n)
    played = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))
        residual, weight = y - p, p * (1.0 - p)
        gradient = np.bincount(i, residual, n) - np.bincount(j, residual, n) - precision * theta
        information = np.zeros((n, n))  # minus the Hessian of the log-posterior
        np.add.at(information, (i, i), weight)
        np.add.at(information, (j, j), weight)
        np.add.at(information, (i, j), -weight)
        np.add.at(information, (j, i), -weight)
        information += precision * np.eye(n)
        info_free = information[np.ix_(free, free)]
        try:
            step = np.linalg.solve(info_free, gradient[free])
        except np.linalg.LinAlgError:
            break
        theta[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    if not np.all(np.isfinite(theta)) or np.max(np.abs(step)) >= 1e-10:
        perfect = [q for k, q in enumerate(players) if won[k] in (0, played[k])]
        raise ValueError(f"the ratings do not converge: {perfect or 'some players'} won or lost "
                         f"every comparison, so their maximum-likelihood rating is infinite; "
                         f"use a prior (prior_sd)")
    # Sandwich covariance: I^-1 (sum over games of s_g s_g^T) I^-1, s_g a game's score vector.
    scores = np.zeros((len(games), n))
    np.add.at(scores, (g, i), residual)
    np.add.at(scores, (g, j), -residual)
    scores = scores[:, free]
    inverse = np.linalg.inv(info_free)
    covariance = inverse @ (scores.T @ scores) @ inverse
    # A player who won (or lost) everything has residuals near 0 and so a tiny sandwich error;
    # the model-based error (the inverse information) is then the honest, larger one.
    se = np.zeros(n)
    se[free] = np.sqrt(np.maximum(np.diag(covariance), np.diag(inverse)))
    ratings = [Rating(p, float(theta[k] * ELO_PER_NATURAL_UNIT), float(se[k] * ELO_PER_NATURAL_UNIT),
                      appearances[p], float(won[k] / played[k])) for k, p in enumerate(players)]
    return sorted(ratings, key=lambda r: -r.elo)


_STEP = re.compile(r"ckpt_(\d+)\.pt$")


def checkpoint_run(path: str | Path) -> str:
    """The name of the run a checkpoint file belongs to: ``<run>/checkpoints/ckpt_*.pt``,
    ``<run>/eval/checkpoints/`` (the networks the training evaluator keeps) or
    ``<run>/curve/checkpoints/`` (those kept for a learning curve); a file under another name (a
    network shipped in the repository's checkpoints/): its own name; else its folder."""
    path = Path(path)
    folder = path.parent
    if not _STEP.search(path.name):
        return path.stem
    if folder.name != "checkpoints":
        return folder.name
    run = folder.parent
    return run.parent.name if run.name in ("eval", "curve") else run.name


def describe(spec: Mapping[str, Any], trained: Mapping[str, Any] | None = None) -> str:
    """A short, readable name of a resolved player spec (what the ladder prints); it reads no
    file. ``trained``: a network player's checkpoint's trained search settings
    (:func:`~blokuszero.players.factory.trained_search`), its defaults, which the name leaves out."""
    spec = dict(spec)
    kind, sims = spec.get("kind"), spec.get("simulations")
    if kind == "alphazero":
        if spec.get("checkpoint"):
            path = Path(spec["checkpoint"])
            match = _STEP.search(path.name)
            # A shipped file by its name: the network's digest (load_seats adds it) tells
            # networks apart, so the same file given by two paths is one player.
            name = f"{checkpoint_run(path)}@{int(match.group(1))}" if match else path.name
        else:
            name = f"untrained {spec.get('model')} (seed {spec.get('init_seed')})"
        # Search options away from those it plays with by default (its preset's, the network
        # preset's where it searches over playouts, and the search its run trained with) change
        # the player; where and how the network runs does not.
        preset = "network" if spec.get("leaf_playouts") else "alphazero"
        base = resolve_spec({"preset": preset})
        default = {**base, **played_search(trained or {}, base)}
        budget = f"{sims} sims" if sims else f"{spec.get('time_limit'):g} CPU-s a move"
        ignored = {"checkpoint", "model", "init_seed", "simulations", "device", "cache_size", "backend",
                   *(("time_limit",) if not sims else ())}
        extra = "".join(f", {k}={v}" for k, v in sorted(spec.items())
                        if k not in ignored and k != "kind" and default.get(k, 0.0) != v)
        return f"{name}, {'network preset, ' if preset == 'network' else ''}{budget}{extra}"
    if kind == "gtp":
        # The program's name, not where it was built: the same engine from two folders is one player.
        command = str(spec.get("command", "")).split(" ", 1)
        return f"gtp: {Path(command[0]).name} {command[1] if len(command) > 1 else ''}".rstrip()
    # The preset of this kind nearest to the spec, with the settings away from it; a budget in
    # time names the player by its time per move.
    budget = ("simulations", "time_limit")
    nearest = None
    for preset in PRESETS:
        base = resolve_spec({"preset": preset})
        if base["kind"] != kind:
            continue
        away = {k: v for k, v in spec.items() if k not in budget and base.get(k) != v}
        away.update({k: None for k in base if k not in budget and k not in spec})
        if nearest is None or len(away) < len(nearest[1]):
            nearest = preset, away
    if nearest is None:
        return json.dumps(spec, sort_keys=True)
    preset, away = nearest
    extra = "".join(f", {k}={v}" for k, v in sorted(away.items()))
    if spec.get("time_limit"):
        cap = f", at most {sims} sims" if sims else ""
        return f"{preset}, {spec['time_limit']:g} CPU-s a move{cap}{extra}"
    return f"{preset if sims is None else f'{preset} {sims}'}{extra}"


def _trained(spec: Mapping[str, Any], known: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The trained search of a network player's checkpoint, read once into ``known``; empty for
    other players and for a checkpoint that is gone (a stored match may name one)."""
    checkpoint = spec.get("checkpoint") if spec.get("kind") == "alphazero" else None
    if not checkpoint or not Path(checkpoint).is_file():
        return {}
    if checkpoint not in known:
        known[checkpoint] = trained_search(checkpoint)
    return known[checkpoint]


def load_seats(root: str | Path) -> list[list[tuple[str, float, bool]]]:
    """Every stored game under ``root`` (each directory with ``match.json`` and ``games.jsonl``,
    as the arena and evaluations write them), one (player, score, won) per seat: players named by
    :func:`describe` and, where the match recorded it, the network's sha256 (its first 8 hex
    digits); a seat won when its return is above the middle of the game's utility range, as in
    the match summaries."""
    games = []
    known: dict[str, dict[str, Any]] = {}  # checkpoint -> its trained search, each read once
    for match_file in sorted(Path(root).rglob("match.json")):
        games_file = match_file.with_name("games.jsonl")
        if not games_file.exists():
            continue
        stored = json.loads(match_file.read_text())
        networks = stored.get("networks", {})  # by digest: one file may have held several networks
        names = {name: describe(spec, _trained(spec, known)) + (f" [{networks[name][:8]}]" if name in networks else "")
                 for name, spec in stored["players"].items()}
        game = make_game(stored["game"], **stored.get("game_options", {}))
        middle = (game.min_utility + game.max_utility) / 2
        for record in load_records(games_file):
            games.append([(names[seat], float(score), ret > middle) for seat, score, ret
                          in zip(record["seating"], record["scores"], record["returns"])])
    return games


def scores(games: Sequence[Sequence[tuple[str, float, bool]]]) -> list[list[tuple[str, float]]]:
    """:func:`load_seats` games without the wins: (player, score) per seat, what :func:`fit_elo` reads."""
    return [[(player, score) for player, score, _ in game] for game in games]


def load_games(root: str | Path) -> list[list[tuple[str, float]]]:
    """Every stored game under ``root`` as :func:`fit_elo` reads it (see :func:`load_seats`)."""
    return scores(load_seats(root))


def seat_rates(games: Sequence[Sequence[tuple[str, float, bool]]]) -> dict[str, dict[str, float]]:
    """Per player of :func:`load_seats` games: seat win rate, its interval and the equal seat."""
    return seat_win_rates([(player, won) for player, _, won in game] for game in games)


LADDER_NOTE = ("pair score: the share of a player's pairwise results it won (1 for the higher score "
               "of two seats, 1/2 each if equal), 50% for an equal player; seat wins: the share of its "
               "seats that won (shared first places all win), read against the equal seat of the games "
               "it played (winning seats per game / seats)")


def format_ladder(ratings: Sequence[Rating], rates: Mapping[str, Mapping[str, float]]) -> str:
    """The ladder as a console table, each player's seat win rate beside its equal seat
    (``rates``: :func:`seat_rates`), and a note saying what the columns mean."""
    width = max(len("player"), *(len(r.player) for r in ratings))
    lines = [f"{'rank':>4s}  {'player':{width}s} {'Elo':>7s} {'+-SE':>6s} {'games':>6s} {'pair score':>10s} "
             f"{'seat wins':>9s} {'95% interval':>15s} {'equal seat':>10s}"]
    for rank, r in enumerate(ratings, 1):
        se = "anchor" if r.se == 0 else f"{r.se:6.1f}"
        w = rates[r.player]
        lines.append(f"{rank:4d}  {r.player:{width}s} {r.elo:7.1f} {se:>6s} {r.games:6d} {r.score:10.1%} "
                     f"{w['win_rate']:9.1%} [{w['ci_low']:5.1%}, {w['ci_high']:5.1%}] {w['equal_seat']:10.1%}")
    return "\n".join(lines + [LADDER_NOTE])


def plot_ladder(ratings: Sequence[Rating], path: str | Path, title: str) -> None:
    """The ladder as a PNG: one bar per player, its Elo with a 95% interval (1.96 standard errors)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    shown = list(reversed(ratings))  # the strongest at the top
    # Players' descriptions (a checkpoint path, an engine's command line) and the title are
    # wrapped, never cut: the figure grows a line's height for each extra line.
    labels = ["\n".join(textwrap.wrap(r.player, 50, break_on_hyphens=False)) for r in shown]
    heading = "\n".join(textwrap.wrap(title, 90))
    rows = sum(label.count("\n") + 1 for label in labels)
    fig, ax = plt.subplots(figsize=(10.0, 0.3 * rows + 0.2 * len(shown) + 1.2 + 0.2 * heading.count("\n")), dpi=100)
    ax.barh(range(len(shown)), [r.elo for r in shown], xerr=[1.96 * r.se for r in shown], capsize=3,
            color=["grey" if r.se == 0 else "tab:blue" for r in shown])
    ax.set_yticks(range(len(shown)), labels, fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("Elo (anchor = 0; bars: 95% interval)")
    ax.set_title(heading, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
