"""Knowledge of one game family that a search or player reads: learned models and policies, by
family folder (``daihinmin/``, ``ggp/``); below the players, above the rules."""
