"""Line-based wire protocols (GTP's; UECda's tables are binary and GGP's HTTP bodies are read by
the HTTP server): bytes in, text out, any locale.

The rule every text protocol of the project follows: read bytes and decode them as UTF-8 (here, for
line protocols), never through the locale's text layer (a C locale hides bad bytes as surrogates, a
UTF-8 locale raises UnicodeDecodeError mid-loop); a line that is not valid UTF-8, or longer than
``max_bytes``, is handed to the protocol as a :class:`BadLine`, which it answers as a failed
command, and the session goes on. Output is encoded as UTF-8 here too.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

#: Longest line read (bytes, without the newline); a longer one is read to its end and refused.
MAX_LINE_BYTES = 1 << 16


@dataclass(frozen=True)
class BadLine:
    """A line that cannot be a command: ``reason`` says why, ``text`` is its best-effort
    decoding (bad bytes replaced by U+FFFD), e.g. to find a command id in it."""

    reason: str
    text: str


def decode_line(raw: bytes, max_bytes: int = MAX_LINE_BYTES) -> str | BadLine:
    """One line's bytes (its line break included or not) as text, or a :class:`BadLine`."""
    body = raw.rstrip(b"\r\n")
    if len(body) > max_bytes:
        return BadLine(f"line too long: {len(body)} bytes (at most {max_bytes})",
                       body[:256].decode("utf-8", "replace"))
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        return BadLine(f"invalid UTF-8 at byte {err.start} of the line", body.decode("utf-8", "replace"))


def _binary(stream: IO) -> IO[bytes] | None:
    """The byte stream under ``stream`` (sys.stdin's buffer, a pipe), or None for a text-only
    stream (io.StringIO)."""
    if isinstance(stream, io.TextIOBase):
        return getattr(stream, "buffer", None)
    return stream


def read_lines(stream: IO, max_bytes: int = MAX_LINE_BYTES) -> Iterator[str | BadLine]:
    """The lines of ``stream`` (bytes or text) until its end, without line breaks; each is a
    string or a :class:`BadLine`. A line longer than ``max_bytes`` costs no more memory than that."""
    raw_stream = _binary(stream)
    if raw_stream is None:  # already text: only the length can be wrong
        for line in stream:
            yield decode_line(line.encode("utf-8", "surrogateescape"), max_bytes)
        return
    while True:
        raw = raw_stream.readline(max_bytes + 2)  # room for "\r\n"
        if not raw:
            return
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            skipped = len(raw)
            while raw and not raw.endswith(b"\n"):  # drop the rest of the line, piece by piece
                raw = raw_stream.readline(max_bytes)
                skipped += len(raw)
            yield BadLine(f"line too long: more than {max_bytes} bytes", "")
            continue
        yield decode_line(raw, max_bytes)


def write_text(stream: IO, text: str) -> None:
    """Write ``text`` as UTF-8 (whatever the locale) and flush."""
    raw_stream = _binary(stream)
    if raw_stream is None:
        stream.write(text)
        stream.flush()
        return
    if raw_stream is not stream:
        stream.flush()  # text written through the text layer before goes first
    raw_stream.write(text.encode("utf-8", "backslashreplace"))
    raw_stream.flush()
