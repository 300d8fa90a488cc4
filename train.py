"""BlokusZero training (Hydra app, conf/config.yaml).

    python train.py                                 # the small CPU default, a few minutes
    python train.py hardware=gpu8 experiment=paper  # the paper's run on 8 GPUs
    python train.py name=my-run train.total_steps=2000 search.simulations=64

Rerunning the same command resumes the run in runs/<name> from its newest good checkpoint.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig, OmegaConf

from blokuszero.rl.trainer import Trainer


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    config = OmegaConf.to_container(cfg, resolve=True)
    config.pop("hydra", None)
    try:
        summary = Trainer(config, cfg.run_dir, progress=cfg.progress).run()
    except ValueError as err:  # a broken config or checkpoint: say what, without a traceback
        sys.exit(f"train.py: {err}")
    print(f"done: step {summary['step']}, {summary['games']} self-play games; run directory {cfg.run_dir}")


if __name__ == "__main__":
    main()
