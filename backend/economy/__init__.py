"""Rewards, scholarships and settlement planning (docs/economy.md)."""
