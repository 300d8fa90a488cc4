"""stop_process: a child asked to stop ends; one that ignores SIGTERM is killed after the grace;
one told to quit is only waited for."""

from __future__ import annotations

import subprocess
import sys
import time

from blokuszero.processes import stop_process


def _child(code: str) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "up\n"  # its handlers are in place
    return process


def test_a_child_asked_to_stop_ends():
    process = _child("import time; print('up', flush=True); time.sleep(60)")
    stop_process(process)
    assert process.returncode == -15


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace():
    process = _child("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                     "print('up', flush=True); time.sleep(60)")
    start = time.monotonic()
    stop_process(process, grace=0.5)
    assert process.returncode == -9 and time.monotonic() - start >= 0.5


def test_without_terminate_a_child_ending_by_itself_is_waited_for():
    process = _child("import time; print('up', flush=True); time.sleep(0.3)")
    stop_process(process, terminate=False)
    assert process.returncode == 0
