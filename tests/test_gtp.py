"""The Blokus GTP engine (Pentobi's dialect) and the GTP player: wire format, conformance as a
subprocess, errors that leave the game untouched, fuzzing, an arena seat played over GTP; the
commands Pentobi's controllers send (set_game, cputime, undo, reg_genmove, loadsgf/savesgf, g/p,
get_place) and a whole game driven as Pentobi's ``twogtp`` drives two engines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blokuszero.engines.blokus import BlokusGtpEngine
from blokuszero.games.blokus import BlokusState
from blokuszero.games.blokus.sgf import read_sgf
from blokuszero.match.arena import Match
from blokuszero.match.runner import run_match
from blokuszero.protocols.gtp import GtpClient, GtpError, format_response, parse_command

ENGINE = [sys.executable, "-m", "blokuszero.engines.blokus"]
BLUE_FIRST = "a18,a19,a20,b20,c20"


def test_parse_command_ids_comments_and_control_characters():
    assert parse_command("12 play 1 a1 # comment") == ("12", "play", ["1", "a1"])
    assert parse_command("\tgenmove\x01  blue\r") == ("", "genmove", ["blue"])
    assert parse_command("   # only a comment") is None
    assert parse_command("² name") == ("", "²", ["name"])  # an id is ASCII digits only
    assert parse_command("") is None
    assert parse_command("7") == ("7", "", [])


def test_format_response():
    # the space is always there, as Pentobi's twogtp demands ("= " or "? " starts an answer)
    assert format_response("", True, "") == "= \n\n"
    assert format_response("3", False, "bad") == "?3 bad\n\n"
    # blank lines would end the answer early; a leading newline puts a board on its own lines
    assert format_response("", True, "\nrow 2\n\nrow 1\n") == "= \nrow 2\nrow 1\n\n"


def random_engine(seed: int = 0) -> BlokusGtpEngine:
    return BlokusGtpEngine({"preset": "random"}, seed)


def ask(engine: BlokusGtpEngine, line: str) -> tuple[bool, str]:
    answer = engine.answer(line)
    assert answer is not None and answer.endswith("\n\n") and answer[0] in "=?"
    return answer[0] == "=", answer[1:].strip()


@pytest.mark.parametrize("line, reason", [
    ("play 1 a1", "does not touch a piece of the same colour corner to corner"),
    ("play 1 a20,b20,c19", "not the shape of any Blokus piece"),
    ("play 1 z9", "not a square"),
    ("play 0 a20", "invalid color '0'"),
    ("play purple a20", "invalid color 'purple'"),
    ("play 1", "syntax error: expected play <color> <move>"),
    ("play 1 a20 b20", "syntax error: expected play <color> <move>"),
    ("play 1 pass", "cannot pass: it has legal moves"),
    ("play 2 a20", "covers an occupied square"),
    ("play 2 a19", "corner"),
    ("genmove", "syntax error: expected genmove <color>"),
    ("clear_board x", "syntax error: clear_board takes no arguments"),
    ("final_score extra", "syntax error: final_score takes no arguments"),
    ("name x", "syntax error: name takes no arguments"),
    ("protocol_version 2", "syntax error: protocol_version takes no arguments"),
    ("known_command", "syntax error: expected known_command COMMAND"),
    ("all_legal 9", "invalid color"),
    ("set_random_seed -3", "invalid seed"),
    ("undo_everything", "unknown command: undo_everything"),
])
def test_bad_commands_are_refused_with_a_reason_and_change_nothing(line, reason):
    engine = random_engine()
    assert ask(engine, "play blue a20,b20,c20,d20,e20") == (True, "")
    before = ask(engine, "showboard")
    ok, text = ask(engine, line)
    assert not ok and reason in text
    assert ask(engine, "showboard") == before
    assert ask(engine, "name") == (True, "BlokusZero")


def test_standard_commands():
    engine = random_engine()
    assert ask(engine, "protocol_version") == (True, "2")
    assert ask(engine, "known_command genmove") == (True, "true")
    assert ask(engine, "known_command kgs-genmove_cleanup") == (True, "false")
    commands = ask(engine, "list_commands")[1].split("\n")
    assert {"all_legal", "clear_board", "final_score", "genmove", "known_command", "list_commands",
            "name", "play", "protocol_version", "quit", "set_random_seed", "showboard",
            "version"} <= set(commands)
    legal = ask(engine, "all_legal 1")[1].split("\n")
    assert len(legal) == 58 and "a20" in legal
    assert ask(engine, "final_score") == (True, "0 0 0 0")  # points = squares on the board + bonuses
    assert ask(engine, "play red t1") == (True, "")  # any colour may play, as in Pentobi
    assert ask(engine, "final_score") == (True, "0 0 1 0")
    assert engine.answer("5 clear_board") == "=5 \n\n"  # the id comes back
    assert ask(engine, "final_score") == (True, "0 0 0 0")
    assert ask(engine, "quit") == (True, "") and engine.finished


def test_seeded_engine_repeats_its_moves():
    def moves(seed_command: str) -> list[str]:
        engine = random_engine(seed=1)
        ask(engine, seed_command)
        return [ask(engine, f"genmove {c}")[1] for c in (1, 2, 3, 4, 1, 2)]

    assert moves("set_random_seed 5") == moves("set_random_seed 5") != moves("set_random_seed 6")


def play_through(client: GtpClient) -> list[tuple[int, str]]:
    """genmove for each colour in turn until all four pass; the moves played."""
    moves, passes, colour = [], 0, 0
    while passes < 4:
        answer = client.send(f"genmove {colour + 1}")
        passes = passes + 1 if answer == "pass" else 0
        if answer != "pass":
            moves.append((colour, answer))
        colour = (colour + 1) % 4
    return moves


def test_full_game_through_the_engine_as_a_subprocess():
    with GtpClient([*ENGINE, "--simulations", "4", "--seed", "3"]) as client:
        assert client.send("name") == "BlokusZero"
        with pytest.raises(GtpError, match="rejected 'play 1 a1'.*starting corner"):
            client.send("play 1 a1")
        with pytest.raises(GtpError, match="unknown command"):
            client.send("frobnicate")
        moves = play_through(client)
        state = BlokusState()
        for colour, text in moves:
            assert state.current_player() == colour
            state.apply_action(state.string_to_action(text))
        assert state.is_terminal() and len(moves) > 40
        assert client.send("final_score") == " ".join(str(int(s) + 89) for s in state.scores())
        board = client.send("showboard")
        assert str(state).split("\n")[0] in board and "game over" in board
        assert client.send("genmove blue") == "pass"
        with pytest.raises(GtpError, match="illegal"):
            client.send("play 1 t20")
        assert client.send("showboard") == board  # refused moves left the game as it was


@pytest.mark.slow  # 15-18 s in CI's default run; .ci/run runs it in its slow line
def test_command_line_help_and_bad_options():
    help_text = subprocess.run([*ENGINE, "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--checkpoint", "--simulations", "--preset", "--set", "--seed", "genmove <color>"):
        assert option in help_text
    for args, message in [(["--checkpoint", "missing.pt"], "checkpoint missing.pt does not exist"),
                          (["--set", "simulation=5"], "unknown option(s) ['simulation']"),
                          # before: a 21-line TypeError traceback
                          (["--set", "simulations=abc"],
                           "blokuszero-gtp: error: --set simulations must be int, not 'abc'\n"),
                          (["--simulations", "-5"], "blokuszero-gtp: error: --simulations must be >= 0, not -5\n"),
                          (["--time", "0"], "blokuszero-gtp: error: --time must be > 0, not 0.0\n"),
                          (["--threads", "0"], "blokuszero-gtp: error: --threads must be >= 1, not 0\n"),
                          (["--preset", "alphago"], "invalid choice")]:
        done = subprocess.run([*ENGINE, *args], capture_output=True, text=True, input="name\n")
        assert done.returncode != 0 and message in done.stderr and done.stdout == ""
        assert done.stderr.count("\n") == 1, done.stderr  # one line


def test_client_reports_an_engine_that_dies():
    with pytest.raises(ValueError, match="cannot start GTP engine"):
        GtpClient("/nonexistent/engine")
    client = GtpClient([sys.executable, "-c", "import sys; print('boom', file=sys.stderr)"])
    with pytest.raises(GtpError, match="(?s)(ended while answering 'name'|is not running).*boom"):
        client.send("name")
    client.close()


_WORDS = ["play", "genmove", "all_legal", "final_score", "showboard", "clear_board", "set_random_seed",
          "known_command", "1", "4", "blue", "green", "pass", "a20", "t1", "a20,b20", "a1,a2,a3",
          "-1", "99999999999999999999", "#", "\x00", "é", ",", "quit"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.lists(st.sampled_from(_WORDS), max_size=4).map(" ".join), st.text(max_size=30)),
                max_size=12))
def test_fuzzed_input_never_crashes_the_engine_and_refusals_change_nothing(lines):
    engine = random_engine()
    ask(engine, "play 1 a20,b20,c20,d20,e20")
    for line in lines:
        if parse_command(line) is None:
            assert engine.answer(line) is None
            continue
        before = engine.state.history()
        answer = engine.answer(line)
        assert answer[0] in "=?" and answer.endswith("\n\n") and "\n\n" not in answer[:-2]
        if answer[0] == "?":
            assert engine.state.history() == before
        engine.finished = False  # a fuzzed quit ends the loop, not the engine object


def test_arena_seat_played_by_an_external_gtp_engine(tmp_path):
    command = " ".join([*ENGINE, "--simulations", "10"])
    match = Match("blokus", ["gtp", "random", "random", "random"],
                  {"gtp": {"kind": "gtp", "command": command}, "random": {"preset": "random"}},
                  random_opening_moves=4)
    first = run_match(match, games=2, seed=0, out_dir=tmp_path / "a", progress=False)
    second = run_match(match, games=2, seed=0, out_dir=tmp_path / "b", progress=False)
    def untimed(run: str) -> list[dict]:
        lines = (tmp_path / run / "games.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if "seconds" not in k} for line in lines]

    records = untimed("a")
    assert first["players"]["gtp"]["games"] == 2
    # the engine is seeded through set_random_seed, so the same match plays the same games
    assert records == untimed("b") and first["seeds"] == second["seeds"]
    for r in records:
        state = read_sgf((tmp_path / "a" / "games" / f"game_{r['index']:05d}.blksgf").read_text())
        assert state.scores().tolist() == r["scores"]
        assert sum(1 for p, _ in r["moves"] if r["seating"][p] == "gtp") > 10


def test_commands_are_listed():
    engine = random_engine()
    commands = set(ask(engine, "list_commands")[1].split("\n"))
    assert {"set_game", "cputime", "undo", "reg_genmove", "loadsgf", "savesgf", "g", "p",
            "get_place", "get_value", "param", "param_base"} <= commands


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


def test_cputime_answers_the_players_clock_exactly(monkeypatch):
    """``cputime`` reads the clock the players' time budget is measured on: on a clock that
    reads 0, 1, 2, ..., a move with a budget of 30 costs exactly its 31 readings (the deadline's,
    29 that let a simulation run, the one past the deadline) and ``cputime``'s own."""
    import itertools

    from blokuszero.search import time_manager

    ticks = itertools.count()
    monkeypatch.setattr(time_manager, "CPU_CLOCK", lambda: float(next(ticks)))
    engine = BlokusGtpEngine({"preset": "alphazero", "simulations": 1000, "time_limit": 30}, seed=0)
    assert ask(engine, "cputime") == (True, "0.000")
    assert ask(engine, "genmove blue")[0] and engine.player.last_result.simulations == 29
    assert ask(engine, "cputime") == (True, "32.000")


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
    ("get_value", "no search value"),
    ("get_value 1", "syntax error: get_value takes no arguments"),
    ("param use_book", "syntax error: expected param [<key> <value>]"),
    ("param use_book 1", "use_book 1: this engine has no opening book"),
    ("param use_book yes", "invalid value 'yes' for use_book: expected 0 or 1"),
    ("param avoid_symmetric_draw 2", "invalid value '2' for avoid_symmetric_draw"),
    ("param fixed_simulations 10", "unknown parameter 'fixed_simulations' for a random player"),
    ("param_base accept_illegal 1", "this engine refuses moves against the rules"),
    ("param_base resign maybe", "invalid value 'maybe' for resign"),
    ("param_base komi 7", "unknown parameter 'komi'; known: accept_illegal, resign"),
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
            # Each engine's clock moved over a whole game of move generation (its exact
            # readings: test_cputime_answers_the_players_clock_exactly).
            assert min(used) > 0
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


