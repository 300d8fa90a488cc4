"""``scripts/gpu_check.sh``, the command for the first GPU: its CPU rehearsal
(``--dry-run``) runs every step and writes every figure; without a GPU the real check refuses."""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from blokuszero.rl.config import load_run_config
from blokuszero.rl.selfplay import SelfPlaySettings

ROOT = Path(__file__).resolve().parents[1]


def gpu_check(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", str(ROOT / "scripts" / "gpu_check.sh"), *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def figure(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def test_the_full_check_measures_what_the_issue_asks(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    full = importlib.import_module("gpu_check").FULL
    assert (full.model, full.batches, full.sp_actors, full.train_minutes) == \
        ("b10c128", (256, 1024, 4096), (1, 2, 4), 3)
    # The GPU run's settings, which only a GPU runs, pass the run's checks here, and fit one GPU.
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[*full.train_overrides, f"train.max_minutes={full.train_minutes}"])
    run = load_run_config(OmegaConf.to_container(cfg, resolve=True))
    hw = run.hardware
    assert (run.model.name, hw.actor_device, hw.learner_device, hw.half) == ("b10c128", "cuda", "cuda", True)
    assert hw.actors * hw.gpus_per_actor + hw.learner_gpus <= 1 and hw.learner_gpus > 0
    assert run.train.max_minutes == 3
    SelfPlaySettings(simulations=full.sp_simulations, games_in_parallel=full.sp_games,
                     leaves_per_tree=full.sp_leaves_per_tree)


# Every figure of the GPU check on the CPU takes half a minute: slow, run by .ci/run by name.
@pytest.mark.slow
def test_dry_run_writes_every_figure(tmp_path):
    out = tmp_path / "check" / "gpu_check.json"
    done = gpu_check("--dry-run", "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["dry_run"] and report["complete"] and report["errors"] == {}
    m = report["machine"]
    assert m["device"] == "cpu" and m["torch"] == torch.__version__
    assert len(m["git_revision"]) == 40 or not (ROOT / ".git").exists()  # "unknown" outside a clone
    assert f"git {m['git_revision'][:12]}" in done.stdout  # the device, versions and revision are printed
    sizes = report["sizes"]

    rows = {(r["precision"], r["batch"]): r for r in report["network"]}
    assert set(rows) == {(p, b) for p in ("fp32", "fp16") for b in sizes["batches"]}
    for row in rows.values():
        assert row["model"] == "b10c128" and row["forward_per_s"] > 0 and row["evaluate_per_s"] > 0, row

    assert [r["actors"] for r in report["selfplay"]] == sizes["sp_actors"] == [1, 2, 4]
    for row in report["selfplay"]:
        assert row["leaves_per_s"] > 0 and figure(row["positions_per_s"]) and len(row["per_actor"]) == row["actors"]

    train = report["train"]
    assert train["steps"] == 4 and train["games"] > 0
    for key in ("steps_per_s", "steps_per_s_overall", "games_per_hour", "games_per_hour_overall"):
        assert figure(train[key]) and train[key] > 0, (key, train)
    assert set(train["gpu_memory_mb"]) == {"learner_peak", "actor_peak", "device_used_peak"}
    assert all(figure(v) for v in train["gpu_memory_mb"].values())
    assert (out.parent / "train" / "summary.json").is_file()
    # printed too, as JSON
    assert '"leaves_per_s"' in done.stdout and "gpu_check: done" in done.stdout


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the check would run")
def test_without_a_gpu_the_check_refuses_clearly(tmp_path):
    out = tmp_path / "gpu_check.json"
    done = gpu_check("--out", str(out), timeout=120)
    assert done.returncode == 2
    assert "sees no CUDA device" in done.stderr and "--dry-run" in done.stderr, done.stderr
    assert not out.exists()
