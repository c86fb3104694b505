// The wallet page: DEW on chain, the vault's stake balance, what is held in escrow and why,
// deposits (a transaction the API builds and the wallet signs) and withdrawals (paid by the
// server through its outbox), with the history of the balance. Loaded on demand by app.js,
// which passes its helpers in `ui`.

import { riskGate } from "../care.js";
import { t } from "../i18n.js";

const DEW_AMOUNT = /^[0-9]{1,30}(\.[0-9]{1,18})?$/;
const OPEN_STATES = new Set(["requested", "sent", "waiting"]);
// After a deposit is sent: the stake balance it started from, until the indexer credits it.
let awaitingCredit = null;

/** "2.5" DEW as a wei decimal string, exactly; null if it is not a positive amount. */
export function parseDew(text) {
  const value = String(text).trim();
  if (!DEW_AMOUNT.test(value)) return null;
  const [whole, fraction = ""] = value.split(".");
  const wei = BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, "0"));
  return wei > 0n ? wei.toString() : null;
}

function newKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** The page; `ui` holds app.js's helpers (h, show, table, txPanel, dew, short, say, fail, onLeave). */
export async function walletView(api, ui) {
  const { h, show, table, txPanel, dew, short, say, fail, onLeave } = ui;
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const money = await api.call("money");
  const pendingTx = h("div", { id: "pending-tx" });
  let timer = null;
  const again = (ms) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      // A failed refresh (the server restarting, a dropped connection) is said, then retried.
      if (location.hash.startsWith("#/wallet")) walletView(api, ui).catch((error) => { fail(error); again(5000); });
    }, ms);
  };
  const refresh = () => again(1000);
  onLeave(() => window.clearTimeout(timer));

  const amountForm = (id, label, help, submit) => h("form", { id, onsubmit: async (event) => {
    event.preventDefault();
    const wei = parseDew(new FormData(event.target).get("amount"));
    if (wei === null) return say(t("badAmount"), true);
    const button = event.target.querySelector("button");
    button.disabled = true;
    try {
      await submit(wei);
    } catch (error) {
      fail(error);
    } finally {
      button.disabled = false;
    }
  } },
  h("h3", {}, label),
  h("p", {}, help),
  h("p", {}, h("label", { for: `${id}-amount` }, t("amountDew")), " ",
    h("input", {
      id: `${id}-amount`, name: "amount", type: "text", inputmode: "decimal", size: 12, required: true,
      pattern: DEW_AMOUNT.source,
    })),
  h("button", { type: "submit" }, label));

  const depositForm = amountForm("deposit-form", t("deposit"), t("depositHelp"), async (wei) => {
    if (!(await riskGate(api, ui))) return;  // the risk statement before the first deposit
    const before = money.stake_balance;
    pendingTx.replaceChildren(txPanel(await api.call("deposit", {}, { amount: wei }), () => {
      awaitingCredit = { from: before, polls: 0 };
      refresh();
    }));
  });
  // One key per form submission: a retried or double-clicked request is the same withdrawal.
  const withdrawForm = amountForm("withdraw-form", t("withdraw"), t("withdrawHelp"), async (wei) => {
    const made = await api.call("withdraw", {}, { amount: wei, idempotency_key: newKey() });
    say(`${t("withdraw")}: ${dew(made.amount)} · ${t(`state_${made.state}`)}`);
    refresh();
  });

  const why = (e) => (e.kind === "tournament"
    ? h("span", { "data-tournament": e.tournament_id }, `${t("tournament")} ${e.name ?? e.tournament_id}`)
    : e.table_id ? h("a", { href: `#/table/${e.table_id}` }, `${t("tableMatch")} ${e.table_id.slice(0, 8)}`) : e.key);
  const state = (s) => h("span", { "data-state": s }, t(`state_${s}`));
  const hash = (x) => (x ? h("code", { title: x }, short(x)) : "—");
  const when = (iso) => new Date(iso).toLocaleString();

  show(
    h("h2", {}, t("wallet")),
    h("section", { id: "balances", "aria-label": t("wallet") },
      h("p", {}, `${t("dewOnChain")}: `, money.dew_balance === null
        ? h("span", { id: "dew-balance", class: "error", title: money.chain_error ?? "" }, t("chainUnavailable"))
        : h("strong", { id: "dew-balance", "data-wei": money.dew_balance }, dew(money.dew_balance))),
      h("p", {}, `${t("stakeBalance")}: `,
        h("strong", { id: "stake-balance", "data-wei": money.stake_balance }, dew(money.stake_balance))),
      h("p", {}, `${t("escrowed")}: `,
        h("strong", { id: "escrowed-total", "data-wei": money.escrowed_total }, dew(money.escrowed_total))),
      h("button", { type: "button", id: "wallet-refresh", onclick: refresh }, t("refresh"))),
    h("section", { id: "escrowed" }, h("h3", {}, t("escrowWhy")),
      table([t("reference"), t("amount"), t("since")],
        money.escrowed.map((e) => [why(e), dew(e.amount), when(e.since)]))),
    h("div", { class: "columns" }, depositForm, withdrawForm),
    pendingTx,
    h("section", { id: "withdrawals" }, h("h3", {}, t("withdrawals")),
      table([t("amount"), t("status"), t("txHash"), t("when")], money.withdrawals.map((w) => [
        h("span", { "data-withdrawal": w.id, "data-wei": w.amount }, dew(w.amount)),
        h("span", { title: w.reason ?? "" }, state(w.state)), hash(w.tx_hash), when(w.requested_at),
      ]))),
    h("section", { id: "stake-history" }, h("h3", {}, t("stakeHistory")),
      table([t("kind"), t("amount"), t("reference"), t("status"), t("txHash"), t("when")], money.history.map((x) => [
        h("span", { "data-kind": x.kind }, t(`kind_${x.kind}`)), dew(x.amount), x.ref ? short(x.ref) : "—",
        state(x.state), hash(x.tx_hash), when(x.at),
      ]))),
  );
  // Follow open withdrawals until they are paid (or fail) without a reload.
  if (awaitingCredit && (money.stake_balance !== awaitingCredit.from || ++awaitingCredit.polls > 60)) {
    awaitingCredit = null;
  }
  if (awaitingCredit || money.withdrawals.some((w) => OPEN_STATES.has(w.state))) again(2000);
}
