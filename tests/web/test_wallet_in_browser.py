"""The wallet page on the demo's real stack (anvil with the contracts, ``dew serve``, a Celery
worker and beat, the economy jobs): a player deposits DEW into the vault by signing the
transaction the page shows with the injected wallet, the indexer credits it, then withdraws
part of it; the page shows each balance as the token and the books say."""

from __future__ import annotations

from typing import Any

import pytest

from backend.demo.players import DemoFailed, ok
from backend.demo.season import Season
from backend.devstack.services import wait_for
from tests.web.conftest import InjectedWallet, open_wallet_page, sign_in_page, sign_tx_panel
from tests.web.test_dashboard_in_browser import season  # noqa: F401 (the demo's stack)

pytestmark = pytest.mark.timeout(420)
DEW = 10**18


def _shown(page: Any, selector: str) -> str | None:
    return page.get_attribute(selector, "data-wei")


def test_deposit_then_withdraw_in_the_wallet_page(
    browser,
    season: Season,  # noqa: F811 (the fixture imported above)
    artifacts,
):
    player = season.vera
    token = season.contracts.token.functions
    deployer = season.w3.eth.account.from_key(season.deployer_key).address
    faucet = token.transfer(player.address, 10 * DEW).build_transaction(
        {"from": deployer, "gas": 200_000}
    )
    season.chain.send(season.deployer_key, [{"to": faucet["to"], "data": faucet["data"]}])
    on_chain = token.balanceOf(player.address).call()

    page = open_wallet_page(browser, season.base, InjectedWallet(player.key, season.w3))
    assert sign_in_page(page) == player.address
    page.click("#nav-wallet")
    page.wait_for_selector("main[data-ready=true][data-view=wallet] #dew-balance")
    assert _shown(page, "#dew-balance") == str(on_chain)
    assert _shown(page, "#stake-balance") == "0"

    # Deposit 4 DEW: the API builds the transfer, the wallet signs it, the indexer credits it.
    page.fill("#deposit-form input[name=amount]", "4")
    page.click("#deposit-form button[type=submit]")
    steps = sign_tx_panel(page)
    assert "deposit" in " ".join(steps).lower()
    wait_for(
        "the deposit credited on the page",
        lambda: _shown(page, "#stake-balance") == str(4 * DEW),
        timeout_s=60,
    )
    assert token.balanceOf(player.address).call() == on_chain - 4 * DEW
    assert _shown(page, "#dew-balance") == str(on_chain - 4 * DEW)

    # Withdraw 1.5 DEW: requested, sent by the worker through the outbox, paid.
    page.fill("#withdraw-form input[name=amount]", "1.5")
    page.click("#withdraw-form button[type=submit]")
    page.wait_for_selector("#withdrawals [data-withdrawal]")
    seen: list[str] = []

    def paid() -> bool:
        [row] = ok(season.http.get("/wallet/withdrawals", headers=player.auth))
        if not seen or seen[-1] != row["state"]:
            seen.append(row["state"])
        assert row["state"] != "failed", row
        return row["state"] == "paid"

    try:
        wait_for("the withdrawal paid", paid, timeout_s=120)
    except DemoFailed:
        pytest.fail(f"the withdrawal was not paid in 120 s; its states: {seen}")
    # The page follows the withdrawal by itself until it is paid.
    page.wait_for_selector("#withdrawals [data-state=paid]", timeout=30_000)
    wait_for(
        "the page's balances after the withdrawal",
        lambda: (
            _shown(page, "#stake-balance") == str(5 * DEW // 2)
            and _shown(page, "#dew-balance") == str(on_chain - 4 * DEW + 3 * DEW // 2)
        ),
        timeout_s=30,
    )
    assert token.balanceOf(player.address).call() == on_chain - 4 * DEW + 3 * DEW // 2
    kinds = page.locator("#stake-history [data-kind]").evaluate_all(
        "els => els.map(e => e.dataset.kind)"
    )
    assert kinds == ["withdrawal", "deposit"]
    assert page.locator("#stake-history code").count() == 2  # both with their tx hash
    [withdrawal] = ok(season.http.get("/wallet/withdrawals", headers=player.auth))
    assert (withdrawal["state"], withdrawal["amount"]) == ("paid", str(3 * DEW // 2))
    page.screenshot(path=str(artifacts / "wallet.png"), full_page=True)

    # Both languages.
    heading = page.locator("main h2").inner_text()
    page.click("#lang")
    page.wait_for_selector("main[data-ready=true][data-view=wallet] #dew-balance")
    assert {heading, page.locator("main h2").inner_text()} == {"Billetera", "Wallet"}
    assert not page.js_errors
