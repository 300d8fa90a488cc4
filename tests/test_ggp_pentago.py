"""The project's own GDL sheet of Pentago (tests/data/ggp_written/pentago.kif) against a Pentago
written directly in numpy here, and against the SWI-Prolog oracle: the sheet plays the game its
rules describe, and our reasoners read it as an independent reasoner does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from prolog_oracle import HOW_TO_GET, SWIPL, PrologGame, compare_walks

from blokuszero.games.ggp import GgpGame

SHEET = Path(__file__).parent / "data" / "ggp_written" / "pentago.kif"
WHITE, BLACK = 1, 2
ROLES = ("white", "black")
# The quadrants' top-left corners on the 6x6 board, in the sheet's numbering 1-4.
CORNER = {1: (0, 0), 2: (0, 3), 3: (3, 0), 4: (3, 3)}


class Pentago:
    """Pentago as its rules read, on a 6x6 array, with the sheet's split of a turn into a
    placement and a quarter turn."""

    def __init__(self) -> None:
        self.board = np.zeros((6, 6), dtype=np.int8)
        self.mover, self.placing = WHITE, True

    def fives(self, colour: int) -> bool:
        mine = self.board == colour
        for a in range(6):
            for b in range(2):
                if mine[a, b:b + 5].all() or mine[b:b + 5, a].all():
                    return True
        for r in range(2):
            for c in range(2):
                if all(mine[r + k, c + k] for k in range(5)):
                    return True
                if all(mine[r + k, 5 - c - k] for k in range(5)):
                    return True
        return False

    def terminal(self) -> bool:
        return self.fives(WHITE) or self.fives(BLACK) or (self.placing and (self.board != 0).all())

    def goals(self) -> tuple[float, float]:
        w, b = self.fives(WHITE), self.fives(BLACK)
        if w == b:
            return 50.0, 50.0
        return (100.0, 0.0) if w else (0.0, 100.0)

    def moves(self) -> set[str]:
        """The mover's legal moves, spelt as the sheet's."""
        if self.placing:
            return {f"(place {q} {r - r0 + 1} {c - c0 + 1})"
                    for q, (r0, c0) in CORNER.items()
                    for r in range(r0, r0 + 3) for c in range(c0, c0 + 3) if self.board[r, c] == 0}
        return {f"(rotate {q} {d})" for q in CORNER for d in ("cw", "ccw")}

    def play(self, move: str) -> None:
        kind, q, *rest = move.strip("()").split()
        r0, c0 = CORNER[int(q)]
        if kind == "place":
            self.board[r0 + int(rest[0]) - 1, c0 + int(rest[1]) - 1] = self.mover
        else:
            block = self.board[r0:r0 + 3, c0:c0 + 3]
            self.board[r0:r0 + 3, c0:c0 + 3] = np.rot90(block, k=-1 if rest[0] == "cw" else 1)
            self.mover = BLACK if self.mover == WHITE else WHITE
        self.placing = not self.placing


def sheet_board(state) -> np.ndarray:
    """The 6x6 board of a state of the sheet, from its (cell Q I J M) facts."""
    board = np.full((6, 6), -1, dtype=np.int8)
    for name, *args in state.facts():
        if name == "cell":
            q, i, j, mark = args
            r0, c0 = CORNER[int(q)]
            board[r0 + int(i) - 1, c0 + int(j) - 1] = {"b": 0, "white": WHITE, "black": BLACK}[mark]
    return board


@pytest.fixture(scope="module")
def game() -> GgpGame:
    return GgpGame.from_file(SHEET)


def test_the_sheet_plays_pentago(game):
    """Random games through the sheet and through the numpy Pentago, move for move: the same
    board, mover, legal moves, end and goals at every step; the games reach every kind of end."""
    rng = np.random.default_rng(0)
    ends: dict[str, int] = {}
    for _ in range(WALKS):
        state, ref = game.new_initial_state(), Pentago()
        while True:
            assert np.array_equal(sheet_board(state), ref.board)
            assert state.is_terminal() == ref.terminal()
            if ref.terminal():
                assert tuple(state.returns()) == ref.goals()
                end = end_kind(ref)
                ends[end] = ends.get(end, 0) + 1
                break
            for p, role in enumerate(game.roles):
                legal = {state.action_to_string(int(a)) for a in state.legal_actions(p)}
                assert legal == (ref.moves() if role == ROLES[ref.mover - 1] else {"noop"})
            legal = sorted(ref.moves())
            move = legal[rng.integers(len(legal))]
            mover = ROLES[ref.mover - 1]
            state.apply_joint_action([state.string_to_action(move if role == mover else "noop")
                                      for role in game.roles])
            ref.play(move)
    assert set(ends) == set(END_KINDS), ends


#: Random games whose ends cover every kind below (seed 0).
WALKS = 40
END_KINDS = ("five by a placement", "five by a quarter turn", "five for the other role by a "
             "quarter turn", "five for both: a draw", "a full board without five: a draw")


def end_kind(ref: Pentago) -> str:
    """How a finished game of the numpy Pentago ended."""
    white, black = ref.fives(WHITE), ref.fives(BLACK)
    if white and black:
        return END_KINDS[3]
    if not (white or black):
        return END_KINDS[4]
    if not ref.placing:
        return END_KINDS[0]
    last_mover = BLACK if ref.mover == WHITE else WHITE  # the turn passed with the quarter turn
    return END_KINDS[1] if ref.fives(last_mover) else END_KINDS[2]


@pytest.mark.skipif(SWIPL is None, reason=f"SWI-Prolog is NOT installed ({HOW_TO_GET}): the "
                                          "sheet's cross-check against Prolog did not run")
def test_the_sheet_reads_as_prolog_reads_it(game):
    with PrologGame(SHEET.read_text()) as oracle:
        found = compare_walks(game.reasoner, oracle, walks=10, seed=0, max_steps=100)
    assert found.walks == found.ended == 10 and not found.disagreements, found.disagreements
