"""BlokusZero: AlphaZero-style self-play for 4-player Blokus on one search core for many games."""

__version__ = "0.1.0"
