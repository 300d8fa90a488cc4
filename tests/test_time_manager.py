"""The one time manager (blokuszero/search/time_manager.py): each move's budget from a protocol's
clock and the safety margins, on an injected time source, with exact values."""

from __future__ import annotations

import time

import pytest

from blokuszero.search import MCTS, UCB1, MCTSConfig, RolloutEvaluator
from blokuszero.search.time_manager import CPU_CLOCK, WALL_CLOCK, Margins, TimeManager
from blokuszero.settings import SettingError


def test_the_clocks_are_cpu_and_wall_time():
    from blokuszero.games.tictactoe import TicTacToeGame

    assert CPU_CLOCK is time.process_time and WALL_CLOCK is time.perf_counter
    game = TicTacToeGame()
    assert MCTS(game, MCTSConfig(simulations=1), UCB1(), RolloutEvaluator()).clock is WALL_CLOCK


def test_no_limit_without_main_or_period_time_or_with_a_period_of_no_stones():
    assert TimeManager().budget(0, 40) is None
    assert TimeManager(0, 10, 0).budget(0, 40) is None  # GTP: byo-yomi time without stones
    clock = TimeManager(0, 10, 0)
    clock.spend(0, 5.0)
    assert clock.left == {}


def test_main_time_is_spread_over_the_moves_to_come_and_then_the_periods_over_their_stones():
    clock = TimeManager(64, 32, 4)
    assert clock.budget(0, 48) == 0.9 * 64 / 48
    assert clock.budget(0, 3) == 0.9 * 64 / 10  # at least min_moves moves to come
    clock.report(1, 20.0, 5)
    assert clock.budget(1, 48) == 0.8 * 20 / 5  # in a period: its time over its stones
    clock.report(0, 0.0, 0)
    assert clock.budget(0, 48) == 0.8 * 32 / 4  # main time gone: the next period's share


def test_the_floors_keep_absolute_time_from_running_out_and_a_period_move_searching():
    absolute = TimeManager(1.0)
    absolute.report(0, 0.004, 0)
    assert absolute.budget(0, 40) == 0.001  # a token floor: no byo-yomi follows
    with_periods = TimeManager(1.0, 10, 5)
    with_periods.report(0, 0.004, 0)
    assert with_periods.budget(0, 40) == 0.05


def test_the_margins_are_settings_that_change_the_budget():
    margins = Margins(reply=2.0, search_share=0.5, main_share=0.75, min_moves=4, floor=0.25, last_floor=0.125)
    clock = TimeManager(66, 10, 2, margins)
    assert clock.budget(0, 2) == 0.75 * (66 - 2) / 4
    clock.report(0, 10.0, 2)
    assert clock.budget(0, 2) == 0.5 * (10 - 2) / 2
    clock.report(0, 2.5, 1)
    assert clock.budget(0, 2) == 0.25  # the floor
    for bad, message in (({"reply": -1.0}, "reply must be >= 0, not -1.0"),
                         ({"search_share": 0.0}, "search_share must be > 0, not 0.0"),
                         ({"main_share": 1.5}, "main_share must be <= 1, not 1.5"),
                         ({"min_moves": 0}, "min_moves must be >= 1, not 0"),
                         ({"floor": 0.0}, "floor must be > 0, not 0.0")):
        with pytest.raises(SettingError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
            Margins(**bad)


def test_spend_runs_through_main_time_and_the_periods():
    clock = TimeManager(10, 30, 2)
    clock.spend(0, 4)
    assert clock.left[0] == (6, 0)
    clock.spend(0, 7)  # main time gone: a period starts
    assert clock.left[0] == (30, 2)
    clock.spend(0, 5)
    assert clock.left[0] == (25, 1)
    clock.spend(0, 5)  # the period's stones are played: a fresh period
    assert clock.left[0] == (30, 2)
    clock.report(0, 12.0, 1)  # the controller's report replaces our count
    assert clock.budget(0, 40) == 0.8 * 12
    clock.spend(1, 50)  # the other player's main time overrun: straight into a period
    assert clock.left[1] == (30, 2)
    absolute = TimeManager(10)
    absolute.spend(1, 50)  # absolute time used up: nothing left, never below zero
    assert absolute.left[1] == (0.0, 0)


def test_a_per_move_clock_gives_a_deadline_and_the_share_of_the_time_left_before_it():
    now = [100.0]
    clock = TimeManager(margins=Margins(reply=0.5, floor=0.25), source=lambda: now[0])
    deadline = clock.deadline(100.0, 2.0)
    assert deadline == 101.5  # the reply margin before the play clock runs out
    assert clock.search_time(deadline) == 0.8 * 1.5
    now[0] = 101.25
    assert clock.search_time(deadline) == 0.8 * 0.25  # exactly the floor left: it still searches
    now[0] = 101.375
    assert clock.search_time(deadline) is None  # under the floor: answered without a search
    assert clock.period_budget(2.0) == 0.8 * 1.5
    assert clock.period_budget(0.5) == 0.8 * 0.25  # a clock shorter than the margin: the floor
