// Help with a payout, a match result, a rental or a purchase: the player opens a ticket about
// one of its own (named by its number), follows its state and the support's answers in the
// thread, writes again or closes it (/care/tickets). `#/support?about=match&ref=<id>` opens
// the form filled in. Loaded on demand by app.js, which passes its helpers in `ui`.

import { dateTime, runner, textForm } from "../care.js";
import { addWords, t } from "../i18n.js";

addWords({
  supportTitle: ["Ayuda con un pago, una partida, un alquiler o una compra",
    "Help with a payout, a match, a rental or a purchase"],
  supportSignIn: ["Conecta tu billetera para pedir ayuda.", "Connect your wallet to ask for help."],
  supportNew: ["Nueva consulta", "New ticket"],
  supportAbout: ["Sobre", "About"],
  about_payout: ["un pago", "a payout"],
  about_match: ["el resultado de una partida", "a match result"],
  about_rental: ["un alquiler de avatar", "an avatar rental"],
  about_purchase: ["una compra", "a purchase"],
  supportRef: ["Número", "Number"],
  refHint_payout: ["El número del pago, en tu billetera.", "The payout's number, in your wallet."],
  refHint_match: ["El número de la partida, en tu historial.", "The match's number, in your history."],
  refHint_rental: ["El número del acuerdo, en avatares y becas.", "The agreement's number, in avatars & scholarships."],
  refHint_purchase: ["El número de la compra, en el mercado.", "The purchase's number, in the market."],
  badRef: ["Un número tiene letras, cifras, - o _ (hasta 80).", "A number has letters, digits, - or _ (up to 80)."],
  supportSubject: ["Asunto", "Subject"],
  supportText: ["Qué pasó", "What happened"],
  supportOpen: ["Enviar la consulta", "Send the ticket"],
  supportOpened: ["Consulta enviada: te responderemos aquí.", "Ticket sent: the answer will come here."],
  supportMine: ["Mis consultas", "My tickets"],
  supportNone: ["No tienes consultas.", "You have no tickets."],
  ticket_open: ["esperando respuesta", "waiting for an answer"],
  ticket_answered: ["respondida", "answered"],
  ticket_closed: ["cerrada", "closed"],
  ticketFromYou: ["Tú", "You"],
  ticketFromStaff: ["Soporte", "Support"],
  ticketRemoved: ["(mensaje retirado)", "(message removed)"],
  ticketReply: ["Responder", "Reply"],
  ticketReplyLabel: ["Tu mensaje", "Your message"],
  ticketClose: ["Cerrar la consulta", "Close the ticket"],
  ticketClosedNote: ["Consulta cerrada.", "Ticket closed."],
  ticketWritten: ["Mensaje enviado.", "Message sent."],
  writeSomething: ["Escribe algo primero.", "Write something first."],
});

const ABOUT = ["payout", "match", "rental", "purchase"];
const REF = /^[A-Za-z0-9_-]{1,80}$/;
// A support ticket that is not found shares its code with a finished match search (errors.js).
export const RENAMED = { ticket_not_found: "support_ticket_not_found" };

function ticketCard(api, ui, ticket, run) {
  const { h } = ui;
  const thread = h("ol", { class: "thread" }, ticket.messages.map((m) => h("li", { "data-staff": String(m.staff) },
    h("strong", {}, t(m.staff ? "ticketFromStaff" : "ticketFromYou")), ` · ${dateTime(m.created_at)}: `,
    h("span", { class: "message-body" }, m.body ?? t("ticketRemoved")))));
  const open = ticket.status !== "closed";
  const reply = open ? textForm(ui, run, {
    cls: "ticket-reply", id: `reply-${ticket.id}`, label: "ticketReplyLabel", rows: 2, maxlength: 2000,
    empty: "writeSomething", submit: "ticketReply", note: "ticketWritten",
    send: (text) => api.request("POST", `/care/tickets/${ticket.id}/messages`, { text }),
  }, " ",
  h("button", { type: "button", class: "ticket-close", onclick: (event) => run(event.target,
    () => api.request("POST", `/care/tickets/${ticket.id}/close`), t("ticketClosedNote")) }, t("ticketClose"))) : null;
  return h("article", { class: "ticket care-box", "data-id": String(ticket.id), "data-status": ticket.status },
    h("h4", {}, ticket.subject),
    h("p", {}, `${t("supportAbout")}: ${t(`about_${ticket.about}`)} · ${t("supportRef")} `,
      h("code", {}, ticket.ref), " · ", h("span", { class: "ticket-state" }, t(`ticket_${ticket.status}`))),
    thread, reply);
}

export async function supportView(api, ui, query = new URLSearchParams()) {
  const { h, show, say, fail } = ui;
  if (!api.address || api.guest) {
    return show(h("h2", {}, t("supportTitle")), h("p", { id: "support-signed-out" }, t("supportSignIn")));
  }
  const tickets = await api.request("GET", "/care/tickets?limit=50");
  const run = runner(ui, () => supportView(api, ui).catch((error) => fail(error, RENAMED)), RENAMED);
  const asked = ABOUT.includes(query.get("about")) ? query.get("about") : "payout";
  const hint = h("span", { id: "ticket-ref-hint", class: "hint" }, t(`refHint_${asked}`));
  const form = h("form", { id: "ticket-form", onsubmit: (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const fields = ["about", "ref", "subject", "text"];
    const body = Object.fromEntries(fields.map((k) => [k, String(data.get(k)).trim()]));
    if (!REF.test(body.ref)) return say(t("badRef"), true);
    if (!body.subject || !body.text) return say(t("writeSomething"), true);
    run(form.querySelector("button"), () => api.request("POST", "/care/tickets", body), t("supportOpened"));
  } },
  h("h3", {}, t("supportNew")),
  h("p", {}, h("label", { for: "ticket-about" }, t("supportAbout")), " ",
    h("select", {
      id: "ticket-about", name: "about", onchange: (e) => { hint.textContent = t(`refHint_${e.target.value}`); },
    },
      ABOUT.map((a) => h("option", { value: a, selected: a === asked }, t(`about_${a}`))))),
  h("p", {}, h("label", { for: "ticket-ref" }, t("supportRef")), " ",
    h("input", { id: "ticket-ref", name: "ref", type: "text", size: 20, maxlength: 80, required: true,
      value: query.get("ref") ?? "", "aria-describedby": "ticket-ref-hint" }), " ", hint),
  h("p", {}, h("label", { for: "ticket-subject" }, t("supportSubject")), h("br"),
    h("input", { id: "ticket-subject", name: "subject", type: "text", maxlength: 120, required: true })),
  h("p", {}, h("label", { for: "ticket-text" }, t("supportText")), h("br"),
    h("textarea", { id: "ticket-text", name: "text", rows: 4, maxlength: 2000, required: true })),
  h("button", { type: "submit" }, t("supportOpen")));
  show(h("section", { id: "support", "aria-labelledby": "support-h" },
    h("h2", { id: "support-h" }, t("supportTitle")),
    form,
    h("section", { id: "my-tickets", "aria-labelledby": "my-tickets-h" },
      h("h3", { id: "my-tickets-h" }, t("supportMine")),
      tickets.length ? tickets.map((x) => ticketCard(api, ui, x, run)) : h("p", {}, t("supportNone")))));
}
