"""Errors of the transaction engine: one root, with ``ValueError`` mixins for bad input."""

from __future__ import annotations


class ChainError(Exception):
    """Root of every error raised by ``backend.chain``'s transaction engine."""


class ChainValueError(ChainError, ValueError):
    """A request was malformed; nothing was written."""


class IdempotencyConflict(ChainValueError):
    """The same idempotency key was used for a different request."""


class RpcError(ChainError):
    """The node answered a JSON-RPC call with an error object."""

    def __init__(self, method: str, code: int | None, message: str, data: object = None):
        super().__init__(f"{method} failed: {message!r} (code {code})")
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class RpcUnavailable(ChainError):
    """The node could not be reached or answered garbage; the call may be retried."""
