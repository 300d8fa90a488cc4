"""SGF (FF[4], GM[1]) for Go game records: write a game, read one back (its main line).

Points are two letters ``a``-``y`` (column, then row from the top); a pass is an empty
value (``tt`` is read as a pass too on boards up to 19x19). Set-up stones (AB, AW) and the
player to move (PL) are read; other properties are kept as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

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


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(game: GoGame, moves: Iterable[tuple[int, int]], properties: Mapping[str, str] | None = None,
              setup: Iterable[tuple[int, int]] = ()) -> str:
    """An SGF record of ``moves`` ((player, action) pairs) on ``game``'s board; ``properties``
    (e.g. PB, PW, RE, DT, GC) join the root node."""
    root = {"FF": "4", "GM": "1", "CA": "UTF-8", "SZ": str(game.size), "KM": f"{game.komi:g}",
            "RU": "Chinese", **(properties or {})}
    parts = ["(;" + "".join(f"{k}[{_escape(str(v))}]" for k, v in root.items())]
    setup = list(setup)
    for player, tag in ((0, "AB"), (1, "AW")):
        points = [_point(game, a) for p, a in setup if p == player]
        if points:
            parts.append(tag + "".join(f"[{pt}]" for pt in points))
    parts.append("\n")
    parts += [f";{'BW'[p]}[{_point(game, a)}]" for p, a in moves]
    parts.append(")\n")
    return "".join(parts)


def _parse_nodes(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the main line (first variation at every branch) of the first game tree."""
    i, n = 0, len(text)
    while i < n and text[i] != "(":
        i += 1
    if i == n:
        raise ValueError("SGF has no game tree: no '(' found")
    nodes: list[dict[str, list[str]]] = []
    depth = 0  # open '(' of the main line
    skip = 0  # depth inside a later variation being skipped
    node: dict[str, list[str]] | None = None
    while i < n:
        ch = text[i]
        if ch == "(":
            if depth and nodes and not skip and _first_variation_done(text, i):
                skip = 1
            elif skip:
                skip += 1
            else:
                depth += 1
            i += 1
        elif ch == ")":
            if skip:
                skip -= 1
            else:
                depth -= 1
                if depth == 0:
                    return nodes
            i += 1
        elif ch == ";":
            node = {}
            if not skip:
                nodes.append(node)
            i += 1
        elif ch.isspace():
            i += 1
        elif ch.isupper():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            ident = text[i:j]
            if j >= n or text[j] != "[":
                raise ValueError(f"SGF property {ident} at offset {i} has no [value]")
            values = []
            while j < n and text[j] == "[":
                k = j + 1
                value = []
                while k < n and text[k] != "]":
                    if text[k] == "\\" and k + 1 < n:
                        k += 1
                    value.append(text[k])
                    k += 1
                if k >= n:
                    raise ValueError(f"SGF value of {ident} at offset {j} is not closed by ']'")
                values.append("".join(value))
                j = k + 1
                while j < n and text[j].isspace():
                    j += 1
            if node is None:
                raise ValueError(f"SGF property {ident} at offset {i} is outside a node (no ';' before it)")
            if not skip:
                node[ident] = values
            i = j
        else:
            raise ValueError(f"SGF: unexpected character {ch!r} at offset {i}")
    raise ValueError("SGF game tree is not closed: a ')' is missing")


def _first_variation_done(text: str, i: int) -> bool:
    """Whether the '(' at ``i`` starts a second or later variation (a ')' closes a sibling
    just before it)."""
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j >= 0 and text[j] == ")"


def read_sgf(text: str) -> SgfRecord:
    """The main line of an SGF Go record; ValueError naming what is malformed or unsupported."""
    nodes = _parse_nodes(text)
    if not nodes:
        raise ValueError("SGF game tree has no node")
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
