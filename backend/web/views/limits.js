// Limits and breaks ("Risks & Control", seed 000): the risk statement, the player's deposit
// and stake limits per day, week or month (a lower one holds at once; a raise or a removal
// after the server's cooling period, shown with its date), a time-out and a self-exclusion,
// each confirmed in plain words first. The server keeps and enforces all of it at every
// money door (PUT /care/limits, POST /care/breaks, GET /care/standing); a withdrawal is never
// closed. Loaded on demand by app.js, which passes its helpers in `ui`.

import { dateTime, riskRead, riskWords, runner } from "../care.js";
import { addWords, fill, t } from "../i18n.js";
import { parseDew } from "./wallet.js";

addWords({
  limitsTitle: ["Límites y pausas", "Limits and breaks"],
  limitsSignIn: ["Conecta tu billetera para poner límites o tomar una pausa.",
    "Connect your wallet to set limits or take a break."],
  limitsNow: ["Tus límites", "Your limits"],
  limitsHow: ["Un límite más bajo vale al momento. Subirlo o quitarlo vale a las 24 horas.",
    "A lower limit holds at once. Raising or removing one holds after 24 hours."],
  limitWhat: ["Límite", "Limit"],
  limitPeriod: ["Periodo", "Period"],
  limitAmount: ["Máximo", "Most"],
  limitUsed: ["Usado en el periodo", "Used in the period"],
  limitNext: ["Cambio pendiente", "Change waiting"],
  limitNone: ["sin límite", "no limit"],
  limitRaise: ["{amount} desde el {date}", "{amount} from {date}"],
  limitSet: ["Poner el límite", "Set the limit"],
  limitAmountLabel: ["Máximo en DEW (vacío: sin límite)", "Most in DEW (empty: no limit)"],
  limitLowered: ["Límite puesto: vale desde ahora.", "Limit set: it holds from now."],
  limitWaits: ["Tu cambio vale desde el {date}; hasta entonces sigue el límite actual.",
    "Your change holds from {date}; until then the current limit stays."],
  breaksNow: ["Pausas en curso", "Breaks under way"],
  breakNone: ["No tienes ninguna pausa en curso.", "You have no break under way."],
  timeoutTitle: ["Tomarme una pausa", "Take a time-out"],
  timeoutHelp: ["De 1 día a 6 semanas. No se puede acortar ni terminar antes.",
    "From 1 day to 6 weeks. It cannot be shortened or ended early."],
  exclusionTitle: ["Autoexcluirme", "Exclude myself"],
  exclusionHelp: ["Seis meses o más. No se puede deshacer antes de tiempo.",
    "Six months or more. It cannot be undone early."],
  breakLength: ["Duración", "Length"],
  days_1: ["1 día", "1 day"],
  days_3: ["3 días", "3 days"],
  days_7: ["1 semana", "1 week"],
  days_14: ["2 semanas", "2 weeks"],
  days_30: ["30 días", "30 days"],
  days_42: ["6 semanas", "6 weeks"],
  days_183: ["6 meses", "6 months"],
  days_365: ["1 año", "1 year"],
  days_730: ["2 años", "2 years"],
  days_1825: ["5 años", "5 years"],
  breakStart: ["Empezar", "Start"],
  breakConfirmTitle: ["Confirma", "Confirm"],
  breakConfirm: ["{what} hasta el {date}: {closes}", "{what} until {date}: {closes}"],
  breakFinal: ["Entiendo que no se puede terminar antes.", "I understand it cannot be ended early."],
  breakYes: ["Sí, empezar ahora", "Yes, start now"],
  breakStarted: ["{what} en curso hasta el {date}.", "{what} under way until {date}."],
});

const TIMEOUT_DAYS = [1, 3, 7, 14, 30, 42];
const EXCLUSION_DAYS = [183, 365, 730, 1825];
const KINDS = ["deposit", "stake"];
const PERIODS = ["day", "week", "month"];

/** "" is no limit (null), "0" a limit of nothing, else a DEW amount; undefined if not one. */
function limitWei(text) {
  const value = String(text).trim();
  if (!value) return null;
  if (/^0+(\.0+)?$/.test(value)) return "0";
  return parseDew(value) ?? undefined;
}

