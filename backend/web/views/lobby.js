// The lobby: open and live tables, a new table (create.js) and matchmaking; taking a seat.

import { createForm, feesCell, feesText, queueFields, readQueue } from "../create.js";
import { t } from "../i18n.js";
import { presetName } from "../rulewords.js";
import { riskGate } from "../care.js";

// The terms gate (terms.js) of an earning or staked seat loads when a player reaches one, not
// with the lobby's first load. The risk statement (care.js) comes with the lobby: the stake's
// confirmation that follows it must open in the click's own task, or the browser may drop it.
const termsGate = (...args) => import("../terms.js").then((m) => m.termsGate(...args));

export async function lobbyView(api, ui) {
  const { h, show, table, dew, short, fail, say, ensureWallet } = ui;
  // terms.js: a seat at an earning or staked table checks them (a signed-in wallet's only).
  if (api.address) import("../terms.js").then((m) => m.preloadTerms(api)).catch(fail);
  const [presets, limits, open, live] = await Promise.all([
    api.call("presets"),
    api.call("table_limits"),
    api.call("lobby", {}, undefined, { status: "open" }),
    api.call("lobby", {}, undefined, { status: "playing" }),
  ]);
  // Every rule option, bot levels, stake and timer: create.js.
  const form = createForm(h, api, presets, limits, {
    go: (id) => { location.hash = `#/table/${id}`; },
    fail,
    beforeCreate: async (body) => (!staked(body) || (await riskGate(api, ui)))
      && termsGate(api, { h, say, ensureWallet }, body),
  });
  const onsubmit = (event) => findMatch(api, ui, event);
  const queue = h("form", { id: "matchmaking", onsubmit }, h("h2", {}, t("matchmaking")));
  queue.append(queueFields(h, presets, queue, api.guest),
    h("button", { type: "submit", disabled: !api.token }, t("queue")),
    h("output", { name: "ticket", "aria-live": "polite" }));
  const seatsText = (tbl) => `${tbl.seats.length}/${tbl.seat_count}`;
  // What a seat costs and how fast one must play, before anyone sits down.
  const stakeCell = (tbl) => h("span", { class: "stake", "data-wei": tbl.stake },
    BigInt(tbl.stake || "0") > 0n ? dew(tbl.stake) : t("noStake"));
  const earningCell = (tbl) => h("span", { class: "earning-flag", "data-earning": String(tbl.earning) },
    tbl.earning ? t("yes") : t("no"));
  const timerCell = (tbl) => h("span", { class: "turn-timer", "data-seconds": String(tbl.turn_timeout_s) },
    `${tbl.turn_timeout_s} s`);
  const openHeaders = [
    t("table"), t("preset"), t("seats"), t("stake"), t("earningShort"), t("turnTimer"), t("fees"), "",
  ];
  show(
    h("h2", {}, t("lobby")),
    h("section", { id: "play-now-box", class: "big-choice" },
      h("button", { type: "button", id: "play-now", class: "big", onclick: () => playNow(api, ui) }, t("playNow")),
      h("p", { class: "hint" }, api.token ? t("playNowHint") : t("guestHint"))),
    h("section", { "aria-labelledby": "open-h" }, h("h3", { id: "open-h" }, t("openTables")),
      table(openHeaders, open.map((tbl) => [
        h("a", { href: `#/table/${tbl.id}` }, tbl.id.slice(0, 8)), presetName(tbl.preset), seatsText(tbl),
        stakeCell(tbl), earningCell(tbl), timerCell(tbl), feesCell(h, tbl),
        h("button", {
          type: "button", class: "join", disabled: !api.token,
          onclick: () => joinTable(api, ui, tbl.id, undefined, tbl),
        }, t("join")),
      ]))),
    h("section", { "aria-labelledby": "live-h", id: "live-tables" }, h("h3", { id: "live-h" }, t("liveTables")),
      table([t("table"), t("preset"), t("seats"), ""], live.map((tbl) => [
        tbl.id.slice(0, 8), presetName(tbl.preset),
        tbl.seats.map((s) => (s.address ? short(s.address) : t("bot"))).join(", "),
        h("a", { href: `#/table/${tbl.id}`, class: "watch" }, t("watch")),
      ]))),
    h("div", { class: "columns" }, form, queue),
  );
}

