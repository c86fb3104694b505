"""A row read into the plain dict that a view or an event shows."""

from __future__ import annotations

from typing import Any


def columns(row: object, names: str, **given: Any) -> dict[str, Any]:
    """``row``'s attributes named in ``names`` (separated by white space, as a namedtuple's
    fields), each under its own name, then ``given``: what the view computes from the row
    (an amount as an int, a time made timezone-aware)."""
    return {**{name: getattr(row, name) for name in names.split()}, **given}
