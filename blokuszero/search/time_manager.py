"""The one time manager of timed searches: the clocks they read, each move's budget, the safety margins.

Every timed search and every engine that keeps a protocol's clock goes through this module:

- Time sources. :data:`CPU_CLOCK` (CPU seconds of this process) measures the players' ``time_limit``
  (the player factory gives it to the searches it makes), the game loop's CPU count per seat and the
  Blokus engine's ``cputime``; it is read as ``time_manager.CPU_CLOCK`` where it is used, so that a test can
  put a fake one here. :data:`WALL_CLOCK` measures what a protocol's clock counts: GTP's
  ``time_settings`` / ``time_left`` and GGP's play clock run in wall time.
- :class:`TimeManager`: the time a protocol gives a player, as GTP's Canadian byo-yomi (main time,
  then periods of so many moves), fed by the controller's reports (``time_left``) and by the time our
  own moves took (so the budget holds when no report comes), and a move's budget from it; or a
  per-move clock (GGP's play clock: a fresh period for each move, counted from the request's arrival)
  as a deadline, and the search time left before it.
- :class:`Margins`: the safety margins, named settings with ranges, so that an engine's command line
  can change them and a bad one is refused in one line.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from ..settings import Settings, setting

#: CPU seconds of this process: what a player's ``time_limit`` and a seat's CPU count measure.
CPU_CLOCK: Callable[[], float] = time.process_time
#: Wall seconds, monotonic: what a protocol's clock (GTP time left, GGP play clock) counts.
WALL_CLOCK: Callable[[], float] = time.perf_counter


@dataclasses.dataclass(frozen=True)
class Margins(Settings):
    """The safety margins of a timed move."""

    #: Seconds kept off each move's clock for the reply to travel to the controller.
    reply: float = setting(0.0, low=0)
    #: The share of a move's time that the search gets: its last simulation, handing the move over
    #: and the reading of the clock take the rest.
    search_share: float = setting(0.8, above=0, high=1)
    #: The share of the main time left that is spread over the moves still to come.
    main_share: float = setting(0.9, above=0, high=1)
    #: The moves still to come are counted as at least this many.
    min_moves: int = setting(10, low=1)
    #: The least a move gets where a byo-yomi period follows, and the least time left for which a
    #: deadline-bound search starts at all (with less, the move is answered without a search).
    floor: float = setting(0.05, above=0)
    #: The least a move gets in absolute time (no byo-yomi after it): a token, so that it never
    #: runs out.
    last_floor: float = setting(0.001, above=0)


@dataclasses.dataclass
class TimeManager:
    """A protocol's clock for each player and the search time each move gets from it.

    Canadian byo-yomi (GTP): ``main_time`` seconds, then periods of ``period_time`` seconds for
    ``period_stones`` moves each, a fresh period after each completed one. ``left``: each player's
    (seconds, stones left in the period; 0 in main time), as last reported or counted since.
    Without main time and period time there is no limit (nor with a period time of no stones:
    GTP's way to say so). ``source`` is the clock the engine reads around its moves.
    """

    main_time: float = 0.0
    period_time: float = 0.0
    period_stones: int = 0
    margins: Margins = dataclasses.field(default_factory=Margins)
    source: Callable[[], float] = WALL_CLOCK
    left: dict[int, tuple[float, int]] = dataclasses.field(default_factory=dict)

    @property
    def active(self) -> bool:
        """Whether the clock limits the moves at all."""
        return not (self.period_time > 0 and self.period_stones == 0) and (
            self.main_time > 0 or self.period_time > 0)

    def report(self, player: int, seconds: float, stones: int) -> None:
        """The controller's word on ``player``'s time left (GTP ``time_left``); it replaces our count."""
        self.left[player] = (seconds, stones)

    def budget(self, player: int, moves_to_come: int) -> float | None:
        """Seconds for ``player``'s next move, or None without a limit. In a period its time is
        spread over its stones (the search's share of it); in main time the main share is spread
        over ``moves_to_come`` (at least ``min_moves``); with main time gone the next period's."""
        if not self.active:
            return None
        m = self.margins
        seconds, stones = self.left.get(player, (self.main_time, 0))
        if stones > 0:
            return max(m.floor, m.search_share * (seconds - m.reply) / stones)
        if seconds <= 0 and self.period_stones > 0:
            return max(m.floor, m.search_share * (self.period_time - m.reply) / self.period_stones)
        share = m.main_share * (seconds - m.reply) / max(m.min_moves, moves_to_come)
        return max(m.floor if self.period_stones > 0 else m.last_floor, share)

    def spend(self, player: int, seconds: float) -> None:
        """Count ``seconds`` used by one move of ``player``: main time first, then the periods."""
        if not self.active:
            return
        left, stones = self.left.get(player, (self.main_time, 0))
        left -= seconds
        if stones > 0:
            stones -= 1
            if stones == 0:
                left, stones = self.period_time, self.period_stones
        elif left <= 0 and self.period_stones > 0:
            left, stones = self.period_time, self.period_stones
        self.left[player] = (max(left, 0.0), stones)

    def deadline(self, received: float, period: float) -> float:
        """When a move of a per-move clock of ``period`` seconds, asked at ``received`` (on
        ``source``), must be answered: the reply margin before the clock runs out."""
        return received + period - self.margins.reply

    def search_time(self, deadline: float) -> float | None:
        """The search's share of the time left now until ``deadline``; None when less than the
        floor is left (the move is then answered without searching)."""
        left = deadline - self.source()
        return None if left < self.margins.floor else self.margins.search_share * left

    def period_budget(self, period: float) -> float:
        """A move's search time in a fresh period of ``period`` seconds, for a search made
        without a deadline: the share of the period less the reply margin (at least the floor)."""
        return self.margins.search_share * max(period - self.margins.reply, self.margins.floor)
