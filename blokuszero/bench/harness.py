"""What every benchmark shares: rates, the machine and its load, JSON output, reference data, other checkouts.

- :func:`cpu_rate` and :func:`timed_rate`: items per second of a piece of work, by CPU time of
  this process (``time.process_time``: other jobs on a shared machine disturb it less) or by a
  given clock for about a given time;
- :func:`parser`, :func:`load` and :func:`finish`: every benchmark's ``--json PATH`` option, the
  load line it prints at its end (``os.getloadavg``) and its JSON file, one format for all:
  ``{"benchmark", "options", "machine", "load_before", "load_after", "results"}``;
- :func:`reference_games`, :func:`positions_after`, :func:`every_position`: the Pentobi reference
  games (``tests/data`` of this checkout, else ``../shared/data`` beside it) and positions of them;
- :func:`run_in_checkout`: this tree's benchmark code run over another checkout's package in a
  subprocess, for ``--before``: side by side, the other version's game and search code is what is
  measured, by the same measuring code, also when that checkout predates ``blokuszero/bench``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

#: The checkout this package lies in (its ``tests/data`` holds the reference data).
ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent


def cpu_rate(run: Callable[[], object], count: float,
             clock: Callable[[], float] = time.process_time) -> float:
    """``count`` items per CPU-second of this process (or per second of ``clock``), for one call
    of ``run`` that does them."""
    start = clock()
    run()
    return count / (clock() - start)


def timed_rate(step: Callable[[], float], seconds: float,
               clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(items per second by ``clock``, items done) of calling ``step`` (which returns the items it
    did) again and again until ``seconds`` have passed, at least once."""
    done, start = 0.0, clock()
    while True:
        done += step()
        elapsed = clock() - start
        if elapsed >= seconds:
            return done / elapsed, done


def load() -> float:
    """The machine's load: its 1-minute average of runnable processes."""
    return os.getloadavg()[0]


def machine() -> dict[str, Any]:
    """The machine and the Python that ran a benchmark."""
    return {"machine": platform.machine(), "processor": platform.processor(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "python": platform.python_version()}


def parser(name: str, doc: str) -> argparse.ArgumentParser:
    """The command line of benchmark ``name`` (``python -m blokuszero.bench NAME``), with ``--json``."""
    out = argparse.ArgumentParser(prog=f"python -m blokuszero.bench {name}", description=doc.split("\n\n")[0],
                                  epilog="Every benchmark ends with the machine's load line.")
    out.add_argument("--json", type=Path, metavar="PATH",
                     help="also write the results here (benchmark, options, machine, load, results)")
    return out


def finish(name: str, args: argparse.Namespace, results: Any, load_before: float, stream: TextIO | None = None) -> None:
    """Print the load line (on ``stream``, default standard output) and, with ``--json``, write
    ``results`` in the one format."""
    load_after = load()
    print(f"load average before {load_before:.2f}, after {load_after:.2f}", file=stream or sys.stdout)
    if args.json:
        options = {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()}
        args.json.write_text(json.dumps({"benchmark": name, "options": options, "machine": machine(),
                                         "load_before": load_before, "load_after": load_after,
                                         "results": results}, indent=2, default=str))


def data_path(name: str, shared: str) -> Path:
    """``tests/data/<name>`` of this checkout, else ``../shared/data/<shared>`` beside it."""
    for path in (ROOT / "tests" / "data" / name, ROOT.parent / "shared" / "data" / shared):
        if path.exists():
            return path
    raise FileNotFoundError(f"neither {ROOT / 'tests' / 'data' / name} nor {ROOT.parent / 'shared' / 'data' / shared}")


def reference_games(count: int | None = None) -> list[list[str]]:
    """The placements (Pentobi notation, passes left out) of the first ``count`` of the 200 Pentobi
    reference games (None: all)."""
    lines = data_path("pentobi_random_games.jsonl", "blokus/pentobi_random_games.jsonl").read_text().splitlines()
    return [[m for m in json.loads(line)["moves"] if m != "pass"] for line in lines[:count]]


def positions_after(placements: int, count: int) -> list:
    """The Blokus position after ``placements`` moves in each of the first ``count`` reference games."""
    from ..games.blokus import BlokusGame  # here, not above: only the Blokus benchmarks load Blokus

    out = []
    for moves in reference_games(count):
        state = BlokusGame().new_initial_state()
        for move in moves[:placements]:
            state.apply_action(state.string_to_action(move))
        out.append(state)
    return out


def every_position(games: int | None = None) -> list:
    """Every Blokus position before a placement of the first ``games`` reference games (None: all
    200, 11,829 positions), in order."""
    from ..games.blokus import BlokusGame

    out = []
    for moves in reference_games(games):
        state = BlokusGame().new_initial_state()
        for move in moves:
            out.append(state.clone())
            state.apply_action(state.string_to_action(move))
    return out


# Run in the other checkout's process: its ``blokuszero`` (first on PYTHONPATH) with this tree's
# ``bench`` folder put in as its ``blokuszero.bench``, whose relative imports then reach the
# other checkout's games, search and players.
_IN_CHECKOUT = """
import importlib.util, sys
import blokuszero
spec = importlib.util.spec_from_file_location("blokuszero.bench", {init!r}, submodule_search_locations=[{bench!r}])
bench = importlib.util.module_from_spec(spec)
sys.modules["blokuszero.bench"] = blokuszero.bench = bench
spec.loader.exec_module(bench)
from blokuszero.bench.__main__ import main
main(sys.argv[1:])
"""


def run_in_checkout(checkout: Path, name: str, args: list[str]) -> str:
    """The standard output of this tree's benchmark ``name`` with ``args``, run in a subprocess on
    the package of ``checkout`` (a tree holding ``blokuszero/``, e.g. a worktree of another commit)."""
    checkout = Path(checkout).resolve()
    if not (checkout / "blokuszero" / "__init__.py").is_file():
        raise SystemExit(f"{checkout} is not a checkout of this project: it has no blokuszero/__init__.py")
    code = _IN_CHECKOUT.format(init=str(BENCH / "__init__.py"), bench=str(BENCH))
    done = subprocess.run([sys.executable, "-c", code, name, *args], cwd=checkout, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(checkout)})
    if done.returncode != 0:
        raise RuntimeError(f"benchmark {name} on {checkout} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout
