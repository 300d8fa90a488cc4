"""Match-play: one game of a match (arena), the match runner, summaries and statistics of
results, the paper's evaluation protocol, the Elo ladder; the UECda Daihinmin server and the
replay of its records (uecda_*.py)."""

from .arena import Match, play_game
from .runner import load_records, run_match
from .stats import wilson_interval
from .summary import format_summary

__all__ = ["Match", "format_summary", "load_records", "play_game", "run_match", "wilson_interval"]
