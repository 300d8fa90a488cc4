"""The board's HTTP server (aiohttp): the page, its scripts, and a JSON API over one
:class:`~.table.Table` and the record folders.

Every request is answered, a refused one with HTTP 4xx (5xx when a player failed) and
``{"error": "one line saying what was wrong"}``; the server goes on serving. A request body
names only the fields its endpoint takes: the page chooses among the players the server was
started with and can never name a program, a player setting or a file outside the record
folders. Work on the game (a player's move, an analysis) runs in a thread, one at a time.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from ....games.blokus import tables as T
from .records import RecordShelf
from .table import PERSON, Table, describe

STATIC = Path(__file__).parent / "static"
#: The largest request body the server reads (an SGF upload: a whole game is under 4 kB).
MAX_BODY_BYTES = 256 * 1024
#: Fields that would choose a program or a player's settings: a page never sends them.
_PROGRAM_FIELDS = {"command", "kind", "preset", "spec", "checkpoint", "engine", "program", "path", "options"}

TABLE = web.AppKey("table", Table)
SHELF = web.AppKey("shelf", RecordShelf)
LOCK = web.AppKey("lock", asyncio.Lock)
log = logging.getLogger(__name__)


#: Host names a browser uses for this machine: a board on loopback answers requests for these only.
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


@web.middleware
async def _errors(request: web.Request, handler: Callable) -> web.StreamResponse:
    """Every refusal as JSON with one line of reason."""
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge:
        return _error(413, f"the request is over the board's limit of {MAX_BODY_BYTES // 1024} kB")
    except web.HTTPException as err:
        if err.status < 400:
            raise
        return _error(err.status, f"{request.method} {request.path}: {err.reason}")
    except ValueError as err:
        return _error(400, str(err))
    except RuntimeError as err:  # a player failed or could not start
        return _error(502, str(err))
    except Exception as err:  # noqa: BLE001 (the page gets a message, the log the traceback)
        log.exception("request %s %s failed", request.method, request.path)
        return _error(500, f"internal error: {type(err).__name__}: {err}")


@web.middleware
async def _this_machine_only(request: web.Request, handler: Callable) -> web.StreamResponse:
    """On loopback, a request must name this machine (``Host``) and, if a page sent it, come
    from a page of this machine (``Origin``): a web site open in the same browser cannot drive
    the board, nor read the records through a name it points at 127.0.0.1 (DNS rebinding)."""
    host = urlsplit(f"//{request.host}").hostname or ""
    origin = request.headers.get("Origin")
    if host not in LOOPBACK_NAMES or (origin is not None and urlsplit(origin).hostname not in LOOPBACK_NAMES):
        return _error(403, f"request for host {request.host!r} from {origin or 'no page'} refused: this board "
                           f"serves this machine only (start it with --host to serve others)")
    return await handler(request)


async def _body(request: web.Request, fields: set[str]) -> dict[str, Any]:
    """The request's JSON object, every field one the endpoint takes."""
    text = await request.text()
    if not text.strip():
        return {}
    try:
        body = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"the request body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise ValueError(f"the request body must be a JSON object, not {type(body).__name__}")
    for key in body:
        if key in _PROGRAM_FIELDS:
            raise ValueError(f"field {key!r} refused: the page cannot start programs or choose player "
                             f"settings; players come only from the server's command line")
        if key not in fields:
            raise ValueError(f"unknown field {key!r}; {request.path} takes {sorted(fields) or 'none'}")
    return body


def _int(body: dict[str, Any], key: str, default: int | None = None) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"field {key!r} must be an integer, not {value!r}")
    return value


async def _locked(request: web.Request, work: Callable[[], Any]) -> Any:
    """``work`` on the table, in a thread, after any work before it."""
    async with request.app[LOCK]:
        return await asyncio.to_thread(work)


# --- the page -------------------------------------------------------------------------------
async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html")


async def info(request: web.Request) -> web.Response:
    """What the page needs once: the pieces' shapes, colours, players and the analyst."""
    table = request.app[TABLE]
    return web.json_response({
        "colours": list(T.COLOR_NAMES), "pieces": {n: [list(c) for c in T.PIECE_SHAPES[n]] for n in T.PIECE_NAMES},
        "person": PERSON, "players": list(table.specs), "analysis": table.analyst_name,
        "records": len(request.app[SHELF].folders)})


# --- play -----------------------------------------------------------------------------------
async def game(request: web.Request) -> web.Response:
    return web.json_response(await _locked(request, request.app[TABLE].view))


async def new_game(request: web.Request) -> web.Response:
    body = await _body(request, {"seats"})
    table = request.app[TABLE]
    seats = body.get("seats")
    if seats is not None and not (isinstance(seats, list) and all(isinstance(s, str) for s in seats)):
        raise ValueError(f"field 'seats' must be a list of four player names, not {seats!r}")

    def work():
        table.new_game(seats)
        return table.view()
    return web.json_response(await _locked(request, work))


async def move(request: web.Request) -> web.Response:
    body = await _body(request, {"colour", "move"})
    table = request.app[TABLE]
    colour, text = _int(body, "colour"), body.get("move")
    if not isinstance(text, str):
        raise ValueError(f"field 'move' must be a move in Pentobi notation (e.g. 'a20,b20'), not {text!r}")

    def work():
        table.play(colour, text)
        return table.view()
    return web.json_response(await _locked(request, work))


