"""Programs that play over the wire: protocol clients around our players."""
