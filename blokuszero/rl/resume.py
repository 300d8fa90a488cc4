"""What a run keeps across its starts: each start's config archived in the run directory, the
checkpoint it resumes from checked to hold this run's network shape, and the settings that
changed since that checkpoint's start."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..files import write_atomic
from ..nn.checkpoint import stored_shape
from ..provenance import source


def _flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in config.items():
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def config_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The settings that differ between two configs, one ``key: old -> new`` line each."""
    a, b = _flatten(old), _flatten(new)
    return [f"{key}: {a.get(key, '(absent)')} -> {b.get(key, '(absent)')}"
            for key in sorted(set(a) | set(b)) if key not in a or key not in b or a[key] != b[key]]


def shape_mismatch(path: Path, state: Mapping[str, Any], model_name: str,
                   model_config: Mapping[str, Any]) -> str | None:
    """Why checkpoint ``state`` (read from ``path``) cannot resume a run of network
    ``model_name`` shaped ``model_config``: a sentence, or None when its stored shape fits (or
    it stores none: then loading the weights is the test)."""
    stored = state.get("model_config")
    # Filled in as built: shapes stored before a field existed take its default.
    if stored is None or dataclasses.asdict(stored_shape(stored)) == dict(model_config):
        return None
    return (f"{wrong_shape(path, state['model_name'], model_name)}. Stored: {stored}; "
            f"this run: {model_config}")


def wrong_shape(path: Path, stored_name: str, model_name: str) -> str:
    """The error's first sentence for a checkpoint holding a network of another shape."""
    return (f"checkpoint {path} holds a {stored_name} network of another shape than this run's "
            f"model {model_name}; resume with the code that wrote it, or start a new run (name=...)")


def archive_config(run_dir: Path, config: Mapping[str, Any], init_from: Mapping[str, Any] | None,
                   step: int) -> None:
    """``config.json`` is this start's config; ``configs/`` keeps every start's."""
    run_dir.mkdir(parents=True, exist_ok=True)
    record = json.dumps({"config": config, "source": source(), "init_from": init_from,
                         "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "step": step,
                         "pid": os.getpid()}, indent=2)
    archive = run_dir / "configs"
    archive.mkdir(exist_ok=True)
    write_atomic(archive / f"config_{len(list(archive.glob('config_*.json'))):04d}_step{step}.json", record)
    write_atomic(run_dir / "config.json", record)
