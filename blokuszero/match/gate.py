"""The gate: a new network replaces the shipped one only when it beats it head to head, significantly.

The match (:func:`gate_match`): 4-player Blokus with two seats each, candidate, candidate,
shipped, shipped (in a game of n seats, n/2 each), seats shuffled every game by the arena, the
first 4 moves uniformly random, every game's seed drawn from ``seed`` and stored with the game.
Both networks search alike: the ``network`` spec (the ``alphazero`` preset, 200 simulations by
default) with the search settings their runs trained with (:data:`~blokuszero.players.factory.TRAINED_SEARCH`,
read from the files), which must agree unless ``network`` sets them.

The statistic: the two seats of a network share a game, so seats are not independent trials;
games are. Per game, the network whose best seat did better takes the game (:func:`game_outcome`):
with Blokus' returns, the network holding the first place alone (or sharing it only with its own
other seat); a first place shared across the two networks is a shared game. With ``c`` games
for the candidate and ``s`` for the shipped network (shared games left out), the candidate's
share is ``c / (c + s)`` with its Wilson 95% interval, and the p-value is the exact two-sided
sign test of ``c`` against ``s`` (even odds if the networks are equally strong;
:func:`blokuszero.match.stats.sign_test`). The verdict (:func:`decide`) is ``ship`` when
``c > s`` and ``p < alpha`` (0.05), which makes it a one-sided test at 2.5%, and ``keep``
otherwise: at 200 decided games the candidate needs 115 or more. An equal candidate takes
half the decided games; the verdict also keeps each network's seat win rate beside the equal
seat of the same games (:func:`blokuszero.match.stats.equal_seat`: with shared first places it
is above 1 / seats).

:func:`run_gate` writes ``verdict.json`` in ``out_dir`` beside the match runner's files (every game,
``games.jsonl`` with the seeds, ``summary.json``); rerunning it resumes an interrupted gate.
With ``ship=True`` and the verdict ``ship``, it copies the candidate's network (the network only,
no optimiser) over the shipped file, atomically, with its ``.sha256``; it never writes there
otherwise.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..files import write_atomic
from ..games.registry import make_game
from ..nn.checkpoint import digest, latest_checkpoint, load_checkpoint
from ..players.factory import PRESETS, TRAINED_SEARCH, player_settings, trained_search
from ..provenance import source
from ..settings import check_value
from .arena import Match
from .runner import load_records, run_match
from .stats import decided_share
from .summary import game_taken_by

CANDIDATE = "candidate"
SHIPPED = "shipped"
VERDICTS = ("ship", "keep")
STATISTIC = ("per game, the network whose best seat did better (Blokus: the first place, unshared "
             "with the other network); candidate share = candidate games / (candidate + shipped "
             "games), shared games left out; Wilson 95% interval; p: exact two-sided sign test; "
             "ship when the candidate has more games and p < alpha")


def network_file(where: str | Path) -> Path:
    """The network file ``where`` names: a file, or a run or checkpoint directory (its newest
    checkpoint that loads). ValueError if there is none."""
    path = Path(where)
    if path.is_dir():
        found = latest_checkpoint(path / "checkpoints" if (path / "checkpoints").is_dir() else path,
                                  report=lambda text: None)
        if found is None:
            raise ValueError(f"{where} holds no checkpoint that loads (ckpt_*.pt with its .sha256)")
        return found[0]
    if not path.is_file():
        raise ValueError(f"network {where} does not exist")
    return path


def decide(candidate_games: int, shipped_games: int, alpha: float = 0.05) -> dict[str, Any]:
    """The gate's figures and verdict from the games each network took (shared games left out):
    the candidate's share with its Wilson 95% interval, the sign test's p-value, and ``ship``
    when the candidate took more games and ``p < alpha``, else ``keep``."""
    check_value("alpha", alpha, float, above=0, high=1)
    figures = decided_share(candidate_games, shipped_games)
    ship = candidate_games > shipped_games and figures["p_value"] < alpha
    return {"candidate_games": candidate_games, "shipped_games": shipped_games,
            "decided": candidate_games + shipped_games, "candidate_share": figures["share"],
            "ci_low": figures["ci_low"], "ci_high": figures["ci_high"], "p_value": figures["p_value"],
            "alpha": alpha, "verdict": "ship" if ship else "keep"}


def game_outcome(record: Mapping[str, Any]) -> str:
    """``candidate``, ``shipped`` or ``shared``: which network's best seat got the better return
    in this game record (its ``seating`` and ``returns``)."""
    return game_taken_by(record, CANDIDATE, SHIPPED)


def _game_of(state: Mapping[str, Any]) -> str:
    return (state.get("model_config") or {}).get("game", "blokus")


def shared_search(network: Mapping[str, Any], candidate: Path, shipped: Path) -> dict[str, Any]:
    """The settings both networks play with: the search settings their runs trained with (read
    from the files), then ``network``'s. ValueError if the two runs' differ in a setting
    ``network`` does not set."""
    preset = PRESETS.get(network.get("preset"), {})  # what a file that stores no setting plays with
    a = {**preset, **trained_search(str(candidate))}
    b = {**preset, **trained_search(str(shipped))}
    differ = sorted(k for k in TRAINED_SEARCH if a.get(k) != b.get(k) and k not in network)
    if differ:
        shown = lambda v: "default" if v is None else v  # noqa: E731
        raise ValueError("the two networks were trained with different search settings ("
                         + ", ".join(f"{k}: {shown(a.get(k))} / {shown(b.get(k))}" for k in differ)
                         + "); set them for both, e.g. network." + differ[0] + "=...")
    return {**{k: v for k, v in {**a, **b}.items() if k in TRAINED_SEARCH}, **network}


def gate_match(candidate: Path, shipped: Path, network: Mapping[str, Any], random_opening_moves: int = 4,
               game: str = "blokus") -> Match:
    """Half the seats of ``game`` for each network, both with the :func:`shared_search` settings."""
    seats = make_game(game).num_players
    if seats % 2:
        raise ValueError(f"a gate gives each network half the seats; {game} has {seats}")
    search = shared_search(network, candidate, shipped)
    return Match(game, [CANDIDATE] * (seats // 2) + [SHIPPED] * (seats // 2),
                 {CANDIDATE: {**search, "checkpoint": str(candidate)},
                  SHIPPED: {**search, "checkpoint": str(shipped)}}, random_opening_moves)


def ship_network(candidate: Path, shipped: Path, gate: Mapping[str, Any]) -> str:
    """Write the candidate's network (weights, step, shape, its run's config, source and lineage;
    no optimiser or counters) to ``shipped`` atomically, then its ``.sha256``; ``gate``: the
    verdict that shipped it, stored with it. Returns the new file's sha256."""
    import torch

    state = load_checkpoint(candidate)
    payload = {"learner": {"model": state["learner"]["model"], "step": int(state["learner"]["step"])},
               "model_name": state.get("model_name")}
    for key in ("model_config", "config", "source", "init_from"):
        if state.get(key) is not None:
            payload[key] = state[key]
    payload["gate"] = dict(gate)
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    data = buffer.getvalue()
    sha = hashlib.sha256(data).hexdigest()
    shipped.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(shipped, data)
    write_atomic(shipped.with_suffix(".sha256"), sha.encode())
    return sha


