"""A match's propositional network compiled in a process of its own, waited for as the clocks allow.

The grounding and numba's compiler would hold the player's interpreter lock from its searches, so
the network is built in a spawned process and sent back through a pipe; the player asks for it
with a timeout (:meth:`NetworkCompile.result`) and plays on the interpreter until it is ready.
"""

from __future__ import annotations

import multiprocessing

from ...games.ggp.game import build_propnet
from ...games.ggp.reasoner import Reasoner


def compile_job(rules: str, max_instances: int, conn) -> None:
    """In the compiling process: send (True, the network) or (False, why not)."""
    try:
        reply = (True, build_propnet(rules, max_instances))
    except Exception as err:  # noqa: BLE001 (any failure is reported to the player)
        reply = (False, f"{type(err).__name__}: {err}")
    try:
        conn.send(reply)
    except OSError:  # the match ended meanwhile: nobody is waiting
        pass


class NetworkCompile:
    """The propositional network of a match's rules, compiled in a process of its own."""

    def __init__(self, rules: str, max_instances: int) -> None:
        context = multiprocessing.get_context("spawn")  # a fork of a threaded server is unsafe
        self._conn, child = context.Pipe(duplex=False)
        self._process = context.Process(target=compile_job, args=(rules, max_instances, child), daemon=True,
                                        name="ggp-compile")
        self._process.start()
        child.close()

    def result(self, timeout: float) -> Reasoner | None:
        """The network if it is ready within ``timeout`` seconds, else None; ValueError if
        it cannot be built (the process is then ended)."""
        if not self._conn.poll(max(timeout, 0.0)):
            return None
        try:
            ok, value = self._conn.recv()
        except EOFError:
            ok, value = False, f"the compiling process ended (exit code {self._process.exitcode})"
        self.close()
        if not ok:
            raise ValueError(value)
        return value

    def close(self) -> None:
        """End the process (if still compiling)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(5.0)
        self._conn.close()
