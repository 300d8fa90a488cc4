"""The Go GTP engine (:mod:`.gtp_engine`) and its command line (:mod:`.cli`)."""

from .gtp_engine import GoGtpEngine

__all__ = ["GoGtpEngine"]
