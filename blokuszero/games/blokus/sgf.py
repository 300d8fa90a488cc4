"""Pentobi's Blokus SGF game files (``.blksgf``), read and written.

Format (Pentobi's ``libpentobi_base/Pentobi-SGF.md``): an SGF 4 game tree with
``GM[Blokus]``; each move node holds one property ``1`` .. ``4`` (Blue, Yellow, Red, Green)
whose value is the move in Pentobi notation. The root may set up a position with
``A1`` .. ``A4`` (pieces per colour, several values) and ``PL`` (colour to play).
Only the main line (the first variation at every branch) is read.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import tables as T
from .game import BlokusState
from .notation import placement_to_string, string_to_placement

GAME_NAME = "Blokus"
_MOVE_PROPS = ("1", "2", "3", "4")
_SETUP_PROPS = ("A1", "A2", "A3", "A4")

Node = dict[str, list[str]]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(state: BlokusState, properties: Mapping[str, str] | None = None) -> str:
    """The moves that led to ``state`` as a Blokus SGF game, from the empty board.

    ``properties`` adds root properties (e.g. ``{"GC": "seed 7", "RE": "..."}``).
    """
    root = {"GM": GAME_NAME, "FF": "4", "CA": "UTF-8", "AP": "BlokusZero"}
    root.update(properties or {})
    head = "".join(f"{k}[{_escape(str(v))}]" for k, v in root.items())
    moves = "".join(f"\n;{c + 1}[{placement_to_string(m)}]" for c, m in state.history())
    return f"(;{head}{moves}\n)\n"


class _Reader:
    """Recursive-descent reader of SGF text that keeps only the main line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def _skip_space(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def _peek(self) -> str:
        self._skip_space()
        return self.text[self.i] if self.i < len(self.text) else ""

    def _expect(self, ch: str) -> None:
        if self._peek() != ch:
            found = repr(self._peek()) if self._peek() else "the end"
            raise ValueError(f"SGF: expected {ch!r} at offset {self.i}, found {found}")
        self.i += 1

    def _value(self, ident: str) -> str:
        self._expect("[")
        out = []
        while self.i < len(self.text) and self.text[self.i] != "]":
            if self.text[self.i] == "\\":
                self.i += 1
            out.append(self.text[self.i : self.i + 1])
            self.i += 1
        if self.i >= len(self.text):
            raise ValueError(f"SGF: value of property {ident} is not closed with ']'")
        self.i += 1
        return "".join(out)

    def _node(self) -> Node:
        self._expect(";")
        node: Node = {}
        while self._peek().isalnum():
            start = self.i
            while self.i < len(self.text) and self.text[self.i].isalnum():
                self.i += 1
            ident = self.text[start:self.i]
            if self._peek() != "[":
                raise ValueError(f"SGF: property {ident} has no value")
            while self._peek() == "[":
                node.setdefault(ident, []).append(self._value(ident))
        return node

    def tree(self, keep: bool) -> list[Node]:
        """Read one game tree; return its main line if ``keep``."""
        self._expect("(")
        nodes = []
        while self._peek() == ";":
            nodes.append(self._node())
        first = True
        while self._peek() == "(":
            child = self.tree(keep and first)
            if keep and first:
                nodes.extend(child)
            first = False
        self._expect(")")
        return nodes if keep else []


def _parse_main_line(text: str) -> list[Node]:
    """Nodes of the main line of the first game tree in ``text``."""
    return _Reader(text).tree(keep=True)


def read_sgf(text: str) -> BlokusState:
    """Replay a Blokus SGF game (main line) and return the final position.

    ValueError names the node and move if the file is not classic Blokus or a move is
    illegal or out of turn.
    """
    nodes = _parse_main_line(text)
    if not nodes:
        raise ValueError("SGF: the game tree has no nodes")
    root = nodes[0]
    game = root.get("GM", [GAME_NAME])[0]
    if game != GAME_NAME:
        raise ValueError(f"SGF: game {game!r} is not classic Blokus (GM[{GAME_NAME}])")
    setup = [(c, string_to_placement(v)) for c, p in enumerate(_SETUP_PROPS) for v in root.get(p, [])]
    to_move = 0
    if "PL" in root:
        pl = root["PL"][0]
        if pl not in _MOVE_PROPS:
            raise ValueError(f"SGF: PL[{pl}] is not a colour 1-4")
        to_move = _MOVE_PROPS.index(pl)
    state = BlokusState.from_moves(setup, to_move)
    for number, node in enumerate(nodes):
        for c, prop in enumerate(_MOVE_PROPS):
            for value in node.get(prop, []):
                try:
                    m = string_to_placement(value)
                    if state.current_player() != c:
                        raise ValueError(f"{T.COLOR_NAMES[c]} is not to move "
                                         f"({'nobody' if state.is_terminal() else T.COLOR_NAMES[state.current_player()]} is)")
                    state.apply_action(m)
                except ValueError as err:
                    raise ValueError(f"SGF node {number}, {prop}[{value}]: {err}") from None
    return state
