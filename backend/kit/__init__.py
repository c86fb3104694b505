"""The kit every package shares: pieces that know nothing of any aggregate, below every layer."""
