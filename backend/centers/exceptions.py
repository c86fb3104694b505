"""Errors of the centers aggregate: its root, each error a kind of ``backend.kit.errors``."""

from __future__ import annotations

from backend.kit import errors as kind


class CentersError(kind.DewError):
    """Root of every centers error."""


class CentersValueError(CentersError, kind.Invalid, code="invalid_center_request"):
    """A bad input (coordinates, a limit, a name): refused before anything is read or written."""


class CenterNotFound(CentersError, kind.NotFound):
    """No Game Center has the id asked for."""


class NotCenterHost(CentersError, kind.Forbidden):
    """The caller is neither the center's owner nor its current renter."""
