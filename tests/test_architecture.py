"""The package's layers point down only, no module imports one that imports it back, each game
family's players, match glue and engine sit in folders named for it, and docs/ARCHITECTURE.md names
every module and only files that exist.

Imports are read from the source (every ``import``, module-level or inside a function: a lazy import is
still a dependency), so the test needs nothing to be importable.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "blokuszero"
DOCUMENT = PACKAGE.parent / "docs" / "ARCHITECTURE.md"

#: Each top-level part of the package and its layer: a module may import its own layer and the
#: ones below. Plain helpers (settings, files, provenance, cluster, numba_cache, threads) are layer 0.
#: The referee's game loop sits beside the players: a player's pre-game self-play runs through it.
LAYERS = {"games": 1, "protocols": 2, "search": 2, "nn": 3, "knowledge": 3, "players": 4, "referee": 4,
          "match": 5, "rl": 6, "engines": 7, "bench": 8, "experiments": 8}


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from pkg import module`` names the module,
    not the package, so a package's ``__init__`` is not a dependency of its modules)."""
    modules = {_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                found = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
                targets = found if len(found) == len(node.names) else [target, *found]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            deps.update(t for t in targets if t in modules and t != name)
        graph[name] = deps
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def test_layers_point_down_only():
    graph = import_graph()
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps if _layer(d) > _layer(m))
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)
    parts = {m.split(".")[1] for m in graph if m.count(".") >= 1 and (PACKAGE / m.split(".")[1]).is_dir()}
    assert parts <= set(LAYERS), "a new part of the package needs its layer in LAYERS"


