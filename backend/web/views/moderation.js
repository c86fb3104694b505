// The moderators' screen (the operator's wallets and those it granted the role; the routes
// decide, deps.CurrentModerator): open reports, each acted on with a warning, a mute, a
// suspension or a ban with a reason and a length; appeals waiting for an answer, upheld or
// lifted with a note; the latest actions; and the support tickets waiting for an answer
// (/care/moderation/..., /care/support/...). Loaded on demand by app.js.

import { ApiError } from "../api.js";
import "../errors.js";  // err_invalid_request of a bad length
import { dateTime, runner } from "../care.js";
import { addWords, fill, t } from "../i18n.js";
import "./standing.js";  // the sanctions' words (the moderator's reason)
import { RENAMED } from "./support.js";  // and the tickets' words (their kinds, the thread)

addWords({
  moderationTitle: ["Moderación", "Moderation"],
  modReports: ["Denuncias abiertas", "Open reports"],
  modReported: ["Denunciado", "Reported"],
  modReportNote: ["Nota de quien denuncia:", "The reporter's note:"],
  modPrivateMessage: ["mensaje privado", "private message"],
  modMessage: ["El mensaje denunciado:", "The message reported:"],
  modMessageRemoved: ["(retirado: su autor cerró la cuenta)", "(removed: its author closed the account)"],
  modAction: ["Acción", "Action"],
  modLength: ["Duración", "Length"],
  unit_hours: ["horas", "hours"],
  unit_days: ["días", "days"],
  modReason: ["Motivo (lo lee el jugador)", "Reason (the player reads it)"],
  modAct: ["Aplicar", "Apply"],
  modActed: ["{what} hasta el {date}.", "{what} until {date}."],
  modBounds: ["Advertencia y suspensión: de 1 hora a 1 año; silencio: hasta 90 días; bloqueo: de 1 día a 10 años.",
    "Warning and suspension: 1 hour to 1 year; mute: up to 90 days; ban: 1 day to 10 years."],
  modAppeals: ["Apelaciones por responder", "Appeals to answer"],
  modAppeal: ["Apelación:", "Appeal:"],
  modAnswerLabel: ["Respuesta (la lee el jugador)", "Answer (the player reads it)"],
  modUphold: ["Mantener", "Uphold"],
  modLift: ["Levantar", "Lift"],
  modAnswered: ["Apelación respondida.", "Appeal answered."],
  modRecent: ["Últimas acciones", "Latest actions"],
  modWallet: ["Billetera", "Wallet"],
  modState_active: ["en vigor", "in force"],
  modState_ended: ["terminada", "ended"],
  modState_lifted: ["levantada", "lifted"],
  modTickets: ["Consultas por responder", "Tickets to answer"],
  modTicketAnswer: ["Responder", "Answer"],
  modTicketAnswerClose: ["Responder y cerrar", "Answer and close"],
  modTicketAnswered: ["Consulta respondida.", "Ticket answered."],
  modWriteFirst: ["Escribe el motivo o la respuesta primero.", "Write the reason or the answer first."],
  modNotModerator: ["Esta pantalla es para los moderadores que nombra el operador.",
    "This screen is for the moderators the operator names."],
  modTeam: ["Moderadores (solo el operador)", "Moderators (the operator only)"],
  modGrantLabel: ["Dirección de la billetera", "Wallet address"],
  modGrant: ["Nombrar moderador", "Make a moderator"],
  modRevoke: ["Quitar el rol", "Take the role back"],
  modGranted: ["Rol concedido.", "Role granted."],
  modRevoked: ["Rol retirado.", "Role taken back."],
  modBadAddress: ["Una dirección empieza por 0x y sigue con 40 cifras o letras de la a a la f.",
    "An address is 0x followed by 40 digits or letters a to f."],
});

const KINDS = ["warn", "mute", "suspend", "ban"];

function textArea(h, id, label, max) {
  return h("p", {}, h("label", { for: id }, label), h("br"),
    h("textarea", { id, name: "text", rows: 2, maxlength: max, required: true }));
}

