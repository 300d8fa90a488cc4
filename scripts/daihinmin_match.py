"""Run a Daihinmin match among 5 players on our copy of the official UECda server.

    python scripts/daihinmin_match.py --games 100 --log match.log
    python scripts/daihinmin_match.py --games 100 --players default,tcp:default,default,default,\
"cmd:./client -h {host} -p {port}"

Players (comma-separated, 5, player numbers in that order): ``default`` an in-process default
client; ``mc[:POLICY[/SELF][:BUDGET]]`` the in-process Monte Carlo client (playouts ``random``,
``default``, ``model`` or ``model_sample`` for the opponents, ``/SELF`` for its own moves; BUDGET
playouts per decision, or seconds as ``0.5s``); ``tcp:SPEC``
our ``blokuszero-uecda`` client playing SPEC, started as a process and connected over TCP;
``cmd:COMMAND`` any UECda client started by COMMAND ({host} and {port} filled in; a leading
``python`` is this script's interpreter). TCP
players connect to a server bound to 127.0.0.1 (``--host`` to change). Prints each player's mean
points per game and its thinking time per play (from the server handing it its turn table to its
answer), the paired difference of points per game between players or groups of players
(``--compare``: the sign test over games, the mean difference), and writes the official game
record; ``--points`` keeps the points per game, from which ``--report`` prints the summary again. The games are not
independent (the card exchange follows the previous game's ranks until they reset every
``--rank-reset`` games; seats are redrawn every ``--seat-every``), so every interval is a block
bootstrap over blocks of the least common multiple of the two
(:func:`blokuszero.match.stats.block_bootstrap`, seeded with the match's seed); a match of fewer
than two blocks gets none.
Exits 1 if a TCP player dropped its connection (the server then read its turns as passes) or a
started client exited with an error.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from blokuszero.games.daihinmin import DaihinminGame, Rules
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.match.stats import block_bootstrap, format_paired, paired_difference
from blokuszero.players.factory import make_client, parse_client_spec
from blokuszero.players.gtp_player import engine_argv
from blokuszero.processes import stop_process
from blokuszero.protocols.uecda import TcpSeat, accept_player, listen

#: Fewer dependence blocks than this make a block-bootstrap interval too coarse to read.
FEW_BLOCKS = 5


def _short(spec: str) -> str:
    """An in-process player's name stem: ``dflt`` for the default client (as the official
    records name it), else the spec's first part."""
    return "dflt" if spec == "default" else spec.split(":")[0]


class TimedSeat:
    """A seat that times its player's plays: wall time from the server handing it the hand table
    to its play (a TCP client thinks in that interval, an in-process one in ``hand``). The other
    seats' cheap ``hand`` calls after the mover's fall inside it. Gifts are not timed: the server
    reads the daifugo's gift before the fugo's, so the fugo's interval would hold both. Every
    other call goes to the wrapped seat."""

    def __init__(self, seat) -> None:
        self.seat = seat
        self.seconds: list[float] = []
        self._start = 0.0

    def __getattr__(self, name: str):
        return getattr(self.seat, name)

    def hand(self, table: np.ndarray) -> None:
        self._start = time.perf_counter()
        self.seat.hand(table)

    def read_play(self) -> np.ndarray:
        answer = self.seat.read_play()
        self.seconds.append(time.perf_counter() - self._start)
        return answer


def failures(seats: Sequence[TimedSeat], processes: dict[int, subprocess.Popen]) -> list[str]:
    """What went wrong with the TCP players: a dropped connection (its turns were passes from
    then on) or a client process that exited with an error (player number -> process)."""
    problems = [f"player {p} {seat.name} dropped its connection"
                for p, seat in enumerate(seats) if getattr(seat, "dropped", False)]
    problems += [f"player {p} exited with code {process.returncode}"
                 for p, process in processes.items() if process.returncode]
    return problems


def dependence_block(settings: MatchSettings) -> int:
    """Games that depend on each other: ranks carry over until a reset, seats hold for
    ``seat_change_every`` games; a block spans both."""
    return math.lcm(settings.rank_reset, settings.seat_change_every if settings.seat_change else 1)


def parse_pairs(text: str, players: int = 5) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """``all`` (every two players) or ``A-B,...`` as pairs of player groups, where a group is one
    player number or several joined by ``+`` (``0+1-2+3``: players 0 and 1 against 2 and 3, each
    side's points per game averaged over its players); ValueError on a malformed, out-of-range or
    overlapping pair."""
    if text == "all":
        return [((p,), (q,)) for p in range(players) for q in range(p + 1, players)]
    pairs = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        groups = [tuple(int(n) for n in side.split("+")) if all(n.isdigit() for n in side.split("+"))
                  else () for side in (a, b)]
        numbers = groups[0] + groups[1]
        if (not all(groups) or max(numbers) >= players or len(set(numbers)) != len(numbers)):
            raise ValueError(f"--compare takes 'all' or pairs of player numbers 0-{players - 1} (a group "
                             f"joined by +) like 0-1,0+1-2+3, not {part!r}")
        pairs.append((groups[0], groups[1]))
    return pairs


