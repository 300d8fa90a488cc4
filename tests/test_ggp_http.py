"""The GGP match protocol over real HTTP on 127.0.0.1: messages, the player engine, the
match manager."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request

import numpy as np
import pytest
from ggp_sheets import RULES_DIR, sheet_game, uct_first_places

from blokuszero.engines.ggp import player_engine, warm_up
from blokuszero.engines.ggp.http_player import serve
from blokuszero.engines.ggp.player_engine import GgpPlayerEngine
from blokuszero.games.base import SIMULTANEOUS
from blokuszero.match.ggp.game_manager import run_matches
from blokuszero.players.factory import make_player
from blokuszero.protocols.ggp_http import Message, ProtocolError, format_message, parse_message


def test_messages_are_case_insensitive_and_round_trip():
    msg = parse_message("(START Match.1 XPlayer ((ROLE xplayer) (role oplayer)) 30 15)")
    assert (msg.command, msg.match_id, msg.role, msg.start_clock, msg.play_clock) == \
        ("start", "match.1", "xplayer", 30.0, 15.0)
    assert parse_message(format_message(msg)) == msg
    assert parse_message("(play m nil)").moves is None
    assert parse_message("(PLAY m ((MARK 1 2) noop))").moves == ["(mark 1 2)", "noop"]


@pytest.mark.parametrize("text, words", [
    ("(play m nil", "never closed"), ("(dance m)", "unknown command"),
    ("(play m)", "play takes 2 arguments"), ("(start m x role 10 5)", "rules must be a list"),
    ("(start m x ((role x)) soon 5)", "start clock must be a number"), ("hello", "a list"),
])
def test_bad_messages_are_named(text, words):
    with pytest.raises(ProtocolError, match=words):
        parse_message(text)


@pytest.fixture
def server():
    """Our player on an ephemeral port of 127.0.0.1; yields (url, engine)."""
    servers = []

    def start(**options):
        engine = GgpPlayerEngine(**{"margin": 0.4, **options})
        httpd = serve(engine, 0)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        host, port = httpd.server_address
        assert host == "127.0.0.1"
        return f"http://127.0.0.1:{port}/", engine

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def _post(url: str, text: str) -> str:
    req = urllib.request.Request(url, data=text.encode(), headers={"Content-Type": "text/acl"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read().decode()


def test_whole_match_between_two_of_our_players(server, tmp_path):
    a, _ = server(seed=1)
    b, _ = server(seed=2)
    goals = run_matches(RULES_DIR / "tictactoe.kif", [a, b], tmp_path, start_clock=20,
                        play_clock=1.0)
    record = json.loads((tmp_path / "tictactoe.0.0.json").read_text())
    assert goals == {a: [record["goals"][0]], b: [record["goals"][1]]}
    assert [p.name for p in tmp_path.iterdir()] == ["tictactoe.0.0.json"]  # no temporary left
    assert record["replaced"] == []
    assert 5 <= len(record["moves"]) <= 9
    assert sorted(record["goals"]) in ([0, 100], [50, 50])
    # The manager's moves replayed on our own reasoner end in the same goals.
    game = sheet_game("tictactoe")
    state = game.new_initial_state()
    for joint in record["moves"]:
        state.apply_joint_action([state.string_to_action(m) for m in joint])
    assert state.returns().tolist() == record["goals"]


def test_player_survives_bad_requests(server):
    url, _ = server()
    rules = (RULES_DIR / "tictactoe.kif").read_text()
    assert "available" in _post(url, "(info)")
    assert _post(url, "(play m1 nil").startswith("(error")
    assert _post(url, "(play nosuchmatch nil)") == '(error "play nosuchmatch: unknown match nosuchmatch")'
    assert _post(url, format_message(Message("start", "m1", "oplayer", rules, 10, 1))) == "ready"
    assert _post(url, format_message(Message("start", "m1", "oplayer", rules, 10, 1))).startswith("(error")
    assert _post(url, "(play m1 nil)") == "noop"
    assert "(error" in _post(url, "(play m1 nil)")  # a repeated first play
    assert "not legal" in _post(url, "(play m1 ((mark 9 9) noop))") or "not a move" in \
        _post(url, "(play m1 ((mark 9 9) noop))")
    assert _post(url, "(play m1 ((mark 1 1) noop))").startswith("(mark")
    assert _post(url, "(stop m1 ((mark 2 2) noop))") == "done"
    assert "is over" in _post(url, "(play m1 ((mark 3 3) noop))")
    assert "available" in _post(url, "(info)")
    assert _post(url, "(start m2 nobody ((role x)) 10 1)").startswith("(error")


class StillClock:
    """A stand-in for the engine's clock: reads ``now`` until a test moves it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_each_search_gets_the_time_left_on_its_play_clock_and_a_late_one_none(server, monkeypatch):
    """On the engine's clock (held still): a play received at t searches for 0.8 of the time
    to its deadline t + play clock - margin; when a search starts with under 0.05 s left it
    answers the legal move drawn for it without searching. Every reply is a legal move."""
    clock = StillClock(100.0)
    url, engine = server(margin=0.5, source=clock)
    rules = (RULES_DIR / "connectfour.kif").read_text()
    assert _post(url, format_message(Message("start", "clocked", "red", rules, 10, 2.0))) == "ready"
    player = engine.matches["clocked"].player
    budgets = []
    choose = player.choose_action

    def spy(state, role=None, time_limit=None):
        budgets.append(time_limit)
        return choose(state, role, time_limit=time_limit)

    monkeypatch.setattr(player, "choose_action", spy)
    first = _post(url, format_message(Message("play", "clocked", moves=None)))
    assert first.startswith("(drop") and budgets == [pytest.approx(0.8 * (2.0 - 0.5))]
    # Black's turn: red's one legal move is answered at once, without a search.
    assert _post(url, format_message(Message("play", "clocked", moves=[first, "noop"]))) == "noop"
    search = player_engine.search_move

    def late(player, state, role, time_manager, deadline, fallback):  # starts 0.01 s before its deadline
        clock.now = deadline - 0.01
        return search(player, state, role, time_manager, deadline, fallback)

    monkeypatch.setattr(player_engine, "search_move", late)
    third = _post(url, format_message(Message("play", "clocked", moves=["noop", "(drop 4)"])))
    assert third.startswith("(drop") and len(budgets) == 1
    match = engine.matches["clocked"]
    assert third in {match.state.action_to_string(int(a)) for a in match.state.legal_actions(match.role)}


