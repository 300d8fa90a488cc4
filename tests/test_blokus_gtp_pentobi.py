"""Pentobi's GTP dialect: the commands Pentobi's controllers send (set_game, cputime, undo,
reg_genmove, loadsgf/savesgf, g/p, get_place), and a whole game driven as Pentobi's ``twogtp``
drives two engines, with our engine as both subprocesses."""

from __future__ import annotations

import sys

import pytest

from blokuszero.engines.blokus import BlokusGtpEngine
from blokuszero.games.blokus import BlokusState
from blokuszero.games.blokus.sgf import read_sgf
from blokuszero.players import RandomPlayer
from blokuszero.protocols.gtp import GtpClient

ENGINE = [sys.executable, "-m", "blokuszero.engines.blokus"]
BLUE_FIRST = "a18,a19,a20,b20,c20"


def random_engine(seed: int = 0) -> BlokusGtpEngine:
    return BlokusGtpEngine(lambda s: RandomPlayer(s), seed)


def ask(engine: BlokusGtpEngine, line: str) -> tuple[bool, str]:
    answer = engine.answer(line)
    assert answer is not None and answer.endswith("\n\n") and answer[0] in "=?"
    return answer[0] == "=", answer[1:].strip()


def test_commands_are_listed():
    engine = random_engine()
    commands = set(ask(engine, "list_commands")[1].split("\n"))
    assert {"set_game", "cputime", "undo", "reg_genmove", "loadsgf", "savesgf", "g", "p",
            "get_place"} <= commands


def test_set_game_takes_pentobi_game_names():
    engine = random_engine()
    assert ask(engine, "p " + BLUE_FIRST) == (True, "")
    assert ask(engine, "set_game Blokus") == (True, "")  # clears the board
    assert ask(engine, "final_score") == (True, "0 0 0 0")


def test_cputime_is_the_process_cpu_time_and_grows():
    engine = random_engine()
    first = float(ask(engine, "cputime")[1])
    sum(i * i for i in range(300_000))  # burn some CPU
    assert float(ask(engine, "cputime")[1]) > first >= 0


def test_g_and_p_play_for_the_colour_to_move_and_undo_takes_back():
    engine = random_engine(5)
    empty_key = engine.state.key()
    assert ask(engine, "p " + BLUE_FIRST) == (True, "")
    after_blue = engine.state.key()
    ok, yellow = ask(engine, "g")
    assert ok and [c for c, _ in engine.state.history()] == [0, 1]
    assert engine.state.current_player() == 2
    assert ask(engine, "undo") == (True, "")
    assert engine.state.key() == after_blue and engine.state.current_player() == 1
    assert ask(engine, "undo") == (True, "")
    assert engine.state.key() == empty_key and engine.state.current_player() == 0
    assert ask(engine, "undo") == (False, "cannot undo: no move has been played")
    # an out-of-turn move is undone too, and its colour is to move again
    assert ask(engine, "play 3 t1") == (True, "") and engine.state.current_player() == 3
    assert ask(engine, "undo") == (True, "") and engine.state.current_player() == 2


def test_reg_genmove_chooses_without_playing():
    engine = random_engine(2)
    ok, move = ask(engine, "reg_genmove 1")
    assert ok and engine.state.history() == []
    assert move in ask(engine, "all_legal 1")[1].split("\n")
    assert ask(engine, "reg_genmove green")[0] and engine.state.history() == []


def test_g_and_p_at_the_end_of_the_game():
    engine = random_engine(1)
    for _ in range(84):  # 84 pieces at most
        ok, move = ask(engine, "g")
        assert ok
        if move == "pass":
            break
    assert engine.state.is_terminal()
    assert ask(engine, "p a1") == (False, "p: the game is over, no colour is to move")
    scores = [int(s) for s in ask(engine, "final_score")[1].split()]
    for colour in range(4):
        ok, place = ask(engine, f"get_place {colour + 1}")
        assert ok and int(place.split()[0]) == 1 + sum(s > scores[colour] for s in scores)
        assert place.endswith("shared") == (scores.count(scores[colour]) > 1)


@pytest.mark.parametrize("line, reason", [
    ("set_game Blokus Duo", "unsupported game variant 'Blokus Duo'"),
    ("set_game", "unsupported game variant ''"),
    ("cputime 1", "syntax error: cputime takes no arguments"),
    ("undo 1", "syntax error: undo takes no arguments"),
    ("g 1", "syntax error: g takes no arguments"),
    ("p", "syntax error: expected p <move>"),
    ("p a20 b20", "syntax error: expected p <move>"),
    ("p a1", "Yellow move a1 is illegal"),
    ("reg_genmove", "syntax error: expected reg_genmove <color>"),
    ("reg_genmove 5", "invalid color '5'"),
    ("get_place", "syntax error: expected get_place <color>"),
    ("loadsgf", "syntax error: expected loadsgf <file> [<move_number>]"),
    ("loadsgf /nonexistent/x.blksgf", "cannot read /nonexistent/x.blksgf"),
    ("loadsgf GAME 9", "the game has 3 moves, so no position before move 9"),
    ("loadsgf GAME x", "invalid move number 'x'"),
    ("loadsgf BAD", "not classic Blokus"),
    ("savesgf", "syntax error: expected savesgf <file>"),
    ("savesgf /nonexistent/x.blksgf", "cannot write /nonexistent/x.blksgf"),
])
def test_refusals_leave_the_game_as_it_was(tmp_path, line, reason):
    (tmp_path / "game.blksgf").write_text("(;GM[Blokus];1[a20];2[t20];3[t1])")
    (tmp_path / "bad.blksgf").write_text("(;GM[Blokus Duo];1[e10])")
    line = line.replace("GAME", str(tmp_path / "game.blksgf")).replace("BAD", str(tmp_path / "bad.blksgf"))
    engine = random_engine()
    assert ask(engine, "p " + BLUE_FIRST) == (True, "")
    before = ask(engine, "showboard")
    ok, text = ask(engine, line)
    assert not ok and reason in text
    assert ask(engine, "showboard") == before
    assert ask(engine, "undo") == (True, "")  # the history is intact too


