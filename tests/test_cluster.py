"""`train.py` joined to a Ray cluster of two nodes (simulated on this machine): self-play actors on
both nodes feed the learner, and losing a node mid-run loses nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ray.cluster_utils import Cluster

from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.nn.checkpoint import checkpoint_paths, load_checkpoint
from blokuszero.rl.replay import ReplayBuffer

ROOT = Path(__file__).resolve().parents[1]
RUN = ["train.schedule=paper", "train.total_steps=30", "train.initial_games=6", "train.buffer_games=60",
       "train.steps_per_iteration=10", "train.games_per_iteration=4", "train.checkpoint_every=10",
       "train.log_every=5", "train.games_per_task=2", "search.simulations=4", "selfplay.games_in_parallel=2",
       "optimizer.batch_size=8", "progress=false", "hardware.actors=2", "hardware.threads_per_actor=1"]


def _steps(run_dir: Path) -> list[int]:
    """Steps of the checkpoints written after some training."""
    return [int(p.stem[5:]) for p in checkpoint_paths(run_dir / "checkpoints") if int(p.stem[5:]) > 0]


@pytest.fixture
def two_nodes():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    worker = cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    yield cluster, worker
    cluster.shutdown()


@pytest.mark.slow  # about a minute on 2 cores: two Ray nodes and a short run
def test_train_py_on_two_nodes_survives_losing_one(tmp_path, two_nodes):
    cluster, worker = two_nodes
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *RUN, f"run_dir={run_dir}",
                             f"hardware.ray_address={cluster.address}"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        # The first checkpoint comes after the 6 initial games, played by both actors (one per
        # node: the trainer spreads them); then the second node goes away mid-run.
        deadline = time.time() + 240
        while time.time() < deadline and not _steps(run_dir) and proc.poll() is None:
            time.sleep(0.2)
        assert _steps(run_dir), "no checkpoint after training within 240 s"
        cluster.remove_node(worker)
        output, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output[-3000:]

    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["step"] == 30
    by_node = summary["games_by_node"]
    assert by_node.get(worker.node_id, 0) > 0, by_node      # games from the node that was lost
    assert len(by_node) == 2 and all(n > 0 for n in by_node.values()), by_node
    # Nothing lost or damaged: every game counted is in the buffer on disk, every kept
    # checkpoint loads (digests verified) and the last one has the final counts.
    buffer = ReplayBuffer(capacity=60, encoder=BlokusEncoder(), directory=run_dir / "buffer")
    # (a task cut off with its node may have sent some games without reporting them)
    assert buffer.games_added == summary["games"] >= sum(by_node.values())
    newest = load_checkpoint(checkpoint_paths(run_dir / "checkpoints")[0])
    assert newest["learner"]["step"] == 30 and newest["counters"]["games"] == summary["games"]
    for path in checkpoint_paths(run_dir / "checkpoints"):
        load_checkpoint(path)
