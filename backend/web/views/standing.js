// My account and appeals: each moderator's action on this wallet (what it is and closes, the
// moderator's reason, since and until when), its one appeal and the answer; and what came of
// the players this wallet reported (GET /care/standing, POST /care/sanctions/{id}/appeal,
// GET /care/reports). Loaded on demand by app.js, which passes its helpers in `ui`.

import { dateTime, runner, textForm } from "../care.js";
import { addWords, fill, t } from "../i18n.js";

addWords({
  standingTitle: ["Mi cuenta y apelaciones", "My account and appeals"],
  standingSignIn: ["Conecta tu billetera para ver el estado de tu cuenta.",
    "Connect your wallet to see your account's state."],
  sanctionsTitle: ["Acciones de los moderadores", "Moderators' actions"],
  sanctionsNone: ["Ningún moderador actuó sobre esta billetera.", "No moderator has acted on this wallet."],
  sanctionWhy: ["Motivo del moderador:", "The moderator's reason:"],
  sanctionSince: ["Desde el {date}", "Since {date}"],
  sanctionActive: ["En vigor hasta el {date}.", "In force until {date}."],
  sanctionEnded: ["Terminó el {date}.", "Ended on {date}."],
  sanctionLifted: ["Levantada el {date}.", "Lifted on {date}."],
  appealLabel: ["Tu apelación (una sola vez, hasta 560 caracteres)", "Your appeal (once only, up to 560 characters)"],
  appealSend: ["Apelar", "Appeal"],
  appealSent: ["Apelación enviada: un moderador la responderá.", "Appeal sent: a moderator will answer it."],
  appealEmpty: ["Escribe por qué apelas.", "Write why you appeal."],
  appealWaiting: ["Apelaste el {date}; espera la respuesta de un moderador.",
    "You appealed on {date}; a moderator's answer is on its way."],
  appealYours: ["Tu apelación:", "Your appeal:"],
  appealAnswer: ["Respuesta del moderador:", "The moderator's answer:"],
  appealUpheld: ["La acción se mantiene.", "The action stands."],
  appealGranted: ["La acción se levantó.", "The action was lifted."],
  reportsTitle: ["Jugadores que denunciaste", "Players you reported"],
  reportPlayerCol: ["Jugador", "Player"],
  reportOutcome: ["Resultado", "Outcome"],
  outcome_open: ["en revisión", "under review"],
  outcome_none: ["cerrada sin acción", "closed with no action"],
  outcome_warn: ["advertido", "warned"],
  outcome_mute: ["silenciado", "muted"],
  outcome_suspend: ["suspendido", "suspended"],
  outcome_ban: ["bloqueado", "banned"],
});

/** What came of a report: "under review", "closed with no action" or the action taken. */
function outcomeWords(report) {
  return t(`outcome_${report.status === "open" ? "open" : report.action ?? "none"}`);
}

function sanctionCard(api, ui, s, run) {
  const { h } = ui;
  const state = s.lifted_at
    ? fill(t("sanctionLifted"), { date: dateTime(s.lifted_at) })
    : fill(t(s.active ? "sanctionActive" : "sanctionEnded"), { date: dateTime(s.expires_at) });
  const parts = [
    h("h4", {}, t(`sanction_${s.kind}`)),
    h("p", { class: "sanction-state" }, fill(t("sanctionSince"), { date: dateTime(s.created_at) }), ". ", state),
    h("p", {}, t(`sanctionWhat_${s.kind}`)),
    h("p", {}, h("strong", {}, t("sanctionWhy")), " ", h("span", { class: "sanction-reason" }, s.reason)),
  ];
  if (s.appealed_at) {
    parts.push(h("p", {}, h("strong", {}, t("appealYours")), " ", h("span", { class: "appeal-text" }, s.appeal)));
    parts.push(s.answered_at
      ? h("p", { class: "appeal-answer", "data-answered": "true" },
        h("strong", {}, t("appealAnswer")), " ", s.answer, " ",
        t(s.lifted_at ? "appealGranted" : "appealUpheld"))
      : h("p", { class: "appeal-waiting" }, fill(t("appealWaiting"), { date: dateTime(s.appealed_at) })));
  } else {
    parts.push(textForm(ui, run, {
      cls: "appeal-form", id: `appeal-${s.id}`, label: "appealLabel", rows: 3, maxlength: 560,
      empty: "appealEmpty", submit: "appealSend", note: "appealSent",
      send: (text) => api.request("POST", `/care/sanctions/${s.id}/appeal`, { text }),
    }));
  }
  return h("article", {
    class: "sanction care-box", "data-id": String(s.id), "data-kind": s.kind, "data-active": String(s.active),
  }, parts);
}

export async function standingView(api, ui) {
  const { h, show, fail, short, table } = ui;
  if (!api.address || api.guest) {
    return show(h("h2", {}, t("standingTitle")), h("p", { id: "standing-signed-out" }, t("standingSignIn")));
  }
  const [standing, reports] = await Promise.all([
    api.request("GET", "/care/standing"), api.request("GET", "/care/reports?limit=50"),
  ]);
  const run = runner(ui, () => standingView(api, ui).catch(fail));
  show(h("section", { id: "standing", "aria-labelledby": "standing-h" },
    h("h2", { id: "standing-h" }, t("standingTitle")),
    h("section", { id: "sanctions", "aria-labelledby": "sanctions-h" },
      h("h3", { id: "sanctions-h" }, t("sanctionsTitle")),
      standing.sanctions.length
        ? standing.sanctions.map((s) => sanctionCard(api, ui, s, run))
        : h("p", {}, t("sanctionsNone"))),
    h("section", { id: "my-reports", "aria-labelledby": "my-reports-h" },
      h("h3", { id: "my-reports-h" }, t("reportsTitle")),
      table([t("when"), t("reportPlayerCol"), t("reportReason"), t("reportOutcome")], reports.map((r) => [
        dateTime(r.created_at), h("span", { title: r.reported }, short(r.reported)), t(`reason_${r.reason}`),
        h("span", { class: "outcome", "data-complaint": String(r.id), "data-action": r.action ?? "" }, outcomeWords(r)),
      ]))),
  ));
}