def _play_against_random(engine, match_id: str, role: str, name: str, plays: int,
                         pause: float = 0.0, until=lambda match: False):
    """Up to ``plays`` plays of ``engine`` against uniformly random moves, each of its moves
    checked legal on a separately compiled referee, and the engine's state after each play
    checked against the referee's; stops early when ``until(match)`` holds after a play."""
    referee = sheet_game(name).new_initial_state()
    rng = np.random.default_rng(0)
    me = referee.game.roles.index(role)
    moves = None
    for _ in range(plays):
        reply = engine.handle(format_message(Message("play", match_id, moves=moves)))
        assert engine.matches[match_id].state.facts() == referee.facts()
        mine = referee.string_to_action(reply)  # a move of the game ...
        assert mine in referee.legal_actions(me)  # ... and legal now
        joint = [int(rng.choice(referee.legal_actions(p))) for p in range(referee.game.num_players)]
        joint[me] = mine
        referee.apply_joint_action(joint)
        moves = [referee.action_to_string(a) for a in joint]
        if referee.is_terminal() or until(engine.matches[match_id]):
            break
        time.sleep(pause)


class _Late:
    """A compile that reports its network only from its ``late``-th look on: the switch then
    comes after ``late - 1`` plays on the interpreter, however fast the compiling process is."""

    def __init__(self, pending, late: int) -> None:
        self.pending, self.late, self.looks = pending, late, 0

    def result(self, timeout: float):
        self.looks += 1
        return None if self.looks < self.late else self.pending.result(120.0)

    def close(self) -> None:
        self.pending.close()


def test_starts_on_the_interpreter_and_switches_to_the_network_when_compiled():
    # Never compiled here, never waited for: the interpreter starts the match.
    engine = GgpPlayerEngine({"preset": "ggp_uct", "simulations": 30}, margin=0.1, seed=3,
                             network_wait=0.0, inline_instances=0)
    rules = (RULES_DIR / "connectfour.kif").read_text()
    began = time.perf_counter()
    assert engine.handle(format_message(Message("start", "sw", "red", rules, 30, 5))) == "ready"
    assert time.perf_counter() - began < 10
    match = engine.matches["sw"]
    assert match.game.reasoner.kind == "interpreter" and match.pending is not None
    match.pending = _Late(match.pending, late=3)
    kinds = []
    _play_against_random(engine, "sw", "red", "connectfour", 6,
                         until=lambda m: kinds.append(m.game.reasoner.kind))
    assert kinds == ["interpreter"] * 2 + ["propnet"] * 4 and match.pending is None
    assert engine.handle(format_message(Message("abort", "sw"))) == "done"


def test_a_network_too_large_leaves_the_match_on_the_interpreter(caplog):
    engine = GgpPlayerEngine({"preset": "ggp_uct", "simulations": 20}, margin=0.1, seed=4,
                             max_instances=10, inline_instances=10)
    rules = (RULES_DIR / "tictactoe.kif").read_text()
    with caplog.at_level(logging.WARNING):
        assert engine.handle(format_message(Message("start", "big", "xplayer", rules, 60, 5))) == "ready"
    match = engine.matches["big"]
    assert match.game.reasoner.kind == "interpreter" and match.pending is None
    assert "more than 10 clause instances" in caplog.text
    _play_against_random(engine, "big", "xplayer", "tictactoe", 9)


