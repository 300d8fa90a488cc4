"""Every checkpoint, run record and match summary says which source made it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from blokuszero.match.arena import Match
from blokuszero.match.runner import run_match
from blokuszero.nn.checkpoint import load_checkpoint, save_checkpoint, save_network
from blokuszero.provenance import source

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def expected() -> dict:
    try:
        revision = _git("rev-parse", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the revision is 'unknown' by design")
    return {"git_revision": revision, "dirty": bool(_git("status", "--porcelain").strip())}


def test_source_is_this_checkouts_revision(expected):
    assert source() == expected


def test_checkpoints_store_the_source(tmp_path, expected):
    path = save_checkpoint(tmp_path / "a", 7, {"learner": {"step": 7}})
    assert load_checkpoint(path)["source"] == expected
    path = save_network(tmp_path / "b", 3, "b2c32conv", {"w": torch.zeros(2)})
    assert load_checkpoint(path)["source"] == expected


def test_match_summary_stores_the_source(tmp_path, expected):
    match = Match("tictactoe", ["a", "b"], {"a": {"preset": "random"}, "b": {"preset": "random"}})
    summary = run_match(match, games=2, seed=0, out_dir=tmp_path, progress=False)
    assert summary["source"] == expected
    assert json.loads((tmp_path / "summary.json").read_text())["source"] == expected


def test_outside_a_checkout_the_revision_is_unknown(tmp_path):
    # A copy of the package in a directory that is no git checkout (as an installed wheel).
    copy = tmp_path / "blokuszero"
    copy.mkdir()
    (copy / "provenance.py").write_text((ROOT / "blokuszero" / "provenance.py").read_text())
    code = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('p', sys.argv[1]); "
            "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.source())")
    out = subprocess.run([sys.executable, "-c", code, str(copy / "provenance.py")], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    assert out.strip() == "{'git_revision': 'unknown', 'dirty': None}"
