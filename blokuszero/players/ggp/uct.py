"""UCT for GDL games, the factory's ``ggp_uct`` kind: UCB1, MaxN backup, the most visited move
and tree reuse over uniform, MAST, NST or learned softmax playouts rewarded on the game's goal
scale, with the similar-board search experience and its pre-game switching rule (SPEC §5, §6).

``experience`` adds the search experience (similar boards seed new nodes,
:mod:`blokuszero.search.experience`): ``{"encoding": random | appearance | huffman,
"distance": 0 | 1 | 2}``, optionally ``"measure": True``, the readings of the paper's open choices
(``weight``, ``stored``, ``lifetime``: :data:`~blokuszero.search.experience.READINGS`) and
``move``: ``real`` (the move with most real visits, the paper's 4.2) or ``all`` (seeded visits
counted too); or ``"switch"``: the pre-game
switching rule picks Huffman with ``d`` = 2 or 0 (:func:`switch_distance`, within
``switch_time_limit`` seconds). ``reuse_tree`` (default true): keep the subtree of the move
played for the next search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...games.base import Game
from ...games.ggp import GgpGame
from ...games.ggp.boards import ENCODINGS, BoardEncoder
from ...games.ggp.softmax_policy import SoftmaxPolicy
from ...search.experience import READINGS, SearchExperience, check_reading
from ...search.mcts import MCTS, MCTSConfig
from ...search.rollout_evaluators import POLICIES, PolicyRolloutEvaluator
from ...search.selection import UCB1
from ...settings import SettingError
from ..registry import PlayerSpec
from ..search_players import MCTSPlayer
from .experience_switch import SimilarityReport, choose_distance, measure_similarity

#: The move played with the search experience: most real visits, or seeded ones counted too.
MOVE_READINGS = ("real", "all")
_EXPERIENCE_KEYS = {"encoding", "distance", "measure", "move"} | set(READINGS)


def check_options(s: Mapping[str, Any]) -> None:
    """SettingError naming the option where ``s``'s options do not go together: the playout
    policy, the softmax weights, the search experience."""
    if s.get("policy") is not None and not isinstance(s["policy"], SoftmaxPolicy):
        raise SettingError("policy", f"must be SoftmaxPolicy or None, not {s['policy']!r}")
    playout = s.get("playout", "uniform")
    if playout not in POLICIES:
        raise SettingError("playout", f"must be one of {list(POLICIES)}, not {playout!r}")
    weights = s.get("policy_file") is not None or s.get("policy") is not None
    if (playout == "softmax") != weights:
        raise SettingError("playout", "softmax needs policy_file or policy, and only it does")
    experience = s.get("experience")
    if experience is not None and playout == "softmax":
        raise SettingError("experience", "the search experience reads the playouts' positions, "
                           "which softmax playouts do not record: use it with uniform, mast or nst "
                           "playouts")
    if experience is None or experience == "switch":
        return
    if not isinstance(experience, Mapping) or not set(experience) <= _EXPERIENCE_KEYS:
        raise SettingError("experience", f"must be 'switch' or a mapping of "
                           f"{sorted(_EXPERIENCE_KEYS)}, not {experience!r}")
    if experience.get("encoding", "huffman") not in ENCODINGS:
        raise SettingError("experience", f"encoding must be one of {list(ENCODINGS)}")
    if experience.get("distance", 0) not in (0, 1, 2):
        raise SettingError("experience", "distance must be 0, 1 or 2")
    if experience.get("move", "real") not in MOVE_READINGS:
        raise SettingError("experience", f"unknown move reading {experience['move']!r}; known: "
                           f"{', '.join(MOVE_READINGS)}")
    for choice in READINGS:
        try:
            check_reading(choice, experience.get(choice, READINGS[choice][0]))
        except ValueError as e:
            raise SettingError("experience", str(e)) from None


def uct_player(game: GgpGame, s: Mapping[str, Any], rng: np.random.Generator) -> MCTSPlayer:
    """The player of the checked options ``s`` (see the module docstring); an option not given
    keeps its part's default (UCB1's ``c``, uniform playouts, ``MCTSConfig``'s budget)."""
    learned = None
    if s.get("playout") == "softmax":
        learned = s.get("policy") or SoftmaxPolicy.load(game, s["policy_file"])
    evaluator = PolicyRolloutEvaluator(game, s.get("playout", "uniform"), rng=rng.spawn(1)[0],
                                       learned=learned,
                                       **{k: s[k] for k in ("tau", "epsilon") if k in s})
    experience = s.get("experience")
    count_seeded = isinstance(experience, Mapping) and experience.get("move", "real") == "all"
    config = MCTSConfig(count_seeded=count_seeded,
                        **{k: s[k] for k in ("simulations", "time_limit", "reuse_tree") if k in s})
    enhancements = ()
    if experience == "switch":
        d, _ = switch_distance(game, s, int(rng.integers(2**31)),
                               time_limit=s.get("switch_time_limit"))
        experience = {"encoding": "huffman", "distance": d}
    if experience is not None:
        encoder = BoardEncoder(game, experience.get("encoding", "huffman"),
                               seed=int(rng.integers(2**31)))
        enhancements = (SearchExperience(encoder, experience.get("distance", 0),
                                         experience.get("measure", False),
                                         **{k: experience[k] for k in READINGS if k in experience}),)
    rule = UCB1(c=s["c"]) if "c" in s else UCB1()
    return MCTSPlayer(MCTS(game, config, rule, evaluator, rng.spawn(1)[0],
                           enhancements=enhancements))


def make_uct_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> MCTSPlayer:
    """The ``ggp_uct`` kind: :func:`uct_player` of a GDL game."""
    if not isinstance(game, GgpGame):
        raise ValueError(f"a ggp_uct player plays GDL games, not {game.name}")
    return uct_player(game, spec.settings, rng)


def parse_experience(text: str) -> dict | str:
    """``switch``, or an encoding and a distance run together (``huffman2``)."""
    if text == "switch":
        return text
    encoding, d = text[:-1], text[-1:]
    if encoding not in ENCODINGS or d not in ("0", "1", "2"):
        raise ValueError(f"experience {text!r} is not 'switch' or <{'|'.join(ENCODINGS)}><0|1|2>")
    return {"encoding": encoding, "distance": int(d)}


def switch_distance(game: GgpGame, s: Mapping[str, Any], seed: int, *, games: int = 10,
                    moves: int = 10, playouts: int = 250,
                    time_limit: float | None = None) -> tuple[int, SimilarityReport]:
    """The pre-game switching rule for a player of options ``s``: ``games`` self-play games of
    ``moves`` moves at ``playouts`` playouts with Huffman ``d`` = 2, measuring the tree
    distances of the similar boards found; returns the distance to play with (2 or 0) and the
    measurements. No game starts after ``time_limit`` seconds (d = 0 if fewer than 2 were
    measured)."""

    def make_search(seed: int):
        sub = {**s, "simulations": playouts, "time_limit": None,
               "experience": {"encoding": "huffman", "distance": 2, "measure": True}}
        player = uct_player(game, sub, np.random.default_rng(seed))
        return player, player.mcts.enhancements[-1]

    report = measure_similarity(game, make_search, games, moves, seed, time_limit)
    return choose_distance(report), report