async def player_move(request: web.Request) -> web.Response:
    """One move by the player to move, if the game is still at ``ply`` (the page's view): a
    request that an undo or a new game overtook changes nothing."""
    body = await _body(request, {"ply"})
    table = request.app[TABLE]
    ply = _int(body, "ply")

    def work():
        if ply == len(table.line.moves) and table.view()["waiting_for"] == "player":
            table.player_move()
        return table.view()
    return web.json_response(await _locked(request, work))


async def undo(request: web.Request) -> web.Response:
    await _body(request, set())
    table = request.app[TABLE]

    def work():
        table.undo()
        return table.view()
    return web.json_response(await _locked(request, work))


async def load_sgf(request: web.Request) -> web.Response:
    """Continue from an uploaded Pentobi SGF file (the body is the file's text)."""
    raw = await request.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"the SGF file is not UTF-8 text (Pentobi writes UTF-8): {err}") from None
    table = request.app[TABLE]

    def work():
        table.load_sgf(text)
        return table.view()
    return web.json_response(await _locked(request, work))


async def save_sgf(request: web.Request) -> web.Response:
    text = await _locked(request, request.app[TABLE].sgf)
    name = f"blokuszero-{datetime.datetime.now():%Y%m%d-%H%M%S}.blksgf"
    return web.Response(text=text, content_type="application/x-blokus-sgf",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})


# --- records --------------------------------------------------------------------------------
async def records(request: web.Request) -> web.Response:
    return web.json_response(await asyncio.to_thread(request.app[SHELF].listing))


def _record_query(request: web.Request) -> tuple[str, int, int | None]:
    query = request.query
    unknown = set(query) - {"file", "game", "ply"}
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)}; records take file, game, ply")
    if "file" not in query:
        raise ValueError("parameter 'file' (a record's id, as /api/records lists them) is missing")
    try:
        index = int(query.get("game", "0"))
        ply = int(query["ply"]) if "ply" in query else None
    except ValueError:
        raise ValueError("parameters 'game' and 'ply' must be integers") from None
    return query["file"], index, ply


async def record_games(request: web.Request) -> web.Response:
    file_id, _, _ = _record_query(request)
    return web.json_response(await asyncio.to_thread(request.app[SHELF].games, file_id))


async def record_view(request: web.Request) -> web.Response:
    """A recorded game's position after ``ply`` moves (default: the start)."""
    file_id, index, ply = _record_query(request)

    def work():
        line = request.app[SHELF].game(file_id, index)
        return describe(line, 0 if ply is None else ply)
    return web.json_response(await asyncio.to_thread(work))


async def play_record(request: web.Request) -> web.Response:
    """Continue a recorded game on the table from its position after ``ply`` moves."""
    body = await _body(request, {"file", "game", "ply"})
    table, shelf = request.app[TABLE], request.app[SHELF]
    if not isinstance(body.get("file"), str):
        raise ValueError("field 'file' (a record's id) is missing")

    def work():
        line = shelf.game(body["file"], _int(body, "game", 0))
        ply = _int(body, "ply", len(line.moves))
        line.position(ply)  # ValueError for a ply the game does not have
        line.moves = line.moves[:ply]
        table.load(line)
        return table.view()
    return web.json_response(await _locked(request, work))


# --- analysis -------------------------------------------------------------------------------
async def analyse(request: web.Request) -> web.Response:
    """The analyst's top moves for the colour to move, on the table or in a record."""
    body = await _body(request, {"file", "game", "ply"})
    table, shelf = request.app[TABLE], request.app[SHELF]

    def work():
        if "file" in body:
            line = shelf.game(str(body["file"]), _int(body, "game", 0))
            state = line.position(_int(body, "ply", 0))
        else:
            state = table.state.clone()
        return table.analyse(state)
    return web.json_response(await _locked(request, work))


def make_app(table: Table, shelf: RecordShelf, loopback: bool = True) -> web.Application:
    """The board's application over ``table`` and ``shelf`` (``loopback``: served on this
    machine only, so requests naming another host are refused); it closes the table's engines
    on shutdown."""
    middlewares = [_this_machine_only, _errors] if loopback else [_errors]
    app = web.Application(middlewares=middlewares, client_max_size=MAX_BODY_BYTES)
    app[TABLE], app[SHELF], app[LOCK] = table, shelf, asyncio.Lock()
    app.router.add_get("/", index)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/api/info", info)
    app.router.add_get("/api/game", game)
    app.router.add_post("/api/new", new_game)
    app.router.add_post("/api/move", move)
    app.router.add_post("/api/player_move", player_move)
    app.router.add_post("/api/undo", undo)
    app.router.add_post("/api/load", load_sgf)
    app.router.add_get("/api/save", save_sgf)
    app.router.add_get("/api/records", records)
    app.router.add_get("/api/records/games", record_games)
    app.router.add_get("/api/records/view", record_view)
    app.router.add_post("/api/records/play", play_record)
    app.router.add_post("/api/analyse", analyse)

    async def close_engines(app: web.Application) -> None:
        await asyncio.to_thread(table.close)
    app.on_shutdown.append(close_engines)
    return app
