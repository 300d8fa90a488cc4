"""Game records the board opens: Pentobi SGF (``.blksgf``) files and JSON-lines match logs
(an arena's or evaluation's ``games.jsonl``, whose games carry their SGF; or lines with a
``moves`` list in Pentobi notation, ``pass`` for a colour that could not move), found only in
the record folders the server was started with.

A file is named by ``FOLDER/RELATIVE/PATH`` (the folder's number on the command line, then the
path inside it); a name that leads outside its folder, through ``..`` or a link, is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....games.blokus.game import BlokusState
from ....games.blokus.notation import string_to_placement
from ....games.blokus.sgf import read_sgf
from ....games.sgf import read_main_line
from ....match.runner import load_records

#: File names the shelf lists: Pentobi SGF and JSON-lines logs.
SUFFIXES = (".blksgf", ".jsonl")
#: The largest record file the board reads (a 300-game evaluation log is about 1 MB).
MAX_RECORD_BYTES = 64 * 2**20
#: At most this many files are listed (a training run keeps one SGF every few games).
MAX_LISTED = 5000


@dataclass
class GameLine:
    """A game as the board steps through it: the position it starts from (empty, or an SGF's
    set-up), its moves as ``(colour, placement)``, and what the record says of it."""

    start: BlokusState
    moves: list[tuple[int, int]]
    title: str
    players: list[str]

    def position(self, ply: int) -> BlokusState:
        """The position after the first ``ply`` moves; ValueError outside 0..len(moves)."""
        if not 0 <= ply <= len(self.moves):
            raise ValueError(f"move {ply} is not in this game: it has moves 0..{len(self.moves)}")
        state = self.start.clone()
        for _, m in self.moves[:ply]:
            state.apply_action(m)
        return state


def game_from_sgf(text: str, title: str = "") -> GameLine:
    """A Blokus SGF game's main line (ValueError, naming the node, for a bad one): its set-up
    position, its moves and the players (Pentobi's ``P1``..``P4``) where it names them; its
    title is ``title`` and the game's comment or name."""
    nodes = read_main_line(text)
    start = read_sgf(text, before_move=1)
    moves = read_sgf(text).history()[len(start.history()):]
    root = nodes[0]
    players = [root.get(f"P{c + 1}", [""])[0] for c in range(4)]
    comment = root.get("GC", [""])[0] or root.get("GN", [""])[0]
    return GameLine(start, moves, ": ".join(t for t in (title, comment) if t), players)


def _game_from_moves(texts: list[Any], title: str) -> GameLine:
    """A game from a list of moves in Pentobi notation, ``pass`` where a colour could not move
    (the rules skip such a colour, so a pass is only checked to be a colour with no move)."""
    state = BlokusState()
    moves = []
    for number, text in enumerate(texts, 1):
        if not isinstance(text, str):
            raise ValueError(f"move {number} is {text!r}, not a move in Pentobi notation")
        if text.lower() == "pass":
            continue
        try:
            m = string_to_placement(text)
            colour = state.current_player()
            state.apply_action(m)
        except ValueError as err:
            raise ValueError(f"move {number} ({text}): {err}") from None
        moves.append((colour, m))
    return GameLine(BlokusState(), moves, title, ["", "", "", ""])


def game_from_json(line: dict[str, Any], title: str) -> GameLine:
    """One game of a JSON-lines log: from its ``sgf`` if it has one (arena, evaluation), else
    from its ``moves`` in Pentobi notation; ValueError if it has neither."""
    if isinstance(line.get("sgf"), str):
        game = game_from_sgf(line["sgf"], title)
    elif isinstance(line.get("moves"), list):
        game = _game_from_moves(line["moves"], title)
    else:
        raise ValueError("the line has neither an 'sgf' text nor a 'moves' list: not a Blokus game")
    seating = line.get("seating")
    if isinstance(seating, list) and len(seating) == 4:
        game.players = [str(s) for s in seating]
    return game


class RecordShelf:
    """The record folders given on the command line, and the games in their files."""

    def __init__(self, folders: list[str | Path]) -> None:
        self.folders = [Path(f).resolve() for f in folders]
        for folder in self.folders:
            if not folder.is_dir():
                raise ValueError(f"record folder {folder} is not a directory")

    def listing(self) -> list[dict[str, Any]]:
        """Every record file under the folders (``id``, ``folder``, ``path``), at most
        :data:`MAX_LISTED`, folders in command-line order and paths sorted."""
        files = []
        for number, folder in enumerate(self.folders):
            for path in sorted(folder.rglob("*")):
                if path.suffix in SUFFIXES and path.is_file() and self._inside(path, folder):
                    relative = path.relative_to(folder).as_posix()
                    files.append({"id": f"{number}/{relative}", "folder": str(folder), "path": relative})
                    if len(files) >= MAX_LISTED:
                        return files
        return files

    @staticmethod
    def _inside(path: Path, folder: Path) -> bool:
        return path.resolve().is_relative_to(folder)

    def path(self, file_id: str) -> Path:
        """The file named ``file_id``; ValueError (saying why) for a name that is malformed,
        outside the record folders, not a record or not there."""
        number, sep, relative = str(file_id).partition("/")
        if not sep or not number.isdigit() or int(number) >= len(self.folders):
            raise ValueError(f"record {file_id!r} is not FOLDER/PATH with FOLDER one of the "
                             f"{len(self.folders)} record folder(s) this board was started with")
        folder = self.folders[int(number)]
        path = (folder / relative).resolve()
        if not path.is_relative_to(folder):
            raise ValueError(f"record {file_id!r} is outside the record folders; the board opens "
                             f"only files under {', '.join(map(str, self.folders))}")
        if path.suffix not in SUFFIXES:
            raise ValueError(f"record {file_id!r} is not a game record ({' or '.join(SUFFIXES)})")
        if not path.is_file():
            raise ValueError(f"record {file_id!r} does not exist")
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise ValueError(f"record {file_id!r} is over {MAX_RECORD_BYTES // 2**20} MiB")
        return path

    def games(self, file_id: str) -> list[dict[str, Any]]:
        """The games of a file: ``index``, ``title`` and, for a log, ``players`` and ``scores``."""
        path = self.path(file_id)
        if path.suffix == ".blksgf":
            return [{"index": 0, "title": path.name}]
        out = []
        for index, line in enumerate(self._lines(path)):
            out.append({"index": index, "title": f"game {line.get('index', index)}",
                        "players": line.get("seating"), "scores": line.get("scores")})
        return out

    def game(self, file_id: str, index: int) -> GameLine:
        """Game ``index`` of a file (0 for an SGF file); ValueError naming the file and game."""
        path = self.path(file_id)
        try:
            if path.suffix == ".blksgf":
                if index != 0:
                    raise ValueError("an SGF file holds one game, number 0")
                return game_from_sgf(path.read_text(encoding="utf-8"), path.name)
            lines = self._lines(path)
            if not 0 <= index < len(lines):
                raise ValueError(f"the log has games 0..{len(lines) - 1}, not {index}")
            return game_from_json(lines[index], f"{path.name}, game {lines[index].get('index', index)}")
        except (ValueError, UnicodeDecodeError) as err:
            raise ValueError(f"record {file_id!r}: {err}") from None

    @staticmethod
    def _lines(path: Path) -> list[dict[str, Any]]:
        # A match still being played may have a torn last line: it is left out until complete.
        lines = load_records(path, report=lambda _: None)
        for number, line in enumerate(lines, 1):
            if not isinstance(line, dict):
                raise ValueError(f"{path.name} line {number} is not a JSON object")
        return lines
