"""An object's attributes by name: a row read into the dict a view shows, a spec's fields
passed on to the row made from it."""

from __future__ import annotations

from typing import Any


def columns(row: object, names: str, **given: Any) -> dict[str, Any]:
    """``row``'s attributes named in ``names`` (separated by white space, as a namedtuple's
    fields), each under its own name, then ``given``: what is computed from the row (an
    amount as an int, a time made timezone-aware)."""
    return {**{name: getattr(row, name) for name in names.split()}, **given}