def test_loadsgf_savesgf_round_trip_with_move_number_and_setup(tmp_path):
    game = tmp_path / "game.blksgf"
    game.write_text("(;GM[Blokus]A2[t20][s19,r19]A4[a1]PL[3];3[t1];4[b2,c2])")
    engine = random_engine()
    assert ask(engine, f"loadsgf {game}") == (True, "")
    assert engine.state.key() == read_sgf(game.read_text()).key()
    assert ask(engine, f"loadsgf {game} 2") == (True, "")  # before move 2: Green's b2,c2 not yet played
    assert [(c, engine.state.action_to_string(m)) for c, m in engine.state.history()][-1] == (2, "t1")
    assert engine.state.current_player() == 3
    assert ask(engine, "undo") == (True, "")  # Red's t1 goes; the set-up stays
    assert engine.state.current_player() == 2
    assert ask(engine, "undo") == (False, "cannot undo: no move has been played since the loaded "
                                         "set-up position")
    assert ask(engine, "play 3 t1") == (True, "") and ask(engine, "play 4 b2,c2") == (True, "")
    saved = tmp_path / "saved.blksgf"
    assert ask(engine, f"savesgf {saved}") == (True, "")
    text = saved.read_text()
    assert text.startswith("(;GM[Blokus]") and "A2[t20][r19,s19]A4[a1]PL[3]" in text
    again = random_engine()
    assert ask(again, f"loadsgf {saved}") == (True, "")
    assert again.state.key() == engine.state.key() and again.state.history() == engine.state.history()
    assert ask(again, f"loadsgf {saved} 1") == (True, "")
    assert len(again.state.history()) == 3 and again.state.current_player() == 2


class TwoGtp:
    """Pentobi's ``twogtp`` controller, command for command (twogtp/TwoGtp.cpp of Pentobi 30):
    ``set_game Blokus`` to both engines, then per game ``clear_board`` and ``cputime`` to both,
    ``genmove <1-4>`` to the engine whose colour is to move and ``play`` of the answer to the
    other, ``cputime`` to both at the end, and ``quit``. It keeps its own board as referee."""

    def __init__(self, black: GtpClient, white: GtpClient) -> None:
        self.engines = (black, white)
        self.transcript: list[tuple[int, str, str]] = []

    def send(self, engine: int, command: str) -> str:
        answer = self.engines[engine].send(command)
        self.transcript.append((engine, command, answer))
        return answer

    def send_both(self, command: str) -> list[str]:
        return [self.send(0, command), self.send(1, command)]

    def play_game(self, game_number: int) -> tuple[BlokusState, list[float]]:
        self.send_both("clear_board")
        start = [float(t) for t in self.send_both("cputime")]
        board = BlokusState()
        black_colour = game_number % 4  # the black engine plays one colour, white the other three
        while not board.is_terminal():
            colour = board.current_player()
            mover = 0 if colour == black_colour else 1
            answer = self.send(mover, f"genmove {colour + 1}")
            move = board.string_to_action(answer)  # raises on "pass" or a bad move, as twogtp does
            board.apply_action(move)
            self.send(1 - mover, f"play {colour + 1} {answer}")
        used = [float(t) - s for t, s in zip(self.send_both("cputime"), start)]
        return board, used


def test_twogtp_session_drives_two_engine_subprocesses():
    with GtpClient([*ENGINE, "--preset", "random", "--seed", "1"]) as black, \
            GtpClient([*ENGINE, "--simulations", "2", "--seed", "2"]) as white:
        twogtp = TwoGtp(black, white)
        twogtp.send_both("set_game Blokus")
        for game_number in (0, 1):
            board, used = twogtp.play_game(game_number)
            assert all(u >= 0 for u in used)
            expected = " ".join(str(int(s) + 89) for s in board.scores())
            assert twogtp.send_both("final_score") == [expected, expected]
            # each engine's board is the referee's: the same moves in the same order
            for engine in (black, white):
                assert engine.send("all_legal 1") == ""
        commands = [c for e, c, _ in twogtp.transcript if e == 0]
        assert commands[:3] == ["set_game Blokus", "clear_board", "cputime"]
        assert sum(c.startswith("genmove 1") for c in commands) > 5  # game 0: black plays Blue
        assert any(c.startswith("genmove 2") for c in commands)  # game 1: black plays Yellow
        twogtp.send_both("quit")
