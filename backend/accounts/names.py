"""Display names: the one name a wallet or guest shows at tables instead of its address.

A name is cleaned as every free text is (``backend.kit.text``) and must come out of that
unchanged: hidden and control characters are refused, not silently dropped. It holds 3 to 20
letters, digits, spaces and ``_ - . '``, of one alphabet, in the plain form (NFKC: no
full-width or mathematical look-alikes). Two names that read the same are one name: the
unique ``name_key`` folds case, accents, separators and the letters of other alphabets that
look like Latin ones (Cyrillic a and o, Greek omicron, ``0`` for ``o``, ``I`` and ``1`` for ``l``).
Once set, a name changes at most once per ``DEW_AUTH_NAME_CHANGE_INTERVAL_S``.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.accounts import exceptions as exc
from backend.accounts.models import Account, DisplayName
from backend.config import Settings
from backend.db.base import aware, utcnow
from backend.kit.text import clean_text

MIN_LENGTH = 3
MAX_LENGTH = 20
_SEPARATORS = frozenset(" _-.'")
# Letters of Cyrillic and Greek (after case folding) drawn like a Latin letter or two, and the
# digits and Latin letters that pass for one another; a key spells every one the same way.
_LOOK_ALIKES: dict[int, str] = str.maketrans(
    dict(
        (pair[0], pair[1])
        for pairs in (
            "аa вb гr еe ёe кk мm нh оo пn рp сc тt уy хx ьb ѕs іl їl јj ԁd ԛq ԝw һh ӏl",  # noqa: RUF001 (Cyrillic look-alikes, on purpose)
            "αa βb γy εe ηn ιl κk νv οo ρp τt υu χx ωw",  # noqa: RUF001 (Greek look-alikes, on purpose)
            "0o 1l |l il",  # Latin and digits
        )
        for pair in pairs.split()
    )
)
_LATIN_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
_ADDRESS_LIKE = re.compile(r"^0x[0-9a-f]{3,}$")
# Seat names of their own (a seat without a name shows one of these and its number), read as
# keys: a name that folds to one of them, a number after it or not, is refused.
_RESERVED = frozenset(
    ("player", "jugador", "bot", "guest", "invitado", "admin", "dew", "system", "you", "tu")
)
_SCRIPT_GROUPS = {"HIRAGANA": "CJK", "KATAKANA": "CJK"}


def _script(ch: str) -> str:
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
    return _SCRIPT_GROUPS.get(word, word)


def name_key(name: str) -> str:
    """``name`` folded for comparison: two names with the same key read the same."""
    bare = "".join(
        ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)
    )
    key = "".join(ch for ch in bare.casefold() if ch not in _SEPARATORS).translate(_LOOK_ALIKES)
    for pair, one in _LATIN_PAIRS:
        key = key.replace(pair, one)
    return key


def checked_name(raw: str) -> str:
    """``raw`` as it will be shown (spaces collapsed, NFC), or the reason it is refused."""
    spaced = " ".join(raw.split())
    if clean_text(raw) != spaced:
        raise exc.NameCharacters("a name cannot hold hidden or control characters")
    name = unicodedata.normalize("NFC", spaced)
    if not MIN_LENGTH <= len(name) <= MAX_LENGTH:
        raise exc.NameLength(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters, not {len(name)}")
    if unicodedata.normalize("NFKC", name) != name:
        raise exc.NameCharacters(f"{name!r} uses look-alike forms of letters or digits")
    scripts = set()
    for ch in name:
        category = unicodedata.category(ch)
        if category[0] == "L":
            scripts.add(_script(ch))
        elif not (ch in _SEPARATORS or "0" <= ch <= "9" or category[0] == "M"):
            raise exc.NameCharacters(
                f"{ch!r} is not allowed: letters, digits, spaces and _ - . ' only"
            )
    if not scripts:
        raise exc.NameCharacters("a name needs at least one letter")
    if len(scripts) > 1:
        raise exc.NameScripts(f"{name!r} mixes alphabets ({', '.join(sorted(scripts))})")
    if _ADDRESS_LIKE.match(name.casefold()) or name_key(name.rstrip("0123456789 ")) in _RESERVED:
        raise exc.NameReserved(f"{name!r} reads as an address, a bot or a seat's own name")
    return name


def get(*, session: Session, address: str) -> DisplayName | None:
    return session.get(DisplayName, address)


def names_of(*, session: Session, addresses: list[str]) -> dict[str, str]:
    """The names of those of ``addresses`` that have one."""
    if not addresses:
        return {}
    rows = session.scalars(select(DisplayName).where(DisplayName.address.in_(addresses)))
    return {row.address: row.name for row in rows}


def next_change_at(row: DisplayName | None, settings: Settings) -> datetime | None:
    """When the name may change again (None: now)."""
    if row is None:
        return None
    at = aware(row.changed_at) + timedelta(seconds=settings.auth.name_change_interval_s)
    return at if at > utcnow() else None


def set_name(
    *, session: Session, settings: Settings, address: str, raw: str, now: datetime | None = None
) -> DisplayName:
    """Give ``address`` the name ``raw`` (committed). The same name again changes nothing."""
    name = checked_name(raw)
    now = now or utcnow()
    if session.get(Account, address) is None:
        raise exc.SessionUnknown(f"no account {address!r}")
    row = session.get(DisplayName, address, with_for_update=True)
    if row is not None and row.name == name:
        session.rollback()
        return row
    if row is not None:
        wait = timedelta(seconds=settings.auth.name_change_interval_s)
        if now < aware(row.changed_at) + wait:
            session.rollback()
            raise exc.NameChangeTooSoon(
                f"a name changes once per {wait}; the next change from "
                f"{(aware(row.changed_at) + wait).isoformat(timespec='seconds')}"
            )
    else:
        row = DisplayName(address=address)
        session.add(row)
    row.name = name
    row.name_key = name_key(name)
    row.changed_at = now
    try:
        session.commit()
    except IntegrityError:
        # The unique key: another wallet holds a name that reads the same (or took it first).
        session.rollback()
        raise exc.NameTaken(f"{name!r} is taken") from None
    return row
