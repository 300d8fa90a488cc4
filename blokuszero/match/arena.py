"""Matches between players: seating shuffled (or rotated) per game, random openings, parallel workers.

A seat wins a game when its return is above the middle of the game's utility range (0 for
returns in -1..1, 50 for GDL goals 0-100): with Blokus' returns, a shared first place counts as
a win for every colour that shares it; a draw at the middle is no win.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..cluster import start_ray
from ..files import write_atomic
from ..games.abilities import HasScores, implements
from ..games.base import Game, State
from ..games.registry import make_game, record_format
from ..players.base import Player
from ..players.factory import make_player, player_settings, resolve_spec
from ..players.game_loop import play
from ..provenance import source
from ..settings import check_value
from .referee import GtpReferee
from .stats import wilson_interval


@dataclass(frozen=True)
class Match:
    """What is played: the game, one player name per seat, and the players' specs."""

    game: str
    seats: Sequence[str]  # player names, one per seat; shuffled for every game
    players: Mapping[str, Mapping[str, Any]]  # name -> player spec (see players.factory)
    random_opening_moves: int = 0  # first moves of every game played uniformly at random
    game_options: Mapping[str, Any] = field(default_factory=dict)  # make_game options (Go: size, komi)
    seating: str = "shuffle"  # one of SEATINGS: "shuffle" (random per game) or "rotate" (game i: seats turned by i)
    referee: str | None = None  # Go: a GTP engine that sees every move and scores the end (see referee.py)

    def make_game(self) -> Game:
        """The game of this match, with its options."""
        return make_game(self.game, **self.game_options)

    def check(self) -> None:
        """ValueError naming what is wrong, before any game starts."""
        check_value("random_opening_moves", self.random_opening_moves, int, low=0)
        check_value("seating", self.seating, str, choices=SEATINGS)
        game = self.make_game()
        if self.referee is not None and game.name != "go":
            raise ValueError(f"a referee scores Go games, not {self.game}")
        if len(self.seats) != game.num_players:
            raise ValueError(f"{self.game} has {game.num_players} seats, but {len(self.seats)} "
                             f"were given: {list(self.seats)}")
        for name in self.seats:
            if name not in self.players:
                raise ValueError(f"seat player {name!r} has no entry in players "
                                 f"(have: {sorted(self.players)})")
        for name, spec in self.players.items():
            try:
                resolve_spec(spec)
            except ValueError as err:
                raise ValueError(f"player {name!r}: {err}") from None


SEATINGS = ("shuffle", "rotate")


def _sgf(game: Game, state: State, actions: list[tuple[int, int]], seating: list[str], comment: str,
         result: str | None) -> str | None:
    """The game's record, for games with a record format (Blokus, Go: SGF); ``result``: how a
    referee or a resignation decided the game, if one did."""
    form = record_format(game)
    return None if form is None else form.write(game, state, actions, seating, comment, result)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a match seeded with ``seed`` (stored with the game)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def play_game(match: Match, index: int, seed: int) -> dict[str, Any]:
    """Play one game; return its record (seating, moves, returns, scores, seed, SGF for Blokus and
    Go, and the result when a resignation, a refused move or the referee decided it). In a
    two-player game a player that fails (a GTP engine that crashes, refuses a move or answers
    an illegal one) forfeits it, ``forfeit`` saying why, and the match goes on."""
    game = match.make_game()
    rng = np.random.default_rng(seed)
    if match.seating == "rotate":  # two players: colours alternate game by game
        turn = index % len(match.seats)
        seating = [str(name) for name in [*match.seats[turn:], *match.seats[:turn]]]
    else:
        seating = [str(name) for name in rng.permutation(list(match.seats))]
    player_seeds = np.random.SeedSequence(seed).generate_state(len(seating))
    players: list[Player] = []
    state = game.new_initial_state(rng)
    start, cpu_start = time.perf_counter(), time.process_time()
    referee = GtpReferee(match.referee, game) if match.referee else None
    try:
        for name, s in zip(seating, player_seeds):
            players.append(make_player(game, match.players[name], int(s)))
            players[-1].reset()
        try:
            played = play(game, state, players, rng, names=[f"player {name!r}" for name in seating],
                          random_opening_moves=match.random_opening_moves, referee=referee)
        except ValueError as err:
            raise ValueError(f"game {index}: {err}") from None
    finally:
        for player in players:
            player.close()
        if referee is not None:
            referee.close()
    returns = played.returns
    scores = state.scores() if implements(state, HasScores) else returns
    record = {"index": index, "seed": seed, "seating": seating, "moves": played.moves,
              "returns": returns.tolist(), "scores": np.asarray(scores).tolist(),
              "seconds": time.perf_counter() - start,
              # CPU time of this process (one thread per worker): what a game costs on a free
              # core, however busy the machine; an external GTP engine's own time is not in it
              "cpu_seconds": time.process_time() - cpu_start,
              "cpu_seconds_by_seat": played.cpu_by_seat, "moves_chosen_by_seat": played.chosen_by_seat}
    if played.result is not None:
        record["result"] = played.result
    if played.forfeit is not None:
        record["forfeit"] = played.forfeit
    sgf = _sgf(game, state, played.actions, seating, f"arena game {index}, seed {seed}", played.result)
    if sgf is not None:
        record["sgf"] = sgf
    return record


