"""Gating on chain: avatars (ERC-721 + ERC-4907) and VIP passes, read live and cached.

Who may sit at an earning table:
- the active ERC-4907 user of an avatar (a scholar/renter);
- the avatar's owner, only while it has no active user (a rented-out avatar is the
  renter's to play);
- any holder of a valid VIP pass.

Joining reads the chain live. Other checks (the re-check before settlement) may use the
cache, which never outlives a rental's expiry or a pass's expiry, and which the event
poller clears for every avatar named in a ``Transfer``/``UpdateUser`` log and every
holder named in a ``PassIssued``/``PassRevoked`` log: at first sight, and again on each
poll until the block is ``confirmations`` deep (so a reorg cannot leave a stale entry).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from web3 import Web3
from web3.exceptions import ContractLogicError

from backend.chain.contracts import Contracts, load_manifest
from backend.config import Settings
from backend.tables import exceptions as exc
from backend.tables.gating import Admission

log = logging.getLogger(__name__)

T = TypeVar("T")
K = TypeVar("K")

ZERO = "0x0000000000000000000000000000000000000000"


@dataclass(frozen=True)
class AvatarState:
    owner: str
    user: str | None  # the active ERC-4907 user, None when there is none
    user_expires: int
    valid_until: float  # chain time after which this cache entry must be re-read


@dataclass(frozen=True)
class VipState:
    valid: bool
    expires_at: int
    valid_until: float


S = TypeVar("S", AvatarState, VipState)


class ChainGate:
    """``Gate`` backed by the AvatarNFT and VIPPass contracts."""

    def __init__(
        self,
        contracts: Contracts,
        *,
        confirmations: int = 2,
        cache_ttl_s: float = 60.0,
        poll_interval_s: float = 2.0,
    ) -> None:
        self.contracts = contracts
        self.w3: Web3 = contracts.w3
        self.confirmations = confirmations
        self.cache_ttl_s = cache_ttl_s
        self.poll_interval_s = poll_interval_s
        self._avatars: dict[int, AvatarState] = {}
        self._vips: dict[str, VipState] = {}
        self._lock = threading.Lock()
        self._next_block: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._chain_clock: tuple[float, float] = (0.0, 0.0)  # (wall read at, chain time)

    @classmethod
    def from_settings(cls, settings: Settings) -> ChainGate:
        w3 = Web3(
            Web3.HTTPProvider(
                settings.chain.rpc_url, request_kwargs={"timeout": settings.chain.rpc_timeout_s}
            )
        )
        contracts = Contracts(w3, load_manifest(settings.chain.manifest_path), check_chain=False)
        return cls(
            contracts,
            confirmations=settings.chain.confirmations,
            cache_ttl_s=settings.server.gate_cache_ttl_s,
            poll_interval_s=settings.server.gate_poll_s,
        )

    # -- time ------------------------------------------------------------------------------
    def chain_now(self) -> float:
        """The latest block's timestamp (re-read at most once a second): rentals and passes
        expire by chain time, not by this machine's clock."""
        read_at, chain_time = self._chain_clock
        wall = time.monotonic()
        if wall - read_at > 1.0:
            # Through _call like every read: a node that does not answer is ChainUnavailable
            # (a TablesError), never a raw transport error that fails the caller's commit.
            block = self._call("the latest block", lambda: self.w3.eth.get_block("latest"))
            chain_time = float(block["timestamp"])
            self._chain_clock = (wall, chain_time)
            return chain_time
        return chain_time + (wall - read_at)

    # -- reads -----------------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except ContractLogicError:
            raise
        except Exception as error:
            raise exc.ChainUnavailable(f"could not read {what} from the chain: {error}") from None

    def _cached(self, cache: dict[K, S], key: K, now: float) -> S | None:
        """The state cached under ``key`` while it is still valid at chain time ``now``."""
        with self._lock:
            cached = cache.get(key)
        return cached if cached is not None and now < cached.valid_until else None

    def avatar(self, avatar_id: int, *, fresh: bool) -> AvatarState | None:
        """Owner and active user of an avatar; None if it does not exist."""
        now = self.chain_now()
        cached = None if fresh else self._cached(self._avatars, avatar_id, now)
        if cached is not None:
            return cached
        nft = self.contracts.avatar.functions
        try:
            owner = str(self._call("ownerOf", nft.ownerOf(avatar_id).call))
        except ContractLogicError:
            return None
        user = str(self._call("userOf", nft.userOf(avatar_id).call))
        expires = int(self._call("userExpires", nft.userExpires(avatar_id).call))
        active = user != ZERO
        valid_until = now + self.cache_ttl_s
        if active:
            valid_until = min(valid_until, float(expires))
        state = AvatarState(
            owner=owner,
            user=user if active else None,
            user_expires=expires,
            valid_until=valid_until,
        )
        with self._lock:
            self._avatars[avatar_id] = state
        return state

    def vip(self, address: str, *, fresh: bool) -> VipState:
        now = self.chain_now()
        cached = None if fresh else self._cached(self._vips, address, now)
        if cached is not None:
            return cached
        functions = self.contracts.vip.functions
        valid = bool(self._call("VIP pass", functions.isValid(address).call))
        expires = int(self._call("VIP expiry", functions.expiresAt(address).call))
        valid_until = now + self.cache_ttl_s
        if valid:
            valid_until = min(valid_until, float(expires))
        state = VipState(valid=valid, expires_at=expires, valid_until=valid_until)
        with self._lock:
            self._vips[address] = state
        return state

    # -- the Gate protocol -------------------------------------------------------------------
    def admit(self, address: str, avatar_id: int | None, *, fresh: bool = True) -> Admission:
        if avatar_id is not None:
            state = self.avatar(avatar_id, fresh=fresh)
            if state is not None:
                if state.user == address:
                    return Admission("avatar_user", avatar_id)
                if state.user is None and state.owner == address:
                    return Admission("avatar_owner", avatar_id)
        if self.vip(address, fresh=fresh).valid:
            return Admission("vip", None)
        if avatar_id is None:
            raise exc.NotEligible(
                "earning tables need an avatar you may play (as its owner or active renter) "
                "or a valid VIP pass"
            )
        state = self._avatars.get(avatar_id)
        if state is None:
            reason = f"avatar {avatar_id} does not exist"
        elif state.user is not None and state.owner == address:
            reason = f"avatar {avatar_id} is rented out to {state.user}: only its renter plays it"
        else:
            reason = f"you are neither the owner nor the active user of avatar {avatar_id}"
        raise exc.NotEligible(f"{reason}, and you hold no valid VIP pass")

    def is_vip(self, address: str) -> bool:
        return self.vip(address, fresh=True).valid

    def vip_expiry(self, address: str) -> int | None:
        state = self.vip(address, fresh=False)
        return state.expires_at if state.valid else None

    def still_admitted(self, address: str, avatar_id: int | None) -> bool:
        """The re-check before settlement (cache allowed)."""
        try:
            admission = self.admit(address, avatar_id, fresh=False)
        except exc.NotEligible:
            return False
        return avatar_id is None or admission.avatar_id == avatar_id

    # -- cache invalidation from events ------------------------------------------------------
    def poll_events(self) -> int:
        """Evict cache entries named by new avatar/VIP logs; returns how many were evicted."""
        head = self.w3.eth.block_number
        start = self._next_block if self._next_block is not None else max(head - 100, 0)
        if start > head:
            return 0
        avatar_events = self.contracts.avatar.events
        vip_events = self.contracts.vip.events
        evicted = 0
        token_ids: set[int] = set()
        holders: set[str] = set()
        for event in (avatar_events.Transfer, avatar_events.UpdateUser):
            for entry in event.get_logs(from_block=start, to_block=head):
                token_ids.add(int(entry["args"]["tokenId"]))
        for event in (vip_events.PassIssued, vip_events.PassRevoked):
            for entry in event.get_logs(from_block=start, to_block=head):
                holders.add(str(entry["args"]["holder"]))
        with self._lock:
            for token_id in token_ids:
                evicted += self._avatars.pop(token_id, None) is not None
            for holder in holders:
                evicted += self._vips.pop(holder, None) is not None
        # Blocks still shallower than the confirmation depth are scanned again next time.
        self._next_block = max(head - self.confirmations + 1, start)
        return evicted

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="dew-gate-events", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.poll_interval_s):
            try:
                self.poll_events()
            except Exception:
                log.exception("gate event poll failed")
