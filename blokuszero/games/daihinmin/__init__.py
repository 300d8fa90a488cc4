"""Daihinmin under the UECda server's rules (SPEC §7, UECDA.md): numba rules, the common
interface with hidden hands and its determinizations, the server's log format and the replay of
its records, the standard default client, a match server that behaves as ``tndhms``, the
client's view rebuilt from the table stream, naive-Bayes opponent models and the Monte Carlo
client's playout policies."""

from .game import DaihinminGame, DaihinminState, Rules

__all__ = ["DaihinminGame", "DaihinminState", "Rules"]
