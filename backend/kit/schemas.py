"""The schema block every package's API shapes share: a wallet address, an idempotency key
and a DEW amount as a decimal string of wei (a JSON number loses digits above 2**53 in most
clients). Each package's ``schemas.py`` builds on these instead of writing its own."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

ADDRESS_PATTERN = r"^0x[0-9a-fA-F]{40}$"
KEY_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
WEI_DESCRIPTION = "DEW wei, decimal string"


def wei_pattern(max_digits: int) -> str:
    """A decimal string of 1..``max_digits`` digits."""
    return rf"^[0-9]{{1,{max_digits}}}$"


Address = Annotated[str, Field(pattern=ADDRESS_PATTERN)]
IdempotencyKey = Annotated[str, Field(pattern=KEY_PATTERN)]
# 31 digits hold every amount the contracts take (uint96 and below).
Wei = Annotated[str, Field(pattern=wei_pattern(31), description=WEI_DESCRIPTION)]


class StrictIn(BaseModel):
    """A request body that refuses a field it does not name (422) rather than drop it."""

    model_config = ConfigDict(extra="forbid")
