"""The gate: two seats each, per-game statistic, the decision on synthetic counts, resume, and
shipping only on a "ship" verdict with ship=true."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from blokuszero.match import gate
from blokuszero.match.arena import game_seed
from blokuszero.nn.checkpoint import digest, load_checkpoint, load_network, save_network
from blokuszero.nn.model import build_model

ROOT = Path(__file__).resolve().parents[1]
TINY = {"preset": "alphazero", "simulations": 2}


def network(directory: Path, seed: int, search: dict | None = None) -> Path:
    """An untrained b2c32conv network initialised from torch seed ``seed``."""
    torch.manual_seed(seed)
    net = build_model("b2c32conv", "blokus")
    config = json.dumps({"seed": seed, "search": search or {"gumbel": True, "q_init": "parent"}})
    return save_network(directory, seed + 1, "b2c32conv", net.state_dict(), config,
                        model_config=dataclasses.asdict(net.config))


@pytest.mark.parametrize("wins, losses, verdict", [
    (130, 70, "ship"), (115, 85, "ship"),  # 57.5% of 200 decided games: p = 0.04
    (114, 86, "keep"),  # p = 0.056
    (100, 100, "keep"), (103, 97, "keep"), (70, 130, "keep"), (0, 0, "keep"),
    (6, 0, "ship"), (5, 0, "keep"),  # the fewest games that can ship: 6 of 6 (p = 1/32)
])
def test_the_decision_on_synthetic_counts(wins, losses, verdict):
    d = gate.decide(wins, losses)
    assert d["verdict"] == verdict
    assert d["decided"] == wins + losses and 0 <= d["ci_low"] <= d["candidate_share"] <= d["ci_high"] <= 1
    if verdict == "ship":
        assert d["p_value"] < 0.05 and d["ci_low"] > 0.5


def test_the_decision_at_200_games():
    assert gate.decide(130, 70)["p_value"] == pytest.approx(2.65e-5, rel=0.01)
    assert gate.decide(100, 100)["p_value"] == 1.0
    with pytest.raises(ValueError, match="alpha must be > 0"):
        gate.decide(1, 1, alpha=0)


def test_each_game_goes_to_the_network_with_the_better_best_seat():
    seating = ["shipped", "candidate", "shipped", "candidate"]
    assert gate.game_outcome({"seating": seating, "returns": [-1, 1, -1, -1]}) == "candidate"
    assert gate.game_outcome({"seating": seating, "returns": [1, -1, -1, -1]}) == "shipped"
    assert gate.game_outcome({"seating": seating, "returns": [-1, 1, -1, 1]}) == "candidate"  # shared with itself
    assert gate.game_outcome({"seating": seating, "returns": [1, 1, -1, -1]}) == "shared"


def test_a_gate_plays_two_seats_each_decides_resumes_and_never_ships_on_keep(tmp_path):
    candidate, shipped = network(tmp_path / "run" / "checkpoints", 1), network(tmp_path / "shipped", 2)
    before = shipped.read_bytes()
    out = tmp_path / "gate"
    verdict = gate.run_gate(tmp_path / "run", shipped, 3, 5, out, TINY, ship=True, workers=1, progress=False)
    assert verdict["candidate"] == str(candidate)  # a run directory: its newest checkpoint
    assert verdict["candidate_sha256"] == digest(candidate) and verdict["shipped_sha256"] == digest(shipped)
    assert verdict["games"] == 3 and verdict["verdict"] == "keep" and verdict["shipped_to"] is None
    assert verdict["candidate_games"] + verdict["shipped_games"] + verdict["shared_games"] == 3
    assert verdict["search"]["simulations"] == 2 and verdict["search"]["gumbel"] is True
    assert set(verdict["source"]) == {"git_revision", "dirty"}
    assert json.loads((out / "verdict.json").read_text()) == verdict
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [r["seed"] for r in records] == [game_seed(5, i) for i in range(3)]
    assert all(sorted(r["seating"]) == ["candidate", "candidate", "shipped", "shipped"] for r in records)
    assert shipped.read_bytes() == before  # keep: never written
    # The seats' win rates are read against the equal seat of the same games.
    winners = sum(r > 0 for record in records for r in record["returns"])
    assert verdict["equal_seat"] == pytest.approx(winners / (3 * 4))
    assert verdict["seats"]["candidate"]["wins"] + verdict["seats"]["shipped"]["wins"] == winners
    shown = gate.format_verdict(verdict).splitlines()
    assert shown[0].endswith(": 3 games, 2 simulations a move each")
    timed = {**verdict, "search": {**verdict["search"], "simulations": 0, "time_limit": 0.25}}
    assert gate.format_verdict(timed).splitlines()[0].endswith(": 3 games, 0.25 CPU-s a move each")
    assert shown[3] == ("seat win rates: " + ", ".join(
        f"{name} {verdict['seats'][name]['win_rate']:.1%} [{verdict['seats'][name]['ci_low']:.1%}, "
        f"{verdict['seats'][name]['ci_high']:.1%}]" for name in ("candidate", "shipped"))
        + f"; equal seat {winners / 12:.1%} (winning seats per game / seats)")

    again = gate.run_gate(tmp_path / "run", shipped, 3, 5, out, TINY, ship=True, workers=1, progress=False)
    assert json.loads((out / "summary.json").read_text())["speed"]["games_played"] == 0  # resumed
    assert {k: v for k, v in again.items() if k != "source"} == {k: v for k, v in verdict.items() if k != "source"}


def test_a_ship_verdict_with_ship_true_replaces_the_shipped_network_atomically(tmp_path, monkeypatch):
    candidate, shipped = network(tmp_path / "c", 1), network(tmp_path / "s", 2)
    before = shipped.read_bytes()
    original = gate.decide  # stands in for a significant result: a few tiny games never are one
    monkeypatch.setattr(gate, "decide", lambda c, s, alpha: {**original(c, s, alpha), "verdict": "ship"})

    not_asked = gate.run_gate(candidate, shipped, 1, 0, tmp_path / "g1", TINY, ship=False, workers=1, progress=False)
    assert not_asked["verdict"] == "ship" and not_asked["shipped_to"] is None and shipped.read_bytes() == before

    verdict = gate.run_gate(candidate, shipped, 1, 0, tmp_path / "g2", TINY, ship=True, workers=1, progress=False)
    assert verdict["shipped_to"] == str(shipped)
    state = load_checkpoint(shipped)  # its digest file agrees
    assert digest(shipped) == verdict["shipped_sha256_after"]
    assert set(state) == {"learner", "model_name", "model_config", "config", "source", "gate"}
    assert set(state["learner"]) == {"model", "step"}  # the network only: no optimiser
    assert state["gate"]["candidate_sha256"] == digest(candidate) and state["gate"]["shipped_sha256"] == \
        verdict["shipped_sha256"]
    net, step = load_network(shipped)
    theirs, _ = load_network(candidate)
    assert step == 2 and all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), theirs.state_dict().values()))
    assert shipped.stat().st_size < 1.1 * candidate.stat().st_size
    assert not list(shipped.parent.glob(".*.tmp"))

    # The games in g2 were played against the network shipped over now: no resume there.
    with pytest.raises(ValueError, match="cannot resume in .*g2: its games were played by other networks"):
        gate.run_gate(candidate, shipped, 1, 0, tmp_path / "g2", TINY, workers=1, progress=False)


def test_the_gate_refuses_what_it_cannot_judge(tmp_path):
    candidate, shipped = network(tmp_path / "c", 1), network(tmp_path / "s", 2)
    with pytest.raises(ValueError, match="shipped network .*nothing.pt does not exist"):
        gate.run_gate(candidate, tmp_path / "nothing.pt", 1, 0, tmp_path / "g", TINY)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no checkpoint that loads"):
        gate.run_gate(tmp_path / "empty", shipped, 1, 0, tmp_path / "g", TINY)
    puct = network(tmp_path / "p", 3, search={"gumbel": False, "q_init": "parent"})
    with pytest.raises(ValueError, match=r"different search settings \(gumbel: True / False\); set them for "
                                         r"both, e.g. network.gumbel=..."):
        gate.run_gate(candidate, puct, 1, 0, tmp_path / "g", TINY)
    assert not (tmp_path / "g").exists()


def test_gate_py_without_networks_prints_its_usage():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gate.py")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("usage: python scripts/gate.py candidate=PATH")


def test_matches_record_their_networks_and_resume_only_with_the_same_ones(tmp_path):
    """The match runner stores each network's sha256 (a gate replaces a file in place), refuses
    to resume once the file holds another network, and the ladder tells the networks apart."""
    from blokuszero.match.arena import Match
    from blokuszero.match.ladder import load_games
    from blokuszero.match.runner import run_match

    net = network(tmp_path / "n", 1)
    match = Match("blokus", ["net", "random", "random", "random"],
                  {"net": {**TINY, "checkpoint": str(net)}, "random": {"preset": "random"}})
    run_match(match, 1, 0, tmp_path / "m", workers=1, progress=False)
    sha = hashlib.sha256(net.read_bytes()).hexdigest()
    assert json.loads((tmp_path / "m" / "match.json").read_text())["networks"] == {"net": sha}
    assert {name for game in load_games(tmp_path / "m") for name, _ in game if "[" in name} == \
        {f"n@2, 2 sims [{sha[:8]}]"}
    other = network(tmp_path / "o", 2)
    for suffix in (".pt", ".sha256"):  # what shipping does to the file
        net.with_suffix(suffix).write_bytes(other.with_suffix(suffix).read_bytes())
    with pytest.raises(ValueError, match=rf"cannot resume in .*m: its games were played by other networks "
                                         rf"\(net {sha[:12]}; now net "):
        run_match(match, 2, 0, tmp_path / "m", workers=1, progress=False, resume=True)
