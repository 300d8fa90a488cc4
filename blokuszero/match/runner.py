"""The match runner: plays a match's games in worker processes or Ray tasks, stores each as it ends
(``games.jsonl``, SGF), resumes an interrupted match and writes its summary."""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from tqdm import tqdm

from ..cluster import start_ray
from ..files import write_atomic
from ..games.registry import record_format
from ..nn.checkpoint import digest
from ..players.factory import resolve_spec
from ..provenance import source
from ..settings import check_value
from ..threads import set_math_threads
from .arena import Match, game_seed, play_game
from .summary import cpu_per_move, summarise


def network_digests(players: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The sha256 of each network file a resolved player spec loads (resolving verified it against
    its ``.sha256``), by player name: a path names a file, not a network (a gate replaces the
    shipped file in place)."""
    return {name: digest(spec["checkpoint"]) for name, spec in sorted(players.items()) if spec.get("checkpoint")}


def match_definition(match: Match, seed: int) -> dict[str, Any]:
    """What makes stored games part of the same match: resuming checks it (``match.json``)."""
    players = {name: resolve_spec(spec) for name, spec in sorted(match.players.items())}
    definition = {"game": match.game, "seats": list(match.seats), "seed": seed,
                  "random_opening_moves": match.random_opening_moves, "players": players}
    if networks := network_digests(players):
        definition["networks"] = networks
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


def _resume(definition: dict[str, Any], seed: int, games: int, out_dir: Path) -> list[dict]:
    """Records stored by an earlier run of the match ``definition`` describes in ``out_dir`` (checked)."""
    definition = json.loads(json.dumps(definition))  # as stored: lists, not tuples
    stored_match = out_dir / "match.json"
    if not (out_dir / "games.jsonl").exists():
        return []
    if not stored_match.exists():
        raise ValueError(f"{out_dir} holds games but no match.json: cannot tell whether they "
                         f"belong to this match; use a new out_dir")
    stored = json.loads(stored_match.read_text())
    for key in definition:
        if key == "networks" and key not in stored:
            continue  # stored before networks were recorded: which one played is not known
        if key == "networks" and stored[key] != definition[key]:
            def short(networks: dict[str, str]) -> str:
                return ", ".join(f"{name} {sha[:12]}" for name, sha in sorted(networks.items()))

            raise ValueError(f"cannot resume in {out_dir}: its games were played by other networks "
                             f"({short(stored[key])}; now {short(definition[key])}): a file was replaced "
                             f"(a gate that ships replaces the shipped file); use another out_dir")
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
                gpus_per_worker: float, ray_address: str | None, moves: Callable[[int, int], None]) -> Iterator[dict]:
    """Records of the games ``jobs`` = [(index, seed)], in the order they finish; ``moves(index,
    moves played)`` is called before each move of the games played here or in local workers
    (not of Ray's tasks)."""
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
        here = SimpleNamespace(put=lambda item: moves(*item))
        for i, s in jobs:
            yield play_game(match, i, s, here)
    else:
        # spawn, not fork: workers must not inherit threads (torch, Ray) of the parent.
        context = multiprocessing.get_context("spawn")
        with context.Manager() as manager, ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                                               initializer=set_math_threads) as pool:
            sent = manager.Queue()
            pending = {pool.submit(play_game, match, i, s, sent) for i, s in jobs}
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                while not sent.empty():
                    moves(*sent.get())
                for future in done:
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
    definition = match_definition(match, seed)
    records = _resume(definition, seed, games, out_dir) if resume else []
    # The stored records are rewritten whole (a torn last line goes), then appended to; SGF
    # files of games not kept (an earlier match's) go too, so every file on disk is this match's.
    write_atomic(out_dir / "games.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    form = record_format(match.make_game())
    suffix = ".sgf" if form is None else form.suffix
    kept = {f"game_{r['index']:05d}{suffix}" for r in records}
    for old in (out_dir / "games").glob(f"game_*{suffix}"):
        if old.name not in kept:
            old.unlink()
    write_atomic(out_dir / "match.json", json.dumps(definition, indent=2))
    watched = match.seats[0]
    bar = tqdm(total=games, initial=len(records), disable=not progress, unit="game",
               desc=label or f"{match.game} arena")

    rate_text = ""
    playing: dict[int, int] = {}  # moves played so far in each game under way

    def show() -> None:
        under_way = ", ".join(f"game {i} move {n}" for i, n in sorted(playing.items()))
        bar.set_postfix_str("; ".join(t for t in (rate_text, under_way) if t))

    def show_rate() -> None:
        nonlocal rate_text
        rate = summarise(match, records)["players"][watched]
        rate_text = f"{watched} {rate['win_rate']:.1%} [{rate['ci_low']:.1%}, {rate['ci_high']:.1%}]"
        show()

    def show_moves(index: int, moves: int) -> None:
        if index not in done:
            playing[index] = moves
            show()

    def finish(record: dict) -> None:
        records.append(record)
        done.add(record["index"])
        playing.pop(record["index"], None)
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

    done = {r["index"] for r in records}
    if records:
        show_rate()
    resumed = set(done)
    jobs = [(i, game_seed(seed, i)) for i in range(games) if i not in done]
    start = time.perf_counter()
    try:
        for record in _play_games(match, jobs, workers, backend, gpus_per_worker, ray_address, show_moves):
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
    played = [r for r in records if r["index"] not in resumed]
    summary["speed"] = {"games_played": len(jobs), "wall_seconds": wall, "workers": workers,
                        "backend": backend,
                        "games_per_hour": len(jobs) * 3600 / wall if jobs and wall > 0 else None,
                        "cpu_seconds_per_game": float(np.mean([r["cpu_seconds"] for r in played]))
                        if played else None,
                        "cpu_seconds_per_move": cpu_per_move(played)}
    write_atomic(out_dir / "summary.json", json.dumps(summary, indent=2))
    return summary
