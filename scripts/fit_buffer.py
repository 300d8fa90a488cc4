"""Train networks of several sizes side by side on a run's kept self-play; held-out losses and CPU per step.

    python scripts/fit_buffer.py runs/ei4/buffer --start checkpoints/blokus_b2c32conv_gumbel.pt \\
        --models b2c32conv b4c64conv --steps 1000 --out fit.json

Every network starts from ``--start`` (grown into the larger sizes with its outputs unchanged) and
takes the same minibatches; the newest ``--heldout`` share of the buffer's games is never trained
on and judges them (blokuszero/rl/buffer_fit.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from omegaconf import OmegaConf

from blokuszero.nn.checkpoint import digest
from blokuszero.provenance import source
from blokuszero.rl.buffer_fit import fit
from blokuszero.rl.config import LearnerSettings

CONF = Path(__file__).resolve().parents[1] / "conf" / "optimizer"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("buffer", help="a run's buffer directory (runs/NAME/buffer); only read")
    parser.add_argument("--start", required=True, help="the network every size starts from")
    parser.add_argument("--models", nargs="+", required=True, help="named sizes (nn/model.py MODEL_SIZES)")
    parser.add_argument("--steps", type=int, default=1000, help="SGD steps of each network")
    parser.add_argument("--measure-every", type=int, default=250, help="steps between held-out measurements")
    parser.add_argument("--heldout", type=float, default=0.1, help="the newest share of games judged on")
    parser.add_argument("--positions", type=int, default=4096, help="held-out positions measured")
    parser.add_argument("--optimizer", default="cpu", help="conf/optimizer/NAME.yaml: batch size and SGD")
    parser.add_argument("--seed", type=int, default=0, help="minibatches, held-out positions, new weights")
    parser.add_argument("--out", help="write the figures and the settings here (JSON)")
    args = parser.parse_args(argv)
    path = CONF / f"{args.optimizer}.yaml"
    if not path.is_file():
        raise SystemExit(f"fit_buffer: no optimizer settings {path}; known: "
                         f"{', '.join(sorted(p.stem for p in CONF.glob('*.yaml')))}")
    try:
        settings = LearnerSettings(**OmegaConf.to_container(OmegaConf.load(path)))
        result = fit(args.buffer, args.start, args.models, args.steps, settings, args.measure_every,
                     args.heldout, args.positions, args.seed)
    except ValueError as err:  # settings, files and shapes: each says what is wrong
        raise SystemExit(f"fit_buffer: {err}") from None
    print(f"{result.train_games} games trained on, {result.heldout_games} held out "
          f"({result.heldout_positions} positions measured; their policy targets' mean entropy "
          f"{result.target_entropy:.4f} nats, below which no policy loss can go)")
    print("| network | CPU-s per step | " + " | ".join(f"value, policy at {s}" for s in result.steps) + " |")
    for name in result.models:
        cells = " | ".join(f"{v:.4f}, {p:.4f}" for v, p in zip(result.value[name], result.policy[name], strict=True))
        print(f"| {name} | {result.cpu_per_step[name]:.4f} | {cells} |")
    first = result.models[0]
    for name, kinds in result.against_first.items():
        for kind, d in kinds.items():
            print(f"{kind} loss at step {result.steps[-1]}, {name} minus {first}, paired by held-out game "
                  f"({d['pairs']} games): {d['mean']:+.4f}, 95% [{d['ci_low']:+.4f}, {d['ci_high']:+.4f}]; "
                  f"{name}'s the lower in {d['losses']} games, the higher in {d['wins']} "
                  f"(sign test p = {d['p_value']:.3g})")
    if args.out:
        Path(args.out).write_text(json.dumps({
            "args": vars(args), "optimizer": dataclasses.asdict(settings), "start_sha256": digest(args.start),
            "source": source(), **dataclasses.asdict(result)}, indent=1))


if __name__ == "__main__":
    main()
