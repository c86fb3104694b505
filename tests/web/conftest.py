"""Real Chromium (Debian's, at /usr/bin/chromium) driven by Playwright, with an injected
EIP-1193 wallet whose key stays in Python: the page asks, eth-account signs.

Each wallet is its own browser context, so sessions (sessionStorage) never mix. Screenshots go
to ``var/test-artifacts/web/``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account

from backend.protocol.client import Wallet
from tests.fixtures.database import create_migrated_pg_database, drop_pg_database
from tests.fixtures.harness import ServerProcess

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "var" / "test-artifacts" / "web"
CHROMIUM = os.environ.get("DEW_CHROMIUM", "/usr/bin/chromium")

# The provider the page sees: EIP-1193 `request`, announced over EIP-6963 and as
# window.ethereum. Every request goes to the exposed Python function.
PROVIDER_JS = """
(() => {
  const provider = {
    isDewTest: true,
    async request({ method, params }) {
      const answer = JSON.parse(await window.__dewWallet(method, JSON.stringify(params || [])));
      if (answer.error) throw Object.assign(new Error(answer.error), { code: 4001 });
      return answer.result;
    },
    on() {},
    removeListener() {},
  };
  const info = { uuid: "6f1c6c2e-0000-4000-8000-00000000d3w0", name: "DEW test wallet",
                 icon: "data:image/svg+xml,<svg/>", rdns: "dew.test" };
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider",
    { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  window.ethereum = provider;
})();
"""


# The server sends a strict Content-Security-Policy; a violation (an inline script, a
# resource from elsewhere) is reported as a console error that fails the test.
CSP_WATCH_JS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
});
"""


class InjectedWallet:
    """What the injected provider does with one key: sign messages, send transactions."""

    def __init__(self, key: str, w3: Any = None, chain_id: int = 31337) -> None:
        self.account = Account.from_key(key)
        self.wallet = Wallet(key, self.account.address)
        self.w3, self.chain_id = w3, chain_id
        self.requests: list[str] = []

    def handle(self, method: str, params_json: str) -> str:
        self.requests.append(method)
        params = json.loads(params_json)
        try:
            return json.dumps({"result": self._answer(method, params)})
        except Exception as error:
            return json.dumps({"error": f"{type(error).__name__}: {error}"})

    def _answer(self, method: str, params: list[Any]) -> Any:
        if method in ("eth_requestAccounts", "eth_accounts"):
            return [self.account.address.lower()]  # as many wallets answer: not checksummed
        if method == "eth_chainId":
            return hex(self.chain_id)
        if method == "personal_sign":
            text = bytes.fromhex(params[0].removeprefix("0x")).decode()
            assert params[1].lower() == self.account.address.lower()
            return self.wallet.sign(text)
        if method == "eth_sendTransaction":
            return self._send(params[0])
        if method == "eth_getTransactionReceipt":
            assert self.w3 is not None
            try:
                receipt = self.w3.eth.get_transaction_receipt(params[0])
            except Exception:  # not mined yet
                return None
            return {"transactionHash": params[0], "status": hex(receipt["status"])}
        raise ValueError(f"unsupported method {method}")

    def _send(self, tx: dict[str, Any]) -> str:
        assert self.w3 is not None, "this test's wallet has no chain"
        if tx["from"].lower() != self.account.address.lower():
            raise ValueError(f"transaction from {tx['from']}, wallet is {self.account.address}")
        w3 = self.w3
        base = w3.eth.get_block("latest")["baseFeePerGas"]
        fields = {
            "from": self.account.address,
            "to": w3.to_checksum_address(tx["to"]),
            "data": tx["data"],
            "value": int(tx.get("value") or "0x0", 16),
            "chainId": int(tx["chainId"], 16),
            "nonce": w3.eth.get_transaction_count(self.account.address, "pending"),
            "gas": int(tx["gas"], 16) if tx.get("gas") else 1_000_000,
            "maxFeePerGas": base * 2 + 10**9,
            "maxPriorityFeePerGas": 10**9,
        }
        signed = self.account.sign_transaction(fields)
        return "0x" + w3.eth.send_raw_transaction(signed.raw_transaction).hex().removeprefix("0x")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@contextmanager
def pg_server(
    kind: type[ServerProcess] = ServerProcess, **settings: Any
) -> Iterator[ServerProcess]:
    """A server (``kind``, with ``settings``) on a fresh migrated PostgreSQL database of its
    own, dropped afterwards; the database's URL is ``server.env["DEW_DB_URL"]``."""
    url = create_migrated_pg_database()
    try:
        with kind(url, **settings) as proc:
            yield proc
    finally:
        drop_pg_database(url)


# The server and the browser last as long as the run is in tests/web, no longer: a parallel
# run's worker goes on to other modules after the browser tests (tests/conftest.py), and while
# Playwright's sync API is open its event loop runs in this thread (asyncio.run() refuses to
# start under it: tests/api/test_edge.py failed so).
@pytest.fixture(scope="package")
def server() -> Iterator[ServerProcess]:
    """One server for the web tests: bots move fast and matchmaking fills a seat with a bot
    after 1 s."""
    with pg_server(turn_timeout_s=60, bot_move_delay_s=0.05, matchmaking_wait_s=1.0) as proc:
        yield proc


@pytest.fixture(scope="package")
def scholarship_season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The demo's first steps, started once for the browser modules that read them without
    undoing each other (the dashboard's rental, the roles and the phone screens): chain,
    services, five signed-in wallets, a season, minted avatars and oscar screened as an owner.
    A module that adds to it (a VIP pass, a shop listing) adds what the others never count."""
    from contextlib import ExitStack

    from backend.demo.players import api_txs
    from backend.demo.season import DemoConfig, Season

    config = DemoConfig(workdir=tmp_path_factory.mktemp("web-demo"), out=lambda _text: None)
    with ExitStack() as stack:
        run = Season(config, stack)
        run.start()
        run.sign_in()
        run.mint_avatars()
        body = {"screener": run.operator, "owner": run.oscar.address}
        run.chain.send(run.operator_key, api_txs(run.http.post("/economy/screenings", json=body)))
        yield run


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make install` (it apt-gets chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        yield browser
        browser.close()


def _closing_new_contexts(browser: Any) -> Iterator[None]:
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


# A page left open keeps its timers, polls and sockets running in a renderer for the rest of
# the browser unit: one Chromium serves every browser module, and left pages piled up to fifty
# renderers, several of them each using 6-9% of a core for minutes. So the contexts a test
# opens (``open_wallet_page`` and the like) are closed when it ends, and those a module's
# fixtures opened when the module ends. (Fixtures of a wider scope are set up first, so a
# module fixture's pages outlive the test that first asked for them.)
@pytest.fixture(autouse=True)
def _close_test_contexts(request: pytest.FixtureRequest) -> Iterator[None]:
    if "browser" not in request.fixturenames:
        yield
        return
    yield from _closing_new_contexts(request.getfixturevalue("browser"))


@pytest.fixture(scope="module", autouse=True)
def _close_module_contexts(request: pytest.FixtureRequest) -> Iterator[None]:
    if not request.path.name.endswith("_in_browser.py"):
        yield
        return
    yield from _closing_new_contexts(request.getfixturevalue("browser"))


def open_wallet_page(
    browser: Any,
    base_url: str,
    wallet: InjectedWallet | None,
    viewport: dict[str, int] | None = None,
    *,
    risk_read: bool = True,
) -> Any:
    """A fresh context (its own session) with the wallet injected, on the lobby. The wallet's
    player has read the risk statement of its first deposit and staked seat (care.js keeps
    that in the browser) unless ``risk_read`` is False: a test of the statement itself."""
    context = browser.new_context(
        viewport=viewport or {"width": 1100, "height": 900}, locale="es-ES"
    )
    context.add_init_script(CSP_WATCH_JS)
    if wallet is not None:
        context.expose_function("__dewWallet", wallet.handle)
        context.add_init_script(PROVIDER_JS)
        if risk_read:
            key = json.dumps(f"dew.risk.{wallet.account.address.lower()}")
            # (about:blank, the first document, has no storage of its own)
            context.add_init_script(f"try {{ localStorage.setItem({key}, 'read'); }} catch {{}}")
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and message.text.startswith("CSP violation")
            else None
        ),
    )
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(base_url + "/")
    page.wait_for_selector("main[data-ready=true]")
    return page


# Set before a navigation: ``__dewRoute`` stays "waiting" until ``#main`` leaves a
# ``data-ready=false`` (a route that started after this point has ended). A new document has no
# ``__dewRoute`` and starts at ``data-ready=false`` (index.html).
ROUTE_WATCH_JS = """() => {
  const main = document.getElementById('main');
  if (!main) return;
  window.__dewRoute = 'waiting';
  new MutationObserver((records, observer) => {
    if (records.some((record) => record.oldValue === 'false')) {
      window.__dewRoute = 'done';
      observer.disconnect();
    }
  }).observe(main, { attributes: true, attributeFilter: ['data-ready'], attributeOldValue: true });
}"""

VIEW_DRAWN_JS = """(view) => {
  const main = document.getElementById('main');
  return window.__dewRoute !== 'waiting' && !!main
    && main.dataset.ready === 'true' && main.dataset.view === view;
}"""


def view_of(url: str) -> str:
    """The view the web client routes ``url`` to: the first part of its hash path (the lobby
    when there is none), as ``#main[data-view]`` names it."""
    path = url.partition("#")[2].partition("?")[0]
    return path.split("/")[1] if path.count("/") else "lobby"


def goto_view(page: Any, url: str) -> None:
    """Open ``url`` and come back once the web client has drawn the view that this navigation
    routed to (``#main[data-ready=true][data-view=...]``).

    A change of the hash only redraws the page in place, after ``goto`` has returned: until
    then the old view (often the same view) is on screen and ready, and a click on it is lost
    when the redraw replaces it (a lobby row's join once opened no terms gate). So the wait is
    for a route that started after the navigation; the same URL again is a reload."""
    page.evaluate(ROUTE_WATCH_JS)
    if page.url == url:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_function(VIEW_DRAWN_JS, arg=view_of(url))


def sign_in_page(page: Any) -> str:
    """Sign in with the page's wallet; back once the page has drawn its view again as the
    signed-in wallet (the view is redrawn after ``#me`` shows, and a click on the old one
    is lost: on a busy machine a test raced it)."""
    page.click("#connect")
    page.wait_for_selector("#me")
    page.wait_for_selector("#main[data-ready=true]")
    return str(page.get_attribute("#me", "data-address"))


def sign_tx_panel(page: Any) -> list[str]:
    """Sign and send every step of the page's transaction panel and wait until it is done;
    the server's description of each step, as the panel listed them (the panel shows the
    player words, never these: they are in English and count wei)."""
    page.wait_for_selector(".tx-panel .txs li")
    items = page.locator(".tx-panel .txs li")
    shown = " ".join(items.all_inner_texts())
    assert "wei" not in shown and "0x" not in shown, shown
    steps = [str(d) for d in items.evaluate_all("els => els.map((e) => e.dataset.description)")]
    page.click(".tx-panel .sign-send")
    page.wait_for_selector(".tx-panel[data-done=true]", timeout=60_000)
    return steps


def offer_in_dashboard(
    page: Any,
    base_url: str,
    *,
    avatar: int,
    terms: str,
    fields: dict[str, str],
    scholar: str | None = None,
) -> list[str]:
    """The owner offers ``avatar`` from the dashboard's form (to ``scholar``, or to anyone) and
    signs it; the transaction steps shown."""
    goto_view(page, base_url + "/#/dashboard")
    page.wait_for_selector("#offer-form")
    page.fill("#offer-form input[name=avatar_id]", str(avatar))
    if scholar is not None:
        page.fill("#offer-form input[name=scholar]", scholar)
    page.select_option("#offer-form select[name=terms]", terms)
    for name, value in fields.items():
        page.fill(f"#offer-form input[name={name}]", value)
    page.click("#offer-form button[type=submit]")
    return sign_tx_panel(page)


def offer_to_me_shown(page: Any, base_url: str) -> bool:
    """Reloads the dashboard: does it list exactly one offer to this wallet?"""
    page.goto(base_url + "/#/dashboard")
    page.reload()
    page.wait_for_selector("main[data-ready=true][data-view=dashboard]")
    return bool(page.locator("#offers-to-me button.accept").count() == 1)
