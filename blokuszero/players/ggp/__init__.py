"""GDL games' player: UCT with the similar-board search experience and its switching rule."""
