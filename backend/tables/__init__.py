"""Tables, matchmaking and live matches: the authoritative side of real-time play."""
