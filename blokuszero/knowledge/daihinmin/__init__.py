"""Daihinmin's learned knowledge: the opponent models (:mod:`.opponent_model`)."""
