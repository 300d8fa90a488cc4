"""The Blokus GTP engine (:mod:`.gtp_engine`) and its command line (:mod:`.cli`)."""

from .gtp_engine import BlokusGtpEngine, parse_colour

__all__ = ["BlokusGtpEngine", "parse_colour"]
