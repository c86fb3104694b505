"""Trust and care: the one gate every door asks (``standing``), moderators' sanctions and
their appeals (``moderation``), and what a player limits itself to (``standing``)."""
