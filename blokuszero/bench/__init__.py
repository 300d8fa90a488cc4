"""Benchmarks, one module each, run as ``python -m blokuszero.bench NAME``; what they share is in ``harness.py``.

The top layer: a benchmark may import anything in the package, nothing in the package imports
it. Its imports are relative, so that ``--before`` can run this folder over another checkout's
package (``harness.run_in_checkout``).
"""
