"""SGF (FF[4], GM[1]) for Go game records: write a game, read one back (its main line).

Points are two letters ``a``-``y`` (column, then row from the top); a pass is an empty
value (``tt`` is read as a pass too on boards up to 19x19). Set-up stones (AB, AW) and the
player to move (PL) are read; other properties are kept as text. The SGF syntax itself is
:mod:`blokuszero.games.sgf`'s, shared with Blokus.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..sgf import read_main_line, write_game
from .game import GoGame, GoState

_LETTERS = "abcdefghijklmnopqrstuvwxy"


@dataclass
class SgfRecord:
    """A Go game read from SGF: board, komi, set-up stones and moves of the main line."""

    size: int
    komi: float
    setup: list[tuple[int, int]] = field(default_factory=list)  # (player, action)
    to_move: int = 0  # player to move after the set-up
    moves: list[tuple[int, int]] = field(default_factory=list)  # (player, action)
    properties: dict[str, str] = field(default_factory=dict)  # root properties as text

    def game(self, ko_rule: str = "simple") -> GoGame:
        return GoGame(self.size, self.komi, ko_rule)

    def replay(self, ko_rule: str = "simple") -> GoState:
        """The final position; ValueError naming the move if one is out of turn or illegal."""
        state = self.game(ko_rule).new_initial_state()
        state.set_up(self.setup, self.to_move)
        for i, (player, action) in enumerate(self.moves):
            if player != state.current_player():
                raise ValueError(f"SGF move {i + 1} ({'BW'[player]}[{_point(state.game, action)}]) "
                                 f"is out of turn")
            try:
                state.apply_action(action)
            except ValueError as err:
                raise ValueError(f"SGF move {i + 1}: {err}") from None
        return state


def _point(game: GoGame, action: int) -> str:
    if action == game.pass_action:
        return ""
    y, x = divmod(action, game.size)
    return _LETTERS[x] + _LETTERS[y]


def write_sgf(game: GoGame, moves: Iterable[tuple[int, int]], properties: Mapping[str, str] | None = None,
              setup: Iterable[tuple[int, int]] = ()) -> str:
    """An SGF record of ``moves`` ((player, action) pairs) on ``game``'s board; ``properties``
    (e.g. PB, PW, RE, DT, GC) join the root node."""
    root: dict[str, str | list[str]] = {"FF": "4", "GM": "1", "CA": "UTF-8", "SZ": str(game.size),
                                         "KM": f"{game.komi:g}", "RU": "Chinese", **(properties or {})}
    setup = list(setup)
    for player, tag in ((0, "AB"), (1, "AW")):
        points = [_point(game, a) for p, a in setup if p == player]
        if points:
            root[tag] = points
    return write_game(root, ({"BW"[p]: _point(game, a)} for p, a in moves))


def write_record(game: GoGame, state: GoState, moves: Sequence[tuple[int, int]], seating: Sequence[str],
                 comment: str, result: str | None) -> str:
    """A played game's record (the registry's record writer): Black's and White's players, the
    result (``result`` when a referee or a resignation decided the game, else the area score)."""
    if result is None:
        score = state.score()
        result = "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"
    return write_sgf(game, moves, {"PB": seating[0], "PW": seating[1], "RE": result, "GC": comment})


def read_sgf(text: str) -> SgfRecord:
    """The main line of an SGF Go record; ValueError naming what is malformed or unsupported."""
    nodes = read_main_line(text)
    root = nodes[0]
    if root.get("GM", ["1"])[0] != "1":
        raise ValueError(f"SGF game type GM[{root['GM'][0]}] is not Go (GM[1])")
    size_text = root.get("SZ", ["19"])[0]
    if not size_text.isdigit() or not 2 <= int(size_text) <= 25:
        raise ValueError(f"SGF board size SZ[{size_text}] is not a square size in [2, 25]")
    size = int(size_text)
    try:
        komi = float(root.get("KM", ["0"])[0] or 0)
    except ValueError:
        raise ValueError(f"SGF komi KM[{root['KM'][0]}] is not a number") from None
    record = SgfRecord(size, komi, properties={k: v[0] for k, v in root.items() if v})
    game = record.game()

    def action(value: str, where: str) -> int:
        if value == "" or (value == "tt" and size <= 19):
            return game.pass_action
        if len(value) != 2 or any(c not in _LETTERS[:size] for c in value):
            raise ValueError(f"SGF {where}: [{value}] is not a point of the {size}x{size} board")
        return _LETTERS.index(value[1]) * size + _LETTERS.index(value[0])

    for player, tag in ((0, "AB"), (1, "AW")):
        for v in root.get(tag, []):
            if ":" in v:
                raise ValueError(f"SGF {tag}: compressed point lists ({v}) are not supported")
            record.setup.append((player, action(v, tag)))
    if "PL" in root:
        if root["PL"][0] not in ("B", "W"):
            raise ValueError(f"SGF PL[{root['PL'][0]}] is not B or W")
        record.to_move = "BW".index(root["PL"][0])
    elif any(p == 0 for p, _ in record.setup):
        record.to_move = 1  # handicap stones: White moves first
    for number, node in enumerate(nodes):
        for player, tag in ((0, "B"), (1, "W")):
            if tag in node:
                record.moves.append((player, action(node[tag][0], f"node {number} {tag}")))
        if number and ("AB" in node or "AW" in node):
            raise ValueError(f"SGF node {number}: set-up stones after the root are not supported")
    return record
