"""The referee: the one game loop through which players meet (:mod:`.game_loop`).

It sits beside the players, not above them: a player's own pre-game self-play (the search
experience's switching rule) plays through it too."""
