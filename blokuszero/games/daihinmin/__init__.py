"""Daihinmin under the UECda server's rules (SPEC §7, UECDA.md): the rules as numba kernels, the
common interface with hidden hands and its determinizations, submitted tables as the server judges
them, the client's view rebuilt from the table stream, and the server's record format."""

from .game import DaihinminGame, DaihinminState, Rules

__all__ = ["DaihinminGame", "DaihinminState", "Rules"]
