"""Daihinmin's engine: the UECda client around our players (:mod:`.uecda_client`)."""
