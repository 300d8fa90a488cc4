"""Daihinmin under the UECda server's rules (SPEC §7, UECDA.md): numba rules, the common
interface with hidden hands, the server's log format and the standard default client."""

from .game import DaihinminGame, DaihinminState, Rules

__all__ = ["DaihinminGame", "DaihinminState", "Rules"]