def test_param_lists_and_sets_the_players_options_and_pentobis():
    engine = BlokusGtpEngine({"preset": "mcts_maxn", "simulations": 30}, seed=3)
    listed = dict(line.split(" ", 1) for line in ask(engine, "param")[1].split("\n"))
    assert listed["fixed_simulations"] == listed["simulations"] == "30"
    assert listed["use_book"] == "0" and listed["avoid_symmetric_draw"] == "1"
    assert listed["tree"] == "maxn" and listed["c"] == "0.2" and "kind" not in listed
    assert ask(engine, "p " + BLUE_FIRST) == (True, "")
    # a new value rebuilds the player, which is told the game so far
    assert ask(engine, "param fixed_simulations 12") == (True, "")
    assert ask(engine, "param c 0.3") == (True, "")
    assert engine.player.mcts.config.simulations == 12 and engine.state.history()[0][0] == 0
    assert ask(engine, "g")[0] and engine.player.last_result.simulations == 12
    assert "simulations 12" in ask(engine, "param")[1] and "c 0.3" in ask(engine, "param")[1]
    assert ask(engine, "param use_book 0") == (True, "")
    assert ask(engine, "param avoid_symmetric_draw 0") == (True, "")
    assert "avoid_symmetric_draw 0" in ask(engine, "param")[1]
    before = ask(engine, "param")
    for line, reason in [("param simulations -3", "simulations must be >= 0"),
                         ("param tree bogus", "tree must be one of ['brs', 'maxn', 'paranoid'], not 'bogus'"),
                         ("param kind random", "unknown parameter 'kind'"),
                         ("param frobnicate 1", "unknown parameter 'frobnicate' for a mcts player; "
                                                "known: avoid_symmetric_draw, use_book, fixed_simulations")]:
        ok, text = ask(engine, line)
        assert not ok and reason in text, (line, text)
    assert ask(engine, "param") == before
    assert ask(engine, "param_base") == (True, "accept_illegal 0\nresign 1")
    assert ask(engine, "param_base resign 0") == (True, "")
    assert ask(engine, "param_base accept_illegal 0") == (True, "")
    assert ask(engine, "param_base") == (True, "accept_illegal 0\nresign 0")


