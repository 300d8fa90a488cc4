"""Benchmark self-play and learning against the network's own speed.

For each model and batch size: the network alone (forward passes on ready inputs), then
lockstep self-play with as many games in parallel as the batch size (so each simulation
round is one batch), reporting simulations and positions per second, batch fill and the
ratio of self-play simulations to the network's standalone rate (target >= 70%: search and
batching must not be the bottleneck). Then learner steps per second. ``--tree-only`` also plays
self-play with uniform priors and no network: the leaves per second the search loop itself can
feed to a network (its ceiling on a fast GPU, per actor process). ``--actors 1,2,4`` instead
runs that many self-play processes at once on one device (as training's actors share a GPU) and
reports their leaves (simulations) per second together: each plays fresh games for ``--seconds``
after a warm-up, all starting at once, so the figures are of the games' first moves.
``--expert-iteration BACKENDS`` instead plays expert iteration's self-play (rl/expert_iteration.py:
playout leaves, the network's priors at expansion, one game at a time) with the first model, or
``--checkpoint``'s network, run by each backend, whole games alternating between the backends
until each has used ``--seconds`` of CPU time; rates per CPU-second. Usage::

    python -m blokuszero.bench selfplay --models b2c32conv,b2c32 --batches 64 --seconds 20
    python -m blokuszero.bench selfplay --device cuda --batches 1024 --half
    python -m blokuszero.bench selfplay --models b2c32conv --batches 64,256 --tree-only
    python -m blokuszero.bench selfplay --models b10c128 --device cuda --half --batches 512 \
        --leaves-per-tree 2 --actors 1,2,4 --threads 2
    python -m blokuszero.bench selfplay --expert-iteration torch,onnxruntime --simulations 800 \
        --checkpoint checkpoints/blokus_b2c32conv_gumbel.pt --threads 1
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import platform
import queue
import time
import traceback

import numpy as np
import torch

from ..games.blokus import BlokusGame
from ..games.blokus.encoder import BlokusEncoder
from ..match.stats import paired_difference
from ..nn.checkpoint import load_network
from ..nn.evaluator import NetworkEvaluator
from ..nn.model import build_model
from ..rl.buffer_fit import split_games, spread
from ..rl.expert_iteration import ExpertIterationSelfPlay
from ..rl.learner import Learner, LearnerSettings
from ..rl.replay import ReplayBuffer
from ..rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from ..search.evaluators import Evaluator, UniformEvaluator
from .harness import finish, load, parser, timed_rate


def standalone_rate(model, batch: int, device: str, half: bool, seconds: float) -> float:
    """Positions per second of the model alone on random 0/1 planes."""
    x = (torch.rand(batch, 33, 20, 20, device=device) < 0.1).float()
    autocast = torch.autocast("cuda", dtype=torch.float16) if half and device == "cuda" else None
    model = model.to(device).eval()
    done, start = 0, None
    with torch.inference_mode():
        while start is None or time.perf_counter() - start < seconds:
            if done == batch * 2 and start is None:  # two warm-up batches
                start, done = time.perf_counter(), 0
            if autocast:
                with autocast:
                    model(x)
            else:
                model(x)
            if device == "cuda":
                torch.cuda.synchronize()
            done += batch
    return done / (time.perf_counter() - start)


def selfplay_rate(evaluator: Evaluator, batch: int, seconds: float, simulations: int) -> dict:
    """Lockstep self-play with ``batch`` games at once for about ``seconds`` (whole rounds of games)."""
    settings = SelfPlaySettings(simulations=simulations, games_in_parallel=batch)
    selfplay = LockstepSelfPlay(BlokusGame(), evaluator, settings, seed=0)
    selfplay.play(min(batch, 2))  # warm-up: compile, allocate
    total = {"simulations": 0, "positions": 0, "evaluations": 0, "capacity": 0, "seconds": 0.0, "games": 0}
    games = []
    while total["seconds"] < seconds:
        stats = selfplay.play(batch, games.append)
        for key, attr in (("simulations", "simulations"), ("positions", "positions"),
                          ("evaluations", "evaluations"), ("capacity", "batch_capacity"),
                          ("seconds", "seconds"), ("games", "games")):
            total[key] += getattr(stats, attr)
    hits, misses = getattr(evaluator, "cache_hits", 0), getattr(evaluator, "cache_misses", 0)  # none without a cache
    return {"simulations_per_s": total["simulations"] / total["seconds"],
            "positions_per_s": total["positions"] / total["seconds"],
            "games_per_hour": total["games"] * 3600 / total["seconds"],
            "batch_fill": total["evaluations"] / max(total["capacity"], 1),
            "cache_hit_rate": hits / max(hits + misses, 1),
            "replay_mb_per_10k_games": np.mean([g.nbytes for g in games]) * 10_000 / 2**20,
            "games": games}


def _shared_actor(index: int, model_name: str, settings: SelfPlaySettings, counts: list[int], seconds: float,
                  warmup: float, device: str, half: bool, threads: int, barrier, results) -> None:
    """One actor process of :func:`shared_device_rates`: warm up, then for each count in
    ``counts`` wait for all processes and, if among the first ``count``, play for ``seconds``
    and put its figures on ``results``."""
    try:
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        evaluator = NetworkEvaluator(build_model(model_name, "blokus"), BlokusEncoder(), device=device, half=half,
                                     cache_size=100_000)
        selfplay = LockstepSelfPlay(BlokusGame(), evaluator, settings, seed=index)

        def timed(limit: float):
            deadline = time.perf_counter() + limit
            return selfplay.play(10**9, stop=lambda: time.perf_counter() >= deadline)

        timed(warmup)  # compile, allocate, let cuDNN pick its kernels
        for count in counts:
            barrier.wait(timeout=900)  # one round at a time, its actors starting together
            if index >= count:
                continue
            hits, misses = evaluator.cache_hits, evaluator.cache_misses
            stats = timed(seconds)
            hits, misses = evaluator.cache_hits - hits, evaluator.cache_misses - misses
            results.put({"actors": count, "actor": index, "simulations": stats.simulations,
                         "evaluations": stats.evaluations, "positions": stats.positions,
                         "seconds": stats.seconds, "batch_fill": stats.batch_fill,
                         "cache_hit_rate": hits / max(hits + misses, 1)})
    except BaseException:  # noqa: BLE001 - reported to the parent, which fails
        results.put({"actor": index, "error": traceback.format_exc()})


def shared_device_rates(model_name: str, counts: list[int], settings: SelfPlaySettings, seconds: float,
                        device: str, half: bool, threads: int, warmup: float = 5.0) -> list[dict]:
    """Leaves (simulations) per second of self-play processes sharing ``device``, for each number
    of them in ``counts``: ``max(counts)`` processes, each with its own copy of the network and
    ``settings.games_in_parallel`` games in lockstep, warm up for ``warmup`` seconds; then in one
    round per count the first ``count`` of them play together for ``seconds`` (fresh games: the
    figures are of the games' first moves) while the others wait."""
    context = multiprocessing.get_context("spawn")  # CUDA does not survive fork
    size = max(counts)
    barrier, results = context.Barrier(size), context.Queue()
    processes = [context.Process(target=_shared_actor, args=(i, model_name, settings, counts, seconds, warmup,
                                                           device, half, threads, barrier, results))
                 for i in range(size)]
    for process in processes:
        process.start()
    rows: list[dict] = []
    try:
        while len(rows) < sum(counts):
            try:
                rows.append(results.get(timeout=5))
            except queue.Empty:
                if any(p.exitcode not in (None, 0) for p in processes):
                    raise RuntimeError(f"a self-play process died (exit codes "
                                       f"{[p.exitcode for p in processes]})") from None
                continue
            if "error" in rows[-1]:
                raise RuntimeError(f"self-play process {rows[-1]['actor']} failed:\n{rows[-1]['error']}")
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    out = []
    for count in counts:
        mine = sorted((r for r in rows if r["actors"] == count), key=lambda r: r["actor"])
        per_s = {key: sum(r[key] / r["seconds"] for r in mine) for key in ("simulations", "evaluations", "positions")}
        out.append({"model": model_name, "actors": count, "games_in_parallel": settings.games_in_parallel,
                    "leaves_per_tree": settings.leaves_per_tree, "simulations": settings.simulations,
                    "leaves_per_s": per_s["simulations"], "evaluations_per_s": per_s["evaluations"],
                    "positions_per_s": per_s["positions"],
                    "batch_fill": float(np.mean([r["batch_fill"] for r in mine])),
                    "cache_hit_rate": float(np.mean([r["cache_hit_rate"] for r in mine])), "per_actor": mine})
    return out


def expert_iteration_rates(model: torch.nn.Module, backends: list[str], simulations: int,
                           seconds: float) -> list[dict]:
    """Expert iteration's self-play with ``model`` run by each of ``backends`` (the same seed, so
    the same games where the backends agree), whole games alternating between the backends until
    each has used ``seconds`` of CPU time; per backend its totals and rates per CPU-second."""
    settings = expert_iteration_settings(simulations)
    players = {b: ExpertIterationSelfPlay(BlokusGame(), NetworkEvaluator(copy.deepcopy(model), BlokusEncoder(),
                                                                         backend=b), settings, seed=0)
               for b in backends}
    for selfplay in players.values():  # warm-up: compile, export, allocate
        selfplay.play(1)
    totals = {b: dict.fromkeys(("cpu_seconds", "games", "positions", "simulations", "evaluations"), 0)
              for b in backends}
    while min(t["cpu_seconds"] for t in totals.values()) < seconds:
        for backend, selfplay in players.items():
            start = time.process_time()
            stats = selfplay.play(1)
            total = totals[backend]
            total["cpu_seconds"] += time.process_time() - start
            for key in ("games", "positions", "simulations", "evaluations"):
                total[key] += getattr(stats, key)
    return [{"backend": b, "simulations_per_move": simulations, **t,
             "simulations_per_cpu_s": t["simulations"] / t["cpu_seconds"],
             "positions_per_cpu_s": t["positions"] / t["cpu_seconds"],
             "games_per_cpu_hour": t["games"] * 3600 / t["cpu_seconds"],
             "network_calls_per_position": t["evaluations"] / t["positions"]} for b, t in totals.items()]


def target_noise(selfplay: ExpertIterationSelfPlay, states: list, seed: int = 0) -> dict:
    """Two independent searches of ``selfplay``'s settings (fresh trees) on each of ``states``:
    how far apart their policy targets (visit shares) are, against how far the network's priors
    at the root are from the first search's target. A network no farther from a search's target
    than a second search is has learned what those targets can teach."""
    simulations = selfplay.settings.simulations
    seeds = np.random.SeedSequence(seed)
    rows = []
    for state in states:
        first, second = (selfplay.search(s).search(state.clone(), simulations=simulations) for s in seeds.spawn(2))
        moves = sorted(set(first.actions.tolist()) | set(second.actions.tolist()))

        def shares(result, counts) -> np.ndarray:
            by_move = dict(zip(result.actions.tolist(), counts / counts.sum(), strict=True))
            return np.array([by_move.get(m, 0.0) for m in moves])

        a, b, q = shares(first, first.visits), shares(second, second.visits), shares(first, first.prior)
        rows.append((0.5 * np.abs(a - b).sum(), 0.5 * np.abs(a - q).sum(), a.argmax() == b.argmax(),
                     a.argmax() == q.argmax()))
    tv_searches, tv_network, same_top, network_top = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    return {"positions": len(rows), "simulations": simulations,
            "tv_between_searches": float(tv_searches.mean()), "tv_network_to_search": float(tv_network.mean()),
            "top_move_agreement_between_searches": float(same_top.mean()),
            "network_top_prior_is_search_top_move": float(network_top.mean()),
            # paired by position: the second search's edge over the network as a predictor of the first
            "tv_network_minus_searches": paired_difference(tv_network, tv_searches),
            "top_agreement_searches_minus_network": paired_difference(same_top, network_top)}


def learner_rate(model_name: str, games, device: str, seconds: float) -> float:
    buffer = ReplayBuffer(capacity=len(games), encoder=BlokusEncoder())
    for g in games:
        buffer.add(g)
    rng = np.random.default_rng(0)
    learner = Learner(build_model(model_name, "blokus"), LearnerSettings(), device)
    batches = [buffer.sample(64, rng, augment=True) for _ in range(8)]
    learner.train_step(batches[0])
    steps = 0

    def step() -> int:
        nonlocal steps
        learner.train_step(batches[steps % len(batches)])
        steps += 1
        return 1

    return timed_rate(step, seconds)[0]


def main(argv: list[str] | None = None) -> None:
    command = parser("selfplay", __doc__)
    command.add_argument("--models", default="b2c32conv,b2c32", help="comma-separated model sizes")
    command.add_argument("--batches", default="64", help="comma-separated batch sizes")
    command.add_argument("--simulations", type=int, default=32, help="simulations per move in self-play")
    command.add_argument("--seconds", type=float, default=20.0, help="time per measurement")
    command.add_argument("--device", default="cpu")
    command.add_argument("--half", action="store_true", help="float16 inference (CUDA)")
    command.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    command.add_argument("--tree-only", action="store_true",
                         help="also self-play with uniform priors and no network (the search loop's ceiling)")
    command.add_argument("--leaves-per-tree", type=int, default=1, help="leaves per tree per batch (--actors)")
    command.add_argument("--actors", help="comma-separated counts of self-play processes sharing the device")
    command.add_argument("--warmup", type=float, default=5.0, help="untimed seconds of self-play first (--actors)")
    command.add_argument("--expert-iteration", metavar="BACKENDS",
                         help="comma-separated backends: expert iteration's self-play with each instead")
    command.add_argument("--checkpoint",
                         help="--expert-iteration, --target-noise: this network instead of an untrained first model")
    command.add_argument("--target-noise", metavar="BUFFER",
                         help="a run's buffer: two expert-iteration searches on positions of its newest tenth of "
                              "games, their targets' spread against the network's priors")
    command.add_argument("--positions", type=int, default=200, help="--target-noise: positions searched")
    args = command.parse_args(argv)
    load_before = load()
    if args.target_noise:
        results = target_noise_main(args)
    elif args.expert_iteration:
        results = expert_iteration_main(args)
    else:
        results = shared_main(args) if args.actors else rates(args)
    finish("selfplay", args, results, load_before)


def rates(args: argparse.Namespace) -> list[dict]:
    """Print (and return) the network alone, self-play and learner rates per model and batch."""
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"machine: {platform.machine()}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"device {args.device}{' fp16' if args.half else ''}, {args.simulations} simulations per move")
    print(f"{'model':12s} {'batch':>6s} {'net alone/s':>12s} {'self-play sims/s':>17s} {'ratio':>6s} "
          f"{'positions/s':>12s} {'games/h':>8s} {'fill':>5s} {'cache':>6s} {'learner steps/s':>16s} "
          f"{'buffer MB/10k games':>20s}")
    results = []
    for name in args.models.split(","):
        for batch in map(int, args.batches.split(",")):
            torch.manual_seed(0)
            model = build_model(name, "blokus")
            alone = standalone_rate(model, batch, args.device, args.half, args.seconds / 4)
            evaluator = NetworkEvaluator(model, BlokusEncoder(), device=args.device, half=args.half,
                                         cache_size=100_000)
            sp = selfplay_rate(evaluator, batch, args.seconds, args.simulations)
            steps = learner_rate(name, sp.pop("games"), args.device, args.seconds / 4)
            row = {"model": name, "batch": batch, "network_alone_per_s": alone, **sp,
                   "ratio": sp["simulations_per_s"] / alone, "learner_steps_per_s": steps}
            results.append(row)
            print(f"{name:12s} {batch:6d} {alone:12,.0f} {sp['simulations_per_s']:17,.0f} {row['ratio']:6.0%} "
                  f"{sp['positions_per_s']:12.1f} {sp['games_per_hour']:8,.0f} {sp['batch_fill']:5.0%} "
                  f"{sp['cache_hit_rate']:6.1%} {steps:16.1f} {sp['replay_mb_per_10k_games']:20,.0f}")
    for batch in map(int, args.batches.split(",")) if args.tree_only else ():
        sp = selfplay_rate(UniformEvaluator(4), batch, args.seconds, args.simulations)
        sp.pop("games")
        results.append({"model": "none (uniform priors)", "batch": batch, **sp})
        print(f"{'no network':12s} {batch:6d} {'-':>12s} {sp['simulations_per_s']:17,.0f} {'-':>6s} "
              f"{sp['positions_per_s']:12.1f} {sp['games_per_hour']:8,.0f} {sp['batch_fill']:5.0%}")
    return results


def shared_main(args: argparse.Namespace) -> list[dict]:
    """``--actors``: self-play processes sharing one device, for each model, batch and count."""
    threads = args.threads or 1
    print(f"machine: {platform.machine()}, torch {torch.__version__}, device {args.device}"
          f"{' fp16' if args.half else ''}, {threads} threads per actor, {args.simulations} simulations per "
          f"move, {args.leaves_per_tree} leaves per tree, {args.seconds:g} s per measurement")
    print(f"{'model':12s} {'games':>6s} {'actors':>6s} {'leaves/s':>10s} {'per actor':>10s} "
          f"{'positions/s':>12s} {'fill':>5s} {'cache':>6s}")
    results = []
    for name in args.models.split(","):
        for batch in map(int, args.batches.split(",")):
            settings = SelfPlaySettings(simulations=args.simulations, games_in_parallel=batch,
                                        leaves_per_tree=args.leaves_per_tree)
            rows = shared_device_rates(name, [int(n) for n in args.actors.split(",")], settings, args.seconds,
                                       args.device, args.half, threads, args.warmup)
            for row in rows:
                results.append(row)
                actors = row["actors"]
                print(f"{name:12s} {batch:6d} {actors:6d} {row['leaves_per_s']:10,.0f} "
                      f"{row['leaves_per_s'] / actors:10,.0f} {row['positions_per_s']:12.1f} "
                      f"{row['batch_fill']:5.0%} {row['cache_hit_rate']:6.1%}")
    return results


def _checkpoint_or_first_model(args: argparse.Namespace) -> torch.nn.Module:
    """``--checkpoint``'s network, else an untrained network of the first of ``--models``."""
    if args.checkpoint:
        return load_network(args.checkpoint)[0]
    torch.manual_seed(0)
    return build_model(args.models.split(",")[0], "blokus")


def expert_iteration_settings(simulations: int) -> SelfPlaySettings:
    """Self-play as ``experiment=expert_iteration`` searches: playout leaves, PUCT, no root noise."""
    return SelfPlaySettings(simulations=simulations, leaf_playouts=True, gumbel=False, dirichlet_epsilon=0.0)


def expert_iteration_main(args: argparse.Namespace) -> list[dict]:
    """``--expert-iteration``: its self-play per backend, the rates printed."""
    torch.set_num_threads(args.threads or 1)
    model = _checkpoint_or_first_model(args)
    results = expert_iteration_rates(model, args.expert_iteration.split(","), args.simulations, args.seconds)
    print(f"expert iteration's self-play, {args.simulations} simulations a move, "
          f"{args.checkpoint or args.models.split(',')[0]}, {torch.get_num_threads()} threads")
    print(f"{'backend':12s} {'games':>6s} {'CPU s':>7s} {'sims/CPU-s':>11s} {'positions/CPU-s':>16s} "
          f"{'games/CPU-h':>12s} {'calls/position':>15s}")
    for r in results:
        print(f"{r['backend']:12s} {r['games']:6d} {r['cpu_seconds']:7.1f} {r['simulations_per_cpu_s']:11,.0f} "
              f"{r['positions_per_cpu_s']:16.1f} {r['games_per_cpu_hour']:12,.0f} "
              f"{r['network_calls_per_position']:15.1f}")
    return results


def target_noise_main(args: argparse.Namespace) -> list[dict]:
    """``--target-noise``: :func:`target_noise` on positions spread over a buffer's newest games."""
    torch.set_num_threads(args.threads or 1)
    model = _checkpoint_or_first_model(args)
    _, newest = split_games(args.target_noise, "blokus", 0.1)
    records = [record for _, record in newest.games]
    states = [newest.encoder.replay(records[g].players[:t], records[g].actions[:t])
              for g, t in spread(newest, args.positions)]
    selfplay = ExpertIterationSelfPlay(BlokusGame(), NetworkEvaluator(model, BlokusEncoder()),
                                       expert_iteration_settings(args.simulations))
    row = {"checkpoint": args.checkpoint, "buffer": args.target_noise, **target_noise(selfplay, states)}
    print(f"{row['positions']} positions of {args.target_noise}'s newest games, two searches of "
          f"{row['simulations']} simulations each (expert iteration's), {args.checkpoint or 'untrained'}:")
    print(f"  total variation between the two searches' targets {row['tv_between_searches']:.3f}, "
          f"the network's priors to the first {row['tv_network_to_search']:.3f}")
    print(f"  the same top move in both searches {row['top_move_agreement_between_searches']:.1%}, "
          f"the network's top prior on the first search's top move {row['network_top_prior_is_search_top_move']:.1%}")
    for key, what in (("tv_network_minus_searches", "total variation, the network's minus the second search's"),
                      ("top_agreement_searches_minus_network", "top-move agreement, the second search's minus "
                                                               "the network's")):
        d = row[key]
        print(f"  {what}, paired by position: {d['mean']:+.3f}, 95% [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}], "
              f"sign test p = {d['p_value']:.3g}")
    return [row]
