"""Errors of the centers aggregate; each carries a stable ``code`` for clients."""

from __future__ import annotations


class CentersError(Exception):
    """Root of every centers error."""

    code = "centers_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CenterNotFound(CentersError):
    code = "center_not_found"


class CentersValueError(CentersError, ValueError):
    """A bad input (coordinates, a limit, a name): refused before anything is read or written."""

    code = "invalid_center_request"


class NotCenterHost(CentersError):
    """The caller is neither the center's owner nor its current renter."""

    code = "not_center_host"