def test_get_value_is_the_last_searchs_root_value_for_its_colour():
    engine = BlokusGtpEngine({"preset": "mcts_maxn", "simulations": 40}, seed=1)
    assert ask(engine, "get_value") == (False, "no search value: get_value follows a genmove or "
                                                "reg_genmove answered by a search (this engine's player is 'mcts')")
    for command, colour in [("genmove 1", 0), ("reg_genmove 3", 2), ("g", 1)]:
        assert ask(engine, command)[0]
        ok, value = ask(engine, "get_value")
        # MCTS-MaxN's playouts score 1 for a win (or a shared first place), 0 for a loss
        assert ok and float(value) == pytest.approx(engine.player.last_result.root_value[colour], abs=1e-4)
        assert 0 < float(value) < 1
    ask(engine, "set_random_seed 2")  # a new player has searched nothing yet
    assert not ask(engine, "get_value")[0]
    # a network's values lie in -1..1: mapped onto 0..1
    net = BlokusGtpEngine({"preset": "alphazero", "simulations": 8}, seed=1)
    assert ask(net, "genmove 1")[0]
    root = net.player.last_result.root_value[0]
    assert float(ask(net, "get_value")[1]) == pytest.approx((root + 1) / 2, abs=1e-4)
    assert not ask(random_engine(), "get_value")[0]


