"""The Blokus engine's start, traced (scripts/trace_start.py): from ``main`` to a ready player it
touches no other game family's module, reads its checkpoint once, resolves its player spec once,
builds the encoder once, and enters no module of the engine's or the players' layer from more
than two modules (docs/ARCHITECTURE.md, "The Blokus engine's start")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_architecture import FAMILY_NAMES

ROOT = Path(__file__).resolve().parents[1]


def trace() -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "trace_start.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def other_families(modules: set[str]) -> list[str]:
    """The modules among ``modules`` that serve a game family other than Blokus, by their path's
    folders and file names (``games.go``, ``players.ggp``, ``match.daihinmin``, ``uecda_*``)."""
    others = {name for family, names in FAMILY_NAMES.items() if family != "blokus" for name in names}
    return sorted(m for m in modules if any(part == name or part.startswith(f"{name}_")
                                            for part in m.split(".")[1:] for name in others))


def test_the_family_check_sees_another_familys_module():
    assert other_families({"blokuszero.games.go.rules", "blokuszero.players.ggp.uct", "blokuszero.games.blokus",
                           "blokuszero.match.daihinmin.uecda_server", "blokuszero.protocols.uecda",
                           "blokuszero.players.factory", "blokuszero.search.gumbel"}) == [
        "blokuszero.games.go.rules", "blokuszero.match.daihinmin.uecda_server", "blokuszero.players.ggp.uct",
        "blokuszero.protocols.uecda"]


def test_the_blokus_engine_starts_through_blokus_and_generic_modules_only():
    found = trace()
    touched = set(found["imported"]) | set(found["entries_by_module"])
    assert not other_families(touched), f"the Blokus engine's start touches {other_families(touched)}"
    calls = found["calls"]
    assert calls["blokuszero.nn.checkpoint:load_checkpoint"] == 1, "the checkpoint is read more than once"
    resolved = sum(n for f, n in calls.items() if f.startswith("blokuszero.players.factory:")
                   and f.split(":")[1] in ("_layers", "resolve_spec"))
    assert resolved == 1, f"the player spec is resolved {resolved} times"
    assert calls["blokuszero.games.registry:make_encoder"] == 1, "the encoder is built more than once"
    spec_path = {m: n for m, n in found["entries_by_module"].items() if m.split(".")[1] in ("engines", "players")}
    assert max(spec_path.values()) <= 2, f"entered from more than two modules: {spec_path}"
