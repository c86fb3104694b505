"""Scholarships: the registry's mirror and its follower, owners' screening, and the unsigned
transactions an owner or scholar signs in their own wallet."""
