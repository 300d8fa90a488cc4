"""The statistics module against known answers: scipy where it has the same test (the binomial
test, Wilson's interval, the normal interval), hand-computed cases elsewhere, and a block
bootstrap whose answer is known (blocks of identical values)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, chi2_contingency, norm, sem

from blokuszero.match.stats import (
    block_bootstrap,
    equal_seat,
    format_paired,
    paired_difference,
    score_rate,
    seat_win_rates,
    sign_test,
    two_proportion_test,
    wilson_interval,
    win_rate,
)


@pytest.mark.parametrize("games", [1, 7, 10, 100, 333])
def test_wilson_interval_is_scipys(games):
    for wins in sorted({0, 1, games // 3, games // 2, games - 1, games}):
        ci = binomtest(wins, games).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(wins, games) == pytest.approx((ci.low, ci.high), abs=1e-9), (wins, games)


def test_sign_test_is_scipys_binomial_test():
    for wins, losses in [(0, 1), (1, 0), (5, 5), (9, 3), (115, 85), (60, 140), (326, 174), (0, 20)]:
        expected = binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue
        assert sign_test(wins, losses) == pytest.approx(expected, rel=1e-9), (wins, losses)
    assert sign_test(0, 0) == 1.0
    with pytest.raises(ValueError, match="wins and losses must be >= 0, not -1, 2"):
        sign_test(-1, 2)


def test_the_equal_seat_counts_shared_first_places():
    # 100 games of 4 seats, 13 with two seats sharing the first place and 1 with three sharing
    # it: 115 seat wins, so an equal seat wins 28.75% of its games, not 25%.
    winners = [1] * 86 + [2] * 13 + [3]
    assert sum(winners) == 115 and equal_seat(winners, 4) == pytest.approx(0.2875)
    assert equal_seat([1, 1], 2) == 0.5 and equal_seat([], 4) == 0.25
    with pytest.raises(ValueError, match="a game of 4 seats has 0 to 4 winning seats"):
        equal_seat([5], 4)
    with pytest.raises(ValueError, match="seats must be >= 1, not 0"):
        equal_seat([1], 0)


def test_seat_win_rates_read_each_player_against_the_games_it_played():
    games = [[("a", True), ("b", False), ("b", False), ("c", False)],   # one winner
             [("a", True), ("b", True), ("b", False), ("c", False)],    # a shared first place
             [("a", False), ("c", True)]]                                # a two-seat game
    rates = seat_win_rates(games)
    assert rates["a"] == {**win_rate(2, 3), "equal_seat": pytest.approx((0.25 + 0.5 + 0.5) / 3)}
    assert rates["b"]["games"] == 4 and rates["b"]["wins"] == 1
    assert rates["b"]["equal_seat"] == pytest.approx((2 * 0.25 + 2 * 0.5) / 4)
    assert rates["c"]["win_rate"] == pytest.approx(1 / 3)


def test_a_score_counts_draws_half():
    assert score_rate(3, 2, 5) == win_rate(4.0, 10) and score_rate(3, 2, 5)["win_rate"] == 0.4
    assert score_rate(0, 0, 0) == {"games": 0, "wins": 0.0, "win_rate": 0.0, "ci_low": 0.0, "ci_high": 1.0}


def test_paired_difference_of_independent_pairs_is_the_normal_interval():
    a = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    b = [2, 7, 1, 8, 2, 8, 1, 8, 2, 8]
    d = np.subtract(a, b)
    out = paired_difference(a, b)
    low, high = norm.interval(0.95, loc=d.mean(), scale=sem(d))
    assert out["mean"] == pytest.approx(-0.8) and (out["ci_low"], out["ci_high"]) == pytest.approx((low, high))
    assert (out["wins"], out["losses"], out["ties"]) == (6, 4, 0)
    assert out["p_value"] == pytest.approx(binomtest(6, 10).pvalue)
    assert out["interval"] == "normal, independent pairs"
    assert "mean difference -0.800 points over" in format_paired("a", "b", out, " points")
    with pytest.raises(ValueError, match="paired results need two sequences of one length"):
        paired_difference([1, 2], [1])


def test_a_block_bootstrap_of_identical_blocks_has_no_width():
    block = [0.0, 1.0, 4.0, -2.0, 3.0]
    assert block_bootstrap(block * 8, 5, seed=1, resamples=500) == pytest.approx((1.2, 1.2))


def test_a_block_bootstrap_resamples_whole_blocks():
    # Blocks of identical values: resampling blocks is resampling their values, so the interval
    # is the plain bootstrap's of one value per block, drawn the same way; and it is about as
    # wide as the normal interval of 10 values, where treating the 1,000 values as independent
    # would make it sqrt(100) times narrower.
    values = np.random.default_rng(0).normal(size=10)
    x = np.repeat(values, 100)
    low, high = block_bootstrap(x, 100, seed=7, resamples=4000)
    draws = np.random.default_rng(7).integers(10, size=(4000, 10))
    assert (low, high) == pytest.approx(tuple(np.quantile(values[draws].mean(axis=1), [0.025, 0.975])))
    width = 2 * 1.96 * values.std(ddof=0) / math.sqrt(10)
    assert high - low == pytest.approx(width, rel=0.15)
    naive_low, naive_high = block_bootstrap(x, 1, seed=7, resamples=2000)
    assert (naive_high - naive_low) < (high - low) / 5
    assert block_bootstrap(x, 100, seed=7, resamples=4000) == (low, high)  # seeded: reproducible


def test_a_block_bootstrap_of_two_blocks_spans_their_means_and_needs_two():
    # Two blocks of identical values, 0 and 1: a resample's mean is 0, 1/2 or 1 (chances 1/4,
    # 1/2, 1/4), so the 95% interval is [0, 1]; a short last block is a block of its own.
    assert block_bootstrap([0.0] * 50 + [1.0] * 50, 50, seed=0, resamples=2000) == (0.0, 1.0)
    assert block_bootstrap([5.0] * 7, 4, seed=0, resamples=100) == (5.0, 5.0)
    with pytest.raises(ValueError, match="needs at least 2 blocks; 100 values in blocks of 100 make 1"):
        block_bootstrap([0.0] * 100, 100)
    with pytest.raises(ValueError, match="block must be >= 1, not 0"):
        block_bootstrap([0.0] * 100, 0)


def test_paired_difference_over_dependence_blocks():
    a = np.repeat([1.0, 0.0, 2.0, 1.0], 25)
    b = np.zeros(100)
    out = paired_difference(a, b, block=25, seed=3, resamples=1000)
    assert out["mean"] == 1.0 and (out["wins"], out["losses"], out["ties"]) == (75, 0, 25)
    assert (out["ci_low"], out["ci_high"]) == block_bootstrap(a - b, 25, seed=3, resamples=1000)
    assert out["interval"] == "block bootstrap, blocks of 25, 1000 resamples, seed 3"
    single = paired_difference(a, b, block=100)
    assert single["ci_low"] is single["ci_high"] is None
    assert "no interval" in format_paired("a", "b", single)


def test_two_proportion_test_is_scipys_chi_squared_without_correction():
    for a, n, b, m in [(270, 500, 326, 500), (54, 100, 326, 500), (1, 10, 9, 10), (50, 100, 50, 100),
                       (0, 30, 3, 40), (115.5, 200, 100, 200)]:
        table = [[a, n - a], [b, m - b]]
        expected = chi2_contingency(table, correction=False).pvalue
        result = two_proportion_test(a, n, b, m)
        assert result["p_value"] == pytest.approx(expected, rel=1e-9), (a, n, b, m)
        assert result["z"] ** 2 == pytest.approx(chi2_contingency(table, correction=False).statistic)
        assert math.copysign(1, result["z"]) == math.copysign(1, a / n - b / m) or a / n == b / m
    # the headline cell's first 500 games against the paper's (BENCHMARKS: z = 3.6)
    assert two_proportion_test(270, 500, 326, 500)["z"] == pytest.approx(-3.609, abs=0.0005)
    assert two_proportion_test(0, 5, 0, 7) == {"z": 0.0, "p_value": 1.0}
    with pytest.raises(ValueError, match="both samples need games, not 0 and 5"):
        two_proportion_test(0, 0, 1, 5)
    with pytest.raises(ValueError, match="wins must lie in 0..games, not 6/5 and 1/5"):
        two_proportion_test(6, 5, 1, 5)
