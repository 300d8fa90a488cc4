"""The ``hardware=gpu8`` layout placed by Ray on a CPU machine that declares 8 GPUs: every actor
and the learner land where the config says (devices overridden to cpu, so no GPU is touched)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import ray
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from blokuszero.rl.placement import cuda_index
from blokuszero.rl.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]


def gpu8_config(run_dir: Path, *more: str) -> dict:
    # The layout as shipped; only the devices (and, for speed, the network and the cache) change.
    overrides = ["hardware=gpu8", "hardware.actor_device=cpu", "hardware.learner_device=cpu",
                 "hardware.half=false", "hardware.cache_size=0", "model=b2c32conv", "progress=false",
                 f"run_dir={run_dir}", *more]
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    return OmegaConf.to_container(cfg, resolve=True)


@pytest.fixture(scope="module")
def eight_gpus():
    # 14 actors x 2 CPUs + the buffer: Ray's CPUs and GPUs are bookkeeping here, not cores.
    ray.init(address="local", num_cpus=30, num_gpus=8, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


# Half a minute of Ray start-up and fourteen actors: slow, run by .ci/run by name.
@pytest.mark.slow
def test_gpu8_layout_places_actors_and_learner_as_configured(tmp_path, eight_gpus):
    config = gpu8_config(tmp_path / "run")
    hw = config["hardware"]
    assert (hw["actors"], hw["gpus_per_actor"], hw["threads_per_actor"], hw["learner_gpus"]) == (14, 0.5, 2, 1.0)
    trainer = Trainer(config, tmp_path / "run", progress=False)
    trainer._start()  # Ray, the learner's GPU, the buffer and the actors; no training
    try:
        places = ray.get([w.placement.remote() for w in trainer.workers])
        assert len(places) == 14
        for place in places:
            assert place["resources"] == {"CPU": 2.0, "GPU": 0.5}, place
            assert place["threads"] == 2 and place["device"] == "cpu" and len(place["gpu_ids"]) == 1, place
        # Two actors on each of 7 GPUs; the eighth is the learner's alone.
        per_gpu = Counter(place["gpu_ids"][0] for place in places)
        assert sorted(per_gpu.values()) == [2] * 7, per_gpu
        assert len(trainer.learner_gpu_ids) == 1 and trainer.learner_gpu_ids[0] not in per_gpu
        assert set(per_gpu) | set(trainer.learner_gpu_ids) == {str(i) for i in range(8)}
        assert str(trainer.learner.device) == "cpu"  # as overridden; with cuda: cuda:<that GPU>
        assert ray.available_resources().get("GPU", 0.0) == 0.0
    finally:
        trainer.metrics.close()
        for actor in [*trainer.workers, trainer.buffer, trainer.learner_reservation]:
            ray.kill(actor)


def test_layout_refused_where_ray_has_too_few_gpus(tmp_path, eight_gpus):
    """Actors that ask for more GPUs than the cluster has would wait for ever: refused at once."""
    config = gpu8_config(tmp_path / "run", "hardware.actors=15")
    with pytest.raises(ValueError, match=r"ask Ray for 8.5 GPUs \(15 actors x hardware.gpus_per_actor=0.5 "
                                         r"\+ hardware.learner_gpus=1\), but its cluster has 8"):
        Trainer(config, tmp_path / "run", progress=False)._start()
    assert not (tmp_path / "run").exists()  # nothing written


def test_cuda_index_maps_ray_gpu_ids_to_this_process():
    assert cuda_index("3", visible="") == 3
    assert cuda_index("6", visible="4,6") == 1
    with pytest.raises(ValueError, match="does not see"):
        cuda_index("2", visible="4,6")
