"""Moderation of the tables: players' reports of one another and the operator's answer."""
