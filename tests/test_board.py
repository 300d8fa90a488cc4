"""The web board over real HTTP on 127.0.0.1: play, undo, records, analysis, Pentobi SGF, and
every kind of bad request answered with one clear line while the server keeps serving."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from board_server import BoardServer

from blokuszero.games.blokus import tables as T
from blokuszero.games.blokus.game import BlokusState
from blokuszero.games.blokus.notation import placement_to_string, string_to_placement
from blokuszero.games.blokus.sgf import read_sgf
from blokuszero.games.sgf import read_main_line
from blokuszero.match.arena import Match, play_game

DATA = Path(__file__).parent / "data"
PENTOBI_GAME = DATA / "twogtp_pentobi" / "game.blksgf"
#: pentobi-gtp's final_score of that game (twogtp_pentobi/transcript.txt): points, 89 more than our scores.
PENTOBI_POINTS = [56, 68, 63, 69]
#: The root properties Pentobi reads (libpentobi_base/PentobiTree.cpp, libboardgame_base/SgfTree.h).
PENTOBI_ROOT = {"GM", "FF", "CA", "AP", "DT", "EV", "GN", "GC", "PL", "P1", "P2", "P3", "P4",
                "A1", "A2", "A3", "A4", "RE"}


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    """A record folder: Pentobi's game, an arena log of two random games, and a file beside it
    (outside the folder) that the board must not open."""
    root = tmp_path_factory.mktemp("board")
    folder = root / "records"
    (folder / "arena").mkdir(parents=True)
    (folder / "pentobi.blksgf").write_text(PENTOBI_GAME.read_text())
    match = Match("blokus", ["random"] * 4, {"random": {"kind": "random"}})
    lines = [json.dumps(play_game(match, i, 100 + i)) for i in range(2)]
    (folder / "arena" / "games.jsonl").write_text("\n".join(lines) + "\n")
    (root / "secret.blksgf").write_text(PENTOBI_GAME.read_text())
    (folder / "link.blksgf").symlink_to(root / "secret.blksgf")
    return folder


@pytest.fixture(scope="module")
def board(records):
    engine = "engine={kind: gtp, command: python -m blokuszero.engines.blokus --preset random}"
    server = BoardServer(["--player", "rnd=random", "--player", "maxn={preset: mcts_maxn, simulations: 60}",
                          "--player", engine,
                          "--seats", "you,rnd,rnd,rnd", "--analysis", "maxn", "--records", str(records)])
    yield server
    server.close()


def _new(board, seats):
    status, view = board.post("/api/new", {"seats": seats})
    assert status == 200, view
    return view


def test_says_it_serves_loopback_only(board):
    assert board.url.startswith("http://127.0.0.1:")
    assert "this machine only" in board.banner


@pytest.mark.parametrize("headers", [{"Host": "evil.example:8040"}, {"Origin": "http://evil.example"},
                                     {"Host": "rebound.example", "Origin": "http://rebound.example"}])
def test_requests_for_other_hosts_or_from_other_sites_are_refused(board, headers):
    """A web site in the same browser cannot drive the board or read records through DNS rebinding."""
    for path, data in [("/api/records", None), ("/api/new", b"{}")]:
        status, answer = board.request(path, data, headers)
        assert status == 403 and "serves this machine only" in answer["error"], answer
    port = board.url.rsplit(":", 1)[1]
    status, _ = board.request("/api/new", b"{}", {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"})
    assert status == 200


def test_page_and_scripts_are_served(board):
    status, page = board.get("/")
    assert status == 200 and "board.js" in page
    status, script = board.get("/static/board.js")
    assert status == 200 and "/api/move" in script


def test_a_person_plays_the_players_answer_and_undo_takes_both_back(board):
    view = _new(board, ["you", "rnd", "rnd", "rnd"])
    assert view["to_move"] == 0 and view["waiting_for"] == "you" and view["scores"] == [-89] * 4
    status, view = board.post("/api/move", {"colour": 0, "move": "a20,b20,a19"})
    assert status == 200 and view["to_move"] == 1
    assert sorted(view["last_move"]["squares"]) == [[0, 18], [0, 19], [1, 19]]
    for ply in (1, 2, 3):
        status, view = board.post("/api/player_move", {"ply": ply})
        assert status == 200 and view["ply"] == ply + 1
    assert view["waiting_for"] == "you" and view["remaining"][0].count("V3") == 0
    state = BlokusState()
    for move in view["moves"]:
        state.apply_action(string_to_placement(move["move"]))
    assert view["scores"] == state.scores().tolist()
    status, view = board.post("/api/undo")
    assert status == 200 and view["ply"] == 0 and view["to_move"] == 0


def test_a_stale_player_request_changes_nothing(board):
    _new(board, ["you", "rnd", "rnd", "rnd"])
    board.post("/api/move", {"colour": 0, "move": "a20"})
    status, view = board.post("/api/player_move", {"ply": 0})
    assert status == 200 and view["ply"] == 1


@pytest.mark.parametrize("body, reason", [
    ({"colour": 0, "move": "b19"}, "does not cover the colour's starting corner"),
    ({"colour": 1, "move": "t20"}, "it is Blue's turn, not Yellow's"),
    ({"colour": 0, "move": "a20,c20"}, "is not the shape of any Blokus piece"),
    ({"colour": 0, "move": "z99"}, "is not a square of the 20x20 board"),
    ({"colour": 7, "move": "a20"}, "colour 7 is not one of 0-3"),
    ({"colour": "0", "move": "a20"}, "field 'colour' must be an integer"),
    ({"colour": 0}, "field 'move' must be a move in Pentobi notation"),
])
def test_bad_moves_are_refused_with_the_rules_reason(board, body, reason):
    _new(board, ["you", "rnd", "rnd", "rnd"])
    status, answer = board.post("/api/move", body)
    assert status == 400 and reason in answer["error"], answer
    assert board.get("/api/game")[1]["ply"] == 0


def test_a_move_on_a_players_seat_is_refused(board):
    _new(board, ["rnd", "you", "rnd", "rnd"])
    status, answer = board.post("/api/move", {"colour": 0, "move": "a20"})
    assert status == 400 and "Blue is played by 'rnd', not from the page" in answer["error"]
    status, answer = board.post("/api/player_move", {"ply": 0})
    assert status == 200 and answer["ply"] == 1
    status, answer = board.post("/api/player_move", {"ply": 1})  # the person is to move: nothing happens
    assert status == 200 and answer["ply"] == 1 and answer["waiting_for"] == "you"


@pytest.mark.parametrize("path, body, reason", [
    ("/api/new", {"seats": ["you", "mcts_brs", "rnd", "rnd"]}, "unknown player 'mcts_brs'"),
    ("/api/new", {"seats": ["you", "rnd"]}, "one per colour"),
    ("/api/new", {"seats": ["you", "rnd", "rnd", "rnd"], "command": "rm -rf /"}, "cannot start programs"),
    ("/api/new", {"preset": "mcts_maxn"}, "cannot start programs"),
    ("/api/move", {"colour": 0, "move": "a20", "engine": "pentobi-gtp"}, "cannot start programs"),
    ("/api/analyse", {"depth": 3}, "unknown field 'depth'"),
    ("/api/records/play", {"file": "0/../../secret.blksgf"}, "outside the record folders"),
])
def test_requests_naming_programs_players_or_paths_are_refused(board, path, body, reason):
    status, answer = board.post(path, body)
    assert status == 400 and reason in answer["error"], answer


@pytest.mark.parametrize("raw, status_code, reason", [
    (b'{"colour": 0, "move"', 400, "the request body is not JSON"),
    (b"[1, 2]", 400, "must be a JSON object"),
    (b"x" * 300_000, 413, "over the board's limit"),
])
def test_malformed_and_oversized_requests(board, raw, status_code, reason):
    status, answer = board.post("/api/move", raw=raw)
    assert status == status_code and reason in answer["error"], answer
    assert board.get("/api/game")[0] == 200  # still serving


@pytest.mark.parametrize("raw, reason", [
    (b"(;GM[Blokus];1[a20];2[a1])", "Yellow move a1 is illegal"),
    (b"(;GM[Blokus Duo];1[a20])", "is not classic Blokus"),
    (b"(;GM[Blokus];1[a20]", "the game tree is not closed"),
    (b"no game here", "SGF has no game tree"),
    (b"(;GM[Blokus];1[a20\xff])", "not UTF-8"),
    (b"(" + b";1[a20]" * 40_000 + b")", "over the board's limit"),
])
def test_bad_sgf_uploads_are_refused(board, raw, reason):
    _new(board, ["you", "rnd", "rnd", "rnd"])
    status, answer = board.post("/api/load", raw=raw)
    assert status in (400, 413) and reason in answer["error"], answer
    assert board.get("/api/game")[1]["ply"] == 0


def test_a_pentobi_game_loads_and_saves_as_pentobi_wrote_it(board):
    """The saved file has the properties Pentobi reads: GM[Blokus], UTF-8, players, and the same
    move nodes (one colour property each, squares in Pentobi's order) as Pentobi's own record."""
    _new(board, ["you", "rnd", "rnd", "rnd"])
    status, view = board.post("/api/load", raw=PENTOBI_GAME.read_bytes())
    assert status == 200 and view["over"]
    assert [s + 89 for s in view["scores"]] == PENTOBI_POINTS
    status, saved = board.get("/api/save")
    assert status == 200
    ours, theirs = read_main_line(saved), read_main_line(PENTOBI_GAME.read_text())
    assert ours[0]["GM"] == theirs[0]["GM"] == ["Blokus"]
    assert ours[0]["CA"] == ["UTF-8"] and set(ours[0]) <= PENTOBI_ROOT
    assert [ours[0][f"P{c}"] for c in range(1, 5)] == [["person"], ["rnd"], ["rnd"], ["rnd"]]
    assert ours[1:] == theirs[1:]
    assert np.array_equal(read_sgf(saved).board(), read_sgf(PENTOBI_GAME.read_text()).board())


def test_a_set_up_position_round_trips(board):
    text = "(;GM[Blokus]CA[UTF-8]A1[a20][b19,c19]A3[t1]PL[2];2[t20];3[s2,r2])"
    status, view = board.post("/api/load", raw=text.encode())
    assert status == 200 and view["ply"] == 2 and view["to_move"] == 3
    status, saved = board.get("/api/save")
    root = read_main_line(saved)[0]
    assert root["A1"] == ["a20", "b19,c19"] and root["A3"] == ["t1"] and root["PL"] == ["2"]
    status, view = board.post("/api/undo")
    assert view["ply"] == 0 and view["to_move"] == 1  # undo stops at the set-up


def test_records_are_listed_and_stepped_through(board, records):
    status, files = board.get("/api/records")
    ids = [f["id"] for f in files]
    assert status == 200 and ids == ["0/arena/games.jsonl", "0/pentobi.blksgf"]  # the link leads outside
    status, games = board.get("/api/records/games?file=0/arena/games.jsonl")
    assert [g["index"] for g in games] == [0, 1]
    line = json.loads((records / "arena" / "games.jsonl").read_text().splitlines()[1])
    status, start = board.get("/api/records/view?file=0/arena/games.jsonl&game=1&ply=0")
    assert status == 200 and start["ply"] == 0 and start["players"] == line["seating"]
    status, end = board.get(f"/api/records/view?file=0/arena/games.jsonl&game=1&ply={start['length']}")
    assert end["over"] and end["scores"] == line["scores"]
    status, middle = board.get("/api/records/view?file=0/pentobi.blksgf&ply=5")
    first = read_main_line(PENTOBI_GAME.read_text())[5]["1"][0]
    assert middle["last_move"]["colour"] == 0 and middle["moves"][4]["move"] == first


@pytest.mark.parametrize("query, reason", [
    ("file=0/../../secret.blksgf", "outside the record folders"),
    ("file=0/link.blksgf", "outside the record folders"),
    ("file=/etc/passwd", "is not FOLDER/PATH"),
    ("file=3/pentobi.blksgf", "is not FOLDER/PATH"),
    ("file=0/missing.blksgf", "does not exist"),
    ("file=0/arena", "is not a game record"),
    ("file=0/pentobi.blksgf&ply=500", "it has moves 0.."),
    ("file=0/arena/games.jsonl&game=9", "the log has games 0..1"),
    ("file=0/pentobi.blksgf&ply=x", "must be integers"),
    ("file=0/pentobi.blksgf&command=ls", "unknown parameter"),
])
def test_bad_record_requests_are_refused(board, query, reason):
    status, answer = board.get(f"/api/records/view?{query}")
    assert status == 400 and reason in answer["error"], answer


def test_play_on_from_a_record(board):
    status, view = board.post("/api/records/play", {"file": "0/pentobi.blksgf", "ply": 8})
    assert status == 200 and view["ply"] == 8 and view["to_move"] == 0 and view["waiting_for"] == "you"


def test_analysis_gives_the_searchs_top_moves(board):
    _new(board, ["you", "rnd", "rnd", "rnd"])
    board.post("/api/move", {"colour": 0, "move": "a20,b20,a19"})
    status, answer = board.post("/api/analyse")
    assert status == 200 and answer["colour"] == 1 and answer["simulations"] == 60
    moves = answer["moves"]
    state = BlokusState()
    state.apply_action(string_to_placement("a20,b20,a19"))
    legal = {placement_to_string(m) for m in state.legal_actions()}
    assert moves and all(m["move"] in legal for m in moves)
    visits = [m["visits"] for m in moves]
    assert visits == sorted(visits, reverse=True) and sum(m["share"] for m in moves) <= 1 + 1e-9
    status, answer = board.post("/api/analyse", {"file": "0/pentobi.blksgf", "ply": 3})
    assert status == 200 and answer["colour"] == 3


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_a_vanished_engine_is_reported_and_restarted(board):
    _new(board, ["you", "engine", "rnd", "rnd"])
    board.post("/api/move", {"colour": 0, "move": "a20"})
    status, view = board.post("/api/player_move", {"ply": 1})
    assert status == 200 and view["ply"] == 2
    engines = _children(board.process.pid)
    assert len(engines) == 1
    board.post("/api/player_move", {"ply": 2})
    board.post("/api/player_move", {"ply": 3})
    board.post("/api/move", {"colour": 0, "move": next(_legal_move(board))})
    os.kill(engines[0], signal.SIGKILL)
    time.sleep(0.5)
    status, answer = board.post("/api/player_move", {"ply": 5})
    assert status == 502 and "Yellow's player 'engine' failed" in answer["error"], answer
    assert "is not running" in answer["error"] or "ended" in answer["error"]
    status, view = board.post("/api/player_move", {"ply": 5})  # a new engine, told the game so far
    assert status == 200 and view["ply"] == 6
    restarted = _children(board.process.pid)
    assert len(restarted) == 1 and restarted != engines
    _new(board, ["you", "rnd", "rnd", "rnd"])  # the engine is no longer seated: it ends
    time.sleep(0.5)
    assert _children(board.process.pid) == []


def _legal_move(board):
    view = board.get("/api/game")[1]
    state = BlokusState()
    for move in view["moves"]:
        state.apply_action(string_to_placement(move["move"]))
    for m in state.legal_actions():
        yield placement_to_string(m)


@pytest.mark.slow  # 12-14 s in CI's default run; .ci/run runs it in its slow line
def test_bad_command_lines_stop_the_board_with_one_line(tmp_path):
    for args, reason in [
        (["--player", "x=nonsense"], "neither a preset"),
        (["--player", "x={preset: nope}"], "unknown player preset 'nope'"),
        (["--player", "x={kind: gtp, command: no-such-engine-xyz}"], "engine program 'no-such-engine-xyz' not found"),
        (["--player", "x=random", "--seats", "you,x,y,x"], "unknown player 'y'"),
        (["--player", "x=random", "--analysis", "x"], "not one of the MCTS or network players"),
        (["--records", str(tmp_path / "none")], "is not a directory"),
    ]:
        done = subprocess.run([os.sys.executable, "-m", "blokuszero.engines.blokus.board", "--port", "0", *args],
                              capture_output=True, text=True, timeout=120)
        last = done.stderr.strip().splitlines()[-1]
        assert done.returncode != 0 and reason in last and "Traceback" not in done.stderr, (args, done.stderr)


def test_the_default_player_is_the_shipped_network():
    from blokuszero.engines.blokus.board.cli import SHIPPED_NETWORK, build, parse_args

    table, _ = build(parse_args([]))
    assert table.specs == {"network": {"preset": "network", "checkpoint": str(SHIPPED_NETWORK)}}
    assert table.seats == ["you", "network", "network", "network"] and table.analyst_name == "network"
    assert SHIPPED_NETWORK.is_file() and T.NUM_COLORS == 4


def test_a_log_being_written_shows_its_complete_games_and_a_damaged_one_is_refused(tmp_path):
    from blokuszero.engines.blokus.board.records import RecordShelf

    lines = (DATA / "pentobi_random_games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text(f"{lines[0]}\n{lines[1]}\n{lines[2][:80]}")  # a match under way
    (tmp_path / "damaged.jsonl").write_text(f"{lines[0][:80]}\n{lines[1]}\n")
    (tmp_path / "other.jsonl").write_text('{"step": 10, "win_rate": 0.5}\n')
    shelf = RecordShelf([tmp_path])
    assert [g["index"] for g in shelf.games("0/games.jsonl")] == [0, 1]
    game = shelf.game("0/games.jsonl", 1)
    assert [s - 89 for s in json.loads(lines[1])["final_score"]] == game.position(len(game.moves)).scores().tolist()
    with pytest.raises(ValueError, match="line 1 is damaged"):
        shelf.games("0/damaged.jsonl")
    with pytest.raises(ValueError, match="neither an 'sgf' text nor a 'moves' list"):
        shelf.game("0/other.jsonl", 0)
