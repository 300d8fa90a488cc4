"""Daihinmin's players: the UECda standard client and the determinized flat Monte Carlo client."""
