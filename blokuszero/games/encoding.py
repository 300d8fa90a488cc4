"""Encoders: all that the network layer (``nn/``, ``rl/``) knows of a game.

An :class:`Encoder` turns states into input planes [B, C, H, W], says where on the network's
policy map each action's logit sits (:class:`PolicyMap`), converts value vectors to and from
the mover's frame, rebuilds a position from a game record, and lists the board symmetries
with their action on planes, actions and values (augmentation). Encoders are numpy (and the
game's numba kernels): games/ never imports torch; each game's encoder lives beside its rules
and :func:`blokuszero.games.registry.make_encoder` finds it.

The mover's frame is the same for every game with players taking turns in a cycle: index j of
a value vector is the player j turns after the mover (j = 0: the mover). A network thus
predicts "my value, the next player's, ..." and one set of weights serves every seat.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .base import Game, State


@dataclass(frozen=True)
class PolicyMap:
    """Where each action's logit is on a convolutional policy head's output.

    The head computes ``planes`` maps over the H x W board (one 1x1 convolution) and
    ``globals`` logits from the board-averaged features (actions tied to no square, Go's
    pass); flattened, that is ``planes * H * W + globals`` cells, and action a's logit is
    cell ``index[a]``.
    """

    planes: int
    globals: int
    index: np.ndarray  # [A] int64 cells of the flattened [planes * H * W + globals] map

    def __post_init__(self) -> None:
        if self.index.ndim != 1 or self.index.dtype != np.int64:
            raise ValueError(f"a policy map's index is a 1-d int64 array, not {self.index.dtype} "
                             f"of shape {self.index.shape}")


def _seat_index(mover, sign: int, num_players: int) -> np.ndarray:
    mover = np.asarray(mover)
    return (sign * mover[..., None] + np.arange(num_players)) % num_players


def to_mover_frame(values: np.ndarray, mover) -> np.ndarray:
    """Per-player ``values`` [..., P] seen from ``mover`` (int or array over the leading dims):
    ``out[..., j] = values[..., (mover + j) % P]``, j = 0 the mover."""
    values = np.asarray(values)
    index = _seat_index(mover, 1, values.shape[-1])
    return np.take_along_axis(values, np.broadcast_to(index, values.shape), axis=-1)


def from_mover_frame(values: np.ndarray, mover) -> np.ndarray:
    """Inverse of :func:`to_mover_frame`: ``out[..., c] = values[..., (c - mover) % P]``."""
    values = np.asarray(values)
    index = _seat_index(mover, -1, values.shape[-1])
    return np.take_along_axis(values, np.broadcast_to(index, values.shape), axis=-1)


def dihedral_square_maps(size: int) -> np.ndarray:
    """[8, size * size] image of each square (row-major, [y, x]) under the 8 symmetries of a
    square board: 0 identity, 1-3 rotations by 90, 180, 270 degrees, 4-7 their mirror images."""
    y, x = np.divmod(np.arange(size * size), size)
    n = size - 1
    images = [(x, y), (n - y, x), (n - x, n - y), (y, n - x)]
    images += [(n - ix, iy) for ix, iy in images]
    return np.stack([iy * size + ix for ix, iy in images]).astype(np.int64)


class Encoder(abc.ABC):
    """What a network sees of ``game``; subclasses set the sizes and encode.

    Attributes: ``game``; ``num_planes`` (C), ``board_size`` (H = W), ``num_actions`` (A, the
    game's), ``num_players`` (P); ``symmetries``: the ids k of the exact board symmetries
    (0 = identity), those augmentation may use; ``score_scale``: see above.
    """

    game: Game
    num_planes: int
    board_size: int
    symmetries: tuple[int, ...] = (0,)
    #: The size of a final score (``state.scores()``; the returns for a game without scores):
    #: the auxiliary score head learns scores divided by it.
    score_scale: float = 1.0

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def shape(self) -> tuple[int, int, int]:
        """(C, H, W) of one position's planes."""
        return self.num_planes, self.board_size, self.board_size

    @abc.abstractmethod
    def encode_batch(self, states: Sequence[State]) -> np.ndarray:
        """[B, C, H, W] float32 planes of non-terminal ``states`` (ValueError for a terminal one)."""

    def encode(self, state: State) -> np.ndarray:
        """[C, H, W] planes of one state."""
        return self.encode_batch([state])[0]

    @abc.abstractmethod
    def policy_map(self) -> PolicyMap:
        """Where each action's logit sits on a convolutional policy head (see :class:`PolicyMap`)."""

    def to_mover_frame(self, values: np.ndarray, mover) -> np.ndarray:
        """Absolute per-player values [..., P] -> the mover's frame (see the module docstring)."""
        return to_mover_frame(values, mover)

    def from_mover_frame(self, values: np.ndarray, mover) -> np.ndarray:
        """The mover's frame -> absolute per-player values [..., P]."""
        return from_mover_frame(values, mover)

    def replay(self, players: np.ndarray, actions: np.ndarray) -> State:
        """The position after ``actions`` (made by ``players``) from the initial state: how
        training positions are rebuilt from stored games. Games with a faster way override it."""
        state = self.game.new_initial_state()
        for player, action in zip(players, actions):
            if state.current_player() != player:
                raise ValueError(f"record: move {action} is by player {player}, but player "
                                 f"{state.current_player()} is to move")
            state.apply_action(int(action))
        return state

    @abc.abstractmethod
    def board(self, state: State) -> np.ndarray:
        """[H, W] int: the player whose piece or stone is on each square, -1 where none; row 0
        is the top of a picture."""

    @abc.abstractmethod
    def players(self) -> list[tuple[str, tuple[int, int, int]]]:
        """Each player's name and RGB colour, as pictures of :meth:`board` label and paint them
        (Blokus's four colours, Go's black and white)."""

    def transform_planes(self, planes: np.ndarray, k: int) -> np.ndarray:
        """Image of planes [..., C, H, W] under symmetry ``k``."""
        self._check_symmetry(k)
        return planes

    def transform_actions(self, actions: np.ndarray, k: int) -> np.ndarray:
        """Images of action ids under symmetry ``k``."""
        self._check_symmetry(k)
        return actions

    def transform_values(self, values: np.ndarray, k: int) -> np.ndarray:
        """Image of mover's-frame values [..., P] under symmetry ``k``."""
        self._check_symmetry(k)
        return values

    def _check_symmetry(self, k: int) -> None:
        if k != 0:
            raise ValueError(f"{type(self).__name__} has no symmetry {k}")
