"""numba's on-disk cache is keyed on the package's sources (``blokuszero/numba_cache.py``), so a
cached kernel never runs stale code from another module that changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import blokuszero
from blokuszero import numba_cache

PACKAGE = Path(blokuszero.__file__).resolve().parent

# A real cached kernel (search/tie_break.py) whose tie-breaks inline games/numba_random.py's splitmix64.
RUN_KERNEL = """
import json
import numpy as np
import blokuszero
from blokuszero.search.tie_break import argmax_random_ties as kernel
choices = [int(kernel(np.zeros(8), seed, 0, 1)) for seed in range(12)]
print(json.dumps({"package": blokuszero.__file__, "choices": choices,
                  "hits": sum(kernel.stats.cache_hits.values()),
                  "misses": sum(kernel.stats.cache_misses.values())}))
"""

PRINT_CACHE = """
import blokuszero, numba
print(blokuszero.NUMBA_CACHE, numba.config.CACHE_DIR)
"""


def python(code: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def fresh_env(**variables: str) -> dict[str, str]:
    """This environment without what importing blokuszero here put into it, plus ``variables``."""
    env = {k: v for k, v in os.environ.items()
           if k not in (numba_cache.NUMBA_VARIABLE, numba_cache.CHOSEN_VARIABLE)}
    return {**env, **variables}


def test_a_kernel_sees_a_change_in_a_function_it_inlines_from_another_module(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "blokuszero", ignore=shutil.ignore_patterns("__pycache__"))
    env = fresh_env(NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(root))

    def run() -> dict:
        result = json.loads(python(RUN_KERNEL, root, env))
        assert Path(result["package"]).is_relative_to(root)  # the copy, not the installed package
        return result

    first, second = run(), run()
    assert (first["misses"], first["hits"]) == (1, 0)
    assert (second["misses"], second["hits"]) == (0, 1)  # the cache is in use
    assert second["choices"] == first["choices"] != [7] * 12

    # The kernel's own file stays as it was; the function it inlines from another module changes
    # so that every draw is 0, and reservoir sampling then keeps the last of the tied scores.
    helper = root / "blokuszero" / "games" / "numba_random.py"
    text = helper.read_text()
    assert text.count("    return x ^ (x >> np.uint64(31))\n") == 1
    helper.write_text(text.replace("    return x ^ (x >> np.uint64(31))\n", "    return x & np.uint64(0)\n"))
    third = run()
    assert third["choices"] == [7] * 12, "a stale kernel ran"
    assert (third["misses"], third["hits"]) == (1, 0)


def test_the_cache_directory_is_chosen_before_kernels_and_inherited_by_subprocesses(tmp_path):
    import numba

    here = blokuszero.NUMBA_CACHE
    assert here is not None and here.name == numba_cache.source_digest()[:numba_cache.NAME_DIGITS]
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"] == str(here)
    # A child process (a Ray worker, a GTP engine, train.py's actors) inherits the parent, not a nesting.
    assert python(PRINT_CACHE, tmp_path, dict(os.environ)).split() == [str(here)] * 2
    # A user's NUMBA_CACHE_DIR is the parent; without one, the user's cache directory is.
    user = tmp_path / "user"
    assert python(PRINT_CACHE, tmp_path, fresh_env(NUMBA_CACHE_DIR=str(user))).split() == [str(user / here.name)] * 2
    xdg = tmp_path / "xdg"
    assert python(PRINT_CACHE, tmp_path, fresh_env(XDG_CACHE_HOME=str(xdg))).split() == \
        [str(xdg / "blokuszero" / "numba" / here.name)] * 2


def test_old_digest_directories_are_pruned_and_an_unusable_parent_falls_back(tmp_path, monkeypatch):
    import tempfile

    import numba

    parent = tmp_path / "parent"
    old, recent, other = parent / ("a" * 16), parent / ("b" * 16), parent / "not-ours"
    for d in (old, recent, other):
        d.mkdir(parents=True)
    os.utime(old, (0, 0))
    os.utime(other, (0, 0))
    # What configure changes, put back after the test.
    for variable in (numba_cache.NUMBA_VARIABLE, numba_cache.CHOSEN_VARIABLE):
        monkeypatch.setenv(variable, os.environ.get(variable, ""))
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setattr(numba_cache, "source_digest", lambda package=PACKAGE: "c" * 64)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))

    monkeypatch.setenv(numba_cache.NUMBA_VARIABLE, str(parent))
    chosen = numba_cache.configure()
    assert chosen == parent / ("c" * 16) and chosen.is_dir() and numba.config.CACHE_DIR == str(chosen)
    assert not old.exists() and recent.exists() and other.exists()  # only unused digest directories go

    (tmp_path / "a-file").touch()
    monkeypatch.setenv(numba_cache.NUMBA_VARIABLE, str(tmp_path / "a-file"))
    assert numba_cache.configure().parent.parent == tmp_path / "tmp"
