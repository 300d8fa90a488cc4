"""BlokusZero training (Hydra app, conf/config.yaml).

    python train.py                                 # the small CPU default, a few minutes
    python train.py hardware=gpu8 experiment=paper  # the paper's run on 8 GPUs
    python train.py name=my-run train.total_steps=2000 search.simulations=64

Rerunning the same command resumes the run in runs/<name> from its newest good checkpoint.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from blokuszero.nn.checkpoint import checkpoint_paths
from blokuszero.rl.trainer import Trainer


def ending(summary: dict[str, Any], run_dir: str) -> list[str]:
    """What a finished run says: elapsed time, steps, games, its last losses, where it is,
    and the commands to look at it next."""
    losses = summary.get("losses") or {}
    loss = (f"; final loss {losses['loss/total']:.3f} (policy {losses['loss/policy']:.3f}, "
            f"value {losses['loss/value']:.3f})" if "loss/total" in losses else "")
    lines = [f"done: step {summary['step']} in {summary.get('seconds', 0) / 60:.1f} minutes, "
             f"{summary['games']} self-play games, {summary.get('positions', 0)} positions{loss}"]
    kept = summary.get("games_kept", 0)
    lines.append(f"  run directory {run_dir}: checkpoints/, tensorboard/"
                 + (f", games/ ({kept} self-play games as game records)" if kept else ""))
    newest = checkpoint_paths(Path(run_dir) / "checkpoints")
    if newest:
        network = shlex.quote(f"net={{preset: network, checkpoint: {newest[0]}}}")
        lines += ["next:",
                  f"  blokuszero-board --player {network} --seats you,net,net,net --records {run_dir}"
                  "   # play it, watch its games",
                  f"  tensorboard --logdir {run_dir}/tensorboard",
                  f"  python scripts/evaluate.py checkpoint={newest[0]} games=20 network.simulations=64 "
                  "players.mcts_maxn.simulations=64   # against MCTS-MaxN, about a minute"]
    return lines


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    config = OmegaConf.to_container(cfg, resolve=True)
    config.pop("hydra", None)
    try:
        summary = Trainer(config, cfg.run_dir, progress=cfg.progress).run()
    except ValueError as err:  # a broken config or checkpoint: say what, without a traceback
        sys.exit(f"train.py: {err}")
    except KeyboardInterrupt:
        newest = checkpoint_paths(Path(cfg.run_dir) / "checkpoints")
        kept = f"its newest checkpoint, {newest[0].name}" if newest else "the start (no checkpoint yet)"
        sys.exit(f"train.py: stopped; `python {shlex.join(sys.argv)}` resumes the run from {kept}")
    print("\n".join(ending(summary, cfg.run_dir)))


if __name__ == "__main__":
    main()
