"""The GGP match protocol's messages (Stanford GGP, "ACL" s-expressions over HTTP POST).

A game manager sends, as the body of an HTTP POST (text, case-insensitive):

- ``(info)`` -> ``available`` (or ``busy``);
- ``(start MATCHID ROLE (RULES...) STARTCLOCK PLAYCLOCK)`` -> ``ready``;
- ``(play MATCHID MOVES)`` with MOVES ``nil`` on the first play, else the previous joint move
  (one move per role, in role order) -> the player's move in KIF;
- ``(stop MATCHID MOVES)`` -> ``done``; ``(abort MATCHID)`` -> ``done``;
- ``(preview (RULES...) PREVIEWCLOCK)`` -> ``ready``.

Wire format only: parsing requests into :class:`Message` and writing them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..games.ggp.kif import KifError, parse_sexpr, sexpr_to_kif

COMMANDS = ("info", "start", "play", "stop", "abort", "preview")


class ProtocolError(ValueError):
    """A message that is not a valid GGP request."""


@dataclass(frozen=True)
class Message:
    """A request: ``command`` and whichever fields it carries."""

    command: str
    match_id: str | None = None
    role: str | None = None
    rules: str | None = None  # the description as KIF text
    start_clock: float | None = None
    play_clock: float | None = None
    moves: list[str] | None = field(default=None)  # KIF moves; None for nil


def _clock(expr, what: str) -> float:
    try:
        value = float(expr)
    except (TypeError, ValueError):
        raise ProtocolError(f"{what} must be a number of seconds, got {sexpr_to_kif(expr)}") from None
    if value < 0:
        raise ProtocolError(f"{what} must not be negative")
    return value


def _moves(expr) -> list[str] | None:
    if expr == "nil":
        return None
    if isinstance(expr, str):
        raise ProtocolError(f"moves must be nil or a list, got {expr}")
    return [sexpr_to_kif(m) for m in expr]


def _rules(expr) -> str:
    if isinstance(expr, str):
        raise ProtocolError(f"rules must be a list of sentences, got {expr}")
    return "\n".join(sexpr_to_kif(s) for s in expr)


def parse_message(text: str) -> Message:
    """A request from its text; ProtocolError naming what is wrong."""
    try:
        expr = parse_sexpr(text)
    except KifError as err:
        raise ProtocolError(f"malformed message: {err}") from None
    if isinstance(expr, str) or not expr or not isinstance(expr[0], str):
        raise ProtocolError("a message is a list starting with a command")
    command, args = expr[0], expr[1:]
    shapes = {"info": 0, "start": 5, "play": 2, "stop": 2, "abort": 1, "preview": 2}
    if command not in shapes:
        raise ProtocolError(f"unknown command {command!r}; known: {', '.join(COMMANDS)}")
    if len(args) != shapes[command]:
        raise ProtocolError(f"{command} takes {shapes[command]} arguments, got {len(args)}")
    if command in ("start", "play", "stop", "abort") and not isinstance(args[0], str):
        raise ProtocolError(f"{command}: the match id must be a symbol")
    if command == "info":
        return Message("info")
    if command == "start":
        if not isinstance(args[1], str):
            raise ProtocolError("start: the role must be a symbol")
        return Message("start", args[0], args[1], _rules(args[2]), _clock(args[3], "start clock"),
                       _clock(args[4], "play clock"))
    if command in ("play", "stop"):
        return Message(command, args[0], moves=_moves(args[1]))
    if command == "abort":
        return Message("abort", args[0])
    return Message("preview", rules=_rules(args[0]), start_clock=_clock(args[1], "preview clock"))


def format_message(message: Message) -> str:
    """The request's text, as a game manager sends it."""
    c = message.command
    if c == "info":
        return "(info)"
    if c == "start":
        return (f"(start {message.match_id} {message.role} ({message.rules}) "
                f"{message.start_clock:g} {message.play_clock:g})")
    if c in ("play", "stop"):
        moves = "nil" if message.moves is None else "(" + " ".join(message.moves) + ")"
        return f"({c} {message.match_id} {moves})"
    if c == "abort":
        return f"(abort {message.match_id})"
    return f"(preview ({message.rules}) {message.start_clock:g})"
