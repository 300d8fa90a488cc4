"""train.init_from: a new run starts from a network's weights (step 0, fresh optimiser); bad files
are one-line setting errors; a resuming run keeps its own checkpoint and says so."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
import ray
import torch

from blokuszero.nn.checkpoint import digest, latest_checkpoint, save_checkpoint, save_network
from blokuszero.nn.model import build_model
from blokuszero.rl.trainer import Trainer


def network(directory: Path, seed: int, model: str = "b2c32conv", step: int = 7) -> Path:
    torch.manual_seed(seed)
    net = build_model(model, "blokus")
    return save_network(directory, step, model, net.state_dict(), json.dumps({"seed": seed}),
                        model_config=dataclasses.asdict(net.config))


def _stop_actors(trainer: Trainer) -> None:
    trainer.metrics.close()
    for actor in [trainer.buffer, *trainer.workers]:
        ray.kill(actor, no_restart=True)


def test_a_new_run_starts_from_the_network_and_a_resumed_one_ignores_it(tiny_run, tmp_path, ray_session, capsys):
    source = network(tmp_path / "a", seed=1)
    run_dir = tmp_path / "run"
    trainer = Trainer(tiny_run.config(run_dir, f"train.init_from={source}"), run_dir)
    trainer._start()
    try:
        stored = torch.load(source, weights_only=True)["learner"]["model"]
        mine = trainer.learner.model.state_dict()
        assert set(mine) == set(stored) and all(torch.equal(mine[k], stored[k]) for k in stored)
        assert trainer.learner.step == 0 and trainer.learner.optimizer.state_dict()["state"] == {}
        lineage = {"path": str(source), "sha256": digest(source), "step": 7, "model_name": "b2c32conv"}
        assert trainer.init_from == lineage
        assert json.loads((run_dir / "config.json").read_text())["init_from"] == lineage
        # A checkpoint carries the lineage; make it differ from the source so a resume is told apart.
        with torch.no_grad():
            next(trainer.learner.model.parameters()).add_(1.0)
        trainer.learner.step = 3
        path = trainer.checkpoint()
        assert torch.load(path, weights_only=True)["init_from"] == lineage
        saved = {k: v.clone() for k, v in trainer.learner.model.state_dict().items()}
    finally:
        _stop_actors(trainer)
    assert "starting from the network in" in capsys.readouterr().out

    other = network(tmp_path / "b", seed=2)
    again = Trainer(tiny_run.config(run_dir, f"train.init_from={other}"), run_dir)
    again._start()
    try:
        said = capsys.readouterr().out
        assert said.count("is ignored") == 1
        assert f"train.init_from={other} is ignored: the run resumes from its own checkpoint (it started " \
               f"from {source} (sha256 {digest(source)[:16]}))" in said
        assert again.learner.step == 3 and again.init_from == lineage
        mine = again.learner.model.state_dict()
        assert all(torch.equal(mine[k], saved[k]) for k in saved)
        assert json.loads((run_dir / "config.json").read_text())["init_from"] == lineage
    finally:
        _stop_actors(again)


def test_a_run_grows_a_smaller_network_only_when_told(tiny_run, tmp_path, ray_session, capsys):
    """train.init_grow=true: a b2c32conv network starts a b4c64conv run with the same outputs, and
    its lineage says it was grown; without the switch the start is refused, naming the switch."""
    source = network(tmp_path / "a", seed=4)
    run = ("model=b4c64conv", f"train.init_from={source}")
    with pytest.raises(ValueError, match=r"^train.init_from cannot start this run: .*another shape than this "
                                         r"run's model: .*\(train.init_grow=true grows a smaller network"):
        Trainer(tiny_run.config(tmp_path / "refused", *run), tmp_path / "refused")
    trainer = Trainer(tiny_run.config(tmp_path / "run", *run, "train.init_grow=true"), tmp_path / "run")
    trainer._start()
    try:
        assert trainer.init_from == {"path": str(source), "sha256": digest(source), "step": 7,
                                     "model_name": "b2c32conv", "grown": True}
        small = build_model("b2c32conv", "blokus")
        small.load_state_dict(torch.load(source, weights_only=True)["learner"]["model"])
        planes = torch.rand(3, small.config.input_planes, 20, 20).round()
        with torch.no_grad():
            expected, got = small.eval()(planes), trainer.learner.model.eval()(planes)
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(expected, got, strict=True))
    finally:
        _stop_actors(trainer)
    assert "its weights, grown from b2c32conv into b4c64conv, a fresh optimiser" in capsys.readouterr().out


def _corrupt(path: Path) -> Path:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.pt", r"checkpoint .*missing.pt does not exist"),
    (lambda d: _corrupt(network(d, 0)), r"does not match its digest \(damaged\)"),
    (lambda d: (lambda p: (p.with_suffix(".sha256").unlink(), p)[1])(network(d, 0)), "has no digest file"),
    (lambda d: network(d, 0, "b4c64conv"), r"holds a b4c64conv network of another shape than this run's "
                                          r"model: blocks 4 \(run: 2\), filters 64 \(run: 32\)"),
    (lambda d: save_checkpoint(d, 1, {"counters": {}}), "holds no network"),
])
def test_a_bad_init_from_is_a_one_line_setting_error_before_anything_starts(tiny_run, tmp_path, make, message):
    path = make(tmp_path)
    run_dir = tmp_path / "run"
    with pytest.raises(ValueError) as caught:
        Trainer(tiny_run.config(run_dir, f"train.init_from={path}"), run_dir)
    text = str(caught.value)
    assert text.startswith("train.init_from cannot start this run: ") and "\n" not in text
    assert re.search(message, text), text
    assert not run_dir.exists()


def test_a_network_without_a_stored_shape_is_checked_by_its_weights(tiny_run, tmp_path):
    """Older network files store no model_config: loading the weights into the run's model decides."""
    torch.manual_seed(0)
    path = save_network(tmp_path, 1, "b4c64conv", build_model("b4c64conv", "blokus").state_dict())
    with pytest.raises(ValueError, match="network does not fit this run's model: .*size mismatch"):
        Trainer(tiny_run.config(tmp_path / "run", f"train.init_from={path}"), tmp_path / "run")
    torch.manual_seed(0)
    fits = save_network(tmp_path / "ok", 1, "b2c32conv", build_model("b2c32conv", "blokus").state_dict())
    Trainer(tiny_run.config(tmp_path / "run", f"train.init_from={fits}"), tmp_path / "run")
    assert latest_checkpoint(tmp_path / "run" / "checkpoints") is None


