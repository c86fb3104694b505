// Trust and care, shared by its screens (views/limits.js, standing.js, support.js,
// moderation.js) and the money doors (the wallet's deposit, a staked seat in the lobby): the
// words of sanctions, breaks and limits, a moment in the player's language, and the risk
// statement a player reads once before the first deposit and the first staked seat.
//
// The statement's acknowledgement is kept in this browser, per wallet (local storage, key
// `dew.risk.<address>`): the server has no record a reading would naturally belong to (the
// terms are accepted in a signed sign-in message; this is a notice, not a contract), and the
// limits themselves are the server's, at every door (docs/economy.md, "Player-side limits").

import { addWords, currentLang, t } from "./i18n.js";

addWords({
  sanction_warn: ["Advertencia", "Warning"],
  sanction_mute: ["Silencio en la mesa", "Muted at the table"],
  sanction_suspend: ["Suspensión del juego", "Play suspended"],
  sanction_ban: ["Bloqueo de la billetera", "Wallet banned"],
  sanctionWhat_warn: ["Un aviso: no cierra nada, pero queda en tu historial.",
    "A notice: it closes nothing, but it stays on your record."],
  sanctionWhat_mute: ["No puedes escribir en la charla de las mesas.", "You cannot talk at the tables."],
  sanctionWhat_suspend: ["No puedes sentarte, buscar partida, inscribirte en torneos, hablar ni depositar. "
      + "Puedes retirar tu saldo.",
  "You cannot take a seat, find a match, enter tournaments, talk or deposit. You can withdraw your balance."],
  sanctionWhat_ban: ["Todo está cerrado salvo retirar tu saldo.", "Everything is closed but withdrawing your balance."],
  break_timeout: ["Pausa", "Time-out"],
  break_exclusion: ["Autoexclusión", "Self-exclusion"],
  breakWhat_timeout: ["Mesas, búsquedas, torneos, depósitos, tienda y mercado cerrados. Retirar sigue abierto.",
    "Tables, match search, tournaments, deposits, the shop and the market are closed. Withdrawing stays open."],
  breakWhat_exclusion: ["Mesas con apuesta, inscripciones pagadas y depósitos cerrados; el juego gratis y "
      + "los retiros siguen abiertos.",
  "Staked tables, paid entries and deposits are closed; free play and withdrawals stay open."],
  limitKind_deposit: ["Depósitos", "Deposits"],
  limitKind_stake: ["Apuestas", "Stakes"],
  period_day: ["por día", "per day"],
  period_week: ["por semana", "per week"],
  period_month: ["por mes (30 días)", "per month (30 days)"],
  untilDate: ["hasta el {date}", "until {date}"],
  riskTitle: ["Antes de jugar con dinero", "Before you play for money"],
  riskLoss: ["En una mesa con apuesta puedes perder lo que apuestas, y el valor de DEW puede bajar. "
      + "Nada garantiza una ganancia: juega solo con lo que puedes permitirte perder.",
  "At a staked table you can lose what you stake, and the value of DEW can fall. Nothing guarantees a gain: "
      + "play only with what you can afford to lose."],
  riskControl: ["Puedes limitar tus depósitos y apuestas, tomarte una pausa o autoexcluirte en "
      + "«Límites y pausas». Si el juego deja de ser un pasatiempo, para y pide ayuda.",
  "You can limit your deposits and stakes, take a break or exclude yourself in \"Limits and breaks\". "
      + "If play stops being a pastime, stop and ask for help."],
  riskLimitsLink: ["Poner mis límites", "Set my limits"],
  riskRead: ["He leído y entiendo este aviso.", "I have read and understand this notice."],
  riskGoOn: ["Continuar", "Go on"],
  riskSeen: ["Ya leíste este aviso en este navegador.", "You have read this notice in this browser."],
});

const LOCALES = { es: "es-ES", en: "en-GB" };

/** A moment in the player's language: "3 de marzo de 2027, 14:05" / "3 March 2027 at 14:05". */
export function dateTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(LOCALES[currentLang()] ?? "en-GB", { dateStyle: "long", timeStyle: "short" });
}

/**
 * The care screens' one way to act: `run(control, work, note)` disables the control, awaits
 * `work()`, draws the screen again (`again`) and says `note` (a sentence, or a function of the
 * work's answer); a refusal is said in the catalogue's words and the control freed.
 */
export function runner(ui, again, renamed = {}) {
  return async (control, work, note) => {
    control.disabled = true;
    try {
      const done = await work();
      await again();
      ui.say(typeof note === "function" ? note(done) : note);
    } catch (error) {
      control.disabled = false;
      ui.fail(error, renamed);
    }
  };
}

/**
 * A form of one text box (`id`, `label` and `empty` are catalogue keys but `id`) that sends
 * its words: refused while empty, else `run` on its submit button with `send(text)`, which
 * says `note`. `submit` labels that button; `more` follows it (another button of the form).
 */
export function textForm(ui, run, { cls, id, label, rows, maxlength, empty, submit, send, note }, ...more) {
  const { h, say } = ui;
  return h("form", { class: cls, onsubmit: (event) => {
    event.preventDefault();
    const text = event.target.elements.text.value.trim();
    if (!text) return say(t(empty), true);
    run(event.target.querySelector("button[type=submit]"), () => send(text), t(note));
  } },
  h("p", {}, h("label", { for: id }, t(label)), h("br"),
    h("textarea", { id, name: "text", rows, maxlength, required: true })),
  h("button", { type: "submit" }, t(submit)), ...more);
}

// --- the risk statement ----------------------------------------------------------------------

const riskKey = (address) => `dew.risk.${String(address).toLowerCase()}`;

/** Whether this wallet's player read the risk statement in this browser. */
export function riskRead(address) {
  return Boolean(address) && localStorage.getItem(riskKey(address)) === "read";
}

/** The statement's paragraphs (the limits screen shows them too). */
export function riskWords(h) {
  return [
    h("p", {}, t("riskLoss")),
    h("p", {}, t("riskControl"), " ", h("a", { href: "#/limits", id: "risk-limits" }, t("riskLimitsLink"))),
  ];
}

/**
 * Before the first deposit or staked seat of this wallet in this browser: the statement, which
 * the player says they read (resolves true) or leaves (false). Resolves true at once after that.
 */
export function riskGate(api, { h }) {
  if (riskRead(api.address)) return Promise.resolve(true);
  document.getElementById("risk-gate")?.remove();
  return new Promise((resolve) => {
    const finish = (ok) => {
      panel.remove();
      if (ok) localStorage.setItem(riskKey(api.address), "read");
      resolve(ok);
    };
    const read = h("input", { type: "checkbox", id: "risk-read" });
    const goOn = h("button", { type: "button", id: "risk-go-on", disabled: true, onclick: () => finish(true) },
      t("riskGoOn"));
    read.addEventListener("change", () => { goOn.disabled = !read.checked; });
    const panel = h("section", {
      id: "risk-gate", class: "terms-gate", role: "dialog", "aria-labelledby": "risk-gate-title",
    },
    h("h2", { id: "risk-gate-title" }, t("riskTitle")),
    ...riskWords(h),
    h("label", {}, read, " ", t("riskRead")),
    h("p", {}, goOn, " ",
      h("button", { type: "button", id: "risk-cancel", onclick: () => finish(false) }, t("cancel"))));
    document.getElementById("main").prepend(panel);
    panel.scrollIntoView({ block: "start" });
    read.focus();
  });
}
