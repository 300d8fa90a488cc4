"""GDL games' engine: the GGP HTTP player (:mod:`.http_player`, :mod:`.player_engine`, :mod:`.cli`)."""