def test_step_0_of_a_run_started_from_a_network_is_that_network(tiny_run, tmp_path):
    """evaluate.py untrained=true: a run with train.init_from started from that file, not from a
    random network; one whose file now holds another network (a gate shipped over it) is refused."""
    from blokuszero.match.evaluation import candidates

    source = network(tmp_path / "a", seed=1)
    lineage = {"path": str(source), "sha256": digest(source), "step": 7, "model_name": "b2c32conv"}
    config = json.dumps(tiny_run.config(tmp_path / "run", f"train.init_from={source}"))
    torch.manual_seed(3)
    save_network(tmp_path / "run" / "checkpoints", 10, "b2c32conv", build_model("b2c32conv", "blokus").state_dict(),
                 config, init_from=lineage)
    found = candidates(tmp_path / "run", include_untrained=True)
    assert [(c.step, c.spec["checkpoint"]) for c in found] == [
        (0, str(source)), (10, str(tmp_path / "run" / "checkpoints" / "ckpt_000000010.pt"))]
    network(tmp_path / "a", seed=2)  # the same file name, another network
    with pytest.raises(ValueError, match=r"the run started from .*ckpt_000000007.pt \(sha256 \w+\), which holds "
                                         r"another network now"):
        candidates(tmp_path / "run", include_untrained=True)