def default_out_dir(candidate: str | Path, shipped: str | Path) -> Path:
    """``gates/<candidate sha256[:12]>_vs_<shipped sha256[:12]>``: a rerun resumes there, and a
    gate against a newly shipped network gets a directory of its own."""
    a, b = network_file(candidate), network_file(shipped)
    load_checkpoint(a), load_checkpoint(b)
    return Path("gates") / f"{digest(a)[:12]}_vs_{digest(b)[:12]}"


def run_gate(candidate: str | Path, shipped: str | Path, games: int, seed: int, out_dir: str | Path,
             network: Mapping[str, Any], random_opening_moves: int = 4, alpha: float = 0.05,
             ship: bool = False, resume: bool = True, **run_options: Any) -> dict[str, Any]:
    """Play the gate's match in ``out_dir`` (resumed with ``resume``), decide, write
    ``verdict.json`` and, with ``ship`` and the verdict ``ship``, ship the candidate
    (:func:`ship_network`). ``run_options`` go to :func:`.runner.run_match` (workers, progress,
    backend, ...). ValueError on a missing or damaged network or a setting out of range."""
    check_value("alpha", alpha, float, above=0, high=1)
    check_value("ship", ship, bool)
    candidate_path = network_file(candidate)
    shipped_path = Path(shipped)
    if not shipped_path.is_file():
        raise ValueError(f"shipped network {shipped} does not exist")
    states = {CANDIDATE: load_checkpoint(candidate_path), SHIPPED: load_checkpoint(shipped_path)}
    digests = {CANDIDATE: digest(candidate_path), SHIPPED: digest(shipped_path)}
    game = _game_of(states[CANDIDATE])
    if _game_of(states[SHIPPED]) != game:
        raise ValueError(f"the candidate plays {game}, the shipped network {_game_of(states[SHIPPED])}")
    match = gate_match(candidate_path, shipped_path, network, random_opening_moves, game)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # The match runner refuses to resume games played by other networks (match.json's sha256s).
    networks = {"candidate": str(candidate_path), "candidate_sha256": digests[CANDIDATE],
                "shipped": str(shipped_path), "shipped_sha256": digests[SHIPPED]}
    summary = run_match(match, games, seed, out_dir, resume=resume,
                        label=f"gate {candidate_path.name} vs {shipped_path.name}", **run_options)
    records = [r for r in load_records(out_dir / "games.jsonl") if r["index"] < games]
    outcomes = Counter(game_outcome(r) for r in records)
    played_as = player_settings(match.players[CANDIDATE])
    search = {k: v for k, v in played_as.items() if k not in ("checkpoint", "model", "init_seed")}
    verdict = {**networks, "games": len(records), "seed": seed, "random_opening_moves": random_opening_moves,
               "game": game, "search": search,
               "statistic": STATISTIC, "shared_games": outcomes["shared"], "equal_seat": summary["equal_seat"],
               **decide(outcomes[CANDIDATE], outcomes[SHIPPED], alpha),
               "seats": {name: {k: summary["players"][name][k]
                                for k in ("games", "wins", "win_rate", "ci_low", "ci_high", "mean_score")}
                         for name in (CANDIDATE, SHIPPED)},
               "source": source(), "ship": ship, "shipped_to": None}
    if ship and verdict["verdict"] == "ship":
        load_checkpoint(shipped_path)  # still whole, and still the network the games were played against
        if digest(shipped_path) != digests[SHIPPED]:
            raise ValueError(f"{shipped_path} changed while the gate played; nothing shipped")
        record = {k: verdict[k] for k in ("candidate", "candidate_sha256", "shipped_sha256", "games",
                                          "candidate_games", "shipped_games", "candidate_share",
                                          "ci_low", "ci_high", "p_value", "source")}
        verdict["shipped_to"] = str(shipped_path)
        verdict["shipped_sha256_after"] = ship_network(candidate_path, shipped_path, record)
    write_atomic(out_dir / "verdict.json", json.dumps(verdict, indent=2))
    return verdict