def compare(points: np.ndarray, names: Sequence[str], pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
            block: int, seed: int) -> list[dict]:
    """Per pair of groups (A, B): the paired difference of points per game, A's mean over its
    players minus B's (the same games, so the deals cancel), with its block-bootstrap interval
    (blocks of ``block`` games)."""
    def side(group: tuple[int, ...]) -> tuple[str, str, np.ndarray]:
        return ("+".join(str(p) for p in group), "+".join(names[p] for p in group),
                points[:, list(group)].mean(axis=1))
    out = []
    for a, b in pairs:
        (a_player, a_name, a_points), (b_player, b_name, b_points) = side(a), side(b)
        out.append({"a": a_name, "b": b_name, "a_player": a_player, "b_player": b_player,
                    **paired_difference(a_points, b_points, block=block, seed=seed)})
    return out


def think_times(seconds: Sequence[float]) -> dict[str, float]:
    """A player's thinking time per play in milliseconds: plays, mean, median, max."""
    ms = np.asarray(seconds, dtype=float) * 1000
    return {"plays": int(len(ms)), "mean": float(ms.mean()) if len(ms) else 0.0,
            "median": float(np.median(ms)) if len(ms) else 0.0, "max": float(ms.max()) if len(ms) else 0.0}


def summarize(points: np.ndarray, names: Sequence[str], block: int, seed: int, comparisons: Sequence[dict],
              think: Sequence[dict] | None, header: str) -> None:
    """Print each player's mean points per game (block-bootstrap interval), thinking time per
    play where known, and the paired comparisons."""
    blocks = -(-len(points) // block)
    # A percentile interval over k blocks takes few distinct values when k is small (3 for two
    # blocks): below FEW_BLOCKS it is printed, but said to be too coarse to read.
    note = ""
    if blocks < 2:
        note = " (fewer than 2 blocks: none)"
    elif blocks < FEW_BLOCKS:
        note = f" (fewer than {FEW_BLOCKS} blocks: too coarse to read)"
    print(f"{header}; 95% intervals: block bootstrap over {blocks} blocks of {block} games{note}")
    for p, name in enumerate(names):
        interval = (" [{:.3f}, {:.3f}] (95%)".format(*block_bootstrap(points[:, p], block, seed))
                    if blocks > 1 else "")
        timing = ("" if think is None else ", ms per play mean {mean:.1f} median {median:.1f} max "
                  "{max:.1f} ({plays} plays)".format(**think[p]))
        print(f"player {p} {name:10s} mean points {points[:, p].mean():.3f}{interval}{timing}")
    for c in comparisons:
        print(format_paired(f"player {c['a_player']} {c['a']}", f"player {c['b_player']} {c['b']}", c,
                            " points"))


def _load_points(path: str) -> dict:
    """A points file written by ``--points``, checked; ValueError names what is wrong."""
    try:
        with open(path) as f:
            stored = json.load(f)
        points = np.array(stored["points"], dtype=float)
        names, block, seed = stored["names"], int(stored["block"]), int(stored["seed"])
    except (OSError, ValueError, KeyError) as err:
        raise ValueError(f"{path} is not a points file written by --points ({err})") from None
    if points.ndim != 2 or points.shape[1] != len(names):
        raise ValueError(f"{path} holds points of shape {points.shape} for {len(names)} players")
    return {**stored, "points": points, "block": block, "seed": seed}


def report(paths: Sequence[str], pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]] | None) -> int:
    """Print the summary of kept matches again from their points files, the comparisons
    recomputed from the points (``pairs`` None: the ones the first was saved with). Several files
    of the same players and dependence block (matches on different seeds) are joined into one
    sample: each but the last must hold whole blocks, so that no block spans two matches; the
    bootstrap is seeded with the first match's seed, and thinking times are printed per file only."""
    try:
        matches = [_load_points(path) for path in paths]
    except ValueError as err:
        print(f"--report: {err}", file=sys.stderr)
        return 2
    first = matches[0]
    for path, match in zip(paths[1:], matches[1:]):
        if (match["players"], match["block"]) != (first["players"], first["block"]):
            print(f"--report: {path} has other players or another dependence block than {paths[0]}",
                  file=sys.stderr)
            return 2
    for path, match in zip(paths[:-1], matches[:-1]):
        if len(match["points"]) % match["block"]:
            print(f"--report: {path} holds {len(match['points'])} games, not whole blocks of "
                  f"{match['block']}: it can only come last", file=sys.stderr)
            return 2
    points = np.concatenate([m["points"] for m in matches])
    names, block, seed = first["names"], first["block"], first["seed"]
    if pairs is None:
        pairs = [(tuple(int(n) for n in str(c["a_player"]).split("+")),
                  tuple(int(n) for n in str(c["b_player"]).split("+"))) for c in first["comparisons"]]
    seeds = ", ".join(str(m["seed"]) for m in matches)
    summarize(points, names, block, seed, compare(points, names, pairs, block, seed),
              first.get("think_ms") if len(matches) == 1 else None,
              f"{len(points)} games, seed{'s' if len(matches) > 1 else ''} {seeds}, players "
              f"{','.join(first['players'])}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", default="default,default,default,default,default")
    parser.add_argument("--seed", type=int, default=None,
                        help="server seed (default: time); Monte Carlo player n searches with seed + n")
    parser.add_argument("--log", default=None, help="write the game record here")
    parser.add_argument("--points", default=None,
                        help="write the points per game and player here with the players, the "
                             "settings and the paired comparisons (JSON)")
    parser.add_argument("--compare", default=None,
                        help="paired differences between players: 'all' (the default) or pairs of "
                             "player numbers, a group joined by +, e.g. 0-1,0+1-2+3")
    parser.add_argument("--report", default=None, metavar="POINTS", nargs="+",
                        help="play nothing: print the summary of matches kept with --points again, "
                             "several files (the same players on other seeds) joined, the comparisons "
                             "recomputed (--compare to ask for others)")
    parser.add_argument("--rank-reset", type=int, default=100, help="FLASH_MIBUN_NUMBER")
    parser.add_argument("--seat-every", type=int, default=5, help="RULE_SEKIGAE_NUM")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="TCP port (0: any free one)")
    parser.add_argument("--self-follow", action="store_true",
                        help="not an official rule: the field clears only when every player "
                             "still in has passed, so the last player answers its own play "
                             "(FujiGokoro's server; its client plays only under it)")
    args = parser.parse_args(argv)
    specs = args.players.split(",")
    if len(specs) != 5:
        parser.error(f"--players names 5 players, not {len(specs)}")
    try:
        pairs = None if args.compare is None else parse_pairs(args.compare)
    except ValueError as err:
        parser.error(str(err))
    if args.report:
        return report(args.report, pairs)
    pairs = parse_pairs("all") if pairs is None else pairs
    if args.points and not args.points.endswith(".json"):
        parser.error(f"--points writes JSON (the points with the players and comparisons): name a .json "
                     f"file, not {args.points}")
    seed = int(time.time()) if args.seed is None else args.seed
    rules = Rules(self_follow=args.self_follow)
    listener = None
    processes: dict[int, subprocess.Popen] = {}
    seats: list[TimedSeat] = []
    try:
        for number, spec in enumerate(specs):
            if not spec.startswith(("tcp:", "cmd:")):
                try:
                    client = make_client(DaihinminGame(rules), parse_client_spec(spec), seed + number)
                except ValueError as err:
                    parser.error(str(err))
                seats.append(TimedSeat(LocalSeat(client, f"{_short(spec)}{number}")))
                continue
            if listener is None:
                listener = listen(args.host, args.port)
            host, port = listener.getsockname()[:2]
            if spec.startswith("tcp:"):
                command = [sys.executable, "-m", "blokuszero.engines.daihinmin", "-h", host, "-p",
                           str(port), "-n", f"{spec[4:].split(':')[0]}{number}", "--player",
                           spec[4:], "--seed", str(seed + number)]
                command += ["--self-follow"] if args.self_follow else []
            elif spec.startswith("cmd:"):
                command = engine_argv(spec[4:].format(host=host, port=port))
            else:
                parser.error(f"unknown player {spec!r}: default, mc..., tcp:SPEC or cmd:COMMAND")
            processes[number] = subprocess.Popen(command)
            conn, name = accept_player(listener, number)
            seats.append(TimedSeat(TcpSeat(conn, name)))
        port = listener.getsockname()[1] if listener else 0
        bar = tqdm(total=args.games, unit="game")
        settings = MatchSettings(games=args.games, rank_reset=args.rank_reset, seat_change_every=args.seat_every)
        result = serve_match(seats, settings, rules, seed, args.log, port, lambda n, points: bar.update())
        bar.close()
    finally:
        if listener is not None:
            listener.close()
        for process in processes.values():
            stop_process(process, terminate=False)
    points = np.array(result.points, dtype=float)
    block = dependence_block(settings)
    comparisons = compare(points, result.names, pairs, block, seed)
    think = [think_times(seat.seconds) for seat in seats]
    summarize(points, result.names, block, seed, comparisons, think,
              f"{args.games} games, seed {seed}" + (f", record {args.log}" if args.log else ""))
    if args.points:
        with open(args.points, "w") as out:
            json.dump({"seed": seed, "players": specs, "names": list(result.names),
                       "rank_reset": settings.rank_reset, "seat_every": settings.seat_change_every,
                       "self_follow": args.self_follow, "block": block, "comparisons": comparisons,
                       "think_ms": think, "points": points.astype(int).tolist()}, out)
    problems = failures(seats, processes)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
