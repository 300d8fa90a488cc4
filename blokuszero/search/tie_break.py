"""Ties broken uniformly at random, from a stream of the tree's own: the argmax every selection
rule ends with.

The stream starts from the tree's ``tie_seed``, the node and its visit count, so each search has
its own and a choice does not depend on other searches running beside it (nor on numba's global
generator, which the games' playouts draw from).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..games.numba_random import GOLDEN, splitmix64

#: Kernels that allocate nothing run without numba's reference counting: a call passing arrays
#: would otherwise incref and decref each of them atomically, per child scored.
no_alloc = nb.njit(cache=True, _nrt=False)


@no_alloc
def tie_stream(seed, node, visits):
    """The tie-break stream's start for ``node`` at ``visits`` under the tree's ``seed``."""
    return np.uint64(seed) ^ (np.uint64(node) * GOLDEN) ^ (np.uint64(visits) << np.uint64(32))


@no_alloc
def tie_step(score, i, best, ties, choice, state):
    """One step of the reservoir argmax: ``(best, ties, choice, state)`` after score ``i``."""
    if score > best:
        return score, 1, i, state
    if score == best:
        ties += 1
        state += GOLDEN
        if splitmix64(state) % np.uint64(ties) == np.uint64(0):
            choice = i
    return best, ties, choice, state


@nb.njit(cache=True)
def argmax_random_ties(scores, seed, node, visits) -> int:
    """The best score's index, ties broken uniformly (reservoir sampling) by the stream of
    :func:`tie_stream`."""
    state = tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(scores.shape[0]):
        best, ties, choice, state = tie_step(scores[i], i, best, ties, choice, state)
    return choice
