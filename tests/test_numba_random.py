"""The playouts' cheap random streams (games/numba_random.py): exact laws, reproducible seeds."""

import numba as nb
import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from blokuszero.games.numba_random import seed_numba, stream_below, stream_random, stream_seed


@nb.njit(cache=True)
def _random_draws(draws, seed):
    out = np.empty(draws)
    x = np.uint64(seed)
    for i in range(draws):
        out[i], x = stream_random(x)
    return out


@nb.njit(cache=True)
def _seeds(k):
    out = np.empty(k, np.uint64)
    for i in range(k):
        out[i] = stream_seed()
    return out


@nb.njit(cache=True)
def _below_values(n, draws, seed):
    out = np.empty(draws, np.int64)
    x = np.uint64(seed)
    for i in range(draws):
        out[i], x = stream_below(n, x)
    return out


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000])
def test_stream_below_is_uniform(n):
    counts = np.bincount(_below_values(n, 200_000, 3), minlength=n)
    assert len(counts) == n and counts.sum() == 200_000
    if n > 1:
        assert chisquare(counts).pvalue > 1e-4


def test_stream_below_rejects_the_uneven_draws():
    # n = 3 * 2**30 + 1: 2**32 raw values over n outputs, so plain multiply-shift gives a third
    # of the values two raw values and the rest one, and the residues mod 3 come out about
    # 1.2 : 1 : 1 (checked with numpy: chi-square p = 0); Lemire's rejection step evens them.
    n = 3 * 2**30 + 1
    values = _below_values(n, 300_000, 11)
    assert values.min() >= 0 and values.max() < n
    assert chisquare(np.bincount(values % 3, minlength=3)).pvalue > 1e-4


def test_stream_random_is_uniform_on_zero_one():
    u = _random_draws(200_000, 5)
    assert u.min() >= 0.0 and u.max() < 1.0
    # The playout's epsilon test: u < 0.05 with probability 0.05.
    assert binomtest(int((u < 0.05).sum()), len(u), 0.05).pvalue > 1e-4
    assert chisquare(np.histogram(u, bins=50, range=(0, 1))[0]).pvalue > 1e-4


def test_stream_seeds_follow_numba_seed():
    seed_numba(9)
    a = _seeds(5)
    seed_numba(9)
    assert np.array_equal(a, _seeds(5))
    assert len(set(a.tolist())) == 5
    seed_numba(10)
    assert not np.array_equal(a, _seeds(5))
