"""The request-scoped database session, one dependency for every router."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy.orm import Session, sessionmaker

from backend.db.session import make_session_factory

# Safe methods only read (HTTP's contract, and ours): their sessions are read-only, which on
# SQLite means they never take the write lock, so a reader never waits for a writer.
_READING = frozenset({"GET", "HEAD", "OPTIONS"})


def read_sessions(state: Any) -> sessionmaker[Session]:
    """The app's read-only session factory (made from its writer factory if the app was
    assembled without one, as some tests' bare apps are)."""
    factory = getattr(state, "read_session_factory", None)
    if factory is None:
        factory = make_session_factory(state.session_factory.kw["bind"], read_only=True)
        state.read_session_factory = factory
    return factory


def get_session(request: Request) -> Iterator[Session]:
    """A session per request; services commit their own unit of work. It connects (and on
    SQLite a writer takes the write lock) only at its first statement, so whatever a route
    does before its unit of work (authentication, chain reads) holds no lock."""
    state = request.app.state
    factory = read_sessions(state) if request.method in _READING else state.session_factory
    session: Session = factory()
    try:
        yield session
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]
