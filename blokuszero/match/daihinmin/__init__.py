"""Daihinmin's match glue: the UECda match server, its settings and random stream, the replay of
official records through it."""
