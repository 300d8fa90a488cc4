"""The player kinds' registry (players/registry.py) and a spec resolved once (PlayerSpec): every
kind's functions load by their import path, a resolved spec is frozen, and a network player's
checkpoint is read once, when the spec is resolved, not when a player is made or an option changes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from blokuszero.games.blokus import BlokusGame
from blokuszero.nn import checkpoint
from blokuszero.players.factory import change_options, make_player, resolve_player, resolve_spec
from blokuszero.players.registry import KINDS, load

SHIPPED = str(Path(__file__).resolve().parents[1] / "checkpoints" / "blokus_b2c32conv_gumbel.pt")


def test_every_kinds_functions_load_by_their_path():
    paths = [p for kind in KINDS.values() for p in (kind.make, kind.check, kind.client) if p is not None]
    assert len(paths) >= len(KINDS) and all(callable(load(p)) for p in paths)


def test_a_resolved_spec_is_frozen_and_its_checkpoint_read_once(monkeypatch):
    reads = []
    read = checkpoint.load_checkpoint
    monkeypatch.setattr(checkpoint, "load_checkpoint", lambda path: reads.append(path) or read(path))
    spec = resolve_player({"preset": "network", "checkpoint": SHIPPED, "time_limit": 0.1, "backend": "torch"})
    assert reads == [SHIPPED]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.kind = KINDS["mcts"]
    with pytest.raises(TypeError):
        spec.settings["time_limit"] = 1.0
    # the options are the spec's and its preset's; the settings add the search the network trained with
    assert dict(spec.options) == resolve_spec({"preset": "network", "checkpoint": SHIPPED, "time_limit": 0.1,
                                               "backend": "torch"})
    assert "c_base" in spec.settings and "c_base" not in spec.options
    assert spec.settings["gumbel"] is False  # the expansion threshold selects by PUCT, whatever it trained with
    player = make_player(BlokusGame(), spec, 0)
    faster = change_options(spec, time_limit=0.05)
    assert reads == [SHIPPED] and faster.checkpoint is spec.checkpoint
    assert faster.settings["time_limit"] == 0.05 and player.mcts.config.time_limit == 0.1
    assert resolve_player(spec) is spec
    untrained = change_options(spec, checkpoint=None)
    assert untrained.checkpoint is None and "c_base" not in untrained.settings


def test_a_bad_spec_is_one_line_naming_it():
    with pytest.raises(ValueError, match=r"^player needs a preset or a kind in \['alphazero', "):
        resolve_player({"kind": "nonsense"})
    with pytest.raises(ValueError, match=r"^unknown option\(s\) \['frobnicate'\] for a mcts player"):
        resolve_player({"preset": "mcts_maxn", "frobnicate": 1})
    with pytest.raises(ValueError, match="^the daihinmin_default player is a UECda table client"):
        make_player(BlokusGame(), {"kind": "daihinmin_default"})
    with pytest.raises(ValueError, match="^checkpoint nowhere.pt does not exist"):
        resolve_player({"preset": "network", "checkpoint": "nowhere.pt"})


def test_policy_temperature_reaches_the_networks_evaluator():
    player = make_player(BlokusGame(), {"preset": "network", "policy_temperature": 1.5, "backend": "torch"}, 0)
    assert player.mcts.evaluator.inner.policy_temperature == 1.5
    plain = make_player(BlokusGame(), {"preset": "network", "backend": "torch"}, 0)
    assert plain.mcts.evaluator.inner.policy_temperature == 1.0
    with pytest.raises(ValueError, match="policy_temperature"):
        resolve_player({"preset": "network", "policy_temperature": 0})
