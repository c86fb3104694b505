"""A real local chain: start and stop anvil (installed by ``npm ci`` in ``contracts/``).

``Anvil`` binds a free port (anvil itself picks it with ``--port 0``, so parallel runs never
collide), waits until the node answers, and exposes its RPC URL, chain id and funded dev keys.
"""

from __future__ import annotations

import json
import logging
import platform
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx
from eth_utils.address import to_checksum_address

from backend.chain.exceptions import ChainError

logger = logging.getLogger(__name__)

CONTRACTS_DIR = Path(__file__).resolve().parents[2] / "contracts"

_NPM_PLATFORMS = {
    ("Linux", "x86_64"): "linux-amd64",
    ("Linux", "aarch64"): "linux-arm64",
    ("Linux", "arm64"): "linux-arm64",
    ("Darwin", "x86_64"): "darwin-amd64",
    ("Darwin", "arm64"): "darwin-arm64",
}


class AnvilError(ChainError):
    """anvil could not be found, did not start, or died."""


@dataclass(frozen=True)
class DevAccount:
    """One of anvil's pre-funded development accounts."""

    address: str
    private_key: str


def find_anvil_binary(contracts_dir: Path = CONTRACTS_DIR) -> Path:
    """The anvil binary from ``contracts/node_modules`` (``npm ci``), else one on PATH."""
    suffix = _NPM_PLATFORMS.get((platform.system(), platform.machine()))
    if suffix is not None:
        candidate = contracts_dir / "node_modules" / "@foundry-rs" / f"anvil-{suffix}" / "bin"
        candidate = candidate / "anvil"
        if candidate.is_file():
            return candidate
    on_path = shutil.which("anvil")
    if on_path:
        return Path(on_path)
    raise AnvilError(
        f"anvil not found under {contracts_dir / 'node_modules'!s} nor on PATH; "
        "run `npm ci` in contracts/"
    )


class Anvil:
    """A running anvil process; use as a context manager.

    ``block_time`` (seconds) switches from instant mining to interval mining. ``load_state`` and
    ``dump_state`` are paths for anvil's ``--load-state`` / ``--dump-state``.
    """

    def __init__(
        self,
        *,
        block_time: float | None = None,
        load_state: Path | str | None = None,
        dump_state: Path | str | None = None,
        chain_id: int = 31337,
        accounts: int = 10,
        balance_eth: int = 10_000,
        hardfork: str | None = None,
        extra_args: tuple[str, ...] = (),
        startup_timeout_s: float = 30.0,
        binary: Path | None = None,
    ) -> None:
        self.block_time = block_time
        self.load_state = Path(load_state) if load_state is not None else None
        self.dump_state = Path(dump_state) if dump_state is not None else None
        self.chain_id = chain_id
        self.accounts_count = accounts
        self.balance_eth = balance_eth
        self.hardfork = hardfork
        self.extra_args = extra_args
        self.startup_timeout_s = startup_timeout_s
        self.binary = binary
        self.port: int | None = None
        self.accounts: list[DevAccount] = []
        self._process: subprocess.Popen[str] | None = None
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self._output: deque[str] = deque(maxlen=50)
        self._port_found = threading.Event()

    @property
    def rpc_url(self) -> str:
        if self.port is None:
            raise AnvilError("anvil is not running")
        return f"http://127.0.0.1:{self.port}"

    @property
    def keys(self) -> list[str]:
        """Private keys of the funded dev accounts, in anvil's order."""
        return [account.private_key for account in self.accounts]

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> Anvil:
        if self._process is not None:
            raise AnvilError("anvil already started")
        binary = self.binary or find_anvil_binary()
        self._tmpdir = tempfile.TemporaryDirectory(prefix="dew-anvil-")
        config_out = Path(self._tmpdir.name) / "config.json"
        args = [
            str(binary),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--chain-id",
            str(self.chain_id),
            "--accounts",
            str(self.accounts_count),
            "--balance",
            str(self.balance_eth),
            "--config-out",
            str(config_out),
        ]
        if self.block_time is not None:
            args += ["--block-time", str(self.block_time)]
        if self.load_state is not None:
            args += ["--load-state", str(self.load_state)]
        if self.dump_state is not None:
            args += ["--dump-state", str(self.dump_state)]
        if self.hardfork is not None:
            args += ["--hardfork", self.hardfork]
        args += list(self.extra_args)
        logger.debug("starting anvil: %s", " ".join(args))
        self._process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        threading.Thread(target=self._read_output, name="anvil-output", daemon=True).start()
        try:
            self._wait_until_ready(config_out)
        except BaseException:
            self.stop()
            raise
        logger.info("anvil %s listening on %s", self._process.pid, self.rpc_url)
        return self

    def stop(self) -> None:
        """Stop anvil (SIGTERM so ``--dump-state`` gets written, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None
        self.port = None

    def __enter__(self) -> Anvil:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _read_output(self) -> None:
        process = self._process
        if process is None or process.stdout is None:
            return
        for line in process.stdout:
            self._output.append(line.rstrip())
            if self.port is None and line.startswith("Listening on "):
                self.port = int(line.strip().rsplit(":", 1)[1])
                self._port_found.set()

    def _wait_until_ready(self, config_out: Path) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while not self._port_found.is_set():
            if self._process is None or self._process.poll() is not None:
                raise AnvilError("anvil exited during startup:\n" + "\n".join(self._output))
            if time.monotonic() > deadline:
                raise AnvilError(f"anvil did not listen within {self.startup_timeout_s}s")
            self._port_found.wait(0.05)
        while True:
            try:
                answer = httpx.post(
                    self.rpc_url,
                    json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
                    timeout=2.0,
                ).json()
                if int(answer["result"], 16) != self.chain_id:
                    raise AnvilError(f"anvil answered chain id {answer['result']!r}")
                break
            except (httpx.HTTPError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise AnvilError(
                        f"anvil on {self.rpc_url} did not answer within {self.startup_timeout_s}s"
                    ) from None
                time.sleep(0.05)
        config = json.loads(config_out.read_text())
        self.accounts = [
            DevAccount(address=to_checksum_address(address), private_key=key)
            for address, key in zip(
                config["available_accounts"], config["private_keys"], strict=True
            )
        ]
