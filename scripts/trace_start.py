"""The path of the Blokus engine's start through the package, traced with ``sys.setprofile``.

    python scripts/trace_start.py                        # --checkpoint checkpoints/blokus_b2c32conv_gumbel.pt
    python scripts/trace_start.py --preset mcts_maxn     # any blokuszero-gtp arguments

From the import of ``blokuszero/engines/blokus/cli.py`` and its ``main(argv)`` to the ready player
(the engine's command loop is not traced). A module is entered when another module of the package
calls into it, counted once per (calling module, entered module); a module's re-entries are its
entries beyond the first (entered from a second module, a third, ...). What runs while a module is
imported is not counted (the modules imported are listed apart). Prints JSON: the modules
entered, the entries and re-entries (a module's entries beyond its first), the entries per module
and where from, the modules imported, and how often each of the package's functions ran.
"""

from __future__ import annotations

import io
import json
import sys
from collections import Counter
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ARGV = ("--checkpoint", str(ROOT / "checkpoints" / "blokus_b2c32conv_gumbel.pt"))


def trace_start(argv: Sequence[str] = DEFAULT_ARGV) -> dict:
    """The trace of the Blokus engine's start with ``argv`` (see the module docstring); run it in a
    fresh interpreter, where nothing of the package is imported yet."""
    edges: set[tuple[str, str]] = set()  # (calling module, the module it enters)
    called: Counter[str] = Counter()  # the package's functions, by how often they ran
    imported: set[str] = set()
    modules: dict[str, str | None] = {}  # file -> the package's module, None outside it
    package = None
    done = False

    def module_of(frame: FrameType) -> str | None:
        path = frame.f_code.co_filename
        if path not in modules:
            file = Path(path)
            inside = package is not None and file.is_relative_to(package) and file.suffix == ".py"
            parts = file.relative_to(package.parent).with_suffix("").parts if inside else ()
            modules[path] = ".".join(parts[:-1] if parts[-1:] == ("__init__",) else parts) or None
        return modules[path]

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal done, package
        if event != "call" or done:
            return
        if package is None:  # the package's folder, once its __init__ runs
            if not frame.f_code.co_filename.endswith(("blokuszero/__init__.py", "blokuszero\\__init__.py")):
                return
            package = Path(frame.f_code.co_filename).resolve().parent
        callee = module_of(frame)
        if callee is None:
            return
        if callee == "blokuszero.protocols.gtp" and frame.f_code.co_name == "serve":
            done = True  # the player is ready: the engine starts reading commands
            return
        if frame.f_code.co_name == "<module>":
            imported.add(callee)
            return
        caller, importing, started = None, False, False
        outer = frame.f_back
        while outer is not None:  # the nearest caller in the package; an import or main further out
            module = module_of(outer)
            if module is not None:
                caller = caller or outer
                importing |= outer.f_code.co_name == "<module>"
                started |= module == "blokuszero.engines.blokus.cli" and outer.f_code.co_name == "main"
            outer = outer.f_back
        if not started or importing:
            return
        called[f"{callee}:{frame.f_code.co_qualname}"] += 1
        if module_of(caller) != callee:
            edges.add((module_of(caller), callee))

    sys.setprofile(profile)
    try:
        from blokuszero.engines.blokus import cli

        stdin, sys.stdin = sys.stdin, io.StringIO("quit\n")
        try:
            with redirect_stdout(io.StringIO()):
                cli.main(list(argv))
        finally:
            sys.stdin = stdin
    finally:
        sys.setprofile(None)
    entries = Counter(module for _, module in edges)
    return {"modules_entered": len(entries), "entries": sum(entries.values()),
            "re_entries": sum(n - 1 for n in entries.values()),
            "entries_by_module": dict(sorted(entries.items(), key=lambda kv: (-kv[1], kv[0]))),
            "entries_from": sorted(f"{a} -> {b}" for a, b in edges), "imported": sorted(imported),
            "calls": dict(sorted(called.items())), "package": str(package)}


def main() -> None:
    argv = sys.argv[1:] or DEFAULT_ARGV
    print(json.dumps(trace_start(argv), indent=1))


if __name__ == "__main__":
    main()