@pytest.mark.slow
def test_checkers_is_ready_within_a_short_start_clock():
    engine = GgpPlayerEngine({"preset": "ggp_uct", "simulations": 20}, margin=1.0, seed=5)
    rules = (RULES_DIR / "checkers.kif").read_text()
    began = time.perf_counter()
    assert engine.handle(format_message(Message("start", "ck", "white", rules, 30, 10))) == "ready"
    assert time.perf_counter() - began < 30
    _play_against_random(engine, "ck", "white", "checkers", 6)
    engine.handle(format_message(Message("abort", "ck")))


@pytest.mark.parametrize("name", ["blocker", "connectfoursimultaneous"])
def test_search_at_simultaneous_nodes(name):
    """Decoupled selection at the joint root: each role gets a move of its own from the one
    search, every role's moves are visited, and the tree follows the joint move played."""
    game = sheet_game(name)
    state = game.new_initial_state()
    assert state.current_player() == SIMULTANEOUS
    player = make_player(game, {"preset": "ggp_uct", "simulations": 300}, seed=0)
    joint = [player.choose_action(state, p) for p in range(game.num_players)]
    result = player.mcts.result(300)
    for p in range(game.num_players):
        assert joint[p] in state.legal_actions(p)
        mine = result.movers == p
        assert set(result.actions[mine]) == set(state.legal_actions(p))
        assert result.visits[mine].sum() >= 300  # every simulation chose a move for each role
    player.inform_joint(joint)
    state.apply_joint_action(joint)
    assert player.mcts.tree is not None and player.mcts.tree.visits[0] > 0


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "tictactoe_3player"])
def test_uct_beats_random(name):
    first = uct_first_places(sheet_game(name), {"preset": "ggp_uct", "simulations": 300}, games=10)
    assert first >= 8, f"UCT first (ties included) in {first} of 10 games on {name}"


def test_the_warm_up_plays_its_game_through_the_engine_and_fails_loudly(monkeypatch):
    # Both joint moves (a simultaneous one, then one role's) are searched: the kernels a match
    # needs are compiled before any clock runs.
    assert warm_up.warm_up({"preset": "ggp_uct", "simulations": 20}) > 0
    monkeypatch.setattr(warm_up, "WARM_UP_RULES", "(role left) (<= (legal left x) (true")
    with pytest.raises(RuntimeError, match="warm-up match failed"):
        warm_up.warm_up()


def test_a_search_past_its_clock_does_not_make_the_later_replies_late(monkeypatch):
    """A search held up past the clock (numba compiling, say) gets a legal move sent for it;
    the next play, arriving while it still runs, is answered at once; once it has ended, the
    searches resume on a fresh tree. A play's clock runs from the request's arrival. (Both
    roles choose at every step of this game, so every play searches.)"""
    engine = GgpPlayerEngine({"preset": "ggp_uct"}, margin=0.2, seed=6)
    rules = (RULES_DIR / "connectfoursimultaneous.kif").read_text()
    assert engine.handle(format_message(Message("start", "late", "red", rules, 30, 1.5))) == "ready"
    match = engine.matches["late"]
    searched = match.player.choose_action
    calls = []

    def second_search_held(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            time.sleep(3.0)
        return searched(*args, **kwargs)

    monkeypatch.setattr(match.player, "choose_action", second_search_held)
    referee = sheet_game("connectfoursimultaneous").new_initial_state()
    rng = np.random.default_rng(0)
    moves, took = None, []
    for play in range(5):  # the first play's search compiles what the others use
        if play == 3:  # the held search ends before the fourth play
            match.search.result(10.0)
        began = time.monotonic()
        reply = engine.handle(format_message(Message("play", "late", moves=moves)))
        took.append(time.monotonic() - began)
        assert engine.matches["late"].state.facts() == referee.facts()
        joint = [int(rng.choice(referee.legal_actions(p))) for p in range(2)]
        joint[0] = referee.string_to_action(reply)
        assert joint[0] in referee.legal_actions(0)
        referee.apply_joint_action(joint)
        moves = [referee.action_to_string(a) for a in joint]
        if play == 2:
            assert match.stale  # the tree was left to the held search
    assert took[1] < 1.5 and took[2] < 0.5 and max(took[3:]) < 1.5, took
    assert not match.stale and len(calls) == 4 and match.player.last_result.simulations > 0
    # Arrived a second ago: 0.3 s of the clock are left.
    began = time.monotonic()
    engine.handle(format_message(Message("play", "late", moves=moves)), received=began - 1.0)
    assert time.monotonic() - began < 0.5
