"""Benchmark the network: evaluations per second by model size and batch size (SPEC §3).

Two figures per (model, batch): ``forward``, the model alone on input planes encoded
beforehand, and ``evaluate``, :meth:`NetworkEvaluator.evaluate` on real positions (replayed
from the Pentobi reference games), which adds encoding, legal-move generation, the gather of
the legal logits and the copy back. ``--variants`` instead times the forward pass of the same
weights run eagerly, in channels-last memory format and through ``torch.compile``, alternating in
``--rounds``. Usage::

    python -m blokuszero.bench nn [--models b10c128,b2c32,b2c32conv] [--batches 1,64,256]
        [--seconds 3] [--warmup 1] [--device cpu|cuda] [--half] [--games 200] [--json out.json]
    python -m blokuszero.bench nn --models b2c32conv --batches 64,256 --variants eager,channels_last,compile
"""

from __future__ import annotations

import copy
import platform
import time
from collections.abc import Callable

import numpy as np
import torch

from ..games.blokus import BlokusState
from ..games.blokus.encoder import BlokusEncoder, encode_batch
from ..nn import NetworkEvaluator, build_model
from .harness import every_position, finish, load, parser


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


def measure(name: str, batch: int, states: list[BlokusState], seconds: float, device: torch.device,
            half: bool, warmup: int = 1) -> dict:
    torch.manual_seed(0)
    model = build_model(name).to(device).eval()
    planes = torch.from_numpy(encode_batch(states[:batch])).to(device)
    autocast = torch.autocast("cuda", dtype=torch.float16, enabled=half and device.type == "cuda")

    def forward(_: int) -> None:
        with torch.inference_mode(), autocast:
            model(planes)

    evaluator = NetworkEvaluator(model, BlokusEncoder(), device, half=half)
    batches = [states[i:i + batch] for i in range(0, len(states) - batch + 1, batch)]

    def evaluate(i: int) -> None:
        evaluator.evaluate(batches[i % len(batches)])

    return {"model": name, "policy_head": model.config.policy_head,
            "parameters": sum(p.numel() for p in model.parameters()), "batch": batch,
            "forward_per_s": rate(forward, batch, seconds, device, warmup),
            "evaluate_per_s": rate(evaluate, batch, seconds, device, warmup)}


def forward_variants(name: str, batch: int, states: list[BlokusState], seconds: float, device: torch.device,
                     half: bool, variants: list[str], rounds: int) -> dict:
    """Forward passes per second of one model's weights in each variant (eager, channels_last,
    compile), the variants alternating in each of ``rounds`` rounds; the median of the rounds."""
    torch.manual_seed(0)
    model = build_model(name).to(device).eval()
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
    command.add_argument("--models", default="b10c128,b2c32,b2c32conv", help="comma-separated MODEL_SIZES names")
    command.add_argument("--batches", default="1,64,256", help="comma-separated batch sizes")
    command.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement")
    command.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    command.add_argument("--half", action="store_true", help="float16 autocast (CUDA only)")
    command.add_argument("--warmup", type=int, default=1, help="untimed calls before each measurement")
    command.add_argument("--variants", help="comma-separated: eager, channels_last, compile (forward only)")
    command.add_argument("--rounds", type=int, default=3, help="alternating rounds of the variants")
    command.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
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
    results = [measure(name, batch, states, args.seconds, device, args.half, args.warmup)
               for name in args.models.split(",") for batch in batches]
    print(", ".join(f"{k}: {v}" for k, v in info.items()))
    print(f"{'model':12s} {'head':4s} {'params':>10s} {'batch':>5s} {'forward/s':>10s} {'evaluate/s':>10s}")
    for r in results:
        print(f"{r['model']:12s} {r['policy_head']:4s} {r['parameters']:10,d} {r['batch']:5d} "
              f"{r['forward_per_s']:10,.0f} {r['evaluate_per_s']:10,.0f}")
    finish("nn", args, {"machine": info, "results": results}, load_before)
