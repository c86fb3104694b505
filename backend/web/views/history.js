// A player's history of matches, and the replay of one match with its fairness checks.

import { addWords, t } from "../i18n.js";

addWords({
  matchProblem: ["¿Un problema con el resultado?", "A problem with the result?"],
});

export async function historyView(api, ui) {
  const { h, show, table } = ui;
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const rows = await api.call("results", {}, undefined, { address: api.address });
  // A wallet's support ticket about a result names the match (views/support.js).
  const help = (r) => (api.guest ? "" : h("a", { href: `#/support?about=match&ref=${r.match_id}`, class: "match-help" },
    t("matchProblem")));
  show(h("h2", {}, t("history")), table([t("replay"), t("placement"), t("points"), "", ""], rows.map((r) => [
    h("a", { href: `#/replay/${r.match_id}` }, r.match_id.slice(0, 8)),
    String(r.placement), String(r.points), r.won ? t("won") : "", help(r),
  ])));
}

export async function replayView(api, ui, matchId) {
  const { h, show } = ui;
  const { verifyRecord, lineSteps } = await import("../replay.js");
  const { createBoard } = await import("../board.js");
  const match = await api.call("match", { match_id: matchId });
  const checks = await verifyRecord(match);
  const allOk = checks.every((c) => c.ok);
  const names = { commitment: t("commitment"), deals: t("deals"), resultHash: t("resultHash"), record: t("replay") };
  const steps = match.record ? match.record.hands.map((hand) => lineSteps(hand)) : [];
  let handIndex = 0;
  let step = 0;
  const line = createBoard(h);
  const caption = h("p", {});
  const board = h("div", { id: "replay-board", "aria-live": "polite" }, caption,
    h("div", { class: "board-row" }, line.el));
  function showStep() {
    const moves = steps[handIndex] || [];
    const current = moves[step - 1];
    caption.textContent = `${t("hand")} ${handIndex + 1}/${steps.length} · ${t("move")} ${step}/${moves.length}`
      + (current ? ` · ${t("seat")} ${current.seat}: ${current.move}` : "");
    line.update(current?.line ?? [], moves.slice(0, step).map((m) => [m.seat, m.move]));
  }
  const move = (delta) => {
    step += delta;
    const moves = steps[handIndex] || [];
    if (step > moves.length && handIndex < steps.length - 1) { handIndex++; step = 0; }
    if (step < 0) { if (handIndex > 0) { handIndex--; step = steps[handIndex].length; } else step = 0; }
    step = Math.min(step, (steps[handIndex] || []).length);
    showStep();
  };
  show(
    h("h2", {}, `${t("replay")} ${matchId.slice(0, 8)}`),
    h("p", { id: "verdict", "data-ok": String(allOk), class: allOk ? "ok" : "error" },
      allOk ? `✔ ${t("verified")}` : `✘ ${t("notVerified")}`),
    h("ul", { id: "checks" }, checks.map((c) => h("li", { "data-check": c.name, "data-ok": String(c.ok) },
      `${c.ok ? "✔" : "✘"} ${names[c.name] ?? c.name}: `, h("code", {}, c.detail)))),
    h("div", { role: "group", "aria-label": t("replay") },
      h("button", { type: "button", onclick: () => move(-1) }, t("prev")), " ",
      h("button", { type: "button", id: "replay-next", onclick: () => move(1) }, t("next"))),
    board,
  );
  showStep();
}
