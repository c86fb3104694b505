"""The kit every package shares, below every layer and knowing nothing of any aggregate: the
kinds of error (`errors`) and the one cleaner of free text (`text`)."""