function complaintCard(api, ui, c, run) {
  const { h, short, say } = ui;
  const form = h("form", { class: "act-form", onsubmit: (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const reason = String(data.get("text")).trim();
    const hours = Number(data.get("length")) * (data.get("unit") === "days" ? 24 : 1);
    if (!reason) return say(t("modWriteFirst"), true);
    if (!Number.isInteger(hours) || hours < 1) return say(t("err_invalid_request"), true);
    run(form.querySelector("button"),
      () => api.request("POST", `/care/moderation/complaints/${c.id}/sanction`,
        { kind: data.get("kind"), reason, hours }),
      (s) => fill(t("modActed"), { what: t(`sanction_${s.kind}`), date: dateTime(s.expires_at) }));
  } },
  h("p", {}, h("label", { for: `act-kind-${c.id}` }, t("modAction")), " ",
    h("select", { id: `act-kind-${c.id}`, name: "kind" },
      KINDS.map((k) => h("option", { value: k }, t(`sanction_${k}`))))),
  h("p", {}, h("label", { for: `act-length-${c.id}` }, t("modLength")), " ",
    h("input", {
      id: `act-length-${c.id}`, name: "length", type: "number", min: 1, max: 87600, value: 24, required: true,
      class: "act-length",
    }), " ",
    h("select", { name: "unit", "aria-label": t("modLength") },
      ["hours", "days"].map((u) => h("option", { value: u }, t(`unit_${u}`))))),
  textArea(h, `act-reason-${c.id}`, t("modReason"), 280),
  h("button", { type: "submit" }, t("modAct")));
  return h("article", { class: "complaint care-box", "data-id": String(c.id), "data-reported": c.reported },
    h("h4", {}, `${t("modReported")}: `, h("span", { title: c.reported }, short(c.reported))),
    // A table mate's report names the table; a private message's carries the message's words.
    h("p", {}, `${dateTime(c.created_at)} · `,
      c.table_id ? `${t("table")} ${c.table_id.slice(0, 8)}` : t("modPrivateMessage"),
      ` · ${t("reportReason")}: `, t(`reason_${c.reason}`)),
    c.message_id ? h("p", {}, h("strong", {}, t("modMessage")), " ",
      h("span", { class: "reported-message" }, c.message ?? t("modMessageRemoved"))) : null,
    c.note ? h("p", {}, h("strong", {}, t("modReportNote")), " ", h("span", { class: "report-note" }, c.note)) : null,
    form);
}

function appealCard(api, ui, s, run) {
  const { h, short, say } = ui;
  const id = `answer-${s.id}`;
  const answer = (uphold) => (event) => {
    const note = document.getElementById(id).value.trim();
    if (!note) return say(t("modWriteFirst"), true);
    run(event.target, () => api.request("POST", `/care/moderation/sanctions/${s.id}/answer`, { uphold, note }),
      t("modAnswered"));
  };
  return h("article", { class: "appeal care-box", "data-id": String(s.id), "data-address": s.address },
    h("h4", {}, `${t(`sanction_${s.kind}`)} · `, h("span", { title: s.address }, short(s.address))),
    h("p", {}, h("strong", {}, t("sanctionWhy")), " ", s.reason, " · ",
      fill(t("untilDate"), { date: dateTime(s.expires_at) })),
    h("p", {}, h("strong", {}, t("modAppeal")), " ", h("span", { class: "appeal-text" }, s.appeal)),
    textArea(h, id, t("modAnswerLabel"), 280),
    h("p", {}, h("button", { type: "button", class: "uphold", onclick: answer(true) }, t("modUphold")), " ",
      h("button", { type: "button", class: "lift", onclick: answer(false) }, t("modLift"))));
}

function ticketCard(api, ui, x, run) {
  const { h, short, say } = ui;
  const id = `staff-answer-${x.id}`;
  const answer = (close) => (event) => {
    const text = document.getElementById(id).value.trim();
    if (!text) return say(t("modWriteFirst"), true);
    run(event.target, () => api.request("POST", `/care/support/tickets/${x.id}/answer`, { text, close }),
      t("modTicketAnswered"));
  };
  return h("article", { class: "staff-ticket care-box", "data-id": String(x.id) },
    h("h4", {}, x.subject),
    h("p", {}, h("span", { title: x.address }, short(x.address)), ` · ${t(`about_${x.about}`)} · ${t("supportRef")} `,
      h("code", {}, x.ref)),
    h("ol", { class: "thread" }, x.messages.map((m) => h("li", { "data-staff": String(m.staff) },
      h("strong", {}, m.staff ? t("ticketFromStaff") : short(m.author)), ` · ${dateTime(m.created_at)}: `,
      m.body ?? t("ticketRemoved")))),
    textArea(h, id, t("ticketReplyLabel"), 2000),
    h("p", {}, h("button", { type: "button", class: "answer", onclick: answer(false) }, t("modTicketAnswer")), " ",
      h("button", { type: "button", class: "answer-close", onclick: answer(true) }, t("modTicketAnswerClose"))));
}

