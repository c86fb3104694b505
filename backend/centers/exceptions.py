"""Errors of the centers aggregate; each carries a stable ``code`` for clients."""

from __future__ import annotations

from backend.kit import errors as kind


class CentersError(kind.DewError):
    """Root of every centers error."""

    code = "centers_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CenterNotFound(CentersError, kind.NotFound):
    code = "center_not_found"


class CentersValueError(CentersError, kind.Invalid):
    """A bad input (coordinates, a limit, a name): refused before anything is read or written."""

    code = "invalid_center_request"


class NotCenterHost(CentersError, kind.Forbidden):
    """The caller is neither the center's owner nor its current renter."""

    code = "not_center_host"
