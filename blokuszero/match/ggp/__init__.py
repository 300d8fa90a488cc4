"""GDL games' match glue: our GGP game manager for HTTP players, and matches refereed by ggp-base."""
