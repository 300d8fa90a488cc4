"""The official server's game records (UECDA.md §6): reading and writing.

A record has header lines ``%-----%KEY% value`` and per game (``%NNNNN%`` from 0) the ranks
at the deal (``mibun``, 22222 after a reset), the seats, the hands as dealt, the exchange,
every submission in order (rejected ones too; ``<player>EE`` a pass), the finishing order
and the cumulative points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .cards import parse_cells, table_cells_to_string, table_to_hand

_LINE = re.compile(r"^%(-----|\d{5})%([A-Za-z_0-9]+)% ?(.*)$")


@dataclass
class LoggedGame:
    """One game of a record; tables are [8, 15] as the server saw them."""

    number: int  # from 0
    ranks: list[int] | None  # rank per player at the deal; None after a reset (22222)
    seats: list[int]  # player per seat
    hands: list[int]  # as dealt, before the exchange (53-bit sets)
    changes: list[tuple[int, int, np.ndarray]]  # (from, to, cards) in the server's order
    plays: list[tuple[int, np.ndarray]]  # (player, submitted table), rejected ones included
    result: list[int]  # players in finishing order
    points: list[int]  # cumulative points per player after this game


@dataclass
class MatchRecord:
    """A whole record: header settings, player names and the games."""

    header: dict[str, str] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    games: list[LoggedGame] = field(default_factory=list)

    def setting(self, key: str, default: int) -> int:
        """A numeric header setting (YES/NO as 1/0)."""
        value = self.header.get(key, "").strip()
        if value in ("YES", "NO"):
            return int(value == "YES")
        return int(value) if value.lstrip("-").isdigit() else default


def _entries(text: str) -> list[str]:
    text = text.strip()
    if not text or text == "NULL":
        return []
    entries = text.split()
    for e in entries:
        if not e.endswith("EE"):
            raise ValueError(f"entry {e!r} does not end with EE")
    return [e[:-2] for e in entries]


def _digits(text: str, what: str) -> list[int]:
    text = text.strip()
    if len(text) != 5 or not text.isdigit():
        raise ValueError(f"{what} {text!r} is not 5 digits")
    return [int(ch) for ch in text]


def read_log(path: str | Path) -> MatchRecord:
    """Parse a record; ValueError naming the line of anything malformed."""
    record = MatchRecord()
    current: dict[str, str] = {}
    number = None
    lines = Path(path).read_text(encoding="latin-1").splitlines()

    def close() -> None:
        if number is None:
            return
        try:
            record.games.append(_game(number, current))
        except KeyError as err:
            raise ValueError(f"{path}: game {number} has no {err.args[0]} line "
                             f"(a record cut short?)") from None
        except ValueError as err:
            raise ValueError(f"{path}: game {number}: {err}") from None

    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"{path}:{lineno}: not a record line: {line[:60]!r}")
        tag, key, value = m.groups()
        if tag == "-----":
            if key == "palyer_name":
                record.names = value.split()
            else:
                record.header[key] = value.strip()
            continue
        if int(tag) != number:
            close()
            number, current = int(tag), {}
        current[key] = value
    close()
    return record


def _game(number: int, f: dict[str, str]) -> LoggedGame:
    mibun = _digits(f["mibun"], "mibun")
    hands_text = f["palyer_cards"].split()
    if len(hands_text) != 5:
        raise ValueError(f"palyer_cards has {len(hands_text)} hands, not 5")
    changes = []
    for e in _entries(f.get("change_cards", "NULL")):
        if len(e) < 2 or not e[:2].isdigit():
            raise ValueError(f"change entry {e!r} does not start with two player numbers")
        changes.append((int(e[0]), int(e[1]), parse_cells(e[2:])))
    plays = []
    for e in _entries(f["play"]):
        if not e[:1].isdigit():
            raise ValueError(f"play entry {e!r} does not start with a player number")
        plays.append((int(e[0]), parse_cells(e[1:])))
    return LoggedGame(
        number=number,
        ranks=None if mibun == [2] * 5 else mibun,
        seats=_digits(f["seat"], "seat"),
        hands=[table_to_hand(parse_cells(h)) for h in hands_text],
        changes=changes,
        plays=plays,
        result=_digits(f["result"], "result"),
        points=[int(x) for x in f["points"].split()],
    )


def format_cells(table: np.ndarray) -> str:
    """Cards of a table in log notation."""
    return "".join(table_cells_to_string(table))


class LogWriter:
    """Writes a record in the official format, game by game."""

    def __init__(self, path: str | Path, header: list[tuple[str, str]]) -> None:
        """``header``: (key, value) lines in order (hostname, TIME_START, palyer_name, rules)."""
        self.file = open(path, "w", encoding="latin-1")
        for key, value in header:
            self.file.write(f"%-----%{key}% {value}\n")

    def game(self, number: int, ranks: list[int] | None, seats: list[int], hands: list[str],
             changes: list[str], plays: list[str], result: list[int], points: list[int]) -> None:
        """One game; ``hands`` / ``changes`` / ``plays`` already in notation (without EE)."""
        tag = f"%{number:05d}%"
        w = self.file.write
        w(f"{tag}mibun% {''.join(map(str, ranks or [2] * 5))}\n")
        w(f"{tag}seat% {''.join(map(str, seats))}\n")
        w(f"{tag}palyer_cards% {' '.join(hands)} \n")
        w(f"{tag}change_cards% " + ("".join(f" {c}EE" for c in changes) if changes else "NULL")
          + "\n")
        w(f"{tag}play% " + "".join(f" {p}EE" for p in plays) + "\n")
        w(f"{tag}result% {''.join(map(str, result))}\n")
        w(f"{tag}points% {' '.join(map(str, points))}\n")
        self.file.flush()

    def close(self, footer: list[tuple[str, str]]) -> None:
        for key, value in footer:
            self.file.write(f"%-----%{key}% {value}\n")
        self.file.close()
