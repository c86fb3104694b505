"""Terms of service and legal age: what a sign-in message says to accept them, the record
of each acceptance, and the check earning and staked play make (docs/economy.md, "Terms,
legal age and staked play").

A wallet accepts the current terms *and* confirms it is of legal age in one signed EIP-4361
sign-in message, which carries all three of:

- the resource ``<DEW_TERMS_URI>#version=<DEW_TERMS_VERSION>`` (the document and its version),
- the resource ``urn:dew:legal-age:confirmed``,
- the statement ``<DEW_AUTH_STATEMENT> I accept the terms of service version <v> and
  confirm that I am of legal age.`` (what the wallet shows its owner).

A message with none of them is an ordinary sign-in (practice play); one with only some, with
a resource this server does not name, or with another terms version, is refused. Signing in
with them records a ``TermsAcceptance`` (version, time, the message's SHA-256).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.accounts import exceptions as exc
from backend.accounts.models import TermsAcceptance
from backend.accounts.siwe_message import SiweFields
from backend.config import Settings
from backend.kit.guests import is_guest_address

LEGAL_AGE_RESOURCE = "urn:dew:legal-age:confirmed"


@dataclass(frozen=True)
class Terms:
    """The terms a deployment asks wallets to accept."""

    version: str
    uri: str
    resource: str
    statement: str
    legal_age_resource: str = LEGAL_AGE_RESOURCE

    @property
    def resources(self) -> tuple[str, str]:
        return (self.resource, self.legal_age_resource)


def current(settings: Settings) -> Terms | None:
    """This deployment's terms, or None when it configures none (nothing is then gated)."""
    version, uri = settings.terms.version, settings.terms.uri
    if version is None or uri is None:
        return None
    return Terms(
        version=version,
        uri=uri,
        resource=f"{uri}#version={version}",
        statement=(
            f"{settings.auth.statement} I accept the terms of service version {version} "
            "and confirm that I am of legal age."
        ),
    )


def message_hash(message: str) -> str:
    return hashlib.sha256(message.encode()).hexdigest()


def accepted_version(settings: Settings, parsed: SiweFields) -> str | None:
    """The terms version a parsed sign-in message accepts (with legal age), None if it
    accepts none; refuses a message that accepts them partly, names a resource these terms
    do not, or accepts another version."""
    terms = current(settings)
    if not parsed.resources:
        if terms is not None and parsed.statement == terms.statement:
            raise exc.TermsIncomplete(
                "the message states that it accepts the terms but carries no terms resources"
            )
        return None
    if terms is None:
        raise exc.TermsResourceInvalid(
            "this server has no terms to accept; sign in without resources"
        )
    prefix = f"{terms.uri}#version="
    for resource in parsed.resources:
        if resource in terms.resources:
            continue
        if resource.startswith(prefix):
            raise exc.TermsOutdated(
                f"the message accepts terms version {resource[len(prefix) :]!r}; the current "
                f"version is {terms.version!r}: sign in again with it"
            )
        raise exc.TermsResourceInvalid(f"resource {resource!r} is not one this server names")
    if len(parsed.resources) != len(set(parsed.resources)):
        raise exc.TermsResourceInvalid("a resource is repeated")
    if set(parsed.resources) != set(terms.resources) or parsed.statement != terms.statement:
        raise exc.TermsIncomplete(
            "accepting the terms takes the terms resource, the legal-age resource and the "
            f"statement {terms.statement!r}, all three"
        )
    return terms.version


def acceptance(*, session: Session, settings: Settings, address: str) -> TermsAcceptance | None:
    """This wallet's latest acceptance of the current terms, or None."""
    terms = current(settings)
    if terms is None:
        return None
    return session.scalars(
        select(TermsAcceptance)
        .where(
            TermsAcceptance.address == address,
            TermsAcceptance.terms_version == terms.version,
            TermsAcceptance.legal_age_confirmed.is_(True),
        )
        .order_by(TermsAcceptance.accepted_at.desc())
        .limit(1)
    ).first()


def require_for_play(
    *,
    session: Session,
    settings: Settings,
    address: str,
    stake: int | str,
    earning: bool,
    ranked: bool = False,
) -> None:
    """Refuse (``PlayRefused``, HTTP 403) a wallet entering earning or staked play without
    the current terms accepted and legal age confirmed, and any staked play where the
    deployment turns it off; refuse a guest any earning, staked or ranked play (a
    tournament). Free practice play always passes. It writes nothing."""
    if is_guest_address(address) and (earning or ranked or int(stake) > 0):
        raise exc.GuestNotAllowed("a guest plays free only: sign in with a wallet to earn or stake")
    staked = int(stake) > 0
    if staked and not settings.tables.staked_play:
        raise exc.StakedPlayDisabled("staked tables are turned off on this server")
    if not (staked or earning) or current(settings) is None:
        return
    if acceptance(session=session, settings=settings, address=address) is None:
        raise exc.TermsRequired(
            "earning and staked play need the current terms accepted and legal age "
            "confirmed: sign in again accepting them"
        )
