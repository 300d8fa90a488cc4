"""GDL preparation time per rule sheet: CPU seconds to parse, ground and compile into the propositional network.

Each sheet is prepared in a fresh process of its own (one at a time), as a player does at a
match's start: the stages are timed by that process's CPU clock (``time.process_time``), so
other jobs on a shared machine disturb them less; ``import`` is loading the package (numba's
cached kernels included), ``wall`` the whole process by the wall clock.

    python -m blokuszero.bench ggp_prepare [--games checkers ttcc4 ...] [--timeout 300]

A sheet whose grounding passes ``--max-instances`` is reported with the interpreter's
preparation instead (its ``reason`` says why).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .harness import ROOT, data_path, finish, load, parser

STAGES = ("import", "parse", "specialize", "ground", "compile")


def prepare(path: Path, max_instances: int | None) -> dict:
    """Prepare one sheet in this process: CPU seconds per stage, the grounding's size, the
    reasoner made."""
    times = {}
    t = time.process_time()  # the package is imported here, not at the top of this module
    from ..games.ggp.gdl import load_description, specialize
    from ..games.ggp.interpreter import Interpreter
    from ..games.ggp.propnet import PropNet
    from ..games.ggp.reasoner import MAX_INSTANCES, ground
    times["import"] = time.process_time() - t
    t = time.process_time()
    desc = load_description(path.read_text())
    times["parse"] = time.process_time() - t
    t = time.process_time()
    desc = dataclasses.replace(desc, clauses=specialize(desc))
    times["specialize"] = time.process_time() - t
    t = time.process_time()
    grounding = ground(desc, MAX_INSTANCES if max_instances is None else max_instances)
    times["ground"] = time.process_time() - t
    t = time.process_time()
    if grounding.instances is not None:
        reasoner = PropNet(desc, grounding)
    else:
        reasoner = Interpreter(desc, grounding)
    times["compile"] = time.process_time() - t
    return {"cpu_s": times, "total_cpu_s": sum(times.values()), "kind": reasoner.kind,
            "instances": None if grounding.instances is None else len(grounding.instances),
            "reason": grounding.reason}


def main(argv: list[str] | None = None) -> None:
    command = parser("ggp_prepare", __doc__)
    command.add_argument("--rules", help="the folder of rule sheets (default: BLOKUSZERO_GGP_RULES, else "
                         "tests/data/ggp, else ../shared/data/ggp)")
    command.add_argument("--games", nargs="*", help="sheet names (default: every .kif of the folder)")
    command.add_argument("--max-instances", type=int, help="the grounding size past which the "
                         "interpreter is made instead (default: reasoner.MAX_INSTANCES)")
    command.add_argument("--timeout", type=float, default=300.0, help="wall seconds per sheet")
    command.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # the child's sheet
    args = command.parse_args(argv)
    if args.one:  # the child process: one sheet, one JSON line
        print(json.dumps(prepare(args.one, args.max_instances)))
        return
    load_before = load()
    rules = Path(args.rules or os.environ.get("BLOKUSZERO_GGP_RULES") or data_path("ggp", "ggp"))
    names = args.games or sorted(p.stem for p in rules.glob("*.kif"))
    results = {}
    # The child imports this checkout's package, whatever the installed one is.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    print(f"{'sheet':<26}" + "".join(f"{s:>11}" for s in STAGES)
          + f"{'total CPU s':>12}{'wall s':>8}{'instances':>11}  reasoner")
    for name in names:
        start = time.perf_counter()
        cmd = [sys.executable, "-m", "blokuszero.bench", "ggp_prepare", "--one", str(rules / f"{name}.kif")]
        if args.max_instances is not None:
            cmd += ["--max-instances", str(args.max_instances)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
        except subprocess.TimeoutExpired:
            results[name] = {"timeout_s": args.timeout}
            print(f"{name:<26} did not finish in {args.timeout:g} s", flush=True)
            continue
        if done.returncode != 0:
            raise RuntimeError(f"{name}: preparation failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["wall_s"] = time.perf_counter() - start
        results[name] = result
        instances = "-" if result["instances"] is None else f"{result['instances']:,}"
        print(f"{name:<26}" + "".join(f"{result['cpu_s'][s]:>11.2f}" for s in STAGES)
              + f"{result['total_cpu_s']:>12.2f}{result['wall_s']:>8.1f}{instances:>11}  {result['kind']}",
              flush=True)
    finish("ggp_prepare", args, results, load_before)

