"""The wire layer every line protocol uses (bytes in, UTF-8 decoded here, bad lines refused), and
both GTP engines fuzzed as subprocesses under an ordinary UTF-8 locale with invalid UTF-8, long
lines and control characters: no exit, one answer per command line, the board unchanged."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blokuszero.protocols.gtp import parse_command
from blokuszero.protocols.lines import MAX_LINE_BYTES, BadLine, decode_line, read_lines, write_text

ROOT = Path(__file__).resolve().parents[1]
# An ordinary UTF-8 set-up: the C.UTF-8 locale alone would hide bad bytes as surrogates.
UTF8 = {**os.environ, "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8", "PYTHONPATH": str(ROOT)}


def test_decode_line():
    assert decode_line(b"name\r\n") == "name"
    assert decode_line("résumé\n".encode()) == "résumé"
    bad = decode_line(b"7 play \xff\xfe b\n")
    assert isinstance(bad, BadLine) and bad.reason == "invalid UTF-8 at byte 7 of the line"
    assert parse_command(bad.text)[0] == "7"  # the id can still be answered
    assert isinstance(decode_line(b"x" * (MAX_LINE_BYTES + 1)), BadLine)


def test_read_lines_from_bytes_and_text():
    long = b"y" * (3 * MAX_LINE_BYTES) + b"\n"
    lines = list(read_lines(io.BytesIO(b"a\n\xff\n" + long + b"b")))
    assert lines[0] == "a" and isinstance(lines[1], BadLine) and isinstance(lines[2], BadLine)
    assert "too long" in lines[2].reason and lines[3] == "b" and len(lines) == 4
    assert list(read_lines(io.StringIO("a\nb\n"))) == ["a", "b"]


def test_write_text_is_utf8_whatever_the_stream():
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="ascii")  # as sys.stdout under a C locale
    write_text(text, "= é\n\n")
    assert raw.getvalue() == "= é\n\n".encode()


# Commands that change the game (or end the session); fuzzed lines that would be one are left out,
# so that every other line must leave the board as it was.
_CHANGING = {"play", "genmove", "clear_board", "undo", "boardsize", "komi", "set_random_seed", "quit",
             "time_settings", "time_left"}
_WORDS = [b"name", b"play", b"genmove", b"showboard", b"clear_board", b"undo", b"b", b"1", b"a20",
          b"D4", b"pass", b"#", b"\xff", b"\xfe\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00",
          b"\x01", b"\x1b[2J", b"\x7f", b"\t", b"\r", "é".encode(), "²".encode(), b"99999999999999999999"]


def _fuzz_lines(rng: np.random.Generator, count: int) -> list[bytes]:
    lines = []
    while len(lines) < count:
        kind = rng.integers(4)
        if kind == 0:  # words, possibly with bad bytes between them
            line = b" ".join(_WORDS[i] for i in rng.integers(len(_WORDS), size=rng.integers(1, 5)))
        elif kind == 1:  # random bytes
            line = bytes(rng.integers(0, 256, size=rng.integers(1, 40), dtype=np.uint8)).replace(b"\n", b"")
        elif kind == 2:  # a long line, sometimes past the limit
            line = b"name " + b"x" * int(rng.choice([1000, MAX_LINE_BYTES - 5, MAX_LINE_BYTES + 1000]))
        else:  # a numbered command with control characters inside
            line = b"%d sh\x01owbo\x02ard \x03" % rng.integers(1000)
        decoded = decode_line(line)
        if isinstance(decoded, str):
            parsed = parse_command(decoded)
            if parsed is not None and parsed[1] in _CHANGING:
                continue
        lines.append(line)
    return lines


def _expected_answers(lines: list[bytes]) -> int:
    answered = 0
    for line in lines:
        decoded = decode_line(line)
        answered += isinstance(decoded, BadLine) or parse_command(decoded) is not None
    return answered


@pytest.mark.parametrize("command, setup", [
    ([sys.executable, "-m", "blokuszero.engines.blokus", "--preset", "random"], b"play 1 a20,b20,c20,d20,e20\n"),
    ([sys.executable, "-m", "blokuszero.engines.go", "--playouts", "10", "--seed", "0"], b"play b D4\n"),
])
def test_engine_survives_fuzzed_bytes_under_a_utf8_locale(command, setup):
    """Before: the first byte that is not UTF-8 ended either engine with UnicodeDecodeError."""
    lines = _fuzz_lines(np.random.default_rng(20), 1500)
    session = setup + b"showboard\n" + b"".join(line + b"\n" for line in lines) + b"showboard\nquit\n"
    done = subprocess.run(command, input=session, capture_output=True, env=UTF8, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    out = done.stdout.decode("utf-8")  # every answer is valid UTF-8
    answers = out.split("\n\n")
    assert answers[-1] == ""  # the output ends with an answer's blank line
    answers = answers[:-1]
    assert len(answers) == 2 + _expected_answers(lines) + 2  # setup, showboard, the fuzz, showboard, quit
    assert all(re.match(r"[=?]\d*( |\n|$)", a) for a in answers)
    assert answers[0] == "= " and answers[-1] == "= "
    assert answers[-2] == answers[1]  # the board is as it was before the fuzz
    assert "internal error" not in out
    assert any(a.startswith("? invalid UTF-8") for a in answers) and any("line too long" in a for a in answers)


def test_client_reports_an_engine_that_answers_bytes_that_are_not_utf8():
    from blokuszero.protocols.gtp import GtpClient, GtpError

    script = "import sys; sys.stdin.readline(); sys.stdout.buffer.write(b'= \\xff\\n\\n'); sys.stdout.flush()"
    with GtpClient([sys.executable, "-c", script]) as client:
        with pytest.raises(GtpError, match=r"answered 'name' with a bad line \(invalid UTF-8 at byte 2"):
            client.send("name")
