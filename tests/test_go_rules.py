"""Go rules on hand-made positions, against a flood-fill reference, and the conformance check."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.go import GoGame, GoState
from blokuszero.games.go import rules as E
from blokuszero.games.numba_random import seed_numba
from blokuszero.games.registry import make_game
from blokuszero.games.testing import check_game


def position(game: GoGame, rows: list[str], to_move: int = 0) -> GoState:
    """A state from a diagram: rows from the top, X black, O white, . empty."""
    state = game.new_initial_state()
    stones = [(".XO".index(ch) - 1, y * game.size + x) for y, row in enumerate(rows)
              for x, ch in enumerate(row.replace(" ", "")) if ch != "."]
    state.set_up(stones, to_move)
    return state


def play(state: GoState, *vertices: str) -> None:
    for v in vertices:
        state.apply_action(state.string_to_action(v))


def diagram(state: GoState) -> list[str]:
    return ["".join(".XO"[c] for c in row) for row in state.board()]


def test_capture_removes_stone_and_counts_it():
    game = GoGame(5)
    state = position(game, [".....", "..X..", ".XO..", "..X..", "....."])
    play(state, "D3")
    assert diagram(state)[2] == ".X.X."
    assert state.captures() == (1, 0)
    # The freed point is a black eye now: suicide for White, an ordinary move for Black.
    c3 = state.string_to_action("C3")
    assert "suicide" in state.move_error(c3)
    play(state, "pass")
    assert state.move_error(c3) is None


def test_edge_group_capture_gives_liberties_back():
    game = GoGame(5)
    state = position(game, ["OO...", "XX...", ".....", ".....", "....."])
    play(state, "C5")
    assert diagram(state)[0] == "..X.."
    assert state.captures() == (2, 0)
    # The capturing group got its liberties back: A5, B5 and the points below it.
    play(state, "E1", "A5", "E2", "B5")
    assert diagram(state)[:2] == ["XXX..", "XX..."]
    assert "suicide" not in (state.move_error(state.string_to_action("D5")) or "")


def test_suicide_is_illegal_single_and_multi_stone():
    game = GoGame(5)
    state = position(game, [".X...", "X....", ".....", ".....", "....."], to_move=1)
    before = state.buf.copy()
    with pytest.raises(ValueError, match="A5 is suicide"):
        state.apply_action(state.string_to_action("A5"))
    assert np.array_equal(state.buf, before)
    # Two white stones filling their own last liberty.
    state = position(game, ["O.X..", "XX...", ".....", ".....", "....."], to_move=1)
    assert "suicide" in state.move_error(state.string_to_action("B5"))
    assert state.string_to_action("B5") not in state.legal_actions()


def test_move_that_captures_is_not_suicide():
    game = GoGame(5)
    state = position(game, [".XO..", "XO...", "O....", ".....", "....."], to_move=1)
    assert state.move_error(state.string_to_action("A5")) is None
    play(state, "A5")
    assert diagram(state)[0] == "O.O.."


KO = [".XO..", "XO.O.", ".XO..", ".....", "....."]


def test_simple_ko_forbids_immediate_recapture_only():
    game = GoGame(5)
    state = position(game, KO)
    play(state, "C4")  # black captures B4
    assert diagram(state)[1] == "X.XO."
    b4 = state.string_to_action("B4")
    assert "retakes a ko" in state.move_error(b4)
    assert b4 not in state.legal_actions()
    play(state, "E1", "E2")  # a ko threat elsewhere and its answer
    assert state.move_error(b4) is None
    play(state, "B4")
    assert diagram(state)[1] == "XO.O."


def test_positional_superko_forbids_a_repeat_that_simple_ko_allows():
    moves = ["A1", "B2", "B1", "A2", "A1", "B1"]
    simple, superko = GoGame(2).new_initial_state(), GoGame(2, ko_rule="positional").new_initial_state()
    for state in (simple, superko):
        play(state, *moves)
    a1 = simple.string_to_action("A1")
    assert simple.move_error(a1) is None  # captures three stones: not a simple ko
    assert "positional superko" in superko.move_error(a1)
    assert a1 not in superko.legal_actions() and a1 in simple.legal_actions()


def test_two_passes_end_the_game_and_a_move_resets_the_count():
    state = GoGame(5).new_initial_state()
    play(state, "pass", "C3", "pass")
    assert state.current_player() == 1
    play(state, "pass")
    assert state.is_terminal() and len(state.legal_actions()) == 0
    with pytest.raises(ValueError, match="after the end of the game"):
        play(state, "A1")


def test_area_scoring_with_komi_and_neutral_points():
    game = GoGame(5, komi=6.5)
    # Black owns columns A-C, White D-E: 15 against 10.
    state = position(game, ["..XO.", "..XO.", "..XO.", "..XO.", "..XO."])
    assert state.area() == (15, 10)
    assert state.score() == pytest.approx(-1.5)
    play(state, "pass", "pass")
    assert list(state.returns()) == [-1.0, 1.0]
    # A gap between the walls touches both colours: its points count for nobody.
    state = position(game, [".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."])
    assert state.area() == (10, 10)
    even = position(GoGame(5, komi=0.0), [".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."])
    play(even, "pass", "pass")
    assert list(even.returns()) == [0.0, 0.0]


def test_vertices_read_back_and_bad_ones_are_named():
    game = GoGame(19)
    state = game.new_initial_state()
    assert state.action_to_string(0) == "A19" and state.action_to_string(18) == "T19"
    assert state.string_to_action("t1") == 19 * 19 - 1 and state.string_to_action("PASS") == 361
    for bad, why in (("I5", "not a vertex"), ("Z3", "off the"), ("A20", "off the"), ("", "not a vertex"),
                     ("D", "not a vertex"), ("4D", "not a vertex")):
        with pytest.raises(ValueError, match=why):
            state.string_to_action(bad)
    with pytest.raises(ValueError, match="not a point"):
        state.apply_action(400)
    for bad in ({"size": 1}, {"size": 26}, {"ko_rule": "japanese"}):
        with pytest.raises(ValueError):
            GoGame(**bad)


def test_set_up_rejects_occupied_points_and_keeps_the_state():
    state = position(GoGame(5), ["X...."])
    before = state.buf.copy()
    with pytest.raises(ValueError, match="A5 is on an occupied point"):
        state.set_up([(1, 1), (1, 0)])
    assert np.array_equal(state.buf, before)


def test_registry_makes_go_games():
    assert make_game("go").size == 9 and make_game("go19").size == 19
    game = make_game("go", size=13, komi=7.5, ko_rule="positional")
    assert (game.size, game.komi, game.ko_rule, game.num_actions) == (13, 7.5, "positional", 170)


# 9x9 with the simple ko rule: tests/test_games_conformance.py (go9).
@pytest.mark.parametrize("size,ko_rule", [(2, "simple"), (5, "positional"), (13, "positional")])
def test_conformance(size, ko_rule):
    check_game(GoGame(size, ko_rule=ko_rule), num_games=3, seed=size)


# ----------------------------------------------------------------- flood-fill reference
def reference_play(board: np.ndarray, x: int, y: int, colour: int) -> np.ndarray | None:
    """Go rules the slow, obvious way: place, remove enemy groups without liberties, refuse
    suicide (None). Ko is not checked here."""
    n = board.shape[0]
    new = board.copy()
    new[y, x] = colour

    def group(sx, sy):
        stones, libs, todo = {(sx, sy)}, set(), [(sx, sy)]
        while todo:
            cx, cy = todo.pop()
            for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                if 0 <= nx < n and 0 <= ny < n:
                    if new[ny, nx] == 0:
                        libs.add((nx, ny))
                    elif new[ny, nx] == new[cy, cx] and (nx, ny) not in stones:
                        stones.add((nx, ny))
                        todo.append((nx, ny))
        return stones, libs

    for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
        if 0 <= nx < n and 0 <= ny < n and new[ny, nx] == 3 - colour:
            stones, libs = group(nx, ny)
            if not libs:
                for sx, sy in stones:
                    new[sy, sx] = 0
    return None if not group(x, y)[1] else new


@pytest.mark.parametrize("seed", range(4))
def test_incremental_groups_match_flood_fill(seed):
    """Random games (eye-filling moves included): every move's legality and result agree with
    the reference, so liberty tracking, merging and capturing are right."""
    game = GoGame(7)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(150):
        if state.is_terminal():
            break
        colour = state.current_player() + 1
        board = state.board()
        legal = set(state.legal_actions().tolist())
        for a in range(game.pass_action):
            y, x = divmod(a, game.size)
            expected = board[y, x] == 0 and reference_play(board, x, y, colour) is not None
            if a in legal:
                assert expected
            elif expected:  # only a ko recapture may be refused besides occupied and suicide
                assert "ko" in state.move_error(a)
        moves = [a for a in legal if a != game.pass_action] or [game.pass_action]
        a = int(rng.choice(moves))
        if a != game.pass_action:
            y, x = divmod(a, game.size)
            after = reference_play(board, x, y, colour)
            state.apply_action(a)
            assert np.array_equal(state.board(), after)
        else:
            state.apply_action(a)


@pytest.mark.parametrize("size", [5, 9, 19])
def test_playout_ends_with_no_playable_non_eye_point(size):
    game = GoGame(size)
    seed_numba(size)
    for _ in range(5):
        state = game.new_initial_state()
        players, actions = state.playout()
        assert state.is_terminal() and list(actions[-2:]) == [game.pass_action] * 2
        assert np.all(players[1:] != players[:-1])  # turns alternate
        replay = game.new_initial_state()
        for a in actions:
            replay.apply_action(int(a))
        assert np.array_equal(replay.board(), state.board())
        for colour in (E.BLACK, E.WHITE):
            for a in range(game.pass_action):
                pt = int(game.action_point[a])
                if state.buf[pt] == E.EMPTY:
                    assert E.is_own_eye(state.buf, game.width, pt, colour) or \
                        E.legal_code(state.buf, game.width, pt, colour) != E.OK


def test_search_actions_leave_out_own_true_eyes_only():
    game = GoGame(5)
    # A1 is a true eye of Black; B2 touches a white stone, so it is no eye.
    state = position(game, [".....", "O.O..", "XOX..", "X.X..", ".XX.."])
    legal, searched = state.legal_actions(), state.search_actions()
    a1, b2 = state.string_to_action("A1"), state.string_to_action("B2")
    assert a1 in legal and a1 not in searched
    assert set(legal) - set(searched) == {a1} and b2 in searched


def test_give_turn_moves_out_of_turn_and_resumes_after_two_passes():
    state = position(GoGame(5), KO)
    play(state, "C4")  # the ko ban is on White now
    state.give_turn(0)  # Black again: the ban no longer applies to anyone
    play(state, "E1")
    assert state.move_error(state.string_to_action("B4")) is None
    play(state, "pass", "pass")
    assert state.is_terminal()
    state.give_turn(1)
    assert state.current_player() == 1 and not state.is_terminal()
    with pytest.raises(ValueError, match="not 0"):
        state.give_turn(2)


def test_two_passes_by_the_same_colour_do_not_end_the_game():
    # GTP controllers may let one colour move twice (``play b pass`` then ``genmove b``): the
    # game ends only on two passes in a row by alternating players.
    state = GoGame(5).new_initial_state()
    play(state, "pass")
    state.give_turn(0)
    play(state, "pass")
    assert not state.is_terminal() and state.current_player() == 1
    state.give_turn(0)  # Black passes a third time; White's turn was skipped again
    play(state, "pass")
    assert not state.is_terminal()
    play(state, "pass")  # White answers Black's pass: that ends it
    assert state.is_terminal()
    # A stone in between breaks the run of passes too.
    state = GoGame(5).new_initial_state()
    play(state, "pass", "C3", "pass")
    assert not state.is_terminal()
    play(state, "pass")
    assert state.is_terminal()
