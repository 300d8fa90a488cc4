"""GDL games' engine: the GGP HTTP player (:mod:`.http_player`)."""