TWOGTP_GAME = Path(__file__).parent / "data" / "twogtp_pentobi"


def read_transcript(path: Path) -> list[tuple[str, str, list[str]]]:
    """(engine letter, command, answer lines) of each exchange of a twogtp log."""
    exchanges: list[tuple[str, str, list[str]]] = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        who, arrow, text = line[0], line[1:3], line[4:]
        if arrow == ">>":
            exchanges.append((who, text, []))
        else:
            assert arrow == "<<" and exchanges[-1][0] == who, line
            exchanges[-1][2].append(text)
    return exchanges


def test_recorded_twogtp_game_against_pentobi_replays_over_gtp():
    """The whole game Pentobi's twogtp played between our engine (Blue) and pentobi-gtp (level 1),
    replayed command for command against the engine as a subprocess, as twogtp ran it. Every
    answer must be the recorded one, except cputime (a number that grows) and genmove, which must
    be a legal move of its colour: where the seeded search chose another move (the search has
    changed since the recording), the engine takes it back and plays the recorded one, so that
    the rest of the record still applies. Pentobi's score of the game must be ours."""
    exchanges = read_transcript(TWOGTP_GAME / "transcript.txt")
    ours = [(command, answer) for who, command, answer in exchanges if who == "B"]
    assert ours[0][0] == "set_game Blokus" and ours[-1][0] == "quit"
    assert sum(command.startswith("genmove 1") for command, _ in ours) > 10
    referee, cputime = BlokusState(), 0.0
    with GtpClient([*ENGINE, "--seed", "1"]) as engine:
        for command, answer in ours[:-1]:
            assert answer[0][:2] == "= "  # twogtp demands "= " (with the space): every answer passed
            expected = "\n".join([answer[0][2:], *answer[1:]]).strip()
            got = engine.send(command)
            name, *args = command.split()
            if name == "cputime":
                assert float(got) >= cputime
                cputime = float(got)
            elif name == "genmove":
                colour = int(args[0]) - 1
                assert colour == referee.current_player()
                assert referee.string_to_action(got) in referee.legal_actions(colour), got
                if got != expected:
                    engine.send("undo")
                    engine.send(f"play {args[0]} {expected}")
                referee.apply_action(referee.string_to_action(expected))
            else:
                assert got == expected, (command, got, expected)
                if name == "play":
                    referee.apply_action(referee.string_to_action(args[1]))
        assert referee.is_terminal()
        pentobi = dict((command, answer) for who, command, answer in exchanges if who == "P")
        assert pentobi["loadsgf game.blksgf"] == ["= "]
        assert engine.send("final_score") == pentobi["final_score"][0][2:].strip()  # "56 68 63 69"
        assert engine.send(f"loadsgf {TWOGTP_GAME / 'game.blksgf'}") == ""
        assert engine.send("final_score") == pentobi["final_score"][0][2:].strip()
        assert engine.send("all_legal 1") == engine.send("all_legal 4") == ""


def test_an_engine_named_on_path_starts_by_its_full_path(tmp_path, monkeypatch):
    # Pentobi finds its opening books beside argv[0]: a bare name would leave it without them.
    from blokuszero.players.gtp_player import engine_argv

    program = tmp_path / "bin" / "some-engine"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}:/usr/bin:/bin")
    assert engine_argv("some-engine --level 3") == [str(program), "--level", "3"]
    assert engine_argv(f"{program} --quiet") == [str(program), "--quiet"]
    assert engine_argv("python -m x") == [sys.executable, "-m", "x"]
    assert engine_argv("not-installed-anywhere") == ["not-installed-anywhere"]
