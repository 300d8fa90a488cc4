"""Benchmark the network: milliseconds per call by model size, batch size and backend (SPEC §3).

Two figures per (model, backend, batch), one thread by default: ``forward``, the network alone on
input planes encoded beforehand, and ``evaluate``, :meth:`NetworkEvaluator.evaluate` on real
positions (replayed from the Pentobi reference games), which adds encoding, legal-move
generation and the priors over the legal moves; at batch 1 that is one expansion of a search.
The backends (:mod:`blokuszero.nn.backends`) alternate in ``--rounds``, and each one's outputs are
compared with the first's. ``--variants`` instead times torch's forward pass of the same weights
run eagerly, in channels-last memory format and through ``torch.compile``. Usage::

    python -m blokuszero.bench nn [--models b2c32conv,b4c64conv] [--batches 1,8,64]
        [--backends torch,onnxruntime] [--rounds 3] [--seconds 3] [--threads 1] [--warmup 1]
        [--device cpu|cuda] [--half] [--games 200] [--json out.json]
    python -m blokuszero.bench nn --models b2c32conv --batches 64,256 --variants eager,channels_last,compile
"""

from __future__ import annotations

import copy
import itertools
import platform
import time
from collections.abc import Callable

import numpy as np
import torch

from ..games.blokus import BlokusState
from ..games.blokus.encoder import BlokusEncoder, encode_batch
from ..nn import NetworkEvaluator, build_model
from ..nn.backends import BACKENDS, BackendError
from .harness import every_position, finish, load, parser, timed_rate


def positions(count: int, seed: int = 0, games: int | None = None) -> list[BlokusState]:
    """``count`` positions drawn at random from every non-terminal position of the reference games
    (of the first ``games`` of them; None: all 200)."""
    out = every_position(games)
    rng = np.random.default_rng(seed)
    return [out[i] for i in rng.choice(len(out), size=min(count, len(out)), replace=False)]


def rate(step: Callable[[int], None], batch: int, seconds: float, device: torch.device,
         warmup: int = 1) -> float:
    """Positions per second of ``step(i)`` (one batch, i counts calls) run for ``seconds``
    after ``warmup`` warm-up calls (on CUDA finished before the clock starts)."""
    for _ in range(warmup):
        step(0)
    if device.type == "cuda":
        torch.cuda.synchronize()
    calls, start = 0, time.perf_counter()
    while calls == 0 or time.perf_counter() - start < seconds:
        step(calls + 1)
        calls += 1
        if device.type == "cuda":
            torch.cuda.synchronize()  # time the work, not the launches
    return calls * batch / (time.perf_counter() - start)


def latency(step: Callable[[int], None], seconds: float, device: torch.device, warmup: int = 1) -> float:
    """CPU milliseconds of this process per call of ``step(i)`` (i counts calls; on CUDA: wall
    milliseconds, each call finished), over about ``seconds`` after ``warmup`` calls."""
    for _ in range(warmup):
        step(0)
    calls = itertools.count(1)

    def one() -> float:
        step(next(calls))
        if device.type == "cuda":
            torch.cuda.synchronize()  # time the work, not the launches
        return 1.0

    per_s, _ = timed_rate(one, seconds, time.perf_counter if device.type == "cuda" else time.process_time)
    return 1e3 / per_s


def measure(name: str, batches: list[int], states: list[BlokusState], seconds: float, device: torch.device,
            half: bool, backends: list[str], rounds: int, warmup: int = 1) -> list[dict]:
    """Per batch size and backend: ``forward_ms``, one forward pass of the network
    (:mod:`blokuszero.nn.backends`) on planes encoded beforehand, and ``evaluate_ms``, one call of
    :meth:`NetworkEvaluator.evaluate` on real positions, which adds encoding, legal-move generation
    and the priors over the legal moves (at batch 1: the cost of one expansion in a search); the
    backends alternate in each of ``rounds`` rounds, the median kept. ``max_abs_diff``: the largest
    difference of any policy cell or value from the first backend's on the same positions."""
    torch.manual_seed(0)
    model = build_model(name, "blokus").to(device).eval()
    evaluators = {b: NetworkEvaluator(model, BlokusEncoder(), device, half=half, backend=b) for b in backends}
    results = []
    for batch in batches:
        planes = encode_batch(states[:batch])
        groups = [states[i:i + batch] for i in range(0, len(states) - batch + 1, batch)]
        outputs = {b: e.forward(planes) for b, e in evaluators.items()}
        times: dict[str, dict[str, list[float]]] = {b: {"forward_ms": [], "evaluate_ms": []} for b in backends}
        for _ in range(rounds):
            for b, evaluator in evaluators.items():
                times[b]["forward_ms"].append(latency(lambda _: evaluator.forward(planes), seconds, device, warmup))
                times[b]["evaluate_ms"].append(latency(lambda i: evaluator.evaluate(groups[i % len(groups)]),
                                                       seconds, device, warmup))
        first = outputs[backends[0]]
        for b in backends:
            forward_ms, evaluate_ms = (float(np.median(times[b][k])) for k in ("forward_ms", "evaluate_ms"))
            results.append({
                "model": name, "policy_head": model.config.policy_head, "backend": b,
                "parameters": sum(p.numel() for p in model.parameters()), "batch": batch,
                "forward_ms": forward_ms, "evaluate_ms": evaluate_ms, "rounds": times[b],
                "forward_per_s": batch / forward_ms * 1e3, "evaluate_per_s": batch / evaluate_ms * 1e3,
                "max_abs_diff": float(max(np.abs(outputs[b][k] - first[k]).max() for k in (0, 1)))})
    return results


