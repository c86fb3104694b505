// The terms gate: before a seat at an earning or staked table, the player reads the
// terms, confirms being of legal age, and the wallet signs a new sign-in message carrying both
// (EIP-4361 resources: the terms URI with its version, and urn:dew:legal-age:confirmed). The
// server records that acceptance and refuses earning and staked play without it
// (terms_required); docs/economy.md, "Terms, legal age and staked play".

import { t } from "./i18n.js";
import "./errors.js";  // the gate says a failure in the catalogue's words
import { errorText } from "./ui.js";

// The signed-in wallet's terms status (GET /auth/terms), fetched when the lobby is shown so a
// click on a table asks nothing of the network unless the terms must be accepted.
let cached = null; // {address, promise}

/** Fetch (again) the terms status of the signed-in wallet; app.js calls it as the lobby opens. */
export function preloadTerms(api) {
  if (!api.address) return;
  const promise = api.call("terms");
  promise.catch(() => {}); // a failure is reported when the gate reads it
  cached = { address: api.address, promise };
}

async function termsStatus(api) {
  if (!cached || cached.address !== api.address) preloadTerms(api);
  try {
    return await cached.promise;
  } catch (error) {
    cached = null;
    throw error;
  }
}

/** Sign in again with the terms resources: the same wallet, a message that accepts them. */
async function signInAccepting(api, wallet) {
  const address = wallet.address ?? (await wallet.connect());
  const grant = await api.call("nonce", {}, { address: await api.checksum(address), accept_terms: true });
  const signature = await wallet.signMessage(grant.message);
  const tokens = await api.call("signin", {}, { message: grant.message, signature });
  api.remember(tokens);
  return tokens;
}

/** The gate's panel; resolves true once the terms are accepted, false if the player cancels. */
function askToAccept(status, { h, say }, accept) {
  return new Promise((resolve) => {
    const finish = (ok) => {
      panel.remove();
      resolve(ok);
    };
    const agree = h("input", { type: "checkbox", id: "terms-legal-age" });
    const button = h("button", { type: "button", id: "terms-accept", disabled: true }, t("termsAccept"));
    agree.addEventListener("change", () => { button.disabled = !agree.checked; });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await accept();
        say(t("termsAccepted"));
        finish(true);
      } catch (error) {
        button.disabled = !agree.checked;
        say(errorText(error), true);  // the catalogue's sentence, never the server's text
      }
    });
    const panel = h(
      "section",
      { id: "terms-gate", class: "terms-gate", role: "dialog", "aria-labelledby": "terms-gate-title",
        "data-version": status.version },
      h("h2", { id: "terms-gate-title" }, t("termsTitle")),
      h("p", {}, t("termsWhy")),
      h("p", {}, h("a", { id: "terms-link", href: status.uri, target: "_blank", rel: "noopener noreferrer" },
        t("termsRead").replace("{version}", status.version))),
      h("label", {}, agree, " ", t("termsLegalAge")),
      h("p", {}, button, " ",
        h("button", { type: "button", id: "terms-cancel", onclick: () => finish(false) }, t("cancel"))),
    );
    document.getElementById("main").prepend(panel);
    agree.focus();
  });
}

/**
 * Whether the player may go on to a table of this stake and earning flag: free play always;
 * earning or staked play once the current terms are accepted (asking for them first).
 * `ui` holds app.js's helpers (h, say) and ensureWallet.
 */
export async function termsGate(api, ui, { stake = "0", earning = false } = {}) {
  const staked = BigInt(stake || "0") > 0n;
  if (!staked && !earning) return true;
  const status = await termsStatus(api);
  if (staked && !status.staked_play) {
    ui.say(t("stakedOff"), true);
    return false;
  }
  if (!status.required || status.accepted) return true;
  return askToAccept(status, ui, async () => {
    await signInAccepting(api, await ui.ensureWallet());
    cached = { address: api.address, promise: Promise.resolve({ ...status, accepted: true }) };
  });
}
