"""Play games between player configurations and report win rates (Hydra app, conf/arena.yaml).

    python scripts/arena.py games=300 players.mcts_maxn.simulations=800
    python scripts/arena.py seats=[brs,random,random,random] +players.brs='{preset: brs}'
    python scripts/arena.py '+players.pentobi={kind: gtp, command: "pentobi-gtp --quiet --noresign"}' \\
        seats=[pentobi,random,random,random]
"""

from __future__ import annotations

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from blokuszero.match.arena import Match
from blokuszero.match.runner import run_match
from blokuszero.match.summary import format_summary


def match_of(cfg: DictConfig) -> Match:
    """The match a composed arena config describes; a game option set to null is not passed
    (every conf/game/ file has ``rules``, which only game=ggp takes)."""
    options = {k: v for k, v in OmegaConf.to_container(cfg.game, resolve=True).items()
               if k != "name" and v is not None}
    return Match(game=cfg.game.name, game_options=options, seats=list(cfg.seats),
                 players=OmegaConf.to_container(cfg.players, resolve=True),
                 random_opening_moves=cfg.random_opening_moves)


@hydra.main(version_base="1.3", config_path="../conf", config_name="arena")
def main(cfg: DictConfig) -> None:
    out_dir = Path(cfg.out_dir or HydraConfig.get().runtime.output_dir)
    try:
        match = match_of(cfg)
        summary = run_match(match, games=cfg.games, seed=cfg.seed, out_dir=out_dir,
                            workers=cfg.workers, progress=cfg.progress, resume=cfg.resume,
                            backend=cfg.backend, gpus_per_worker=cfg.gpus_per_worker,
                            ray_address=cfg.ray_address)
    except ValueError as err:
        raise SystemExit(f"arena: {err}") from None
    print(format_summary(summary))
    print(f"games and summary.json in {out_dir}")


if __name__ == "__main__":
    main()
