"""A GDL game behind the common :class:`~blokuszero.games.base.Game` interface, and the choice
of its reasoner (:func:`make_reasoner`: the compiled propositional network or the interpreter).

Who moves: a state is SIMULTANEOUS when two or more roles have more than one legal move;
otherwise the one role with a real choice moves and every other role plays its only legal
move (``noop`` in turn-taking games) automatically. When no role has a choice, the first role
in the description's order is the mover (its single move is the action). A state where a
role has no legal move (which GDL forbids before the end) is treated as terminal. So turn-taking
games are plain turn-taking trees, with no joint nodes. Any state that is not terminal also
takes a joint action (one move per role), which is how a game manager reports moves.

Actions are indices into the game's ground moves (sorted by their KIF text), shared by all
roles; ``action_to_string`` writes the move in KIF. Returns are the GDL goal values (0-100)
at the end, zeros before.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..base import SIMULTANEOUS, TERMINAL, Game, Seed, State
from .gdl import Description, load_description, specialize
from .interpreter import Interpreter
from .kif import KifError, parse_term, to_kif
from .propnet import PropNet
from .reasoner import MAX_INSTANCES, Reasoner, TooLarge, ground

log = logging.getLogger(__name__)


def make_reasoner(desc: Description, kind: str = "auto",
                  max_instances: int = MAX_INSTANCES) -> Reasoner:
    """``propnet`` (compiled, fast; TooLarge if the grounding passes ``max_instances``),
    ``interpreter`` (general), or ``auto``: the propositional network when the grounding fits
    in ``max_instances``, else the interpreter (reason logged)."""
    if kind not in ("auto", "propnet", "interpreter"):
        raise ValueError(f"unknown reasoner {kind!r}; known: auto, propnet, interpreter")
    desc = dataclasses.replace(desc, clauses=specialize(desc))
    grounding = ground(desc, max_instances if kind != "interpreter" else 0)
    if kind == "propnet" and grounding.instances is None:
        raise TooLarge(f"cannot build a propositional network: {grounding.reason}")
    if grounding.instances is not None and kind != "interpreter":
        return PropNet(desc, grounding)
    if kind == "auto":
        log.warning("GDL reasoner: using the interpreter, %s", grounding.reason)
    return Interpreter(desc, grounding)


def build_propnet(rules: str, max_instances: int = MAX_INSTANCES) -> Reasoner:
    """The propositional network of the KIF text ``rules`` (ValueError if it cannot be built
    within ``max_instances``): a picklable job for a background process."""
    return make_reasoner(load_description(rules), "propnet", max_instances)


class GgpGame(Game):
    """A game from GDL rules (KIF text)."""

    min_utility = 0.0
    max_utility = 100.0

    def __init__(self, rules: str, *, name: str = "ggp", reasoner: str | Reasoner = "auto",
                 max_instances: int = MAX_INSTANCES, max_game_length: int = 10_000) -> None:
        """Args:
          rules: the KIF text of the description.
          reasoner: ``auto`` (propositional network if it fits, else interpreter),
            ``propnet`` or ``interpreter``; or a reasoner already made of these rules (e.g.
            by :func:`build_propnet` in another process).
          max_instances: the grounding size above which ``auto`` falls back to the interpreter.
          max_game_length: a bound on the joint moves of any game (GDL games are finite but
            do not state their length); a playout passing it is an error.
        """
        self.description = load_description(rules)
        self.reasoner: Reasoner = (reasoner if isinstance(reasoner, Reasoner)
                                   else make_reasoner(self.description, reasoner, max_instances))
        self.name = name
        self.roles = list(self.reasoner.roles)
        self.num_players = len(self.roles)
        self.num_actions = len(self.reasoner.moves)
        self.max_game_length = max_game_length
        self.warned_stuck = False

    @classmethod
    def from_file(cls, path: str | Path, **options) -> GgpGame:
        """The game in a ``.kif`` file, named after the file."""
        path = Path(path)
        return cls(path.read_text(), name=options.pop("name", path.stem), **options)

    def new_initial_state(self, seed: Seed = None) -> GgpState:
        cls = FastGgpState if self.reasoner.kind == "propnet" else GgpState
        return cls(self, self.reasoner.initial())


class GgpState(State):
    """A position of a GDL game."""

    __slots__ = ("game", "_r", "_s", "_legal", "_player")

    def __init__(self, game: GgpGame, s) -> None:
        self.game = game
        self._r = game.reasoner
        self._set(s)

    def _set(self, s) -> None:
        self._s = s
        self._legal: list[np.ndarray] | None = None
        self._player: int | None = None

    def _legal_all(self) -> list[np.ndarray]:
        if self._legal is None:
            none = [np.empty(0, dtype=np.int64)] * self.game.num_players
            if self._r.is_terminal(self._s):
                self._legal = none
            else:
                self._legal = [self._r.legal(self._s, p) for p in range(self.game.num_players)]
                stuck = [self.game.roles[p] for p, a in enumerate(self._legal) if len(a) == 0]
                if stuck:
                    # GDL requires a move for every role until the end; sheets that break
                    # this (4pffa with a lone blocked piece) end here, with the goals that hold.
                    if not self.game.warned_stuck:
                        log.warning("%s: role %s has no legal move in a non-terminal state; "
                                    "treating it as the end of the game", self.game.name, stuck[0])
                        self.game.warned_stuck = True
                    self._legal = none
        return self._legal

    def current_player(self) -> int:
        if self._player is None:
            legal = self._legal_all()
            if len(legal[0]) == 0:
                self._player = TERMINAL
            else:
                choosers = [p for p, a in enumerate(legal) if len(a) > 1]
                self._player = (SIMULTANEOUS if len(choosers) > 1
                                else choosers[0] if choosers else 0)
        return self._player

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        """Legal actions of ``player``; with no player, the mover's (none at a SIMULTANEOUS
        node, where each role's are asked for separately)."""
        if player is None:
            player = self.current_player()
            if player < 0:
                return np.empty(0, dtype=np.int64)
        return self._legal_all()[player]

    def apply_action(self, action: int) -> None:
        player = self.current_player()
        if player == SIMULTANEOUS:
            raise ValueError("several roles move here: use apply_joint_action")
        if player == TERMINAL:
            raise ValueError(f"action {action}: the game is over")
        joint = [int(a[0]) for a in self._legal_all()]
        joint[player] = action
        self.apply_joint_action(joint)

    def apply_joint_action(self, joint: Sequence[int]) -> None:
        legal = self._legal_all()
        if self.is_terminal():
            raise ValueError("the game is over")
        if len(joint) != self.game.num_players:
            raise ValueError(f"a joint action needs {self.game.num_players} moves, got {len(joint)}")
        for p, a in enumerate(joint):
            i = np.searchsorted(legal[p], a)
            if i == len(legal[p]) or legal[p][i] != a:
                raise ValueError(f"move {self._describe(a)} is not legal for role "
                                 f"{self.game.roles[p]}")
        self._set(self._r.next(self._s, np.asarray(joint, dtype=np.int64)))

    def _describe(self, action) -> str:
        try:
            return self.action_to_string(int(action))
        except (ValueError, TypeError):
            return repr(action)

    def clone(self) -> GgpState:
        copy = type(self).__new__(type(self))
        copy.game, copy._r, copy._s = self.game, self._r, self._s
        copy._legal, copy._player = self._legal, self._player  # both immutable once computed
        return copy

    def returns(self) -> np.ndarray:
        if self.current_player() != TERMINAL:
            return np.zeros(self.game.num_players)
        return self._r.goals(self._s)

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < self.game.num_actions:
            raise ValueError(f"action {action} outside [0, {self.game.num_actions})")
        return to_kif(self._r.moves[action])

    def string_to_action(self, text: str) -> int:
        try:
            move = parse_term(text)
        except KifError as err:
            raise ValueError(f"malformed move {text!r}: {err}") from None
        if move not in self._r.move_index:
            raise ValueError(f"{text!r} is not a move of {self.game.name}")
        return self._r.move_index[move]

    def key(self) -> int:
        return self._r.key(self._s)

    def facts(self) -> frozenset:
        """The true facts (GDL terms) of this state."""
        return self._r.facts(self._s)

    def goals(self) -> np.ndarray:
        """The goal values (0-100) holding now, terminal or not."""
        return self._r.goals(self._s)

    def __str__(self) -> str:
        return " ".join(sorted(f"(true {to_kif(f)})" for f in self.facts()))


class FastGgpState(GgpState):
    """A state of a game compiled to a propositional network: random playouts in numba."""

    __slots__ = ()

    def playout(self, policy: str = "uniform", epsilon: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Uniformly random joint moves to the end (numba's generator, seeded by the search).
        Returns who chose and what, one entry per role with a real choice per step."""
        if policy != "uniform":
            raise ValueError(f"playout policy {policy!r}: GDL games play 'uniform' here")
        s, _, movers, actions = self._r.playout(self._s, self.game.max_game_length)
        self._set(s)
        return movers, actions

    def traced_playout(self, policy: str = "uniform",
                       epsilon: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`playout` that also returns the positions it passed through: the base
        propositions (one uint8 per ``reasoner.base`` fact) after each step, [steps, num_base]."""
        if policy != "uniform":
            raise ValueError(f"playout policy {policy!r}: GDL games play 'uniform' here")
        s, _, movers, actions, trace = self._r.playout(self._s, self.game.max_game_length, True)
        self._set(s)
        return movers, actions, trace

    def board(self) -> np.ndarray:
        """The base propositions of this position (one uint8 per ``reasoner.base`` fact), the
        rows :meth:`traced_playout` returns."""
        return self._s[:len(self._r.base)]
