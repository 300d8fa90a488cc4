"""Official UECda server records: our rules and the default client agree with every detail,
and our server with the record's seed writes the same record."""

from __future__ import annotations

from pathlib import Path

import pytest

from blokuszero.games.daihinmin.log import read_log
from blokuszero.match.daihinmin.uecda_replay import replay_record
from blokuszero.match.daihinmin.uecda_server import LocalSeat, serve_match
from blokuszero.match.daihinmin.uecda_settings import MatchSettings
from blokuszero.players.daihinmin.default_client import DefaultClient

DATA = Path(__file__).parent / "data"
MATCH1 = DATA / "daihinmin_default5_match1.log"


@pytest.fixture(scope="module")
def match1():
    return read_log(MATCH1)


def test_record_is_read(match1):
    assert match1.names == ["dflt0", "dflt1", "dflt2", "dflt3", "dflt4"]
    assert len(match1.games) == 1000
    g = match1.games[1]
    assert g.ranks == [3, 0, 4, 1, 2] and g.seats == [0, 2, 4, 1, 3]
    assert [(f, t) for f, t, _ in g.changes] == [(2, 1), (0, 3), (1, 2), (3, 0)]
    assert g.result == [1, 3, 2, 4, 0] and g.points == [3, 10, 4, 8, 5]


def test_every_game_of_the_record_agrees(match1):
    report = replay_record(match1)
    assert report.first_disagreement is None
    assert (report.games_agreed, report.games) == (1000, 1000)


def test_default_client_chooses_every_logged_move(match1):
    record = read_log(MATCH1)
    record.games = record.games[:120]  # a reset at game 100 included; the rest: slow test
    report = replay_record(record, DefaultClient)
    assert report.first_decision_miss is None
    assert report.decisions == report.decisions_agreed > 8000


def test_a_changed_record_is_caught(match1):
    record = read_log(MATCH1)
    record.games = record.games[:12]
    g = record.games[4]
    g.hands[0], g.hands[1] = g.hands[1], g.hands[0]
    h = record.games[7]
    h.plays[5] = ((h.plays[5][0] + 1) % 5, h.plays[5][1])
    report = replay_record(record)
    assert report.games_agreed == 10
    assert report.first_disagreement.startswith("game 4: player 0 was dealt")


def _body(path) -> list[str]:
    return [line for line in Path(path).read_text().splitlines()
            if not line.startswith("%-----%")]


def test_our_server_deals_and_plays_as_the_official_one(match1, tmp_path):
    seats = [LocalSeat(DefaultClient(), f"dflt{i}") for i in range(5)]
    serve_match(seats, MatchSettings(games=60, rank_reset=100), seed=int(
        match1.header["RANDOM_SEED"]), log_path=str(tmp_path / "ours.log"))
    assert _body(tmp_path / "ours.log") == _body(MATCH1)[:60 * 7]


# docs/daihinmin.md's "3,000 / 3,000 official games and 222,934 / 222,934 default-client
# decisions agree": each record's decisions, exchanges included (BENCHMARKS, Daihinmin).
@pytest.mark.slow
@pytest.mark.parametrize("number, decisions", [(1, 74_096), (2, 74_302), (3, 74_536)])
def test_official_records_agree_in_full(number, decisions, tmp_path):
    path = DATA / f"daihinmin_default5_match{number}.log"
    record = read_log(path)
    report = replay_record(record, DefaultClient)
    assert report.ok, (report.first_disagreement, report.first_decision_miss)
    assert (report.games, report.decisions) == (1000, decisions)
    seats = [LocalSeat(DefaultClient(), f"dflt{i}") for i in range(5)]
    serve_match(seats, MatchSettings(games=1000, rank_reset=100),
              seed=int(record.header["RANDOM_SEED"]), log_path=str(tmp_path / "ours.log"))
    assert _body(tmp_path / "ours.log") == _body(path)


def _self_answers(record) -> int:
    """Passes by a player on its own play: it played, only the others passed since, and now it
    passes (the field still shows its play, or it is leading after a clear)."""
    count = 0
    for g in record.games:
        last = None  # the player of the last play, while only others have passed since
        for p, table in g.plays:
            played = bool(table[:5].any())
            if not played and p == last:
                count += 1
            last = p if played else (None if p == last else last)
    return count


def test_self_follow_lets_the_last_player_answer_its_own_play(tmp_path):
    from blokuszero.games.daihinmin import Rules

    settings = MatchSettings(games=20, rank_reset=10, seat_change_every=5)
    paths = {}
    for self_follow in (False, True):
        paths[self_follow] = tmp_path / f"self_follow_{self_follow}.log"
        serve_match([LocalSeat(DefaultClient(), f"d{i}") for i in range(5)], settings,
                  Rules(self_follow=self_follow), seed=21, log_path=str(paths[self_follow]))
    official, variant = read_log(paths[False]), read_log(paths[True])
    assert "RULE_SELF_FOLLOW" not in official.header
    assert variant.header["RULE_SELF_FOLLOW"] == "YES"
    # The default client never passes when it leads: under the official rule nobody passes on
    # their own play; under self-follow the last player gets that turn and mostly passes.
    assert _self_answers(official) == 0 and _self_answers(variant) > 20
    # The variant's record replays under the rule its header names, the client's moves included.
    assert replay_record(variant, DefaultClient).ok