export async function limitsView(api, ui) {
  const { h, show, say, fail, dew, table } = ui;
  if (!api.address || api.guest) {
    return show(h("h2", {}, t("limitsTitle")), h("p", { id: "limits-signed-out" }, t("limitsSignIn")));
  }
  const standing = await api.request("GET", "/care/standing");
  const run = runner(ui, () => limitsView(api, ui).catch(fail));

  const limitRows = standing.limits.map((l) => [
    h("span", { "data-kind": l.kind }, t(`limitKind_${l.kind}`)),
    h("span", { "data-period": l.period }, t(`period_${l.period}`)),
    h("span", { class: "limit-amount", "data-wei": l.amount ?? "" },
      l.amount === null ? t("limitNone") : dew(l.amount)),
    h("span", { class: "limit-used", "data-wei": l.used }, dew(l.used)),
    l.pending_from
      ? h("span", { class: "limit-pending", "data-from": l.pending_from },
        fill(t("limitRaise"), {
          amount: l.pending === null ? t("limitNone") : dew(l.pending), date: dateTime(l.pending_from),
        }))
      : "—",
  ]);
  const choose = (name, values, words) => h("select", { id: `limit-${name}`, name },
    values.map((v) => h("option", { value: v }, t(`${words}_${v}`))));
  const limitForm = h("form", { id: "limit-form", onsubmit: (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const amount = limitWei(data.get("amount"));
    if (amount === undefined) return say(t("badAmount"), true);
    const body = { kind: data.get("kind"), period: data.get("period"), amount };
    run(event.target.querySelector("button"), () => api.request("PUT", "/care/limits", body),
      (set) => (set.pending_from ? fill(t("limitWaits"), { date: dateTime(set.pending_from) }) : t("limitLowered")));
  } },
  h("h3", {}, t("limitSet")),
  h("p", {}, t("limitsHow")),
  h("p", {}, h("label", { for: "limit-kind" }, t("limitWhat")), " ", choose("kind", KINDS, "limitKind")),
  h("p", {}, h("label", { for: "limit-period" }, t("limitPeriod")), " ", choose("period", PERIODS, "period")),
  h("p", {}, h("label", { for: "limit-amount" }, t("limitAmountLabel")), " ",
    h("input", { id: "limit-amount", name: "amount", type: "text", inputmode: "decimal", size: 12 })),
  h("button", { type: "submit" }, t("limitSet")));

  show(h("section", { id: "limits", "aria-labelledby": "limits-h" },
    h("h2", { id: "limits-h" }, t("limitsTitle")),
    h("section", { id: "risk-statement", class: "care-box", "aria-labelledby": "risk-h",
      "data-read": String(riskRead(api.address)) },
    h("h3", { id: "risk-h" }, t("riskTitle")), ...riskWords(h).slice(0, 1)),
    h("section", { id: "breaks", class: "care-box", "aria-labelledby": "breaks-h" },
      h("h3", { id: "breaks-h" }, t("breaksNow")),
      standing.breaks.length
        ? h("ul", {}, standing.breaks.map((b) => h("li", { "data-kind": b.kind, "data-ends": b.ends_at },
          h("strong", {}, t(`break_${b.kind}`)), " ", fill(t("untilDate"), { date: dateTime(b.ends_at) }), ". ",
          t(`breakWhat_${b.kind}`))))
        : h("p", {}, t("breakNone"))),
    h("section", { id: "my-limits", class: "care-box", "aria-labelledby": "my-limits-h" },
      h("h3", { id: "my-limits-h" }, t("limitsNow")),
      table([t("limitWhat"), t("limitPeriod"), t("limitAmount"), t("limitUsed"), t("limitNext")], limitRows)),
    h("div", { class: "columns" }, limitForm,
      breakForm(ui, "timeout", TIMEOUT_DAYS, run, api),
      breakForm(ui, "exclusion", EXCLUSION_DAYS, run, api)),
  ));
}

/** A time-out's or a self-exclusion's form: its length, then a plain confirmation of what it
 * closes and until when, which the player must tick before it starts. */
function breakForm(ui, kind, days, run, api) {
  const { h } = ui;
  const id = `${kind}-form`;
  const confirmBox = h("div", { class: "break-confirm", "aria-live": "polite" });
  const form = h("form", { id, onsubmit: (event) => {
    event.preventDefault();
    const length = Number(new FormData(form).get("days"));
    const ends = new Date(Date.now() + length * 86400000).toISOString();
    const sure = h("input", { type: "checkbox", id: `${kind}-sure` });
    const yes = h("button", { type: "button", id: `${kind}-yes`, class: "danger", disabled: true,
      onclick: () => run(yes, () => api.request("POST", "/care/breaks", { kind, days: length }),
        (taken) => fill(t("breakStarted"), { what: t(`break_${kind}`), date: dateTime(taken.ends_at) })) },
    t("breakYes"));
    sure.addEventListener("change", () => { yes.disabled = !sure.checked; });
    confirmBox.replaceChildren(h("div", { role: "group", "aria-labelledby": `${kind}-confirm-h`, class: "terms-gate" },
      h("h4", { id: `${kind}-confirm-h` }, t("breakConfirmTitle")),
      h("p", {}, fill(t("breakConfirm"), {
        what: t(`break_${kind}`), date: dateTime(ends), closes: t(`breakWhat_${kind}`),
      })),
      h("label", {}, sure, " ", t("breakFinal")),
      h("p", {}, yes, " ", h("button", { type: "button", onclick: () => confirmBox.replaceChildren() }, t("cancel")))));
    sure.focus();
  } },
  h("h3", {}, t(`${kind}Title`)),
  h("p", {}, t(`${kind}Help`)),
  h("p", {}, h("label", { for: `${kind}-days` }, t("breakLength")), " ",
    h("select", { id: `${kind}-days`, name: "days" }, days.map((d) => h("option", { value: d }, t(`days_${d}`))))),
  h("button", { type: "submit" }, t("breakStart")),
  confirmBox);
  return form;
}
