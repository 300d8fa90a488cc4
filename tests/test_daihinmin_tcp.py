"""The UECda protocol over real TCP on 127.0.0.1: our server, our client, bad clients."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from project_scripts import load_script

from blokuszero.engines.daihinmin import uecda_client as client_main
from blokuszero.engines.daihinmin.uecda_client import connect, play_match
from blokuszero.games.daihinmin.log import read_log
from blokuszero.match.daihinmin.uecda_replay import replay_record
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.players.daihinmin.default_client import DefaultClient
from blokuszero.protocols.uecda import (
    TcpSeat,
    accept_player,
    decode_table,
    encode_table,
    listen,
    profile_name,
    profile_table,
)

SETTINGS = MatchSettings(games=6, rank_reset=3, seat_change_every=2)


def test_tables_round_trip_big_endian():
    table = np.arange(120).reshape(8, 15)
    data = encode_table(table)
    assert len(data) == 480 and data[4:8] == (1).to_bytes(4, "big")
    assert np.array_equal(decode_table(data), table)
    assert profile_name(profile_table("dflt0")) == "dflt0"


def _serve(clients, log_path, seed=11):
    """Run a match with ``clients`` (objects with on_deal/on_hand/on_field) connecting over
    TCP from threads; returns (result, games each client thread saw or its exception)."""
    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    outcomes = [None] * len(clients)

    def run(i, client):
        conn, _ = connect("127.0.0.1", port, f"c{i}")
        try:
            outcomes[i] = play_match(conn, client)
        except Exception as err:  # noqa: BLE001 - the test inspects what each client saw
            outcomes[i] = err
        finally:
            conn.close()

    seats, threads = [], []
    for i, client in enumerate(clients):
        thread = threading.Thread(target=run, args=(i, client), daemon=True)
        thread.start()
        threads.append(thread)
        seats.append(TcpSeat(*accept_player(listener, i, timeout=10)))
    result = serve_match(seats, SETTINGS, seed=seed, log_path=str(log_path), port=port)
    for seat in seats:
        seat.conn.close()
    for thread in threads:
        thread.join(timeout=20)
    listener.close()
    return result, outcomes


def test_full_match_of_five_tcp_clients_matches_the_in_process_one(tmp_path):
    result, outcomes = _serve([DefaultClient() for _ in range(5)], tmp_path / "tcp.log")
    assert outcomes == [SETTINGS.games] * 5  # each client saw the end flag 2 and stopped
    local = serve_match([LocalSeat(DefaultClient(), f"c{i}") for i in range(5)], SETTINGS,
                      seed=11, log_path=str(tmp_path / "local.log"))
    assert result.points == local.points
    tcp_games, local_games = read_log(tmp_path / "tcp.log").games, read_log(
        tmp_path / "local.log").games
    assert [(g.plays[0][1].tobytes(), g.result) for g in tcp_games] == [
        (g.plays[0][1].tobytes(), g.result) for g in local_games]
    report = replay_record(read_log(tmp_path / "tcp.log"), DefaultClient)
    assert report.ok and report.games == SETTINGS.games


class Malformed(DefaultClient):
    """Answers every turn with a table of 7s (not cards)."""

    def on_hand(self, table):
        answer = super().on_hand(table)
        return None if answer is None else np.full((8, 15), 7)


class Vanishing(DefaultClient):
    """Drops the connection after a few turns."""

    def __init__(self):
        super().__init__()
        self.turns = 0

    def on_hand(self, table):
        self.turns += 1
        if self.turns > 40:
            raise ConnectionAbortedError("gone")
        return super().on_hand(table)


def test_malformed_and_vanishing_clients_leave_the_match_unharmed(tmp_path):
    clients = [DefaultClient(), Malformed(), DefaultClient(), Vanishing(), DefaultClient()]
    result, outcomes = _serve(clients, tmp_path / "bad.log")
    assert [outcomes[i] for i in (0, 2, 4)] == [SETTINGS.games] * 3
    assert isinstance(outcomes[3], ConnectionAbortedError)
    assert len(result.points) == SETTINGS.games
    record = read_log(tmp_path / "bad.log")
    # The server judged the 7s and the dropped player's silence as passes; a replay agrees.
    assert replay_record(record).ok
    assert any(p == 1 and (t[:5] != 0).sum() == 75 for g in record.games for p, t in g.plays)


def _fake_server(script):
    listener = listen("127.0.0.1", 0)

    def run():
        sock, _ = listener.accept()
        sock.recv(480, 0x100)  # the profile (MSG_WAITALL)
        sock.sendall((0).to_bytes(4, "big"))
        script(sock)
        sock.close()
        listener.close()

    threading.Thread(target=run, daemon=True).start()
    return listener.getsockname()[1]


@pytest.mark.parametrize("script, message", [
    (lambda sock: sock.sendall(encode_table(np.full((8, 15), 5))), "malformed deal table"),
    (lambda sock: sock.sendall(b"\0" * 100), "connection closed"),
])
def test_client_reports_bad_servers(script, message, capsys):
    port = _fake_server(script)
    assert client_main.main(["-h", "127.0.0.1", "-p", str(port), "-n", "t"]) == 1
    assert message in capsys.readouterr().err


class BadGifts(DefaultClient):
    """Gives three cards (the server wants two or one)."""

    def on_deal(self, table):
        answer = super().on_deal(table)
        if answer is None:
            return None
        extra = np.argwhere(table[:4] == 1)[-1]
        answer[tuple(extra)] = 1
        return answer


def test_an_invalid_gift_is_replaced_by_the_strongest_cards(tmp_path):
    from blokuszero.games.daihinmin.cards import strongest_cards, table_to_hand

    seats = [LocalSeat(BadGifts(), f"b{i}") for i in range(5)]
    serve_match(seats, SETTINGS, seed=3, log_path=str(tmp_path / "gifts.log"))
    record = read_log(tmp_path / "gifts.log")
    checked = 0
    for g in record.games:
        hands = list(g.hands)
        for k, (f, t, table) in enumerate(g.changes):  # strongest up first, then the gifts
            cards = table_to_hand(table)
            if k >= 2:
                assert cards == strongest_cards(hands[f], 2 if k == 2 else 1)
                checked += 1
            hands[f] &= ~cards
            hands[t] |= cards
    assert checked == 2 * sum(1 for g in record.games if g.changes) > 0
    assert replay_record(record).ok


def test_match_script_with_tcp_client_processes(tmp_path, capsys):
    script = load_script("daihinmin_match")
    log = tmp_path / "script.log"
    assert script.main(["--games", "4", "--seed", "5", "--log", str(log), "--players",
                        "default,tcp:default,default,default,tcp:default"]) == 0
    out = capsys.readouterr().out
    assert "player 1 default1" in out and "95%" in out
    record = read_log(log)
    assert record.names[1] == "default1" and len(record.games) == 4
    assert replay_record(record, DefaultClient).ok


def test_match_script_starts_a_python_client_with_its_own_interpreter(tmp_path, capsys, monkeypatch):
    # README's `cmd:python -m blokuszero.engines.daihinmin ...` from a shell whose `python` is another
    # interpreter (no virtual environment activated): the client must still run on this one.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text("#!/bin/sh\necho 'not the interpreter with the package' >&2\nexit 3\n")
    (fake / "python").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    script = load_script("daihinmin_match")
    assert script.main(["--games", "2", "--seed", "6", "--players",
                        "default,default,default,default,cmd:python -m blokuszero.engines.daihinmin "
                        "-h {host} -p {port} -n cmd4"]) == 0
    assert "player 4 cmd4" in capsys.readouterr().out


STANDIN = f"cmd:python {os.path.join(os.path.dirname(__file__), 'uecda_standin_client.py')}"


def test_match_script_records_a_foreign_client_started_by_command(tmp_path, capsys):
    log = tmp_path / "foreign.log"
    players = ["default"] * 5
    players[3] = f"{STANDIN} -h {{host}} -p {{port}} -n alien3"
    assert load_script("daihinmin_match").main(["--games", "6", "--seed", "7", "--rank-reset", "3", "--log",
                                 str(log), "--players", ",".join(players)]) == 0
    out = capsys.readouterr().out
    assert "player 3 alien3" in out and "ms per play" in out
    record = read_log(log)
    assert record.names[3] == "alien3" and len(record.games) == 6
    # Every game replays under the rules, the default seats' decisions included; the foreign
    # seat's are its own (it leads single cards where the default client would not).
    assert replay_record(record).ok
    assert replay_record(record, DefaultClient, players={0, 1, 2, 4}).ok
    assert not replay_record(record, DefaultClient, players={3}).ok
    leads = [t for g in record.games for p, t in g.plays if p == 3 and t[:5].any()]
    assert leads and all((t[:5] > 0).sum() == 1 for t in leads)


def test_match_script_fails_when_a_foreign_client_drops(tmp_path, capsys):
    players = ["default"] * 5
    players[1] = f"{STANDIN} -h {{host}} -p {{port}} -n quits1 --quit-after 3"
    assert load_script("daihinmin_match").main(["--games", "2", "--seed", "8", "--players",
                                 ",".join(players)]) == 1
    assert "player 1 quits1 dropped its connection" in capsys.readouterr().err


def test_match_script_compares_players_paired_by_game_over_dependence_blocks(tmp_path, capsys):
    import json

    from blokuszero.match.stats import block_bootstrap

    script = load_script("daihinmin_match")
    assert script.dependence_block(MatchSettings(rank_reset=100, seat_change_every=5)) == 100
    assert script.dependence_block(MatchSettings(rank_reset=3, seat_change_every=2)) == 6
    assert script.parse_pairs("0-1,4-2") == [((0,), (1,)), ((4,), (2,))]
    assert script.parse_pairs("0+1-2+3") == [((0, 1), (2, 3))] and len(script.parse_pairs("all")) == 10
    for bad in ("0-5", "0+1-1+2", "0-", "a-1"):
        with pytest.raises(ValueError, match="--compare takes 'all' or pairs of player numbers 0-4"):
            script.parse_pairs(bad)
    with pytest.raises(SystemExit):
        script.main(["--games", "1", "--points", str(tmp_path / "points.npy")])
    assert "--points writes JSON" in capsys.readouterr().err
    saved = tmp_path / "points.json"
    assert script.main(["--games", "6", "--seed", "3", "--rank-reset", "3", "--seat-every", "3",
                        "--compare", "0-1,0+1-2+3", "--points", str(saved)]) == 0
    stored = json.loads(saved.read_text())
    points = np.array(stored["points"])
    assert points.shape == (6, 5) and stored["block"] == 3 and stored["names"][0] == "dflt0"
    pair, groups = stored["comparisons"]
    d = points[:, 0] - points[:, 1]
    assert (pair["a"], pair["b"]) == ("dflt0", "dflt1") and pair["mean"] == pytest.approx(d.mean())
    assert (pair["wins"], pair["losses"]) == (int((d > 0).sum()), int((d < 0).sum()))
    assert [pair["ci_low"], pair["ci_high"]] == list(block_bootstrap(d, 3, seed=3))
    g = points[:, :2].mean(axis=1) - points[:, 2:4].mean(axis=1)
    assert (groups["a"], groups["b"], groups["a_player"]) == ("dflt0+dflt1", "dflt2+dflt3", "0+1")
    assert groups["mean"] == pytest.approx(g.mean())
    assert [groups["ci_low"], groups["ci_high"]] == list(block_bootstrap(g, 3, seed=3))
    assert [t["plays"] for t in stored["think_ms"]] and all(t["plays"] > 0 for t in stored["think_ms"])
    printed = capsys.readouterr().out
    assert "block bootstrap over 2 blocks of 3 games" in printed
    assert "player 0 dflt0 - player 1 dflt1: " in printed
    # The kept points print the same summary again, and other comparisons on demand.
    assert script.main(["--report", str(saved)]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[1:] == printed.splitlines()[1:]
    assert script.main(["--report", str(saved), "--compare", "2-4"]) == 0
    d24 = points[:, 2] - points[:, 4]
    assert f"player 2 dflt2 - player 4 dflt4: mean difference {d24.mean():+.3f} points over" in capsys.readouterr().out
    # Two matches of the same players join into one sample of their blocks.
    assert script.main(["--report", str(saved), str(saved), "--compare", "0-1"]) == 0
    joined = capsys.readouterr().out
    assert joined.startswith("12 games, seeds 3, 3,") and "over 4 blocks of 3 games" in joined
    d2 = np.concatenate([d, d])
    low, high = block_bootstrap(d2, 3, seed=3)
    assert (f"player 0 dflt0 - player 1 dflt1: mean difference {d2.mean():+.3f} points over 12 paired results, "
            f"95% [{low:+.3f}, {high:+.3f}]") in joined
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**stored, "players": ["mc"] * 5}))
    assert script.main(["--report", str(saved), str(other)]) == 2
    assert "has other players or another dependence block" in capsys.readouterr().err
    part = tmp_path / "part.json"
    part.write_text(json.dumps({**stored, "points": stored["points"][:4]}))
    assert script.main(["--report", str(part), str(saved)]) == 2
    assert "holds 4 games, not whole blocks of 3: it can only come last" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"points": [[1, 2]]')
    assert script.main(["--report", str(broken)]) == 2
    assert f"--report: {broken} is not a points file written by --points" in capsys.readouterr().err


@pytest.mark.parametrize("files,coarse", [
    (["docs/daihinmin_fujigokoro_2v2_gifts_seed8000.json"], True),  # 2 blocks of 100
    ([f"docs/daihinmin_fujigokoro_2v2_gifts_seed{s}.json" for s in (8000, 8001)], True),  # 4
    (["docs/daihinmin_fujigokoro_confirm_gifts_seed7900.json"], False),  # 5
])
def test_a_report_over_few_blocks_says_its_intervals_are_too_coarse(files, coarse, capsys):
    root = Path(__file__).resolve().parents[1]
    assert load_script("daihinmin_match").main(["--report", *[str(root / f) for f in files]]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("(fewer than 5 blocks: too coarse to read)") == coarse


@pytest.mark.parametrize("files, compare, games, mean, interval", [
    (["docs/daihinmin_fujigokoro_seed7100.json"], "0-1", 2000, "+0.018", "[-0.103, +0.130]"),
    (["docs/daihinmin_fujigokoro_2v2_seed7300.json", "docs/daihinmin_fujigokoro_2v2_seed7301.json"], "0+1-2+3",
     1000, "+0.051", "[-0.086, +0.191]"),
    (["docs/daihinmin_fujigokoro_choose3000_seed7400.json"], "0-1", 500, "+0.072", "[-0.020, +0.150]"),
    (["docs/daihinmin_fujigokoro_choose10000_seed7400.json"], "0-1", 500, "+0.266", "[+0.052, +0.500]"),
    (["docs/daihinmin_fujigokoro_confirm10000_seed7500.json"], "0-1", 500, "-0.036", "[-0.220, +0.172]"),
    (["docs/daihinmin_fujigokoro_confirm10000_seed7501.json"], "0-1", 500, "+0.112", "[-0.152, +0.376]"),
    (["docs/daihinmin_fujigokoro_confirm10000_seed7502.json"], "0-1", 500, "-0.102", "[-0.206, +0.012]"),
    (["docs/daihinmin_fujigokoro_confirm10000_seed7503.json"], "0-1", 500, "+0.096", "[-0.112, +0.274]"),
    ([f"docs/daihinmin_fujigokoro_confirm10000_seed{s}.json" for s in (7500, 7501, 7502, 7503)],
     "0-1", 2000, "+0.018", "[-0.090, +0.126]"),
    (["docs/daihinmin_fujigokoro_choose_exchange_hands0_seed7600.json"], "0-1", 250, "+0.032", "[-0.220, +0.250]"),
    (["docs/daihinmin_fujigokoro_choose_exchange_hands0_seed7601.json"], "0-1", 250, "+0.360", "[+0.190, +0.620]"),
    (["docs/daihinmin_fujigokoro_choose_exchange_hands1_seed7600.json"], "0-1", 250, "+0.084", "[-0.030, +0.320]"),
    (["docs/daihinmin_fujigokoro_choose_exchange_hands1_seed7601.json"], "0-1", 250, "-0.236", "[-0.580, -0.150]"),
    (["docs/daihinmin_fujigokoro_choose_gifts0_seed7800.json"], "0-1", 200, "-0.205", "[-0.440, +0.030]"),
    (["docs/daihinmin_fujigokoro_choose_gifts1_seed7800.json"], "0-1", 200, "+0.435", "[+0.370, +0.500]"),
    (["docs/daihinmin_fujigokoro_confirm_exchange_seed7700.json"], "0-1", 500, "-0.074", "[-0.342, +0.172]"),
    (["docs/daihinmin_fujigokoro_confirm_exchange_seed7701.json"], "0-1", 500, "-0.002", "[-0.180, +0.182]"),
    ([f"docs/daihinmin_fujigokoro_confirm_exchange_seed{s}.json" for s in (7700, 7701)],
     "0-1", 1000, "-0.038", "[-0.205, +0.118]"),
    (["docs/daihinmin_fujigokoro_confirm_gifts_seed7900.json"], "0-1", 500, "+0.494", "[+0.324, +0.630]"),
    (["docs/daihinmin_fujigokoro_confirm_gifts_seed7901.json"], "0-1", 500, "+0.478", "[+0.256, +0.700]"),
    ([f"docs/daihinmin_fujigokoro_confirm_gifts_seed{s}.json" for s in (7900, 7901)],
     "0-1", 1000, "+0.486", "[+0.350, +0.618]"),
    (["docs/daihinmin_fujigokoro_confirm_gifts_seed7902.json"], "0-1", 500, "+0.480", "[+0.310, +0.650]"),
    (["docs/daihinmin_fujigokoro_confirm_gifts_seed7903.json"], "0-1", 500, "+0.430", "[+0.162, +0.720]"),
    ([f"docs/daihinmin_fujigokoro_confirm_gifts_seed{s}.json" for s in (7902, 7903)],
     "0-1", 1000, "+0.455", "[+0.291, +0.632]"),
    ([f"docs/daihinmin_fujigokoro_confirm_gifts_seed{s}.json" for s in (7900, 7901, 7902, 7903)],
     "0-1", 2000, "+0.470", "[+0.360, +0.579]"),
    ([f"docs/daihinmin_fujigokoro_2v2_gifts_seed{s}.json" for s in (8000, 8001)], "0+1-2+3",
     400, "+0.386", "[+0.196, +0.492]"),
    ([f"docs/daihinmin_fujigokoro_2v2_gifts_seed{s}.json" for s in (8000, 8001, 8002, 8003, 8004)], "0+1-2+3",
     1000, "+0.453", "[+0.299, +0.596]"),
])
def test_kept_fujigokoro_points_give_benchmarks_figures(files, compare, games, mean, interval, capsys):
    """BENCHMARKS' figures against FujiGokoro are what ``--report`` computes from the points kept in docs/."""
    root = Path(__file__).resolve().parents[1]
    script = load_script("daihinmin_match")
    assert script.main(["--report", *[str(root / f) for f in files], "--compare", compare]) == 0
    printed = capsys.readouterr().out
    assert f": mean difference {mean} points over {games} paired results, 95% {interval} (block bootstrap" in printed
    benchmarks = " ".join((root / "BENCHMARKS.md").read_text().replace("**", "").split())
    assert f"{mean} points per game, 95% {interval}" in benchmarks
