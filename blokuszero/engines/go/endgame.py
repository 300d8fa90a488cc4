"""The end of a Go game over GTP: dead stones listed by status, and captured in KGS's cleanup phase.

Both judge the dead stones from playouts (:func:`blokuszero.games.go.scoring.final_status`).
"""

from __future__ import annotations

import numpy as np

from ...games.go import GoState
from ...games.go.scoring import STATUSES, final_status
from ...protocols.gtp import GtpError


def status_list(state: GoState, wanted: str, playouts: int) -> str:
    """GTP ``final_status_list``'s answer: the stones of status ``wanted`` (any case), a group
    per line (as GNU Go writes them); GtpError for a word that is no status."""
    status = wanted.lower()
    if status not in STATUSES:
        raise GtpError(f"syntax error: {wanted!r} is not a status ({', '.join(STATUSES)})")
    judged = final_status(state, playouts)
    chosen = np.flatnonzero(judged.status.ravel() == status)
    groups = judged.group.ravel()[chosen]
    return "\n".join(" ".join(state.game.vertex(int(a)) for a in chosen[groups == g])
                     for g in dict.fromkeys(groups.tolist()))


def cleanup_move(state: GoState, player: int, action: int, playouts: int) -> int:
    """``player``'s move in KGS's cleanup phase in place of the searched ``action`` (a pass):
    while the opponent's dead stones are still on the board, a legal move on a liberty of them
    (the one ``player`` owns most surely), so that they get captured; else ``action``."""
    judged = final_status(state, playouts)
    board = state.board()
    dead = (judged.status == "dead") & (board == 2 - player)  # the opponent's dead stones
    if not dead.any():
        return action
    size = state.game.size
    near = np.zeros_like(dead)
    near[1:] |= dead[:-1]
    near[:-1] |= dead[1:]
    near[:, 1:] |= dead[:, :-1]
    near[:, :-1] |= dead[:, 1:]
    trial = state.clone()
    if trial.current_player() != player:
        trial.give_turn(player)
    legal = np.zeros(size * size + 1, bool)
    legal[trial.search_actions()] = True
    candidates = np.flatnonzero((near & (board == 0)).ravel() & legal[:-1])
    if candidates.size == 0:
        return action
    mine = judged.ownership.ravel()[candidates] * (1 if player == 0 else -1)
    return int(candidates[np.argmax(mine)])
