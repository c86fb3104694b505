"""Competitions: the season's tiered championships (Campeonato, Campeonísimo, Supercampeones)."""