def summarise(match: Match, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per player name: games (seats taken), wins, win rate with Wilson 95% interval, mean score,
    and the same per seat (``by_seat``: Go's Black and White, Blokus' colours)."""

    game = match.make_game()
    middle = (game.min_utility + game.max_utility) / 2

    def rate(results: list[tuple[float, float]]) -> dict[str, Any]:
        wins = sum(1 for ret, _ in results if ret > middle)
        low, high = wilson_interval(wins, len(results))
        return {"games": len(results), "wins": wins, "win_rate": wins / len(results) if results else 0.0,
                "ci_low": low, "ci_high": high,
                "mean_score": float(np.mean([s for _, s in results])) if results else 0.0}

    players = {}
    for name in dict.fromkeys(match.seats):
        by_seat = [[(r["returns"][i], r["scores"][i]) for r in records if r["seating"][i] == name]
                   for i in range(len(match.seats))]
        players[name] = {"config": player_settings(match.players[name]),
                         **rate([result for seat in by_seat for result in seat]),
                         "by_seat": [rate(seat) for seat in by_seat]}
    return {"game": match.game, "games": len(records), "seats": list(match.seats),
            "random_opening_moves": match.random_opening_moves,
            "game_options": dict(match.game_options), "seating": match.seating, "referee": match.referee,
            "win_rule": f"a seat wins when its return is above {middle:g}, the middle of the game's "
                        f"utility range; shared first places all win",
            "seeds": [r["seed"] for r in records], "players": players}


def set_math_threads(threads: int = 1) -> None:
    """Limit this process's math-library (torch, BLAS) threads, before or after torch is imported.

    A game's searches evaluate one position at a time, where extra threads only spin: on the
    2 busy cores of the development machine, a 4-simulation game took 12 s with 2 torch threads
    and 0.3 s with 1; and workers side by side oversubscribe the cores (5x slower with 2 workers).
    """
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    # Spawned workers import the parent's main module first, and torch with it if that imports
    # torch (scripts/evaluate.py does): the variables then come too late for torch.
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def match_definition(match: Match, seed: int) -> dict[str, Any]:
    """What makes stored games part of the same match: resuming checks it (``match.json``)."""
    definition = {"game": match.game, "seats": list(match.seats), "seed": seed,
                  "random_opening_moves": match.random_opening_moves,
                  "players": {name: resolve_spec(spec) for name, spec in sorted(match.players.items())}}
    # Only when set, so that matches stored before these options existed still resume.
    if match.game_options:
        definition["game_options"] = dict(match.game_options)
    if match.seating != "shuffle":
        definition["seating"] = match.seating
    if match.referee is not None:
        definition["referee"] = match.referee
    return definition


def load_records(path: Path, report: Callable[[str], None] = tqdm.write) -> list[dict]:
    """The game records of a ``games.jsonl``. A torn last line (the run was killed while writing
    it) is reported and dropped; damage anywhere else is a ValueError naming the line."""
    lines = Path(path).read_text().splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            if number < len(lines):
                raise ValueError(f"{path}, line {number} is damaged ({err}); "
                                 f"remove that line to replay the game") from None
            report(f"dropping the torn last line of {path} (its game is played again)")
    return records


def _resume(match: Match, seed: int, games: int, out_dir: Path) -> list[dict]:
    """Records stored by an earlier run of the same match in ``out_dir`` (checked)."""
    definition = json.loads(json.dumps(match_definition(match, seed)))  # as stored: lists, not tuples
    stored_match = out_dir / "match.json"
    if not (out_dir / "games.jsonl").exists():
        return []
    if not stored_match.exists():
        raise ValueError(f"{out_dir} holds games but no match.json: cannot tell whether they "
                         f"belong to this match; use a new out_dir")
    stored = json.loads(stored_match.read_text())
    for key in definition:
        if stored.get(key) != definition[key]:
            raise ValueError(f"cannot resume in {out_dir}: its games were played with {key} = "
                             f"{stored.get(key)!r}, this match has {definition[key]!r}; "
                             f"use another out_dir")
    records = {}
    for r in load_records(out_dir / "games.jsonl"):
        if r["seed"] != game_seed(seed, r["index"]):
            raise ValueError(f"{out_dir}/games.jsonl: game {r['index']} has seed {r['seed']}, "
                             f"not this match's {game_seed(seed, r['index'])}")
        if r["index"] < games:
            records.setdefault(r["index"], r)
    return sorted(records.values(), key=lambda r: r["index"])


def _play_games(match: Match, jobs: list[tuple[int, int]], workers: int, backend: str,
                gpus_per_worker: float, ray_address: str | None) -> Iterator[dict]:
    """Records of the games ``jobs`` = [(index, seed)], in the order they finish."""
    if backend == "ray":
        import ray

        owns_ray = start_ray(ray_address, workers)
        try:
            # Ray gives each task num_cpus=1 one math-library thread; a GPU share makes the
            # task see its GPU, so an alphazero player with device: cuda runs there.
            remote = ray.remote(num_cpus=1, num_gpus=gpus_per_worker)(play_game)
            pending = [remote.remote(match, i, s) for i, s in jobs]
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            if owns_ray:
                ray.shutdown()
    elif workers <= 1:
        set_math_threads(1)
        for i, s in jobs:
            yield play_game(match, i, s)
    else:
        # spawn, not fork: workers must not inherit threads (torch, Ray) of the parent.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                 initializer=set_math_threads) as pool:
            futures = [pool.submit(play_game, match, i, s) for i, s in jobs]
            for future in as_completed(futures):
                yield future.result()


BACKENDS = ("process", "ray")


def run_match(match: Match, games: int, seed: int, out_dir: Path, workers: int = 1,
              progress: bool = True, on_record: Callable[[dict], None] | None = None, *,
              resume: bool = False, backend: str = "process", gpus_per_worker: float = 0.0,
              ray_address: str | None = None, label: str | None = None) -> dict[str, Any]:
    """Play ``games`` games, storing each (``games.jsonl``, SGF files for Blokus and Go) as it ends, and
    write ``summary.json`` to ``out_dir``; return the summary.

    ``resume``: keep the games an earlier, interrupted run of the same match stored in
    ``out_dir`` and play only the missing ones (otherwise stored games are replaced).
    ``backend``: ``process`` (``workers`` local processes) or ``ray`` (tasks on a Ray cluster,
    ``gpus_per_worker`` GPU each; ``workers`` CPUs when Ray is started here).
    """
    match.check()
    origin = source()  # the code that plays this run's games, read before any is played
    check_value("games", games, int, low=1)
    check_value("seed", seed, int, low=0)
    check_value("workers", workers, int, low=1)
    check_value("backend", backend, str, choices=BACKENDS)
    check_value("gpus_per_worker", gpus_per_worker, float, low=0)
    out_dir = Path(out_dir)
    (out_dir / "games").mkdir(parents=True, exist_ok=True)
    records = _resume(match, seed, games, out_dir) if resume else []
    # The stored records are rewritten whole (a torn last line goes), then appended to; SGF
    # files of games not kept (an earlier match's) go too, so every file on disk is this match's.
    write_atomic(out_dir / "games.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    form = record_format(match.make_game())
    suffix = ".sgf" if form is None else form.suffix
    kept = {f"game_{r['index']:05d}{suffix}" for r in records}
    for old in (out_dir / "games").glob(f"game_*{suffix}"):
        if old.name not in kept:
            old.unlink()
    write_atomic(out_dir / "match.json", json.dumps(match_definition(match, seed), indent=2))
    watched = match.seats[0]
    bar = tqdm(total=games, initial=len(records), disable=not progress, unit="game",
               desc=label or f"{match.game} arena")

    def show_rate() -> None:
        rate = summarise(match, records)["players"][watched]
        bar.set_postfix_str(f"{watched} {rate['win_rate']:.1%} [{rate['ci_low']:.1%}, {rate['ci_high']:.1%}]")

    def finish(record: dict) -> None:
        records.append(record)
        if "forfeit" in record:  # the match goes on; say why this game was lost
            bar.write(f"game {record['index']}: {record['forfeit']}")
        with open(out_dir / "games.jsonl", "a") as f:
            f.write(json.dumps({k: v for k, v in record.items() if k != "sgf"}) + "\n")
        if "sgf" in record:
            write_atomic(out_dir / "games" / f"game_{record['index']:05d}{suffix}", record["sgf"])
        show_rate()
        bar.update()
        if on_record:
            on_record(record)

    if records:
        show_rate()
    done = {r["index"] for r in records}
    jobs = [(i, game_seed(seed, i)) for i in range(games) if i not in done]
    start = time.perf_counter()
    try:
        for record in _play_games(match, jobs, workers, backend, gpus_per_worker, ray_address):
            finish(record)
    except BaseException:
        bar.close()
        if not records:
            # No game stored (an engine that would not start, a bad setting): leave no match
            # behind, so that the corrected command is not refused as another match's resume.
            for name in ("match.json", "games.jsonl"):
                (out_dir / name).unlink(missing_ok=True)
        raise
    wall = time.perf_counter() - start
    bar.close()
    records.sort(key=lambda r: r["index"])
    summary = summarise(match, records)
    summary["source"] = origin
    # Speed of this run only (resumed games were timed by the run that played them).
    played = [r for r in records if r["index"] not in done]
    summary["speed"] = {"games_played": len(jobs), "wall_seconds": wall, "workers": workers,
                        "backend": backend,
                        "games_per_hour": len(jobs) * 3600 / wall if jobs and wall > 0 else None,
                        "cpu_seconds_per_game": float(np.mean([r["cpu_seconds"] for r in played]))
                        if played else None,
                        "cpu_seconds_per_move": cpu_per_move(played)}
    write_atomic(out_dir / "summary.json", json.dumps(summary, indent=2))
    return summary


def cpu_per_move(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """Per player name: the CPU seconds of this process per move it chose (random opening
    moves not counted; an external engine's own time is not in it), over ``records``."""
    cpu: dict[str, float] = {}
    moves: dict[str, int] = {}
    for r in records:
        for name, seconds, chosen in zip(r["seating"], r.get("cpu_seconds_by_seat", ()),
                                         r.get("moves_chosen_by_seat", ())):
            cpu[name] = cpu.get(name, 0.0) + seconds
            moves[name] = moves.get(name, 0) + chosen
    return {name: cpu[name] / moves[name] if moves[name] else None for name in cpu}


def format_summary(summary: Mapping[str, Any]) -> str:
    """The summary as a table for the console."""
    lines = [f"{summary['game']}: {summary['games']} games, first {summary['random_opening_moves']} "
             f"moves random", f"{'player':20s} {'seats':>6s} {'wins':>6s} {'win rate':>9s}  "
             f"{'95% interval':>17s} {'mean score':>10s} {'CPU s/move':>10s}"]
    for name, p in summary["players"].items():
        cpu = (summary.get("speed") or {}).get("cpu_seconds_per_move", {}).get(name)
        lines.append(f"{name:20s} {p['games']:6d} {p['wins']:6d} {p['win_rate']:9.1%}  "
                     f"[{p['ci_low']:6.1%}, {p['ci_high']:6.1%}] {p['mean_score']:10.2f} "
                     f"{'-' if cpu is None else f'{cpu:.4f}':>10s}")
    speed = summary.get("speed") or {}
    if speed.get("games_per_hour"):
        lines.append(f"{speed['games_played']} games played here in {speed['wall_seconds']:.0f} s: "
                     f"{speed['games_per_hour']:.1f} games per hour with {speed['workers']} "
                     f"worker(s), {speed['cpu_seconds_per_game']:.1f} CPU seconds per game")
    return "\n".join(lines)
