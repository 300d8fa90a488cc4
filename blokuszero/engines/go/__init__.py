"""The Go GTP engine (:mod:`.engine`) and its command line (:mod:`.cli`)."""

from .engine import Clock, GoGtpEngine

__all__ = ["Clock", "GoGtpEngine"]
