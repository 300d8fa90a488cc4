"""Matches across managers: ggp-base's records read and tallied, the timing relay, our manager
with a foreign player (a stand-in speaking ggp-base's spelling here; ggp-base itself where a
build is named by GGP_BASE) and matches refereed by ggp-base's GameServer."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from ggp_sheets import RULES_DIR, sheet_game

from blokuszero.engines.ggp.http_player import serve
from blokuszero.engines.ggp.player_engine import GgpPlayerEngine
from blokuszero.games.ggp import GgpGame
from blokuszero.match.ggp.game_manager import post, run_matches
from blokuszero.match.ggp.ggp_base import (
    OURS,
    THEIRS,
    TimingRelay,
    command_of,
    compile_drivers,
    format_tally,
    free_port,
    ggp_base_classpath,
    read_record,
    run_refereed_match,
    serving,
    sheet_roles,
    tally,
)
from blokuszero.protocols.ggp_http import parse_message

DRIVERS = Path(__file__).resolve().parents[1] / "scripts" / "ggp_base"
GGP_BASE = os.environ.get("GGP_BASE")
needs_ggp_base = pytest.mark.skipif(
    not GGP_BASE or shutil.which("java") is None or shutil.which("javac") is None,
    reason="ggp-base is NOT available here (CI has none): set GGP_BASE to a ggp-base source folder built as "
           "README says ('Matches refereed by ggp-base'), with a JDK's java and javac on PATH")


@pytest.fixture
def ours():
    """Our player on an ephemeral port of 127.0.0.1; yields its URL."""
    httpd = serve(GgpPlayerEngine(margin=0.4, seed=1), 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _foreign_player(port: int, seed: int) -> None:
    """A stand-in for a foreign player: random legal moves, written as ggp-base writes them
    (``( mark 1 1 )``), its own process and HTTP server."""
    rng = np.random.default_rng(seed)
    matches: dict = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            msg = parse_message(self.rfile.read(int(self.headers["Content-Length"])).decode())
            reply = "( ( name standin ) ( status available ) )"
            if msg.command == "start":
                game = GgpGame(msg.rules, name=msg.match_id)
                matches[msg.match_id] = (game.new_initial_state(), game.roles.index(msg.role))
                reply = "ready"
            elif msg.command == "play":
                state, role = matches[msg.match_id]
                if msg.moves is not None:
                    state.apply_joint_action([state.string_to_action(m) for m in msg.moves])
                move = state.action_to_string(int(rng.choice(state.legal_actions(role))))
                reply = move.replace("(", "( ").replace(")", " )")
            elif msg.command in ("stop", "abort"):
                reply = "done"
            body = reply.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt: str, *args) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


@pytest.fixture
def foreign():
    """The stand-in foreign player in a process of its own; yields its URL."""
    port = free_port()
    process = multiprocessing.get_context("spawn").Process(target=_foreign_player, args=(port, 7), daemon=True)
    process.start()
    url = f"http://127.0.0.1:{port}/"
    for _ in range(300):
        if post(url, "(info)", 1.0)[0] is not None:
            break
        process.join(0.1)
    yield url
    process.terminate()
    process.join()


def _replayed_goals(name: str, moves: list[list[str]]) -> list[float]:
    state = sheet_game(name).new_initial_state()
    for joint in moves:
        state.apply_joint_action([state.string_to_action(m) for m in joint])
    return state.returns().tolist()


def test_our_manager_referees_a_foreign_player(ours, foreign, tmp_path):
    goals = run_matches(RULES_DIR / "tictactoe.kif", [ours, foreign], tmp_path, matches=2, rotate=True,
                        start_clock=20, play_clock=1.0)
    assert len(goals[ours]) == len(goals[foreign]) == 2
    for m in range(2):
        record = json.loads((tmp_path / f"tictactoe.0.{m}.json").read_text())
        # ggp-base's spelling of moves is read and none is late. (Ours, served here without the
        # launch warm-up of `blokuszero-ggp-player`, may be late with a cold numba cache.)
        theirs = record["roles"][record["players"].index(foreign)]
        assert [r for r in record["replaced"] if r["role"] == theirs] == []
        assert all(len(times) == len(record["moves"]) for times in record["answer_seconds"].values())
        assert _replayed_goals("tictactoe", record["moves"]) == record["goals"]


def test_relay_forwards_and_times_each_request(ours):
    with TimingRelay(ours, 10.0) as relay:
        reply, _ = post(f"http://127.0.0.1:{relay.port}/", "( INFO )", 10.0)
    assert reply == "((name blokuszero) (status available))"
    assert [(c, r) for c, _, r in relay.log] == [("info", reply)]
    assert relay.seconds("info")[0] > 0 and relay.seconds("play") == []


def test_relay_answers_502_when_the_player_is_gone():
    with TimingRelay(f"http://127.0.0.1:{free_port()}/", 2.0) as relay:
        assert post(f"http://127.0.0.1:{relay.port}/", "(play m nil)", 5.0)[0] is None
    assert [(c, r) for c, _, r in relay.log] == [("play", None)]


def test_command_and_roles_are_read_without_grounding():
    assert command_of("( PLAY m1 NIL )") == "play" and command_of("(start m r () 1 1)") == "start"
    assert command_of("") == ""
    assert sheet_roles((RULES_DIR / "connectfour.kif").read_text()) == ["red", "black"]
    with pytest.raises(ValueError, match="no \\(role"):
        sheet_roles("(init (cell 1))")


def _driver_record(path: Path, errors: list[list[str]], goals: list[int], completed: bool = True) -> None:
    path.write_text(json.dumps({"matchId": path.stem, "roles": ["xplayer", "oplayer"], "isCompleted": completed,
                                "goalValues": goals, "moves": [["( mark 1 1 )", "noop"]] * (len(errors) - 1),
                                "errors": errors, "stateTimes": [], "startClock": 60, "playClock": 10}))


def test_records_are_read_and_tallied(tmp_path):
    _driver_record(tmp_path / "a.json", [["", ""], ['IL ( error "unknown match" )', ""], ["", "TO"], ["CE", ""]],
                   [0, 100])
    record = read_record(tmp_path / "a.json")
    assert record["errors"] == {
        "xplayer": [{"step": 1, "kind": "illegal", "code": 'IL ( error "unknown match" )'},
                    {"step": 3, "kind": "connection", "code": "CE"}],
        "oplayer": [{"step": 2, "kind": "timeout", "code": "TO"}]}
    _driver_record(tmp_path / "b.json", [["", ""], ["", ""]], [50, 50])
    _driver_record(tmp_path / "c.json", [["", ""]], [], completed=False)
    records = []
    for name, players, answers in (("a", [OURS, THEIRS], [[11.5, 0.1, 9.0], [0.0, 9.0, 0.0]]),
                                   ("b", [THEIRS, OURS], [[9.0], [0.1]]), ("c", [OURS, THEIRS], [[], []])):
        rec = read_record(tmp_path / f"{name}.json")
        rec.update(game="tictactoe", players=players, answer_seconds=dict(zip(rec["roles"], answers)))
        records.append(rec)
    [row] = tally(records)
    assert (row["games"], row["wins"], row["draws"], row["losses"], row["incomplete"]) == (3, 0, 1, 1, 1)
    assert row["ours"] == {"illegal": 1, "timeout": 0, "connection": 1, "late": 1}
    assert row["theirs"] == {"illegal": 0, "timeout": 1, "connection": 0, "late": 0}
    assert row["latest_ours"] == 11.5 and row["latest_theirs"] == 9.0
    table = format_tally([row])
    assert "| tictactoe | 3 (1 unfinished) | 0-1-1 | 0.25 [" in table
    assert "| 1/0 | 0/1 | 1/0 | 1/0 | 11.50 s (10 s) |" in table


def test_a_missing_ggp_base_build_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="GameServer.class"):
        ggp_base_classpath(tmp_path)


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> str:
    """The drivers compiled against the ggp-base build GGP_BASE names."""
    return compile_drivers(DRIVERS, ggp_base_classpath(GGP_BASE), tmp_path_factory.mktemp("drivers"))


@needs_ggp_base
def test_ggp_base_referees_our_player(classpath, tmp_path):
    record = run_refereed_match(RULES_DIR / "tictactoe.kif", "ttt", 1, classpath=classpath, out=tmp_path,
                                start_clock=60, play_clock=3, seed=5)
    assert record["completed"] and record["referee_exit"] == 0
    assert [e for errors in record["errors"].values() for e in errors if e["kind"] == "illegal"] == []
    assert _replayed_goals("tictactoe", record["moves"]) == record["goals"]  # ggp-base's "( mark 1 1 )"
    assert record["players"] == [THEIRS, OURS] and len(record["answer_seconds"]["oplayer"]) == len(record["moves"])


@needs_ggp_base
def test_our_manager_referees_ggp_base_player(classpath, ours, tmp_path):
    port = free_port()
    with serving(["java", "-cp", classpath, "GgpBasePlayer", str(port)], port, "ggp-base's player",
                 tmp_path / "player.log", cwd=tmp_path):
        run_matches(RULES_DIR / "tictactoe.kif", [f"http://127.0.0.1:{port}/", ours], tmp_path, start_clock=20,
                    play_clock=2.0)
    record = json.loads((tmp_path / "tictactoe.0.0.json").read_text())
    assert [r for r in record["replaced"] if r["role"] == "xplayer"] == []
    assert _replayed_goals("tictactoe", record["moves"]) == record["goals"]
