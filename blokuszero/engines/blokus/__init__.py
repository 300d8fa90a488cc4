"""The Blokus GTP engine (:mod:`.engine`) and its command line (:mod:`.cli`)."""

from .engine import BlokusGtpEngine, parse_colour

__all__ = ["BlokusGtpEngine", "parse_colour"]
