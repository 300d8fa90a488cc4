"""The GGP player's warm-up: a tiny game played at launch so that numba's kernels are ready before a match."""

from __future__ import annotations

from ...search.time_manager import WALL_CLOCK
from .player_engine import GgpPlayerEngine

#: A game of two joint moves (both roles choose at once, then one role alone), played at launch.
WARM_UP_RULES = """
(role left) (role right) (number 1) (number 2) (number 3)
(init (phase together))
(<= (legal ?r (pick ?n)) (true (phase together)) (role ?r) (number ?n))
(<= (legal left (pick ?n)) (true (phase left)) (number ?n))
(<= (legal right noop) (true (phase left)))
(<= (next (phase left)) (true (phase together)))
(<= (next (phase over)) (true (phase left)))
(<= (next (picked ?r ?n)) (does ?r (pick ?n)))
(<= (next (picked ?r ?n)) (true (picked ?r ?n)))
(<= same (true (picked right ?n)) (true (picked left ?n)))
(<= terminal (true (phase over)))
(<= (goal left 100) same) (<= (goal left 0) (not same))
(<= (goal right 0) same) (<= (goal right 100) (not same))
"""


def warm_up(spec: dict | None = None, seed: int = 0) -> float:
    """Plays :data:`WARM_UP_RULES` through a throwaway engine with ``spec``, so that numba's
    kernels for the network, the searches and the playouts are compiled (or read from its cache)
    before a real match's clocks run: on a fresh install they take about half a minute, which a
    first match would otherwise lose on its clocks. The kernels are shared by the process.
    Returns the seconds taken; RuntimeError if the engine answers an error."""
    began = WALL_CLOCK()
    engine = GgpPlayerEngine(spec, margin=0.5, seed=seed, name="warm-up")

    def ask(request: str) -> str:
        reply = engine.handle(request)
        if reply.startswith("(error"):
            raise RuntimeError(f"the warm-up match failed: {request!r} got {reply}")
        return reply

    ask(f"(start warm-up left ({WARM_UP_RULES}) 60 2)")
    ask("(play warm-up nil)")
    ask("(play warm-up ((pick 1) (pick 2)))")
    ask("(stop warm-up ((pick 3) noop))")
    engine.worker.submit(lambda: None).result()  # a search still compiling has ended
    engine.worker.shutdown()
    return WALL_CLOCK() - began
