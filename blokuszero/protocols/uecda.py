"""The UECda wire protocol, version 20070 (UECDA.md §1-2), on both ends.

Everything is a table of 8 x 15 int32 (480 bytes, each big-endian) or a single big-endian
int32. A client connects (TCP 42485 by default), sends its profile table ([0][0] = 20070, the
name one character per cell of row 1), reads its player number; then per game: the deal table
(and, if [5][1] > 0, answers with that many cards), and per turn a hand table (answering with a
table on its turn, [5][2] = 1, then reading 9 accepted / 8 rejected), the field table and an
end flag (0 go on, 1 game over, 2 match over). This module knows no game rules.
"""

from __future__ import annotations

import socket

import numpy as np

PROTOCOL_VERSION = 20070
DEFAULT_PORT = 42485
TABLE_SHAPE = (8, 15)
TABLE_BYTES = 8 * 15 * 4
NAME_CELLS = 15
#: The server's answer to a submission, and the flag ending each turn (UECDA.md §2).
ACCEPTED, REJECTED = 9, 8
GAME_GOES_ON, GAME_OVER, MATCH_OVER = 0, 1, 2


class ProtocolError(Exception):
    """The peer broke the protocol or the connection dropped."""


def encode_table(table: np.ndarray) -> bytes:
    """480 bytes: the table's cells row by row as big-endian int32 (negative values as the
    server sends them: 0)."""
    cells = np.asarray(table, dtype=np.int64)
    if cells.shape != TABLE_SHAPE:
        raise ValueError(f"a table is 8 x 15, not {cells.shape}")
    return np.clip(cells, 0, 2**31 - 1).astype(">i4").tobytes()


def decode_table(data: bytes) -> np.ndarray:
    """[8, 15] int64 table from 480 bytes; ProtocolError on another length."""
    if len(data) != TABLE_BYTES:
        raise ProtocolError(f"a table is {TABLE_BYTES} bytes, got {len(data)}")
    return np.frombuffer(data, dtype=">i4").astype(np.int64).reshape(TABLE_SHAPE)


def profile_table(name: str) -> np.ndarray:
    """The first table a client sends: the protocol version and its name (ASCII, up to 14
    characters, NUL-terminated; the server keeps 9)."""
    if not name.isascii() or not name.isprintable():
        raise ValueError(f"the name {name!r} must be printable ASCII")
    table = np.zeros(TABLE_SHAPE, np.int64)
    table[0, 0] = PROTOCOL_VERSION
    codes = [ord(ch) for ch in name[:NAME_CELLS - 1]]
    table[1, :len(codes)] = codes
    return table


def profile_name(table: np.ndarray) -> str:
    """The name in a profile table; ProtocolError if the version is not 20070."""
    if int(table[0, 0]) != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol {int(table[0, 0])} is not {PROTOCOL_VERSION}")
    chars = []
    for code in table[1]:
        if code == 0:
            break
        chars.append(chr(int(code)) if 32 <= code < 127 else "?")
    return "".join(chars)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    """Exactly ``n`` bytes; ProtocolError if the peer closes first."""
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ProtocolError(f"connection closed after {got} of {n} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class Connection:
    """One end of a UECda connection: tables and int32 values over a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        # Small tables and int32 answers go back and forth: without this, Nagle's algorithm
        # meets delayed acknowledgements and each turn waits tens of milliseconds.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_table(self, table: np.ndarray) -> None:
        self.sock.sendall(encode_table(table))

    def send_int(self, value: int) -> None:
        self.sock.sendall(int(max(value, 0)).to_bytes(4, "big"))

    def read_table(self) -> np.ndarray:
        return decode_table(recv_exact(self.sock, TABLE_BYTES))

    def read_int(self) -> int:
        return int.from_bytes(recv_exact(self.sock, 4), "big", signed=True)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def listen(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> socket.socket:
    """A listening socket for clients (port 0: any free port; see ``getsockname()``)."""
    listener = socket.create_server((host, port))
    return listener


def accept_player(listener: socket.socket, number: int, timeout: float = 30.0
                  ) -> tuple[Connection, str]:
    """Accept one client: read its profile table, send its player number; (connection, name).
    ProtocolError if it does not speak 20070 within ``timeout`` seconds."""
    listener.settimeout(timeout)
    try:
        sock, _ = listener.accept()
    except socket.timeout:
        raise ProtocolError(f"no client connected within {timeout:g} s") from None
    sock.settimeout(timeout)
    conn = Connection(sock)
    try:
        name = profile_name(conn.read_table())
    except (OSError, ProtocolError) as err:
        conn.close()
        raise ProtocolError(f"client {number} sent no 20070 profile: {err}") from None
    sock.settimeout(None)
    conn.send_int(number)
    return conn, name


class TcpSeat:
    """A player across the network, for the match server. As the official server, it reads a
    dropped client's submissions as all-zero tables (passes) and carries on without it."""

    def __init__(self, conn: Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self.dropped = False

    def _send(self, send, value) -> None:
        if self.dropped:
            return
        try:
            send(value)
        except OSError:
            self.dropped = True

    def _read(self) -> np.ndarray:
        if not self.dropped:
            try:
                return self.conn.read_table()
            except (OSError, ProtocolError):
                self.dropped = True
        return np.zeros(TABLE_SHAPE, np.int64)

    def deal(self, table: np.ndarray) -> None:
        self._send(self.conn.send_table, table)

    def read_gift(self) -> np.ndarray:
        return self._read()

    def hand(self, table: np.ndarray) -> None:
        self._send(self.conn.send_table, table)

    def read_play(self) -> np.ndarray:
        return self._read()

    def reply(self, code: int) -> None:
        self._send(self.conn.send_int, code)

    def field(self, table: np.ndarray) -> None:
        self._send(self.conn.send_table, table)

    def end(self, flag: int) -> None:
        self._send(self.conn.send_int, flag)
