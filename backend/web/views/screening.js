// Screening of owners (seed 000): an owner applies with a statement and sees the outcome; a
// screener (a wallet holding SCREENER_ROLE on chain) sees the queue, rejects with a reason,
// or approves with a transaction their own wallet signs. The application turns approved
// when the server reads the approval on chain. Loaded on demand by app.js, which passes
// its helpers in `ui`.

import { ApiError } from "../api.js";
import { t } from "../i18n.js";

const STATEMENT_MAX = 2000;
const REASON_MAX = 500;

/** Reports the approval's transaction until the server sees it at the confirmation depth
 * (every few seconds: each report draws on the per-address budget of `POST /economy/*`). */
async function reportApproval(api, applicationId, txHash, { tries = 40, everyMs = 3000 } = {}) {
  for (let i = 0; ; i++) {
    try {
      return await api.call("screening_receipt", { application_id: applicationId }, { tx_hash: txHash });
    } catch (error) {
      const waiting = error instanceof ApiError && error.code === "approval_not_on_chain";
      if (!waiting || i >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}

/** The page; `ui` holds app.js's helpers (h, show, table, short, say, fail, ensureWallet). */
export async function screeningView(api, ui) {
  const { h, show, table, short, say, fail, ensureWallet } = ui;
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const again = () => screeningView(api, ui).catch(fail);

  let mine = null;
  try {
    mine = await api.call("screening_mine");
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
  // Only a screener gets the queue; anyone else is refused (403) and sees no queue.
  let queue = null;
  try {
    queue = await api.call("screening_queue");
  } catch (error) {
    if (!(error instanceof ApiError && [403, 503].includes(error.status))) throw error;
  }

  const status = mine
    ? h("section", { id: "my-application", "data-status": mine.status, "data-decided-by": mine.decided_by },
      h("h3", {}, t("myApplication")),
      h("p", {}, `${t("status")}: `, h("strong", { class: "screening-status" }, t(`screening_${mine.status}`))),
      mine.reason ? h("p", { class: "screening-reason" }, `${t("reason")}: ${mine.reason}`) : null,
      mine.tx_hash
        ? h("p", { class: "screening-tx", "data-tx": mine.tx_hash }, `${t("txHash")}: `, h("code", {}, mine.tx_hash))
        : null,
      h("blockquote", { class: "statement" }, mine.statement))
    : h("section", { id: "my-application", "data-status": "none" }, h("p", {}, t("noApplication")));

  const canApply = !mine || ["rejected", "withdrawn"].includes(mine.status);
  const form = canApply
    ? h("form", { id: "screening-form", onsubmit: async (event) => {
      event.preventDefault();
      const statement = String(new FormData(event.target).get("statement") || "").trim();
      if (!statement) return say(t("statementEmpty"), true);
      const button = event.target.querySelector("button");
      button.disabled = true;
      try {
        await api.call("screening_apply", {}, { statement });
        say(t("applicationSent"));
        await again();
      } catch (error) {
        button.disabled = false;
        fail(error);
      }
    } },
    h("h3", {}, t("applyScreening")),
    h("p", {}, t("applyScreeningHelp")),
    h("p", {}, h("label", { for: "screening-statement" }, t("statement")), h("br"),
      h("textarea",
        { id: "screening-statement", name: "statement", rows: 5, maxlength: STATEMENT_MAX, required: true })),
    h("button", { type: "submit" }, t("apply")))
    : null;

  const approve = async (app, button) => {
    button.disabled = true;
    try {
      const { transactions: [tx] } = await api.call("screening_approve", { application_id: app.id }, {});
      const wallet = await ensureWallet();
      say(t("signingApproval"));
      const hash = await wallet.sendTransaction(tx);
      say(t("waitingChain"));
      await reportApproval(api, app.id, hash);
      say(t("screening_approved"));
      await again();
    } catch (error) {
      button.disabled = false;
      fail(error);
    }
  };
  const reject = async (app, row) => {
    const reason = row.querySelector("input[name=reason]").value.trim();
    if (!reason) return say(t("reasonEmpty"), true);
    try {
      await api.call("screening_reject", { application_id: app.id }, { reason });
      say(t("screening_rejected"));
      await again();
    } catch (error) {
      fail(error);
    }
  };
  const decide = (app) => {
    const row = h("span", { class: "decide", "data-application": app.id });
    const approveButton = h("button", { type: "button", class: "approve" }, t("approve"));
    approveButton.addEventListener("click", () => approve(app, approveButton));
    row.append(
      approveButton, " ",
      h("input",
        { name: "reason", type: "text", maxlength: REASON_MAX, placeholder: t("reason"), "aria-label": t("reason") }),
      " ",
      h("button", { type: "button", class: "reject", onclick: () => reject(app, row) }, t("reject")),
    );
    return row;
  };
  const queueSection = queue === null ? null : h("section", { id: "screening-queue" },
    h("h3", {}, t("screeningQueue")),
    table([t("owner"), t("statement"), t("since"), ""], queue.map((app) => [
      h("span", { title: app.applicant, "data-applicant": app.applicant }, short(app.applicant)),
      h("span", { class: "statement" }, app.statement),
      new Date(app.created_at).toLocaleString(),
      decide(app),
    ])));

  show(h("h2", {}, t("screening")), status, form, queueSection);
}
