"""The SGF (FF[4]) core shared by every game's records: writing a game's main line, reading it back.

SGF text is a tree of nodes, each a list of properties ``IDENT[value][value]...``; a game's
moves are one node each. What the properties mean (``B`` / ``W`` with Go points, Pentobi's
``1``-``4`` with Blokus moves, set-up, board size) is the game's business: see
:mod:`blokuszero.games.go.sgf` and :mod:`blokuszero.games.blokus.sgf`. Identifiers are letters
and digits (Pentobi's ``1``-``4`` and ``A1``-``A4`` have digits); in values, ``\\`` escapes the
next character. Only the main line (the first variation at every branch) is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

#: A node: identifier -> its values, in file order.
Node = dict[str, list[str]]
#: A node to write: identifier -> one value or several.
Properties = Mapping[str, "str | Sequence[str]"]


def escape(text: str) -> str:
    """``text`` as an SGF value: ``\\`` and ``]`` escaped."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def format_node(properties: Properties) -> str:
    """``;IDENT[value]...`` of one node (a property with several values gets them all)."""
    parts = [";"]
    for ident, values in properties.items():
        values = [values] if isinstance(values, str) else list(values)
        parts.append(ident + "".join(f"[{escape(str(v))}]" for v in values))
    return "".join(parts)


def write_game(root: Properties, nodes: Iterable[Properties]) -> str:
    """One game tree: the root node, then one line per node (the moves), then ``)``."""
    return "(" + format_node(root) + "".join("\n" + format_node(n) for n in nodes) + "\n)\n"


class _Reader:
    """Recursive-descent reader of SGF text that keeps only the main line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def _peek(self) -> str:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1
        return self.text[self.i] if self.i < len(self.text) else ""

    def _expect(self, ch: str) -> None:
        if self._peek() != ch:
            found = repr(self._peek()) if self._peek() else "the end of the text (the game tree is not closed)"
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
                raise ValueError(f"SGF: property {ident} at offset {start} has no [value]")
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


def read_main_line(text: str) -> list[Node]:
    """The nodes of the main line of the first game tree in ``text`` (text before its ``(`` is
    skipped, as SGF allows); ValueError naming the offset of what is malformed."""
    start = text.find("(")
    if start < 0:
        raise ValueError("SGF has no game tree: expected '(' to open one")
    reader = _Reader(text)
    reader.i = start
    nodes = reader.tree(keep=True)
    if not nodes:
        raise ValueError("SGF: the game tree has no nodes")
    return nodes
