"""The display name rules without a server: what is shown, what is refused and why, and
which names fold to one key (the key a unique index holds)."""

from __future__ import annotations

import pytest

from backend.accounts import exceptions as exc
from backend.accounts.names import checked_name, name_key

# Cyrillic er, a, soft sign, palochka and o: drawn like "Pablo".
CYRILLIC_PABLO = "\u0420\u0430\u044c\u04cf\u043e"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("  Ana   María ", "Ana María"),
        ("José", "José"),
        ("李小龙", "李小龙"),
        ("O'Neil-2", "O'Neil-2"),
    ],
)
def test_a_good_name_is_shown_with_its_spaces_collapsed(raw: str, shown: str) -> None:
    assert checked_name(raw) == shown


@pytest.mark.parametrize(
    ("raw", "refused"),
    [
        ("Al", exc.NameLength),
        ("A" * 21, exc.NameLength),
        ("<b>Al</b>", exc.NameCharacters),
        ("Pa\u200bblo", exc.NameCharacters),
        ("Pablo\u202e", exc.NameCharacters),
        ("\uff30ablo", exc.NameCharacters),
        ("Ana 👍", exc.NameCharacters),
        ("2024", exc.NameCharacters),
        ("P\u0430blo", exc.NameScripts),
        ("Player 3", exc.NameReserved),
        ("Jugador", exc.NameReserved),
        ("0xdeadbeef", exc.NameReserved),
    ],
)
def test_a_bad_name_is_refused_with_its_reason(raw: str, refused: type[Exception]) -> None:
    with pytest.raises(refused):
        checked_name(raw)


def test_names_that_read_the_same_fold_to_one_key() -> None:
    same = ["Pablo", "PABLO", "pablo", "Pábló", "P.a_b-l o", "Pab1o", "PabIo", CYRILLIC_PABLO]
    assert {name_key(n) for n in same} == {name_key("Pablo")}
    assert name_key("Pablo") != name_key("Pedro")
    assert name_key("Marina") != name_key("Mariana")