def forward_variants(name: str, batch: int, states: list[BlokusState], seconds: float, device: torch.device,
                     half: bool, variants: list[str], rounds: int) -> dict:
    """Forward passes per second of one model's weights in each variant (eager, channels_last,
    compile), the variants alternating in each of ``rounds`` rounds; the median of the rounds."""
    torch.manual_seed(0)
    model = build_model(name, "blokus").to(device).eval()
    planes = torch.from_numpy(encode_batch(states[:batch])).to(device)
    autocast = torch.autocast("cuda", dtype=torch.float16, enabled=half and device.type == "cuda")
    runs = {"eager": (model, planes),
            "channels_last": (copy.deepcopy(model).to(memory_format=torch.channels_last),
                              planes.contiguous(memory_format=torch.channels_last)),
            "compile": (torch.compile(model), planes)}

    def step(variant: str) -> Callable[[int], None]:
        net, x = runs[variant]

        def forward(_: int) -> None:
            with torch.inference_mode(), autocast:
                net(x)
        return forward

    for variant in variants:  # compile (and warm caches) outside the timed rounds
        step(variant)(0)
    rates: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(rounds):
        for variant in variants:
            rates[variant].append(rate(step(variant), batch, seconds, device))
    return {"model": name, "batch": batch, **{v: float(np.median(r)) for v, r in rates.items()},
            "rounds": rates}


def machine(device: torch.device, half: bool) -> dict:
    info = {"platform": platform.platform(), "machine": platform.machine(), "python": platform.python_version(),
            "torch": torch.__version__, "threads": torch.get_num_threads(), "device": str(device),
            "half": half and device.type == "cuda"}
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    return info


def main(argv: list[str] | None = None) -> None:
    command = parser("nn", __doc__)
    command.add_argument("--models", default="b2c32conv,b4c64conv", help="comma-separated MODEL_SIZES names")
    command.add_argument("--batches", default="1,8,64", help="comma-separated batch sizes")
    command.add_argument("--backends", default="torch,onnxruntime",
                         help=f"comma-separated, from {', '.join(BACKENDS)}; the first is max_abs_diff's reference")
    command.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement")
    command.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    command.add_argument("--half", action="store_true", help="float16 autocast (CUDA only)")
    command.add_argument("--warmup", type=int, default=1, help="untimed calls before each measurement")
    command.add_argument("--variants", help="comma-separated: eager, channels_last, compile (forward only)")
    command.add_argument("--rounds", type=int, default=3, help="alternating rounds of the variants")
    command.add_argument("--threads", type=int, default=1, help="math threads (0: torch's default)")
    command.add_argument("--games", type=int, help="positions from the first GAMES reference games (default: all 200)")
    args = command.parse_args(argv)
    load_before = load()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    batches = [int(b) for b in args.batches.split(",")]
    # Enough positions that the evaluator does not see one batch twice in a row.
    states = positions(2 * max(batches), games=args.games)
    info = machine(device, args.half)
    info["mean_legal_moves"] = float(np.mean([len(s.legal_actions()) for s in states]))
    if args.variants:
        variants = args.variants.split(",")
        unknown = sorted(set(variants) - {"eager", "channels_last", "compile"})
        if unknown:
            raise SystemExit(f"blokuszero.bench nn: unknown variants {unknown}; choose from eager, channels_last, "
                             f"compile")
        results = [forward_variants(name, batch, states, args.seconds, device, args.half, variants, args.rounds)
                   for name in args.models.split(",") for batch in batches]
        print(", ".join(f"{k}: {v}" for k, v in info.items()))
        print(f"forward passes per second, median of {args.rounds} alternating rounds")
        print(f"{'model':12s} {'batch':>5s} " + " ".join(f"{v:>14s}" for v in variants))
        for r in results:
            print(f"{r['model']:12s} {r['batch']:5d} " + " ".join(f"{r[v]:14,.0f}" for v in variants))
        finish("nn", args, {"machine": info, "results": results}, load_before)
        return
    backends = args.backends.split(",")
    try:
        results = [row for name in args.models.split(",")
                   for row in measure(name, batches, states, args.seconds, device, args.half, backends,
                                      args.rounds, args.warmup)]
    except BackendError as err:
        raise SystemExit(f"blokuszero.bench nn: {err}") from None
    print(", ".join(f"{k}: {v}" for k, v in info.items()))
    print(f"milliseconds per call ({'wall' if device.type == 'cuda' else 'CPU'}), median of {args.rounds} "
          f"alternating rounds; evaluate at batch 1 = one expansion of a search")
    print(f"{'model':10s} {'head':4s} {'params':>9s} {'backend':11s} {'batch':>5s} {'forward ms':>10s} "
          f"{'evaluate ms':>11s} {'positions/s':>11s} {'max |diff|':>10s}")
    for r in results:
        print(f"{r['model']:10s} {r['policy_head']:4s} {r['parameters']:9,d} {r['backend']:11s} {r['batch']:5d} "
              f"{r['forward_ms']:10.3f} {r['evaluate_ms']:11.3f} {r['evaluate_per_s']:11,.0f} "
              f"{r['max_abs_diff']:10.1e}")
    finish("nn", args, {"machine": info, "results": results}, load_before)
