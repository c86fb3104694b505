"""Content creators: codes, players bound to them once, and their share of fees."""
