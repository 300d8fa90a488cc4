"""Evaluate checkpoints with the paper's protocol (Hydra app, conf/evaluate.yaml).

    python scripts/evaluate.py checkpoint=runs/paper/checkpoints/ckpt_000070000.pt
    python scripts/evaluate.py checkpoint=runs/cpu-default untrained=true games=40   # a curve
    python scripts/evaluate.py checkpoint=PATH players.mcts_maxn.simulations=1600
    python scripts/evaluate.py checkpoint=PATH opponent=pentobi
    python scripts/evaluate.py checkpoint=runs/cpu_strong/curve untrained=true games=100 \
        network.simulations=200 players.mcts_maxn.simulations=200 figure=docs/blokus_cpu_strong_curve.png

Writes every game (SGF, games.jsonl with seeds), summary.json per checkpoint, curve.json,
curve.md (a markdown table) and curve.png to out_dir (and the PNG to ``figure``); rerunning the
same command resumes an interrupted evaluation.
"""

from __future__ import annotations

import re
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from blokuszero.match.evaluation import candidates, evaluate, format_curve, markdown_curve, write_curve
from blokuszero.match.ladder import describe, fit_elo, format_ladder, load_seats, scores, seat_rates
from blokuszero.players.factory import resolve_spec

USAGE = ("usage: python scripts/evaluate.py checkpoint=PATH [KEY=VALUE ...]  (PATH: a checkpoint, "
         "a quoted glob or a run directory; --help lists the settings)")


@hydra.main(version_base="1.3", config_path="../conf", config_name="evaluate")
def main(cfg: DictConfig) -> None:
    if OmegaConf.is_missing(cfg, "checkpoint"):
        raise SystemExit(USAGE)
    players = OmegaConf.to_container(cfg.players, resolve=True)
    if cfg.opponent not in players:
        raise SystemExit(f"opponent {cfg.opponent!r} is not in players (have: {sorted(players)})")
    network, opponent = OmegaConf.to_container(cfg.network, resolve=True), players[cfg.opponent]
    try:
        resolve_spec(opponent)
        found = candidates(cfg.checkpoint, include_untrained=cfg.untrained)
    except ValueError as err:
        raise SystemExit(f"evaluate: {err}") from None
    opponent_name = describe(resolve_spec(opponent))
    run = found[-1].label.rsplit("@", 1)[0]
    out_dir = Path(cfg.out_dir or Path("evaluations") / re.sub(
        r"[^\w.@-]+", "_", f"{run}_{network.get('simulations')}sims_vs_{opponent_name}"))
    try:
        curve = evaluate(found, network, opponent, cfg.games, cfg.seed, out_dir,
                         cfg.random_opening_moves, workers=cfg.workers, progress=cfg.progress,
                         resume=cfg.resume, backend=cfg.backend, gpus_per_worker=cfg.gpus_per_worker,
                         ray_address=cfg.ray_address)
    except ValueError as err:
        raise SystemExit(f"evaluate: {err}") from None
    title = (f"{run}: 1 BlokusZero ({network.get('simulations')} sims) vs 3 {opponent_name}, "
             f"{cfg.games} games each")
    write_curve(curve, out_dir, title, figure=cfg.figure)
    print(f"{title}\nwin: the highest score; a shared first place counts as a win for each colour in it")
    print(format_curve(curve))
    print(f"\n{markdown_curve(curve)}\n")
    print(f"games, summaries, curve.json, curve.md and curve.png in {out_dir}"
          + (f"; the plot also at {cfg.figure}" if cfg.figure else ""))
    if cfg.ladder:
        print(f"\nElo ladder of every player evaluated under {out_dir.parent}:")
        try:
            seats = load_seats(out_dir.parent)
            print(format_ladder(fit_elo(scores(seats)), seat_rates(seats)))
        except ValueError as err:
            print(f"no ladder: {err}")


if __name__ == "__main__":
    main()
