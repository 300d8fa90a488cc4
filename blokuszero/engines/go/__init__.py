"""The Go GTP engine (:mod:`.gtp_engine`) and its command line (:mod:`.cli`)."""

from .gtp_engine import Clock, GoGtpEngine

__all__ = ["Clock", "GoGtpEngine"]
