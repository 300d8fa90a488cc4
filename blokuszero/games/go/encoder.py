"""Network input planes for a Go position, and the board's 8 symmetries on encoded data.

Five [N, N] planes, indexed [y, x] like :meth:`GoState.board` (row 0 at the top), all from the
mover's side as the values are (see :mod:`blokuszero.games.encoding`):

0. the mover's stones;
1. the opponent's stones;
2. the points where the mover may play (empty, not a ko retake, not suicide, no superko
   repetition under that rule): what the rules forbid, the network need not learn;
3. ones if Black is to move (the side that gives komi);
4. ones (with zero padding, this shows the network where the board ends).

No history planes (AlphaGo Zero has 7 past positions): the state keeps no past boards, and
plane 2 carries the part of the history the rules depend on. The policy map has one plane
(point action a = y N + x at its square) and one global logit, the pass. All 8 symmetries are
exact in Go: they move points and leave the players, and so the values, as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding import Encoder, PolicyMap, dihedral_square_maps
from .game import GoGame, GoState

NUM_PLANES = 5


class GoEncoder(Encoder):
    """The planes above for ``game``'s board size."""

    num_planes = NUM_PLANES
    symmetries = tuple(range(8))

    def __init__(self, game: GoGame) -> None:
        self.game = game
        self.board_size = game.size
        points = game.size * game.size
        self.score_scale = points / 2  # areas (komi included) of about half the board each
        self._square_maps = dihedral_square_maps(game.size)  # [8, N^2]
        self._square_source = np.argsort(self._square_maps, axis=1)  # [8, N^2]
        # [8, A]: image of each action; the pass (last) stays.
        self._action_maps = np.concatenate(
            [self._square_maps, np.full((8, 1), points, np.int64)], axis=1)

    def encode_batch(self, states: Sequence[GoState]) -> np.ndarray:
        n = self.game.size
        out = np.zeros((len(states), NUM_PLANES, n * n), np.float32)
        if not states:
            return out.reshape(0, NUM_PLANES, n, n)
        mover = np.array([s.current_player() for s in states], np.int64)  # [B]
        if (mover < 0).any():
            raise ValueError(f"state {int(np.argmax(mover < 0))} of the batch is terminal: "
                             "no player to move, so no input planes")
        colour = np.stack([s.board().reshape(-1) for s in states])  # [B, N^2]: 0 empty, 1 B, 2 W
        out[:, 0] = colour == (mover + 1)[:, None]
        out[:, 1] = colour == (2 - mover)[:, None]
        for b, state in enumerate(states):
            out[b, 2, state.legal_actions()[:-1]] = 1.0  # the pass (last) has no square
        out[:, 3] = (mover == 0)[:, None]
        out[:, 4] = 1.0
        return out.reshape(len(states), NUM_PLANES, n, n)

    def policy_map(self) -> PolicyMap:
        # Point a at cell a of the one plane; the pass is the first global, cell N^2.
        return PolicyMap(planes=1, globals=1, index=np.arange(self.game.num_actions, dtype=np.int64))

    def board(self, state: GoState) -> np.ndarray:
        return state.board() - 1  # 0 empty, 1 black, 2 white -> -1, player 0, player 1

    def players(self) -> list[tuple[str, tuple[int, int, int]]]:
        return [("Black", (20, 20, 20)), ("White", (245, 245, 245))]

    def transform_planes(self, planes: np.ndarray, k: int) -> np.ndarray:
        n = self.game.size
        flat = planes.reshape(*planes.shape[:-2], n * n)
        return flat[..., self._square_source[k]].reshape(planes.shape)

    def transform_actions(self, actions: np.ndarray, k: int) -> np.ndarray:
        return self._action_maps[k][actions]

    def transform_values(self, values: np.ndarray, k: int) -> np.ndarray:
        if k not in self.symmetries:
            raise ValueError(f"Go has no symmetry {k}; symmetries: 0-7")
        return values
