"""Experiments that play games to measure a claim; layers: may import anything below."""