// One tap from the lobby to a hand against a bot: a visitor without a session becomes a
// guest first (free play only), so the next tap is the first move.
const PRACTICE = { preset: "draw", kind: "practice", seats: 2, bot_level: "easy", earning: false };

// The table's modules, all of them: table.js imports board, play and felt only once it runs,
// and they import theirs, a round trip each after the table is made. Asked for at the tap,
// they load while the guest's session and table are made.
const TABLE_MODULES = [
  "views/table.js", "board.js", "play.js", "felt.js", "motion.js", "sound.js", "tiles.js",
  "tablemodes.js", "talk.js", "notice.js", "names.js", "errors.js", "guide.js",
];

function preloadTable(h) {
  for (const path of TABLE_MODULES) {
    const href = `/web/${path}`;
    if (document.head.querySelector(`link[href="${href}"]`)) continue;
    document.head.append(h("link", { rel: "modulepreload", href }));
  }
}

async function playNow(api, ui) {
  const button = document.getElementById("play-now");
  if (button) button.disabled = true;
  preloadTable(ui.h);
  try {
    if (!api.token) {
      await api.signInAsGuest();
      ui.account();
    }
    const created = await api.call("create_table", {}, PRACTICE);
    location.hash = `#/table/${created.id}`;
  } catch (error) {
    if (button) button.disabled = false;
    ui.fail(error);
  }
}

const staked = (tbl) => Boolean(tbl) && BigInt(tbl.stake || "0") > 0n;

// A seat at a staked table escrows the stake when the match starts: the player says yes
// to the amount, the earning flag and the turn timer first.
function confirmJoin(tbl, dew) {
  if (!staked(tbl)) return true;
  const fees = feesText(tbl);
  return window.confirm(t("confirmStake")
    .replace("{stake}", dew(tbl.stake))
    .replace("{timer}", String(tbl.turn_timeout_s)) + (fees ? `\n${t("fees")}: ${fees}` : ""));
}

/** Take a seat (after the stake's confirmation and the terms gate), then open the table. */
export async function joinTable(api, ui, tableId, inviteCode, tbl) {
  const { h, say, fail, ensureWallet, refresh } = ui;
  // The risk statement before this wallet's first staked seat (care.js), then the stake.
  if (staked(tbl) && !(await riskGate(api, ui))) return;
  if (!confirmJoin(tbl, ui.dew)) return;
  try {
    if (tbl && !(await termsGate(api, { h, say, ensureWallet }, tbl))) return;
    await api.call("join", { table_id: tableId }, inviteCode ? { invite_code: inviteCode } : {});
    if (location.hash.split("?")[0] === `#/table/${tableId}`) refresh();
    else location.hash = `#/table/${tableId}`;
  } catch (error) {
    fail(error);
  }
}

async function findMatch(api, ui, event) {
  const { h, fail } = ui;
  event.preventDefault();
  const out = event.target.elements.ticket;
  try {
    const asked = readQueue(event.target);
    if (staked(asked) && !(await riskGate(api, ui))) return;
    const ticket = await api.call("queue", {}, asked);
    let stop = false;
    const cancel = () => { stop = true; return api.call("cancel_ticket", { ticket_id: ticket.id }); };
    const cancelClicked = () => cancel().then(() => { out.textContent = ""; }).catch(fail);
    const cancelButton = h("button", { type: "button", id: "cancel-ticket", onclick: cancelClicked }, t("cancel"));
    out.replaceChildren(t("waiting"), " ", cancelButton);
    // Only this form shows the ticket: leaving the lobby cancels it, or the player would be
    // seated later at a table the page no longer watches (and refused when queueing again).
    ui.onLeave(() => { if (!stop) cancel().catch(() => {}); });
    while (!stop) {
      const now = await api.call("ticket", { ticket_id: ticket.id });
      if (now.table_id) {
        stop = true;
        location.hash = `#/table/${now.table_id}`;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } catch (error) {
    fail(error);
  }
}
