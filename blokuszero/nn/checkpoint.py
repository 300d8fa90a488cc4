"""Checkpoints: written atomically, verified by digest, rotated; the newest good one resumes.

Each checkpoint is ``ckpt_STEP.pt`` (torch.save of a dict of tensors and plain values) and
``ckpt_STEP.sha256`` (its digest), each written atomically (:func:`blokuszero.files.write_atomic`);
the digest goes last, so a checkpoint whose digest is missing or differs was torn or damaged
and is reported and skipped, never loaded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from ..files import write_atomic
from ..provenance import source

if TYPE_CHECKING:
    from ..games.encoding import Encoder
    from .model import ModelConfig

_NAME = re.compile(r"ckpt_(\d{9})\.pt")


def save_checkpoint(directory: str | Path, step: int, payload: dict, keep: int = 3) -> Path:
    """Write ``payload`` as the checkpoint of ``step``; keep only the newest ``keep``.

    The payload is stored with the source that wrote it (``"source"``: git revision and whether
    the tree had changes, :func:`blokuszero.provenance.source`)."""
    payload = {**payload, "source": source()}
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    data = buffer.getvalue()
    path = directory / f"ckpt_{step:09d}.pt"
    write_atomic(path, data)
    write_atomic(path.with_suffix(".sha256"), hashlib.sha256(data).hexdigest().encode())
    for old in checkpoint_paths(directory)[keep:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".sha256").unlink(missing_ok=True)
    return path


def checkpoint_paths(directory: str | Path) -> list[Path]:
    """Checkpoint files in ``directory``, newest first."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.iterdir() if _NAME.fullmatch(p.name)), reverse=True)


def load_checkpoint(path: str | Path) -> dict:
    """Read one checkpoint; ValueError saying why if it is torn, damaged or unreadable."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    digest_path = path.with_suffix(".sha256")
    if not digest_path.exists():
        raise ValueError(f"checkpoint {path} has no digest file (the write did not finish)")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest_path.read_text().strip():
        raise ValueError(f"checkpoint {path} does not match its digest (damaged)")
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:
        raise ValueError(f"checkpoint {path} cannot be read: {err}") from None


def latest_checkpoint(directory: str | Path,
                      report: Callable[[str], None] = print) -> tuple[Path, dict] | None:
    """The newest checkpoint that loads, reporting (and skipping) every bad one before it."""
    for path in checkpoint_paths(directory):
        try:
            return path, load_checkpoint(path)
        except ValueError as err:
            report(f"skipping {err}")
    return None


def stored_shape(stored: Mapping[str, Any]) -> ModelConfig:
    """The :class:`~.model.ModelConfig` of a shape a checkpoint stores. Shapes written before networks
    named their game are Blokus networks, the only game then."""
    from .model import ModelConfig

    return ModelConfig(**{"game": "blokus", **stored})


def load_network(path: str | Path):
    """The trained network of a training checkpoint, in eval mode, and its step (see
    :func:`network_from`)."""
    return network_from(load_checkpoint(path))


def network_from(state: Mapping[str, Any], encoder: Encoder | None = None):
    """The trained network of a checkpoint's contents (:func:`load_checkpoint`'s), in eval mode,
    and its step. ``encoder``: the game's encoder, where the caller has made it (else the network
    makes its own from the game's name).

    The network is built from the shape stored with it, so a checkpoint still loads after the
    named size it was trained as has changed.
    """
    from .model import PolicyValueNet, build_model

    stored = state.get("model_config")
    # Checkpoints written before the shape was stored with them hold Blokus networks, the only game then.
    model = (PolicyValueNet(stored_shape(stored), encoder) if stored
             else build_model(state["model_name"], "blokus", encoder=encoder))
    model.load_state_dict(state["learner"]["model"])
    return model.eval(), int(state["learner"]["step"])


def save_network(directory: str | Path, step: int, model_name: str, weights: dict,
                 config: str | None = None, keep: int = 10**9, model_config: dict | None = None,
                 init_from: Mapping[str, Any] | None = None) -> Path:
    """A checkpoint holding only a network (what players load): no optimiser, counters or
    generator states. The evaluator keeps one per evaluated step; tests make them too.
    ``model_config``: the network's shape, so that it loads even if its named size changes;
    ``init_from``: the network its run started from (:func:`start_weights`' lineage)."""
    payload = {"learner": {"model": weights, "step": step}, "model_name": model_name}
    if model_config is not None:
        payload["model_config"] = model_config
    if config is not None:
        payload["config"] = config  # the run's resolved config, as JSON
    if init_from is not None:
        payload["init_from"] = dict(init_from)
    return save_checkpoint(directory, step, payload, keep)


def digest(path: str | Path) -> str:
    """The sha256 of a checkpoint file, as its ``.sha256`` file holds it (after
    :func:`load_checkpoint` has verified the two agree)."""
    return Path(path).with_suffix(".sha256").read_text().strip()


def start_weights(path: str | Path, shape: Mapping[str, Any],
                  fresh: Mapping[str, torch.Tensor] | None = None) -> tuple[dict, dict[str, Any]]:
    """The weights of the network in ``path`` (a training checkpoint or a network-only file,
    read through :func:`load_checkpoint`, so its digest is checked) for a new run whose network
    has ``shape`` (a :class:`~.model.ModelConfig` as a dict), and its lineage: ``path``, its
    ``sha256``, the ``step`` and ``model_name`` it was saved with, and the network it started
    from in turn (``init_from``), if any, and ``grown: True`` where it was grown. ``fresh``: the
    run's initialised weights, given where a smaller stored network may grow into the run's
    (:func:`~.grow.grow`, outputs unchanged). ValueError saying why it cannot serve."""
    from .grow import grow
    from .model import ModelConfig, PolicyValueNet

    state = load_checkpoint(path)
    try:
        weights, step = state["learner"]["model"], int(state["learner"]["step"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"checkpoint {path} holds no network (no learner.model and step)") from None
    stored = state.get("model_config")
    grown = False
    if stored is not None:
        try:
            stored = dataclasses.asdict(stored_shape(stored))
        except (TypeError, ValueError) as err:
            raise ValueError(f"checkpoint {path} stores a network shape this code cannot build: {err}") from None
        differ = [f"{k} {stored.get(k)} (run: {shape.get(k)})" for k in sorted(set(stored) | set(shape))
                  if stored.get(k) != shape.get(k)]
        if differ and fresh is None:
            raise ValueError(f"checkpoint {path} holds a {state.get('model_name')} network of another "
                             f"shape than this run's model: {', '.join(differ)} (train.init_grow=true "
                             f"grows a smaller network into the run's)")
        if differ:
            try:
                weights, grown = grow(weights, ModelConfig(**stored), fresh, ModelConfig(**shape)), True
            except ValueError as err:
                raise ValueError(f"checkpoint {path} holds a {state.get('model_name')} network: {err}") from None
    try:
        PolicyValueNet(ModelConfig(**shape)).load_state_dict(weights)
    except RuntimeError as err:
        first = str(err).strip().splitlines()
        raise ValueError(f"checkpoint {path}'s network does not fit this run's model: "
                         f"{' '.join(line.strip() for line in first[:3])}") from None
    lineage = {"path": str(path), "sha256": digest(path), "step": step,
               "model_name": state.get("model_name")}
    if grown:
        lineage["grown"] = True  # into the run's shape: model_name is the stored network's
    if state.get("init_from") is not None:
        lineage["init_from"] = state["init_from"]
    return weights, lineage
