// The UI kit every view shares: DOM building (no innerHTML with data), the address and DEW
// formats, form fields, tables, the transaction panel, and an error as a sentence of the
// catalogue. Views receive these, with the frame's show/say/fail, in one `ui` object (app.js).

import { ApiError } from "./api.js";
import { addWords, t } from "./i18n.js";

addWords({
  // Here, not in errors.js: the one error to say when errors.js itself cannot be loaded.
  err_network: ["No hay conexión con el servidor. Revisa tu red.", "Cannot reach the server. Check your connection."],
  scrollCue: ["Desliza la tabla para ver más →", "Swipe the table to see more →"],
  txStep: ["Paso", "Step"],
  tx_approve: ["Autorizar al contrato a usar tus DEW", "Let the contract use your DEW"],
  tx_transfer: ["Enviar DEW a la bóveda", "Send DEW to the vault"],
  tx_call: ["Confirmar la operación", "Confirm the operation"],
});

// The ERC-20 calls a panel names in words (the first four bytes of the call data); the
// server's own description (English, with wei) stays in data-description, off the screen.
const TX_WORDS = { "0x095ea7b3": "tx_approve", "0xa9059cbb": "tx_transfer" };

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const short = (address) => (address ? `${address.slice(0, 6)}…${address.slice(-4)}` : "");

/** A wei amount (decimal string, bigint or number) as DEW with at most two decimals. */
export const dew = (wei) => {
  const value = BigInt(wei || "0");
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const whole = abs / 10n ** 18n;
  const cents = (abs % 10n ** 18n) / 10n ** 16n;
  return `${sign}${whole}.${String(cents).padStart(2, "0")} DEW`;
};

export function field(label, input) {
  const id = `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return h("p", {}, h("label", { for: id }, label), " ", input);
}

export function select(name, options, value) {
  const option = ([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label);
  return h("select", { name }, options.map(option));
}

// Observes the tables that scroll sideways: their box shows a cue while there is more to see.
const overflowWatch = typeof ResizeObserver === "undefined" ? null : new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const table = target.querySelector("table");
    if (table) target.dataset.overflows = String(table.scrollWidth > table.clientWidth + 1);
  }
});

/**
 * A table of `rows` under `headers`. On a phone (style.css) a table of four columns or more
 * turns each row into a card whose cells carry their column's name; a narrower table that is
 * still too wide scrolls inside its box, which then shows a cue (the catalogue's `scrollCue`).
 */
export function table(headers, rows, caption) {
  if (!rows.length) return h("p", {}, t("none"));
  const cards = headers.length >= 4;
  const cell = (value, i) => h("td", { "data-label": headers[i] || null }, value);
  const box = h(
    "div",
    { class: "wide", "data-cue": t("scrollCue") },
    h(
      "table",
      { class: cards ? "cards" : null },
      caption ? h("caption", {}, caption) : null,
      h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, rows.map((row) => h("tr", {}, row.map(cell)))),
    ),
  );
  overflowWatch?.observe(box);
  return box;
}

/**
 * What the player reads for a failure: the catalogue's sentence for the contract error a chain
 * refusal names (`revert_<Name>`), else for the server's error code (`err_<code>`), else a
 * general sentence; never the server's English text or the raw code.
 * `renamed` reads a code that two packages share in a screen's own words
 * (`{ticket_not_found: "support_ticket_not_found"}` on the support screen).
 */
export function errorText(error, renamed = {}) {
  // The error codes' sentences (errors.js) load with the first error, or with a screen that
  // imports them, not with the lobby's first load: errorSentence() waits for them.
  if (error instanceof ApiError) {
    // A chain refusal names the contract's error: its sentence says what to do about it.
    const revert = typeof error.detail?.revert === "string" ? t(`revert_${error.detail.revert}`) : null;
    if (revert && !revert.startsWith("revert_")) return revert;
    const key = `err_${Object.hasOwn(renamed, error.code) ? renamed[error.code] : error.code}`;
    const known = t(key);
    if (known !== key) return known;
    if (error.status === 401) return t("err_token_invalid");
    if (error.status === 403) return t("err_forbidden");
    if (error.status === 404) return t("err_not_found");
    if (error.status === 429) return t("err_rate_limited");
    if (error.status >= 500) return t("err_server");
    return t("err_refused");
  }
  if (error instanceof TypeError) return t("err_network");  // fetch() could not reach the server
  // A wallet's refusal (EIP-1193: 4001 the player said no; other numbers the wallet failed).
  if (typeof error?.code === "number") return t(error.code === 4001 ? "err_wallet_rejected" : "err_wallet");
  const key = `err_${error?.code ?? ""}`;
  const known = t(key);
  if (known !== key) return known;
  // The client's own errors are thrown with a sentence of the catalogue (t("badStake")).
  return error?.message || t("err_unknown");
}

/** errorText() once the error codes' sentences are loaded. */
export async function errorSentence(error, renamed = {}) {
  try {
    await import("./errors.js");
  } catch {
    return t("err_network");  // the server is out of reach: the one sentence kept here
  }
  return errorText(error, renamed);
}

/** The transactions a wallet signs, one after another (deposits, offers, purchases). */
export function txPanel(ui, result, done) {
  const steps = result.transactions.length;
  const txLine = (tx, i) => h("li", { "data-description": tx.description },
    `${t("txStep")} ${i + 1}/${steps}: ${t(TX_WORDS[tx.data.slice(0, 10)] ?? "tx_call")}`);
  const list = h("ol", { class: "txs" }, result.transactions.map(txLine));
  const button = h("button", { type: "button", class: "sign-send", onclick: async () => {
    button.disabled = true;
    try {
      const w = await ui.ensureWallet();
      for (const [i, tx] of result.transactions.entries()) {
        const hash = await w.sendTransaction(tx);
        list.children[i].append(` · ${t("confirmed")} `, h("code", {}, hash));
      }
      box.dataset.done = "true";
      ui.say(t("confirmed"));
      done?.();
    } catch (error) {
      button.disabled = false;
      ui.fail(error);
    }
  } }, t("signSend"));
  const box = h("section", { class: "tx-panel", "data-done": "false" }, h("h3", {}, t("txToSign")), list, button);
  return box;
}
