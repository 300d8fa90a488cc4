"""Programs others talk to: a player wired to a protocol, each with its command line."""
