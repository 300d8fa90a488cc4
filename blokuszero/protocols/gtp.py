"""The Go Text Protocol on the wire: a command loop for engines and a client for controllers.

GTP (version 2) in brief: a controller writes one command per line, optionally preceded by a
numeric id; the engine answers ``=`` (success) or ``?`` (failure), the id if one was given, a
space and the response text, and ends the answer with an empty line. This module knows nothing
of any game: :class:`GtpEngine` dispatches to handlers it is given, :class:`GtpClient` talks to
an engine in a child process (ours, or Pentobi's ``pentobi-gtp``).
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import IO

from ..processes import stop_process
from .lines import BadLine, decode_line, read_lines, write_text


class GtpError(Exception):
    """A command failed; the engine answers ``? <message>``, a client raises it."""


#: A command handler takes the command's arguments and returns the response text.
Handler = Callable[[list[str]], str]

# Control characters other than tab and newline are dropped from input (GTP 2, section 3.1).
_DROP = {c: None for c in range(32) if c not in (9, 10)} | {127: None}


def parse_command(line: str) -> tuple[str, str, list[str]] | None:
    """(id, command name, arguments) of an input line; None for a blank or comment-only line."""
    line = line.translate(_DROP).replace("\t", " ").split("#", 1)[0].strip()
    if not line:
        return None
    words = line.split()
    ident = ""
    if words[0].isascii() and words[0].isdigit():  # an id: ASCII digits only ("²" is a digit too)
        ident = words.pop(0)
    if not words:
        return ident, "", []
    return ident, words[0], words[1:]


def expect_arguments(args: list[str], count: int, usage: str) -> list[str]:
    """``args`` if there are exactly ``count`` of them; else a GtpError (GTP's syntax error)
    quoting ``usage``. Commands GTP defines without arguments refuse extra ones too."""
    if len(args) != count:
        raise GtpError(f"syntax error: expected {usage}")
    return args


def format_response(ident: str, ok: bool, text: str) -> str:
    """One answer on the wire. Empty lines inside ``text`` would end the answer early, so they
    go; a leading newline stays (a board then starts on the line after the ``=``). The space
    after ``=``/``?`` and the id is always written, also before an empty or multi-line text
    (``= \n\n``), as GNU Go and Pentobi do: Pentobi's ``twogtp`` refuses a first line that is
    not ``=`` or ``?`` followed by a space."""
    first, *rest = text.rstrip().split("\n")
    body = "\n".join([first.strip(), *(line.rstrip() for line in rest if line.strip())])
    return f"{'=' if ok else '?'}{ident} {body}\n\n"


def no_arguments(name: str, respond: Callable[[], str]) -> Handler:
    """A handler for a command that takes no arguments (``name``, ``clear_board``, ...)."""
    def handler(args: list[str]) -> str:
        if args:
            raise GtpError(f"syntax error: {name} takes no arguments")
        return respond()
    return handler


class GtpEngine:
    """Answers GTP commands with ``handlers`` (name -> function of the argument list).

    ``protocol_version``, ``known_command``, ``list_commands`` and ``quit`` are built in. A
    handler signals a failed command with :class:`GtpError` (or ValueError); any other exception
    is answered as an internal error too, so that no input ends the engine.
    """

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self.handlers: dict[str, Handler] = {
            "protocol_version": no_arguments("protocol_version", lambda: "2"),
            "known_command": lambda args: str(expect_arguments(args, 1, "known_command COMMAND")[0]
                                              in self.handlers).lower(),
            "list_commands": no_arguments("list_commands", lambda: "\n".join(sorted(self.handlers))),
            "quit": no_arguments("quit", lambda: ""),
            **handlers}
        self.finished = False

    def answer(self, line: str | BadLine) -> str | None:
        """The wire answer to one input line (None for a blank or comment line); a line that
        could not be read (:class:`~.lines.BadLine`) is refused, with its id if one is legible."""
        if isinstance(line, BadLine):
            parsed = parse_command(line.text)
            return format_response(parsed[0] if parsed else "", False, line.reason)
        parsed = parse_command(line)
        if parsed is None:
            return None
        ident, name, args = parsed
        if not name:
            return format_response(ident, False, "no command given")
        handler = self.handlers.get(name)
        if handler is None:
            return format_response(ident, False, f"unknown command: {name}")
        try:
            text = handler(args)
        except (GtpError, ValueError) as err:
            return format_response(ident, False, str(err) or type(err).__name__)
        except Exception as err:  # noqa: BLE001 - a GTP engine must answer, whatever the input
            return format_response(ident, False, f"internal error: {type(err).__name__}: {err}")
        if name == "quit":
            self.finished = True
        return format_response(ident, True, text)

    def serve(self, inp: IO, out: IO) -> None:
        """Answer commands from ``inp`` on ``out`` (byte or text streams; bytes are read and
        written as UTF-8 whatever the locale) until ``quit`` or the end of the input."""
        for line in read_lines(inp):
            response = self.answer(line)
            if response is not None:
                write_text(out, response)
            if self.finished:
                break


class GtpClient:
    """A GTP engine in a child process. ``send`` returns the response text or raises GtpError.

    The engine's standard error goes to a temporary file (engines such as Pentobi write debug
    output there, and an unread pipe would block them); its end is quoted when the engine dies.
    """

    def __init__(self, command: str | Sequence[str], name: str | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("the GTP engine command line is empty")
        self.name = name or argv[0]
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self._stderr)
        except OSError as err:
            self._stderr.close()
            raise ValueError(f"cannot start GTP engine {argv!r}: {err}") from None

    def _stderr_tail(self, chars: int = 2000) -> str:
        self._stderr.seek(0)
        tail = self._stderr.read()[-4 * chars:].decode("utf-8", "replace")[-chars:].strip()
        return f"; its standard error ends:\n{tail}" if tail else ""

    def send(self, command: str) -> str:
        """Send one command; return the engine's response text (without the ``= ``)."""
        if "\n" in command:
            raise ValueError(f"a GTP command is one line, got {command!r}")
        try:
            write_text(self.process.stdin, command + "\n")
        except (BrokenPipeError, ValueError):
            raise GtpError(f"GTP engine {self.name} is not running (exit code "
                           f"{self.process.poll()}){self._stderr_tail()}") from None
        lines = []
        while True:
            raw = self.process.stdout.readline()
            if not raw:
                raise GtpError(f"GTP engine {self.name} ended while answering {command!r} (exit "
                               f"code {self.process.wait()}){self._stderr_tail()}")
            line = decode_line(raw)
            if isinstance(line, BadLine):
                raise GtpError(f"GTP engine {self.name} answered {command!r} with a bad line "
                               f"({line.reason}): {line.text!r}")
            if not line and lines:
                break
            if line or lines:
                lines.append(line)
        head, body = lines[0], "\n".join(lines[1:])
        if head[:1] not in ("=", "?"):
            raise GtpError(f"GTP engine {self.name} answered {command!r} with {head!r}, "
                           f"which is not a GTP response")
        text = head[1:].lstrip("0123456789").strip()
        text = f"{text}\n{body}".strip() if body else text
        if head[0] == "?":
            raise GtpError(f"GTP engine {self.name} rejected {command!r}: {text}")
        return text

    def close(self) -> None:
        """Ask the engine to quit; stop it if it does not."""
        if self.process.poll() is None:
            try:
                self.send("quit")
            except GtpError:
                pass
            stop_process(self.process, terminate=False)
        for stream in (self.process.stdin, self.process.stdout, self._stderr):
            stream.close()

    def __enter__(self) -> GtpClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