def format_verdict(verdict: Mapping[str, Any]) -> str:
    """The verdict for the console."""
    search = verdict["search"]
    budget = [f"{search['simulations']} simulations"] if search.get("simulations") else []
    budget += [f"{search['time_limit']:g} CPU-s"] if search.get("time_limit") else []
    lines = [f"candidate {verdict['candidate']} ({verdict['candidate_sha256'][:12]}) vs shipped "
             f"{verdict['shipped']} ({verdict['shipped_sha256'][:12]}): {verdict['games']} games, "
             f"{' or '.join(budget)} a move each",
             f"games taken: candidate {verdict['candidate_games']}, shipped {verdict['shipped_games']}, "
             f"shared {verdict['shared_games']}",
             f"candidate share {verdict['candidate_share']:.1%} [{verdict['ci_low']:.1%}, "
             f"{verdict['ci_high']:.1%}] (Wilson 95%), sign test p = {verdict['p_value']:.3g} "
             f"(alpha {verdict['alpha']:g}; an equal candidate's share is 50%)",
             "seat win rates: " + ", ".join(
                 f"{name} {seat['win_rate']:.1%} [{seat['ci_low']:.1%}, {seat['ci_high']:.1%}]"
                 for name, seat in verdict["seats"].items())
             + f"; equal seat {verdict['equal_seat']:.1%} (winning seats per game / seats)",
             f"verdict: {verdict['verdict']}"]
    if verdict.get("shipped_to"):
        lines.append(f"shipped: {verdict['shipped_to']} now holds the candidate's network "
                     f"(sha256 {verdict['shipped_sha256_after'][:12]})")
    elif verdict["verdict"] == "ship":
        lines.append("not shipped (ship=false)")
    return "\n".join(lines)
