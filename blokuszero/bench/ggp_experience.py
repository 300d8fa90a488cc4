"""Search experience costs in GGP: similar-board lookup time against table size; UCT with and without it.

Distance-2 lookup time against the table's size, and UCT's playouts per second with and without
the experience table per game (CPU time, alternating; the experience with either lookup).

    python -m blokuszero.bench ggp_experience [--sizes 1000 10000 100000 1000000] \\
        [--games breakthrough connectfour pawnwhopping] [--simulations 500] [--repeats 3] \\
        [--skip-overhead]
"""

from __future__ import annotations

import time

import numpy as np

from ..games.ggp import GgpGame
from ..games.ggp.boards import BoardEncoder, pregame_boards
from ..players.factory import make_player
from ..search.experience_table import ExperienceTable
from .harness import data_path, finish, load, parser


def lookup_costs(keys: np.ndarray, sizes: list[int], probes: int, repeats: int, rng) -> list[dict]:
    """Microseconds per d = 2 lookup in tables of ``sizes`` keys: multi-index hashing
    (``similar``) and the Hamming ball (``similar_ball``, the previous lookup) alternating,
    medians of ``repeats``; the brute-force scan once."""
    rows = []
    for n in sizes:
        if n > len(keys):
            break
        table = ExperienceTable(2)
        table.add(keys[:n], np.zeros(2))
        asked = [int(k) for k in keys[rng.integers(0, n, probes)] ^ (np.uint64(1) << rng.integers(
            0, 64, probes).astype(np.uint64))]  # near boards: a bit off stored ones
        times: dict[str, list[float]] = {"multi-index": [], "ball": []}
        found = {}
        for _ in range(repeats):
            for label, lookup in (("multi-index", table.similar), ("ball", table.similar_ball)):
                lookup(asked[0], 2)
                start = time.process_time()
                found[label] = sum(len(lookup(k, 2)) for k in asked)
                times[label].append((time.process_time() - start) / probes * 1e6)
        if found["multi-index"] != found["ball"]:
            raise AssertionError(f"the lookups disagree: {found}")
        candidates = table.candidates(np.array(asked, np.uint64))
        crowded = float(np.mean(candidates > table.ball_size))
        brute_probes = max(1, min(probes, 2_000_000 // n))
        table.similar_brute_force(asked[0], 2)
        start = time.process_time()
        for k in asked[:brute_probes]:
            table.similar_brute_force(k, 2)
        brute = (time.process_time() - start) / brute_probes * 1e6
        print(f"  {len(table):>9,} keys: multi-index {np.median(times['multi-index']):6.2f}, "
              f"ball {np.median(times['ball']):7.1f}, brute force {brute:9.1f} us/lookup; "
              f"{found['ball'] / probes:.1f} boards found per lookup, {np.mean(candidates):,.0f} "
              f"candidates in the 3 buckets (mean), {crowded:.0%} of lookups probe the ball",
              flush=True)
        rows.append({"keys": len(table), "multi_index_us": float(np.median(times["multi-index"])),
                     "ball_us": float(np.median(times["ball"])), "brute_force_us": brute,
                     "found_per_lookup": found["ball"] / probes, "candidates": float(np.mean(candidates)),
                     "probing_the_ball": crowded})
    return rows


def overhead(game: GgpGame, simulations: int, repeats: int) -> dict[str, float]:
    """Playouts per second of UCT from the start: plain, with Huffman d = 2 (multi-index
    lookup) and with Huffman d = 2 probing the Hamming ball (the previous lookup), alternating."""
    lookups = {"multi-index": ExperienceTable.similar, "ball": ExperienceTable.similar_ball}
    rates: dict[str, list[float]] = {"plain": [], "multi-index": [], "ball": []}
    try:
        for r in range(repeats + 1):  # the first round warms up (compiling), untimed
            for label in rates:
                spec = {"preset": "ggp_uct", "simulations": simulations}
                if label != "plain":
                    spec["experience"] = {"encoding": "huffman", "distance": 2}
                    ExperienceTable.similar = lookups[label]
                player = make_player(game, spec, r)
                state = game.new_initial_state()
                start = time.process_time()
                for _ in range(4):  # four moves: the table grows over the game
                    action = player.choose_action(state)
                    mover = state.current_player()
                    state.apply_action(action)
                    player.inform(action, mover)
                if r:
                    rates[label].append(4 * simulations / (time.process_time() - start))
    finally:
        ExperienceTable.similar = lookups["multi-index"]
    plain, mih, ball = (np.median(rates[k]) for k in rates)
    print(f"  {game.name}: plain {plain:,.0f}, with experience {mih:,.0f} ({mih / plain:.2f}x), "
          f"with experience probing the ball {ball:,.0f} ({ball / plain:.2f}x) playouts/s (CPU; "
          f"medians of {repeats})", flush=True)
    return {"plain": plain, "experience": mih, "experience_ball": ball}


def main(argv: list[str] | None = None) -> None:
    command = parser("ggp_experience", __doc__)
    command.add_argument("--sizes", nargs="+", type=int, default=[1000, 10_000, 100_000, 1_000_000])
    command.add_argument("--probes", type=int, default=2000)
    command.add_argument("--games", nargs="+", default=["breakthrough", "connectfour", "pawnwhopping"])
    command.add_argument("--simulations", type=int, default=500)
    command.add_argument("--repeats", type=int, default=3)
    command.add_argument("--skip-overhead", action="store_true", help="lookup times only")
    command.add_argument("--seed", type=int, default=0)
    args = command.parse_args(argv)
    load_before = load()
    rules = data_path("ggp", "ggp")
    rng = np.random.default_rng(args.seed)
    print("d = 2 lookup, uniform random 64-bit keys:")
    results: dict[str, dict] = {"lookup": {"uniform": lookup_costs(
        rng.integers(0, 2**63, max(args.sizes), dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1),
        args.sizes, args.probes, args.repeats, rng)}, "uct_playouts_per_s": {}}
    for name, encoding in (("pawnwhopping", "huffman"), ("connectfour", "appearance")):
        game = GgpGame.from_file(rules / f"{name}.kif")
        boards = pregame_boards(game, 4000, seed=args.seed)
        keys = np.unique(BoardEncoder(game, encoding).encode_boards(boards))
        rng.shuffle(keys)
        print(f"d = 2 lookup, {encoding} keys of {name} positions (random games, {len(keys):,} "
              f"distinct):")
        results["lookup"][f"{encoding} {name}"] = lookup_costs(keys, args.sizes, args.probes, args.repeats, rng)
    if not args.skip_overhead:
        print(f"UCT playouts per second, {args.simulations} simulations per move, 4 moves:")
        for name in args.games:
            results["uct_playouts_per_s"][name] = overhead(GgpGame.from_file(rules / f"{name}.kif"),
                                                           args.simulations, args.repeats)
    finish("ggp_experience", args, results, load_before)
