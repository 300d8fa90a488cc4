"""Wire formats between our players and other programs: GTP for Go."""
