"""A UECda client (protocol 20070 over TCP) around our Daihinmin players.

    blokuszero-uecda -h HOST -p PORT -n NAME --player default
    blokuszero-uecda -h HOST -p PORT -n NAME --player mc:random:1000 --seed 1
    blokuszero-uecda -h HOST -p PORT -n NAME --player mc --set time_limit=0.5 --set simulations=0

Connects to an official ``tndhms`` server (or ours), plays until the server ends the match
(end flag 2, or closes the connection between games) and exits 0; a malformed table or a
dropped connection mid-game is reported on stderr with a non-zero exit.
"""

from __future__ import annotations

import argparse
import socket
import sys

import numpy as np

from ...games.daihinmin import DaihinminGame, Rules
from ...players.factory import CLIENT_SPECS, make_client, parse_client_spec
from ...protocols.uecda import (
    DEFAULT_PORT,
    GAME_GOES_ON,
    GAME_OVER,
    MATCH_OVER,
    TABLE_BYTES,
    TABLE_SHAPE,
    Connection,
    ProtocolError,
    decode_table,
    profile_table,
    recv_exact,
)
from ..options import (
    EngineParser,
    add_address_flags,
    add_player_flags,
    add_seed_flag,
    add_threads_flag,
    add_time_flag,
    check_port,
    engine_parser,
    player_spec,
    refuse,
    use_threads,
)


def check_table(table: np.ndarray, kind: str) -> None:
    """ProtocolError unless ``table`` looks like a server's ``kind`` table (deal, hand,
    field): cards 0/1/2 in rows 0-4, the phase flag [5][0] right, turn flag and player in
    range, card counts 0..53 and the seats a permutation. Ranks and the cells the official
    server never sets are not checked: it passes on there what other clients sent."""
    if not np.isin(table[:5], (0, 1, 2)).all():
        raise ProtocolError(f"malformed {kind} table: card cells must be 0, 1 or 2")
    if (table[5, 0] == 1) != (kind == "deal"):
        raise ProtocolError(f"malformed {kind} table: [5][0] = {table[5, 0]} (1 in the deal "
                            f"table only)")
    if not (table[5, 2] in (0, 1) and 0 <= table[5, 3] <= 6):
        raise ProtocolError(f"malformed {kind} table: [5][2] or [5][3] out of range")
    if not ((0 <= table[6, :5]).all() and (table[6, :5] <= 53).all()
            and sorted(table[6, 10:15]) == list(range(5))):
        raise ProtocolError(f"malformed {kind} table: card counts or seats out of range")


def play_match(conn: Connection, client) -> int:
    """Play games until the server ends the match; the number of games played."""
    games = 0
    while True:
        try:
            first = recv_exact(conn.sock, 4)
        except ProtocolError:
            if games:
                return games  # the server closed between games
            raise
        deal = decode_table(first + recv_exact(conn.sock, TABLE_BYTES - 4))
        check_table(deal, "deal")
        gift = client.on_deal(deal)
        if deal[5, 1] > 0:
            conn.send_table(np.zeros(TABLE_SHAPE, np.int64) if gift is None else gift)
        flag = GAME_GOES_ON
        while flag == GAME_GOES_ON:
            hand = conn.read_table()
            check_table(hand, "hand")
            answer = client.on_hand(hand)
            if hand[5, 2] == 1:
                conn.send_table(np.zeros(TABLE_SHAPE, np.int64) if answer is None else answer)
                conn.read_int()  # 9 accepted, 8 rejected (a pass): nothing to do either way
            field = conn.read_table()
            check_table(field, "field")
            client.on_field(field)
            flag = conn.read_int()
            if flag not in (GAME_GOES_ON, GAME_OVER, MATCH_OVER):
                raise ProtocolError(f"end flag {flag} is not 0, 1 or 2")
        games += 1
        if flag == MATCH_OVER:
            return games


def connect(host: str, port: int, name: str, timeout: float = 30.0) -> tuple[Connection, int]:
    """Connect, send the profile, read the player number."""
    sock = socket.create_connection((host, port), timeout=timeout)
    sock.settimeout(None)
    conn = Connection(sock)
    conn.send_table(profile_table(name))
    return conn, conn.read_int()


def build_parser() -> EngineParser:
    parser = engine_parser("blokuszero-uecda", "A UECda Daihinmin client (protocol 20070).", add_help=False)
    add_address_flags(parser, DEFAULT_PORT, "server host", short=True)
    parser.add_argument("-n", "--name", default="blokus", help="player name (9 characters kept)")
    parser.add_argument("--player", help=f"the player: {CLIENT_SPECS} (default: default)")
    add_player_flags(parser, "a player preset of a client kind (daihinmin_default, daihinmin_mc); "
                             "--player's options override it")
    add_time_flag(parser, "wall")
    add_seed_flag(parser, None, "seed of the player's search")
    add_threads_flag(parser)
    parser.add_argument("--self-follow", action="store_true",
                        help="the server lets the last player answer its own play before the "
                             "field clears (FujiGokoro's server; not the official records)")
    parser.add_argument("--help", action="help", help="show this help and exit")
    return parser


def client_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The table client the command line describes; a bad option ends the program in one line naming it."""
    shorthand = args.player if args.player is not None or args.preset is not None else "default"
    try:
        given = {} if shorthand is None else parse_client_spec(shorthand)
    except ValueError as err:
        refuse(parser, "--player", str(err))
    spec = player_spec(parser, args, None, {**{key: ("--player", value) for key, value in given.items()},
                                            "time_limit": ("--time", args.time)})
    try:
        return make_client(DaihinminGame(Rules(self_follow=args.self_follow)), spec, args.seed)
    except ValueError as err:  # a spec of a kind that is no table client
        refuse(parser, "--player" if args.player is not None else "--preset", str(err))


def main(argv: list[str] | None = None) -> int:
    """Play one match on a UECda server; the exit status (0: the match was played)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    check_port(parser, args)
    use_threads(parser, args)
    client = client_from_args(parser, args)
    try:
        conn, number = connect(args.host, args.port, args.name)
        games = play_match(conn, client)
    except (OSError, ProtocolError) as err:
        print(f"blokuszero-uecda: {err}", file=sys.stderr)
        return 1
    conn.close()
    print(f"blokuszero-uecda: player {number} played {games} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