def test_no_import_circles():
    graph = import_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path, monkeypatch):
    """The two tests above can fail: a made-up package with both faults is caught."""
    package = tmp_path / "blokuszero"
    for part in ("games", "match"):
        (package / part).mkdir(parents=True)
        (package / part / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "games" / "a.py").write_text("from . import b\nfrom ..match import arena\n")
    (package / "games" / "b.py").write_text("def f():\n    from .a import x\n")
    (package / "match" / "arena.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    graph = import_graph()
    assert graph["blokuszero.games.a"] == {"blokuszero.games.b", "blokuszero.match.arena"}
    assert graph["blokuszero.games.b"] == {"blokuszero.games.a"}
    for check in (test_layers_point_down_only, test_no_import_circles):
        try:
            check()
        except AssertionError:
            continue
        raise AssertionError(f"{check.__name__} missed the fault")


def test_every_module_says_its_job_in_its_first_line():
    """docs/ARCHITECTURE.md names the packages; each module's docstring opens with its job."""
    silent = [str(p.relative_to(PACKAGE.parent)) for p in sorted(PACKAGE.rglob("*.py"))
              if not (ast.get_docstring(ast.parse(p.read_text())) or "").strip()]
    assert not silent, "modules without a docstring saying their job:\n" + "\n".join(silent)


def test_search_nn_and_rl_know_no_particular_game():
    """They reach games through the interface, the registry and encoders, never a family's package."""
    graph = import_graph()
    families = {p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").is_file()}
    found = sorted(f"{m} -> {d}" for m, deps in graph.items() if m.split(".")[1:2] in (["search"], ["nn"], ["rl"])
                   for d in deps if d.split(".")[1:3] and d.split(".")[1] == "games"
                   and len(d.split(".")) > 2 and d.split(".")[2] in families)
    assert families >= {"blokus", "go", "daihinmin", "ggp"}
    assert not found, "imports of a particular game:\n" + "\n".join(found)


#: Each game family by its games/ package, with the other names its modules go by (its protocol).
FAMILY_NAMES = {"blokus": ("blokus",), "go": ("go",), "daihinmin": ("daihinmin", "uecda"), "ggp": ("ggp",)}
#: The parts where a family's code lives in a folder named for the family (``match/daihinmin/``).
FAMILY_PARTS = ("knowledge", "players", "match", "engines")


def family_folder_faults(graph: dict[str, set[str]]) -> list[str]:
    """Modules of :data:`FAMILY_PARTS` that serve one family (they import its games package, or their
    file is named for it) outside ``<part>/<family>/``, and modules inside a family's folder that
    serve another family."""
    faults = []
    for module, deps in sorted(graph.items()):
        parts = module.split(".")
        if len(parts) < 3 or parts[1] not in FAMILY_PARTS:
            continue
        served = {d.split(".")[2] for d in deps if len(d.split(".")) > 2 and d.split(".")[1] == "games"
                  and d.split(".")[2] in FAMILY_NAMES}
        served |= {f for f, names in FAMILY_NAMES.items() if parts[-1].startswith(names)}
        folder = parts[2] if parts[2] in FAMILY_NAMES else None  # the folder's own __init__ too
        if folder is not None and served - {folder}:
            faults.append(f"{module} (in {folder}/) serves {sorted(served - {folder})}")
        elif folder is None and len(served) == 1:
            faults.append(f"{module} serves {served.pop()} but is not in {parts[1]}/<family>/")
    return faults


def test_each_family_has_its_own_folders():
    """A family's players, match glue, engine and learned knowledge are found by folder name alone."""
    faults = family_folder_faults(import_graph())
    assert not faults, "modules outside their family's folder:\n" + "\n".join(faults)


def test_the_family_check_sees_a_module_in_the_wrong_room():
    graph = {"blokuszero.match.uecda_server": set(), "blokuszero.match.go.referee": {"blokuszero.games.ggp.game"},
             "blokuszero.players.mc": {"blokuszero.games.daihinmin.rules"}, "blokuszero.match.arena": set(),
             "blokuszero.players.factory": {"blokuszero.games.go", "blokuszero.games.ggp"},
             "blokuszero.match.ggp.ggp_base": {"blokuszero.games.ggp.kif"}}
    assert family_folder_faults(graph) == [
        "blokuszero.match.go.referee (in go/) serves ['ggp']",
        "blokuszero.match.uecda_server serves daihinmin but is not in match/<family>/",
        "blokuszero.players.mc serves daihinmin but is not in players/<family>/"]


def document_gaps(text: str, package: Path) -> tuple[list[str], list[str]]:
    """The package's modules (but ``__init__.py`` and ``__main__.py``) that ``text`` does not name
    by their path under the package (``search/mcts.py``, ``settings.py``; ``blokuszero/`` in front
    is allowed), and the ``.py`` paths it names that exist neither there nor in the repository."""
    named = set(re.findall(r"[\w./-]*\w\.py\b", text))
    modules = {p.relative_to(package).as_posix() for p in package.rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py")}
    unnamed = sorted(modules - {n.removeprefix(f"{package.name}/") for n in named})
    missing = sorted(n for n in named if not (package / n).is_file() and not (package.parent / n).is_file())
    return unnamed, missing


def test_the_architecture_document_names_every_module_and_only_real_files():
    unnamed, missing = document_gaps(DOCUMENT.read_text(), PACKAGE)
    assert not unnamed, ("modules docs/ARCHITECTURE.md does not name by their path under blokuszero/:\n"
                         + "\n".join(unnamed))
    assert not missing, "paths docs/ARCHITECTURE.md names that are no file:\n" + "\n".join(missing)


def test_the_document_check_sees_a_module_left_out_and_a_path_made_up(tmp_path):
    package = tmp_path / "blokuszero"
    (package / "games").mkdir(parents=True)
    for name in ("__init__.py", "settings.py", "games/__init__.py", "games/base.py", "games/new.py"):
        (package / name).write_text("")
    (tmp_path / "train.py").write_text("")
    text = "`settings.py`, `blokuszero/games/base.py`, `train.py`, every `.py` file; `games/gone.py`"
    assert document_gaps(text, package) == (["games/new.py"], ["games/gone.py"])
