"""Match-play: one game of a match (arena), the match runner, summaries and statistics of
results, the paper's evaluation protocol, the Elo ladder; each family's own match glue in its
folder (``go/``: the GTP referee, ``daihinmin/``: the UECda server, ``ggp/``: the game managers)."""

from .arena import Match, play_game
from .runner import load_records, run_match
from .stats import wilson_interval
from .summary import format_summary

__all__ = ["Match", "format_summary", "load_records", "play_game", "run_match", "wilson_interval"]
