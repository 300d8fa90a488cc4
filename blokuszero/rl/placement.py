"""Where a run's parts go on the Ray cluster: the GPU layout checked against the cluster, and the
learner's GPU reserved (it trains in the driver's process, which Ray does not place)."""

from __future__ import annotations

import os

import ray

from .actors import RemoteGpuReservation
from .config import EvalSettings, HardwareSettings


def cuda_index(gpu_id: str, visible: str | None = None) -> int:
    """This process's CUDA device index of the GPU that Ray calls ``gpu_id`` on this node.

    Ray numbers a node's GPUs as its raylet saw them: the entries of ``CUDA_VISIBLE_DEVICES``
    when that was set, else 0, 1, ... The driver is no Ray worker, so Ray does not narrow its
    ``CUDA_VISIBLE_DEVICES``: torch's index is the id's position in that list (``visible``,
    read from the environment by default), or the id itself when it is unset."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES") if visible is None else visible
    if not visible:
        return int(gpu_id)
    listed = [v.strip() for v in visible.split(",")]
    if str(gpu_id) not in listed:
        raise ValueError(f"Ray gave the learner GPU {gpu_id}, which this process does not see "
                         f"(CUDA_VISIBLE_DEVICES={visible}); start Ray and train.py with the same "
                         f"CUDA_VISIBLE_DEVICES")
    return listed.index(str(gpu_id))


def check_gpus(hw: HardwareSettings, ev: EvalSettings) -> None:
    """Refuse a layout that asks Ray for more GPUs than its cluster has (its actors would
    wait for them for ever)."""
    parts = {f"{hw.actors} actors x hardware.gpus_per_actor={hw.gpus_per_actor:g}": hw.actors * hw.gpus_per_actor,
             f"hardware.learner_gpus={hw.learner_gpus:g}": hw.learner_gpus,
             f"eval.num_gpus={ev.num_gpus:g}": ev.num_gpus if ev.enabled else 0.0}
    need = sum(parts.values())
    have = ray.cluster_resources().get("GPU", 0.0)
    if need > have + 1e-9:
        raise ValueError(f"the hardware settings ask Ray for {need:g} GPUs ("
                         + " + ".join(k for k, v in parts.items() if v) + f"), but its cluster "
                         f"has {have:g}; choose settings for this machine (hardware=cpu, or "
                         f"hardware.actors / gpus_per_actor / learner_gpus)")


def reserve_learner_gpu(hw: HardwareSettings, here) -> tuple[ray.actor.ActorHandle | None, list, str]:
    """Reserve ``hardware.learner_gpus`` of a GPU on this node (scheduling strategy ``here``) for
    the learner. Returns the reservation (None without one), the ids Ray gave it and the learner's
    device: the GPU Ray assigned when ``learner_device`` is cuda. A failure gives the
    reservation back before it raises."""
    if hw.learner_gpus <= 0:
        return None, [], hw.learner_device
    reservation = RemoteGpuReservation.options(num_gpus=hw.learner_gpus, scheduling_strategy=here).remote()
    try:
        try:
            gpu_ids = ray.get(reservation.gpu_ids.remote(), timeout=120)
        except ray.exceptions.GetTimeoutError:
            raise ValueError(f"Ray could not reserve hardware.learner_gpus={hw.learner_gpus:g} "
                             f"GPU for the learner on this node within 120 s (the learner runs "
                             f"on the node train.py runs on)") from None
        device = f"cuda:{cuda_index(gpu_ids[0])}" if hw.learner_device == "cuda" else hw.learner_device
    except ValueError:
        ray.kill(reservation)
        raise
    return reservation, gpu_ids, device
