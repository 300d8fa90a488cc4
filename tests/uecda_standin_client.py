"""A stand-in for a foreign UECda client (such as FujiGokoro, not available in CI): a separate
program that speaks protocol 20070 with the standard library only, none of this package.

    python tests/uecda_standin_client.py -h HOST -p PORT [-n NAME] [--quit-after TURNS]

It gives its weakest cards when it must, leads its weakest single card (the joker alone when
nothing else is left) and passes when it follows. ``--quit-after`` closes the connection on its
TURNS-th turn, as a crashing client would. Exits 0 when the server ends the match.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys

CELLS = 8 * 15


def read_exact(sock: socket.socket, n: int) -> bytes:
    """Exactly ``n`` bytes; ConnectionError if the server closes first."""
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"server closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_table(sock: socket.socket) -> list[list[int]]:
    cells = struct.unpack(">120i", read_exact(sock, CELLS * 4))
    return [list(cells[r * 15:(r + 1) * 15]) for r in range(8)]


def read_int(sock: socket.socket) -> int:
    return struct.unpack(">i", read_exact(sock, 4))[0]


def send_table(sock: socket.socket, table: list[list[int]]) -> None:
    sock.sendall(struct.pack(">120i", *(cell for row in table for cell in row)))


def empty() -> list[list[int]]:
    return [[0] * 15 for _ in range(8)]


def weakest(hand: list[list[int]], n: int, revolution: bool) -> list[tuple[int, int]]:
    """The (suit, column) of the ``n`` weakest plain cards in a hand table."""
    columns = range(13, 0, -1) if revolution else range(1, 14)
    cards = [(suit, col) for col in columns for suit in range(4) if hand[suit][col] == 1]
    return cards[:n]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-h", dest="host", default="127.0.0.1")
    parser.add_argument("-p", dest="port", type=int, default=42485)
    parser.add_argument("-n", dest="name", default="standin")
    parser.add_argument("--quit-after", type=int, default=0)
    args = parser.parse_args(argv)
    sock = socket.create_connection((args.host, args.port))
    profile = empty()
    profile[0][0] = 20070
    for i, ch in enumerate(args.name[:14]):
        profile[1][i] = ord(ch)
    send_table(sock, profile)
    read_int(sock)  # our player number: this client needs none
    turns = 0
    while True:
        deal = read_table(sock)
        if deal[5][1] > 0:  # daifugo or fugo: give that many cards
            gift = empty()
            for suit, col in weakest(deal, deal[5][1], bool(deal[5][6])):
                gift[suit][col] = 1
            send_table(sock, gift)
        flag = 0
        while flag == 0:
            hand = read_table(sock)
            if hand[5][2] == 1:
                turns += 1
                if turns == args.quit_after:
                    sock.close()
                    return 0
                play = empty()
                if hand[5][4] == 1:  # a new trick: lead the weakest single
                    cards = weakest(hand, 1, bool(hand[5][6]))
                    if cards:
                        play[cards[0][0]][cards[0][1]] = 1
                    else:
                        play[0][1] = 2  # only the joker is left: it may sit in any cell
                send_table(sock, play)
                read_int(sock)  # accepted or rejected: the same to this client
            read_table(sock)  # the field
            flag = read_int(sock)
        if flag == 2:
            sock.close()
            return 0


if __name__ == "__main__":
    sys.exit(main())
