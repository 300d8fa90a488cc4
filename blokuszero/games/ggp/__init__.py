"""General Game Playing: GDL descriptions read, checked, compiled and played."""

from .game import GgpGame, GgpState
from .gdl import GdlError, load_description
from .kif import KifError, parse_kif

__all__ = ["GdlError", "GgpGame", "GgpState", "KifError", "load_description", "parse_kif"]
