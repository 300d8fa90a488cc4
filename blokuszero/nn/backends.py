"""Inference backends: the same network's forward pass run by torch or by ONNX Runtime.

A backend maps input planes [B, C, H, W] (float32 numpy) to the network's policy cells and
values (:meth:`.model.PolicyValueNet.cells`), as numpy arrays. A search asks for one position
at a time, where a framework's per-call overhead, not arithmetic, sets the cost: ONNX Runtime
runs the small networks' batch-1 pass in about half torch eager mode's time (``python -m
blokuszero.bench nn --backends torch,onnxruntime``), folding batch norm into the convolutions
as it loads the graph. Both run the same weights; ``tests/test_nn_backends.py`` checks that
their outputs agree to 1e-4, so that a backend never plays a different network.

``auto`` is ONNX Runtime on the CPU and torch on CUDA. A backend that is not installed, or that
cannot run the network or the device asked for, is an error naming the fix; nothing falls back.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # torch is imported where a backend is made: the player factory reads BACKENDS
    import torch  # before arena workers set their thread count
    from torch import nn

#: The backends by name; ``auto`` picks one by device (:func:`backend_name`).
BACKENDS = ("auto", "torch", "onnxruntime")

#: (planes, cell index [B, L] or None) -> (those cells, or all cells [B, K]; values [B, P]): the index
#: picks each row's cells where the network runs, so that only the legal moves' logits leave a GPU.
Forward = Callable[[np.ndarray, np.ndarray | None], tuple[np.ndarray, np.ndarray]]


class BackendError(ValueError):
    """A backend that cannot run here: the message names what to do instead."""


def backend_name(name: str, device: torch.device) -> str:
    """The backend ``name`` stands for on ``device`` (``auto``: onnxruntime on the CPU, torch on CUDA)."""
    if name not in BACKENDS:
        raise BackendError(f"unknown network backend {name!r}; known: {', '.join(BACKENDS)}")
    if name == "auto":
        return "torch" if device.type == "cuda" else "onnxruntime"
    if name == "onnxruntime" and device.type != "cpu":
        raise BackendError(f"the onnxruntime backend runs on the CPU, not {device}: use backend=torch "
                           f"(or auto) for {device}")
    return name


def torch_forward(model: nn.Module, device: torch.device, half: bool = False) -> Forward:
    """``model.cells`` in torch on ``device``, where the model is (``half``: float16 autocast, CUDA only)."""
    import torch

    def forward(planes: np.ndarray, index: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        x = torch.from_numpy(planes).to(device)
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16, enabled=half):
            cells, values = model.cells(x)
            if index is not None:
                cells = cells.gather(1, torch.from_numpy(index).to(device))
        return cells.float().cpu().numpy(), values.float().cpu().numpy()

    return forward


def onnx_forward(model: nn.Module, planes_shape: tuple[int, int, int]) -> Forward:
    """``model.cells`` exported to ONNX and run by ONNX Runtime on the CPU with torch's thread count
    (which the match runner and the engines set per process)."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise BackendError("the onnxruntime backend needs ONNX Runtime: pip install onnxruntime onnx "
                           "(or choose backend=torch)") from None
    import torch

    class Cells(torch.nn.Module):
        """The network's ``cells`` as its forward pass, so that it exports as one graph."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.model.cells(planes)

    buffer = io.BytesIO()
    example = torch.zeros((1, *planes_shape), dtype=torch.float32)
    try:
        with warnings.catch_warnings():  # the TorchScript exporter announces its successor
            warnings.simplefilter("ignore")
            torch.onnx.export(Cells().eval(), (example,), buffer, input_names=["planes"],
                              output_names=["cells", "values"], dynamo=False,
                              dynamic_axes={"planes": {0: "batch"}, "cells": {0: "batch"},
                                            "values": {0: "batch"}})
    except ImportError as err:
        raise BackendError(f"exporting the network for onnxruntime needs {err.name}: pip install onnx "
                           f"(or choose backend=torch)") from None
    except Exception as err:
        first_line = (str(err).splitlines() or [""])[0]
        raise BackendError(f"this network cannot be exported for onnxruntime ({type(err).__name__}: "
                           f"{first_line}); choose backend=torch") from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = torch.get_num_threads()
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])

    def forward(planes: np.ndarray, index: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        cells, values = session.run(None, {"planes": planes})
        return (cells if index is None else np.take_along_axis(cells, index, axis=1)), values

    return forward


def make_forward(model: nn.Module, name: str, planes_shape: tuple[int, int, int], device: torch.device,
                 half: bool = False) -> Forward:
    """The forward pass of ``model`` (in eval mode, on ``device``) by backend ``name``; see
    :data:`BACKENDS`. The ONNX graph is a copy: call again after the weights change."""
    chosen = backend_name(name, device)
    if chosen == "torch":
        return torch_forward(model, device, half and device.type == "cuda")
    return onnx_forward(model, planes_shape)
