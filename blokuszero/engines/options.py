"""The engines' command lines, their common part: player spec, seed, threads, address and time flags.

Each engine (Blokus and Go GTP, the UECda client, the GGP HTTP player) builds its parser with
:func:`engine_parser` and the ``add_*`` functions here, and reads its player with
:func:`player_spec`. The common form of a player is ``--preset NAME`` and any number of
``--set KEY=VALUE`` (a YAML value), checked by the settings' ranges before anything runs. An
engine's own older flags (``--simulations``, Go's ``--k``, the UECda shorthand ``--player
mc:random:100``, ...) stay as aliases: each names the spec option it sets, ``--set`` overriding them.
Every bad value ends the program with one line naming the flag it came from (``blokuszero-go-gtp:
error: --k must be > 0, not 0.0``), argparse's own errors included.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, NoReturn

import yaml

from ..players.factory import PRESETS, PlayerSpec, resolve_player
from ..search.time_manager import Margins
from ..settings import SettingError, check_value
from ..threads import set_math_threads

#: The address a server binds and a client joins unless told otherwise: this machine only.
LOCAL_HOST = "127.0.0.1"


class EngineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``PROG: error: MESSAGE`` (``SystemExit`` with that
    line: exit status 1)."""

    def error(self, message: str) -> NoReturn:
        raise SystemExit(refusal(self.prog, message))


def refusal(prog: str, message: str) -> str:
    """The one-line error an engine's command line ends with."""
    return f"{prog}: error: {message}"


def refuse(parser: argparse.ArgumentParser, flag: str, problem: str) -> NoReturn:
    """End the program: ``flag`` was given a bad value (``problem`` says why), in one line."""
    raise SystemExit(refusal(parser.prog, f"{flag} {problem}"))


def engine_parser(prog: str, description: str, epilog: str | None = None, add_help: bool = True) -> EngineParser:
    """An engine's parser (raw epilog, one-line errors)."""
    return EngineParser(prog=prog, description=description, epilog=epilog, add_help=add_help,
                        formatter_class=argparse.RawDescriptionHelpFormatter)


def add_player_flags(parser: argparse.ArgumentParser, preset_help: str) -> None:
    """``--preset NAME`` (a player preset) and repeatable ``--set KEY=VALUE`` (any option of the
    player's kind)."""
    parser.add_argument("--preset", choices=sorted(PRESETS), help=preset_help)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="any option of the player (blokuszero/players/factory.py; a YAML value), "
                             "repeatable; it overrides the flags that set the same option")


def add_seed_flag(parser: argparse.ArgumentParser, default: int | None, help: str = "random seed") -> None:
    """``--seed N``."""
    parser.add_argument("--seed", type=int, default=default, help=help)


def add_threads_flag(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: the math libraries' threads (see :func:`use_threads`)."""
    parser.add_argument("--threads", type=int, default=1,
                        help="math library (torch, BLAS) threads (default 1: a search evaluates one "
                             "position at a time)")


def add_address_flags(parser: argparse.ArgumentParser, port: int, host_help: str, short: bool = False) -> None:
    """``--host`` (default :data:`LOCAL_HOST`) and ``--port``; with ``short`` also ``-h`` and ``-p``
    (the UECda clients' flags; the parser must then be made without ``add_help``)."""
    parser.add_argument(*(("-h",) if short else ()), "--host", default=LOCAL_HOST,
                        help=f"{host_help} (default {LOCAL_HOST})")
    parser.add_argument(*(("-p",) if short else ()), "--port", type=int, default=port,
                        help=f"port (default {port})")


def add_time_flag(parser: argparse.ArgumentParser, clock: str, note: str = "") -> None:
    """``--time SECONDS``: the player's ``time_limit`` per move, in ``clock`` seconds (CPU or wall)."""
    parser.add_argument("--time", type=float,
                        help=f"{clock} seconds per move (the option time_limit; with simulations, whichever "
                             f"ends first){note}")


def add_margin_flag(parser: argparse.ArgumentParser, default: float) -> None:
    """``--margin SECONDS``: the reply margin of :class:`~blokuszero.search.time_manager.Margins`."""
    parser.add_argument("--margin", type=float, default=default,
                        help=f"seconds kept off each move's clock for the reply to travel (default {default:g})")


def use_threads(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check ``--threads`` and set the math libraries' threads to it."""
    check_flag(parser, "--threads", args.threads, int, low=1)
    set_math_threads(args.threads)


def check_port(parser: argparse.ArgumentParser, args: argparse.Namespace, allow_any: bool = False) -> None:
    """``--port`` is a TCP port (0, any free one, where ``allow_any``)."""
    check_flag(parser, "--port", args.port, int, low=0 if allow_any else 1, high=65535)


def margins(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Margins:
    """The clock's safety margins with ``--margin`` as the reply margin."""
    try:
        return Margins(reply=args.margin)
    except SettingError as err:
        refuse(parser, "--margin", err.problem)


def check_flag(parser: argparse.ArgumentParser, flag: str, value: Any, annotation: Any, **bounds: Any) -> None:
    """End the program in one line naming ``flag`` unless ``value`` has the type and lies in the
    bounds (those of :func:`~blokuszero.settings.check_value`)."""
    try:
        check_value(flag, value, annotation, **bounds)
    except SettingError as err:
        refuse(parser, flag, err.problem)


def _pair(parser: argparse.ArgumentParser, text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        refuse(parser, "--set", f"takes KEY=VALUE, not {text!r}")
    try:
        return key, yaml.safe_load(value)
    except yaml.YAMLError as err:
        refuse(parser, "--set", f"{key}: {value!r} is no YAML value ({str(err).splitlines()[0]})")


def player_spec(parser: argparse.ArgumentParser, args: argparse.Namespace, preset: str | None,
                aliases: Mapping[str, tuple[str, Any]] = {}) -> PlayerSpec:
    """The player spec of the command line, resolved once: ``--preset`` (else ``preset``), then the
    engine's alias flags (``aliases``: option -> (the flag that gave it, its value); None values
    are left out), then the ``--set`` pairs. A bad option ends the program in one line naming
    the flag it came from (and the option, where the flag gives several or it is the preset's)."""
    spec: dict[str, Any] = {} if args.preset is None and preset is None else {"preset": args.preset or preset}
    origin: dict[str, str] = {}
    for key, (flag, value) in aliases.items():
        if value is not None:
            spec[key], origin[key] = value, flag
    for text in args.set:
        key, value = _pair(parser, text)
        spec[key], origin[key] = value, f"--set {key}"
    try:
        return resolve_player(spec)
    except SettingError as err:
        flag = origin.get(err.name, "--preset")
        shared = list(origin.values()).count(flag) > 1  # a flag of several options names the one
        refuse(parser, f"{flag}: {err.name}" if shared or flag == "--preset" else flag, err.problem)
    except (ValueError, OSError) as err:  # an unknown option, a spec of no kind, an unreadable checkpoint
        refuse(parser, "--set" if args.set else next(iter(origin.values()), "--preset"), str(err))
