"""The GPU check: what the first GPU to run this code does, in one command of at most
8 minutes on one GPU. ``scripts/gpu_check.sh`` runs it; the figures are printed and saved as JSON.

1. ``network``: evaluations per second of b10c128 at batches 256, 1,024 and 4,096, fp32 and fp16,
   from ``blokuszero.bench.nn.measure`` (``forward_per_s``: the network alone on encoded planes;
   ``evaluate_per_s``: ``NetworkEvaluator.evaluate`` on real positions, encoding and legal moves
   included), three warm-up calls first, every call timed to its ``torch.cuda.synchronize``.
2. ``selfplay``: self-play leaves (simulations) per second of 1, 2 and 4 actor processes sharing
   the GPU, each with 512 games in lockstep and 2 leaves per tree (batches of 1,024 leaves, as
   ``selfplay=gpu``), 32 simulations per move, fp16, from ``blokuszero.bench.selfplay.shared_device_rates``.
3. ``train``: ``python train.py hardware=gpu8`` laid out for one GPU (2 actors at 0.25 GPU, the
   learner's reserved 0.5), b10c128, for ``train.max_minutes=3``; steps per second and games per
   hour from the run's TensorBoard scalars and ``summary.json`` (the learner is not held to
   ``train.samples_per_position``: its rate is its own beside self-play), GPU memory from the
   CUDA allocators' peaks the trainer records and from the device's used memory sampled here.

``--dry-run`` rehearses every step on the CPU with tiny sizes (b10c128 at batches 2-8, a small
network for self-play and training, a few seconds each) and writes the same JSON; without it a
machine where torch sees no CUDA device is refused. Usage::

    bash scripts/gpu_check.sh [--dry-run] [--out runs/gpu_check/gpu_check.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path("runs/gpu_check/gpu_check.json")


@dataclass(frozen=True)
class Sizes:
    """Everything the check measures, by section."""

    model: str  # the network of the network section
    batches: tuple[int, ...]
    nn_seconds: float  # timed seconds per figure
    nn_warmup: int  # untimed calls before each figure
    nn_games: int | None  # reference games the positions come from (None: all 200, 11,829 positions)
    sp_model: str  # the network of the self-play section
    sp_actors: tuple[int, ...]
    sp_games: int  # games in lockstep per actor
    sp_leaves_per_tree: int
    sp_simulations: int
    sp_seconds: float
    sp_warmup: float
    sp_threads: int  # torch threads per actor (gpu8: threads_per_actor 2)
    train_minutes: float  # train.max_minutes
    train_overrides: tuple[str, ...]


FULL = Sizes(
    model="b10c128", batches=(256, 1024, 4096), nn_seconds=2.0, nn_warmup=3, nn_games=None,
    sp_model="b10c128", sp_actors=(1, 2, 4), sp_games=512, sp_leaves_per_tree=2, sp_simulations=32,
    sp_seconds=20.0, sp_warmup=10.0, sp_threads=2, train_minutes=3.0,
    train_overrides=(
        "hardware=gpu8", "model=b10c128", "hardware.actors=2", "hardware.gpus_per_actor=0.25",
        "hardware.learner_gpus=0.5",
        # 512-leaf batches; a task of 256 games takes about a minute, so games reach the learner
        # well within the 3 minutes
        "selfplay.games_in_parallel=256", "selfplay.leaves_per_tree=2", "train.games_per_task=256",
        "search.simulations=16", "train.total_steps=1000000", "train.checkpoint_every=1000000",
        "train.log_every=10",
        # the learner as fast as it goes beside self-play, not held to 3 samples per position
        "train.samples_per_position=1000"))
DRY = Sizes(
    model="b10c128", batches=(2, 4, 8), nn_seconds=0.1, nn_warmup=1, nn_games=4,
    sp_model="b2c32conv", sp_actors=(1, 2, 4), sp_games=2, sp_leaves_per_tree=1, sp_simulations=4,
    sp_seconds=0.5, sp_warmup=0.2, sp_threads=1, train_minutes=3.0,
    train_overrides=(
        "hardware=gpu8", "model=b2c32conv", "hardware.actor_device=cpu", "hardware.learner_device=cpu",
        "hardware.half=false", "hardware.gpus_per_actor=0", "hardware.learner_gpus=0", "hardware.actors=1",
        "hardware.threads_per_actor=1", "hardware.num_cpus=2", "hardware.cache_size=1000",
        "selfplay.games_in_parallel=2", "selfplay.leaves_per_tree=1", "train.games_per_task=2",
        "search.simulations=2", "optimizer.batch_size=4", "train.total_steps=4",
        "train.checkpoint_every=1000000", "train.log_every=1"))


def machine(device: torch.device) -> dict:
    from blokuszero.provenance import source

    info = {"device": str(device), "gpu": None, "gpu_memory_mb": None, "gpu_count": 0, "driver": None,
            "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": None,
            "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            **source()}  # git_revision, dirty
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(gpu=props.name, gpu_memory_mb=props.total_memory / 2**20, gpu_count=torch.cuda.device_count(),
                    cudnn=torch.backends.cudnn.version())
        if shutil.which("nvidia-smi"):
            lines = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                   capture_output=True, text=True).stdout.split()
            info["driver"] = lines[0] if lines else None
    return info


def network_section(sizes: Sizes, device: torch.device) -> list[dict]:
    from blokuszero.bench import nn as bench_nn

    # Enough positions that the evaluator does not see one batch twice in a row.
    states = bench_nn.positions(2 * max(sizes.batches), games=sizes.nn_games)
    rows = []
    print(f"network {sizes.model}: evaluations per second ({sizes.nn_seconds:g} s each after {sizes.nn_warmup} "
          f"warm-up calls)")
    print(f"{'precision':9s} {'batch':>6s} {'forward/s':>12s} {'evaluate/s':>12s}")
    for precision in ("fp32", "fp16"):
        half = precision == "fp16"
        for batch in sizes.batches:
            [r] = bench_nn.measure(sizes.model, [batch], states, sizes.nn_seconds, device, half, ["torch"], 1,
                                   sizes.nn_warmup)
            rows.append({"model": sizes.model, "batch": batch, "precision": precision,
                         "half_effective": half and device.type == "cuda",  # CPU: fp16 runs as fp32
                         "forward_per_s": r["forward_per_s"], "evaluate_per_s": r["evaluate_per_s"]})
            print(f"{precision:9s} {batch:6d} {r['forward_per_s']:12,.0f} {r['evaluate_per_s']:12,.0f}", flush=True)
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return rows


def selfplay_section(sizes: Sizes, device: torch.device) -> list[dict]:
    from blokuszero.bench.selfplay import shared_device_rates
    from blokuszero.rl.selfplay import SelfPlaySettings

    settings = SelfPlaySettings(simulations=sizes.sp_simulations, games_in_parallel=sizes.sp_games,
                                leaves_per_tree=sizes.sp_leaves_per_tree)
    half = device.type == "cuda"
    print(f"self-play {sizes.sp_model}: {sizes.sp_games} games per actor, {sizes.sp_leaves_per_tree} leaves per "
          f"tree, {sizes.sp_simulations} simulations, {'fp16' if half else 'fp32'}, actors sharing {device} "
          f"({sizes.sp_seconds:g} s each)")
    rows = shared_device_rates(sizes.sp_model, list(sizes.sp_actors), settings, sizes.sp_seconds,
                                              str(device), half, sizes.sp_threads, sizes.sp_warmup)
    print(f"{'actors':>6s} {'leaves/s':>10s} {'per actor':>10s} {'positions/s':>12s} {'fill':>5s}")
    for r in rows:
        print(f"{r['actors']:6d} {r['leaves_per_s']:10,.0f} {r['leaves_per_s'] / r['actors']:10,.0f} "
              f"{r['positions_per_s']:12.1f} {r['batch_fill']:5.0%}")
    return rows


class MemorySampler:
    """The device's used memory (every process's) sampled twice a second, above a baseline."""

    def __init__(self, device: torch.device) -> None:
        self.device, self.peak, self.base = device, 0, 0
        self.running = device.type == "cuda"
        if self.running:
            torch.cuda.empty_cache()
            free, total = torch.cuda.mem_get_info(device)
            self.base = self.peak = total - free
            self.thread = threading.Thread(target=self._sample, daemon=True)
            self.thread.start()

    def _sample(self) -> None:
        while self.running:
            free, total = torch.cuda.mem_get_info(self.device)
            self.peak = max(self.peak, total - free)
            time.sleep(0.5)

    def stop(self) -> float:
        """MB used above the baseline at the peak."""
        if self.running:
            self.running = False
            self.thread.join()
        return (self.peak - self.base) / 2**20


def tensorboard_scalars(directory: Path) -> dict[str, list]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(directory), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: events.Scalars(tag) for tag in events.Tags()["scalars"]}


def train_section(sizes: Sizes, device: torch.device, out_dir: Path) -> dict:
    run_dir = out_dir / "train"
    if run_dir.exists():  # the check's own scratch run: a fresh one each time, never resumed
        shutil.rmtree(run_dir)
    command = [sys.executable, "train.py", *sizes.train_overrides, f"train.max_minutes={sizes.train_minutes:g}",
               "name=gpu_check", f"run_dir={run_dir.resolve()}", "progress=false"]
    print(f"train.py for {sizes.train_minutes:g} minutes: {' '.join(command[1:])}", flush=True)
    log = out_dir / "train.log"
    sampler = MemorySampler(device)
    start = time.perf_counter()
    with log.open("w") as output:
        try:
            done = subprocess.run(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT,
                                  timeout=sizes.train_minutes * 60 + 240)
        finally:
            device_used_mb = sampler.stop()
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"train.py failed (exit {done.returncode}); its output ({log}) ends:\n"
                           + log.read_text()[-3000:])
    summary = json.loads((run_dir / "summary.json").read_text())
    scalars = tensorboard_scalars(run_dir / "tensorboard")
    losses = scalars.get("loss/total", [])
    # The learner's rate while it trains: between its first and last logged steps.
    if len(losses) >= 2 and losses[-1].wall_time > losses[0].wall_time:
        steps_per_s = (losses[-1].step - losses[0].step) / (losses[-1].wall_time - losses[0].wall_time)
    else:
        steps_per_s = summary["step"] / max(summary["seconds"], 1e-9)
    games_per_hour = scalars.get("selfplay/games_per_hour", [])
    peaks = summary["gpu_peak_bytes"]
    row = {"command": command[1:], "wall_seconds": wall, "run_seconds": summary["seconds"],
           "steps": summary["step"], "games": summary["games"], "positions": summary["positions"],
           "steps_per_s": steps_per_s, "steps_per_s_overall": summary["step"] / max(summary["seconds"], 1e-9),
           # games per hour since the actors started (TensorBoard), and over the whole run
           "games_per_hour": games_per_hour[-1].value if games_per_hour else 0.0,
           "games_per_hour_overall": summary["games"] * 3600 / max(summary["seconds"], 1e-9),
           "learner_device": summary["learner_device"], "learner_gpu_ids": summary["learner_gpu_ids"],
           "gpu_memory_mb": {"learner_peak": peaks["learner"] / 2**20, "actor_peak": peaks["actor"] / 2**20,
                             "device_used_peak": device_used_mb},
           "log": str(log)}
    print(f"train.py: {row['steps']} steps, {row['games']} games in {row['run_seconds']:.0f} s; "
          f"{row['steps_per_s']:.2f} steps/s while training ({row['steps_per_s_overall']:.2f} over the run), "
          f"{row['games_per_hour']:,.0f} games/h ({row['games_per_hour_overall']:,.0f} over the run); GPU memory "
          f"peaks: learner {row['gpu_memory_mb']['learner_peak']:,.0f} MB, one actor "
          f"{row['gpu_memory_mb']['actor_peak']:,.0f} MB, device {device_used_mb:,.0f} MB above the baseline")
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="every step on the CPU with tiny sizes")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the JSON file (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if not args.dry_run and not torch.cuda.is_available():
        print(f"gpu_check: torch {torch.__version__} sees no CUDA device (built for CUDA {torch.version.cuda}); "
              f"run it on a machine with a GPU and a CUDA build of torch, or rehearse on the CPU with --dry-run",
              file=sys.stderr)
        return 2
    sizes = DRY if args.dry_run else FULL
    if args.dry_run:  # torch's threads spin against each other on a busy CPU: one is faster there
        torch.set_num_threads(1)
    device = torch.device("cpu" if args.dry_run else "cuda")
    out = args.out if args.out.is_absolute() else ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    report = {"dry_run": args.dry_run, "complete": False, "machine": machine(device), "sizes": asdict(sizes),
              "errors": {}}
    m = report["machine"]
    print(f"gpu_check{' --dry-run' if args.dry_run else ''}: device {m['device']} ({m['gpu'] or 'no GPU'}), "
          f"torch {m['torch']}, CUDA {m['cuda']}, cuDNN {m['cudnn']}, git {m['git_revision'][:12]}"
          f"{' (with uncommitted changes)' if m['dirty'] else ''}", flush=True)
    start = time.perf_counter()
    for name, section in (("network", lambda: network_section(sizes, device)),
                          ("selfplay", lambda: selfplay_section(sizes, device)),
                          ("train", lambda: train_section(sizes, device, out.parent))):
        began = time.perf_counter()
        try:
            report[name] = section()
        except Exception:  # noqa: BLE001 - the other sections still run; the check fails at the end
            report[name] = None
            report["errors"][name] = traceback.format_exc()
            print(f"gpu_check: the {name} section failed:\n{report['errors'][name]}", file=sys.stderr)
        report.setdefault("section_seconds", {})[name] = time.perf_counter() - began
        report["seconds"] = time.perf_counter() - start
        out.write_text(json.dumps(report, indent=2))  # what is done so far survives a later failure
    report["complete"] = not report["errors"]
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "sizes"}, indent=2))
    print(f"gpu_check: {'done' if report['complete'] else 'FAILED: ' + ', '.join(report['errors'])} in "
          f"{report['seconds']:.0f} s; saved {out}")
    return 0 if report["complete"] else 1


if __name__ == "__main__":
    sys.exit(main())
