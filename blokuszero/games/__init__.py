"""Rules of every game family, behind one interface (base.py)."""
