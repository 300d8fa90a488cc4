"""Match-play: the arena (one match runner), the paper's evaluation protocol, the Elo ladder
and the statistics of results; the UECda Daihinmin server and the replay of its records
(uecda_*.py)."""

from .arena import Match, format_summary, load_records, play_game, run_match
from .stats import wilson_interval

__all__ = ["Match", "format_summary", "load_records", "play_game", "run_match", "wilson_interval"]
