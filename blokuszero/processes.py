"""Ending a child process: the one way the engines, match scripts and tests stop the programs
they start (GTP engines, UECda clients, GGP players, ggp-base's JVMs)."""

from __future__ import annotations

import subprocess


def stop_process(process: subprocess.Popen, grace: float = 10.0, terminate: bool = True) -> None:
    """End ``process``: ask it with SIGTERM (unless ``terminate`` is false, for a process already
    told to quit, or one that ends by itself), wait up to ``grace`` seconds, then kill it. Returns
    once it has exited, so no zombie is left."""
    if process.poll() is not None:
        return
    if terminate:
        process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