// The operator's wallets name the moderators (GET /care/moderators answers only them).
async function teamSection(api, ui, run) {
  const { h, short, say } = ui;
  let team;
  try {
    team = await api.request("GET", "/care/moderators");
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
  const form = h("form", { id: "grant-form", onsubmit: (event) => {
    event.preventDefault();
    const address = String(new FormData(form).get("address")).trim();
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return say(t("modBadAddress"), true);
    run(form.querySelector("button"), () => api.request("PUT", `/care/moderators/${address}`), t("modGranted"));
  } },
  h("p", {}, h("label", { for: "grant-address" }, t("modGrantLabel")), " ",
    h("input", { id: "grant-address", name: "address", type: "text", size: 44, maxlength: 42, required: true })),
  h("button", { type: "submit" }, t("modGrant")));
  return h("section", { id: "mod-team", "aria-labelledby": "mod-team-h" },
    h("h3", { id: "mod-team-h" }, t("modTeam")),
    team.length ? h("ul", {}, team.map((address) => h("li", { "data-address": address },
      h("span", { title: address }, short(address)), " ",
      h("button", { type: "button", class: "revoke", onclick: (event) => run(event.target,
        () => api.request("DELETE", `/care/moderators/${address}`), t("modRevoked")) }, t("modRevoke")))))
      : h("p", {}, t("none")),
    form);
}

export async function moderationView(api, ui) {
  const { h, show, fail, short, table } = ui;
  const heading = h("h2", { id: "moderation-h" }, t("moderationTitle"));
  let data;
  try {
    data = await Promise.all([
      api.request("GET", "/care/moderation/complaints?limit=50"),
      api.request("GET", "/care/moderation/sanctions?appealed=true&limit=50"),
      api.request("GET", "/care/moderation/sanctions?limit=20"),
      api.request("GET", "/care/support/tickets?status=open&limit=50"),
    ]);
  } catch (error) {
    if (!(error instanceof ApiError) || ![401, 403].includes(error.status)) throw error;
    return show(heading, h("p", { id: "not-moderator" }, t("modNotModerator")));
  }
  const [complaints, appeals, recent, tickets] = data;
  const run = runner(ui, () => moderationView(api, ui).catch(fail), RENAMED);
  const team = await teamSection(api, ui, run);
  const state = (s) => (s.lifted_at ? "lifted" : s.active ? "active" : "ended");
  const list = (items, card) => (items.length ? items.map((x) => card(api, ui, x, run)) : h("p", {}, t("none")));
  show(h("section", { id: "moderation", "aria-labelledby": "moderation-h" },
    heading,
    h("section", { id: "mod-reports", "aria-labelledby": "mod-reports-h" },
      h("h3", { id: "mod-reports-h" }, t("modReports")), h("p", { class: "hint" }, t("modBounds")),
      list(complaints, complaintCard)),
    h("section", { id: "mod-appeals", "aria-labelledby": "mod-appeals-h" },
      h("h3", { id: "mod-appeals-h" }, t("modAppeals")), list(appeals, appealCard)),
    h("section", { id: "mod-tickets", "aria-labelledby": "mod-tickets-h" },
      h("h3", { id: "mod-tickets-h" }, t("modTickets")), list(tickets, ticketCard)),
    h("section", { id: "mod-recent", "aria-labelledby": "mod-recent-h" },
      h("h3", { id: "mod-recent-h" }, t("modRecent")),
      table([t("modWallet"), t("modAction"), t("sanctionWhy"), t("status")], recent.map((s) => [
        h("span", { title: s.address }, short(s.address)), t(`sanction_${s.kind}`), s.reason,
        h("span", { "data-state": state(s) }, `${t(`modState_${state(s)}`)} · ${dateTime(s.expires_at)}`),
      ]))),
    team,
  ));
}
