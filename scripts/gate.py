"""Ship a network only when it beats the shipped one head to head (Hydra app, conf/gate.yaml).

    python scripts/gate.py candidate=runs/next shipped=checkpoints/blokus_b2c32conv_gumbel.pt
    python scripts/gate.py candidate=runs/next shipped=checkpoints/blokus_b2c32conv_gumbel.pt ship=true
    python scripts/gate.py candidate=PATH shipped=PATH games=400 network.simulations=400

Two seats each, seats shuffled per game, the first 4 moves random, both networks with the same
search; the statistic and the decision are in blokuszero/match/gate.py. Writes every game,
summary.json and verdict.json to out_dir; rerunning the same command resumes. With ship=true and
the verdict "ship", the candidate's network replaces the shipped file (atomically, with its .sha256).
"""

from __future__ import annotations

from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from blokuszero.match.gate import default_out_dir, format_verdict, run_gate

USAGE = ("usage: python scripts/gate.py candidate=PATH shipped=PATH [ship=true] [KEY=VALUE ...]  "
         "(--help lists the settings)")


@hydra.main(version_base="1.3", config_path="../conf", config_name="gate")
def main(cfg: DictConfig) -> None:
    if OmegaConf.is_missing(cfg, "candidate") or OmegaConf.is_missing(cfg, "shipped"):
        raise SystemExit(USAGE)
    network = OmegaConf.to_container(cfg.network, resolve=True)
    try:
        out_dir = Path(cfg.out_dir) if cfg.out_dir else default_out_dir(cfg.candidate, cfg.shipped)
        verdict = run_gate(cfg.candidate, cfg.shipped, cfg.games, cfg.seed, out_dir, network,
                           cfg.random_opening_moves, cfg.alpha, cfg.ship, cfg.resume, workers=cfg.workers,
                           progress=cfg.progress, backend=cfg.backend, gpus_per_worker=cfg.gpus_per_worker,
                           ray_address=cfg.ray_address)
    except ValueError as err:
        raise SystemExit(f"gate: {err}") from None
    print(format_verdict(verdict))
    print(f"games, summary.json and verdict.json in {out_dir}")


if __name__ == "__main__":
    main()
