// Seed 004's table modes in the client: the hand-over screen of a same-device table (one
// device, two players: only the player whose turn it is sees a hand) and the speed at which
// this viewer watches a bots-only table (the moves are paced here, in this page only: the
// match and every other viewer go on at the server's pace).

import { t } from "./i18n.js";

const SPEEDS = { live: 0, normal: 1200, slow: 3000 };
const SPEED_KEY = "dew.botSpeed";
export const BOT_SPEEDS = Object.keys(SPEEDS);

/** The pace this viewer chose for bots-only tables (the settings page and the table's chooser). */
export function botSpeed() {
  return localStorage.getItem(SPEED_KEY) in SPEEDS ? localStorage.getItem(SPEED_KEY) : "live";
}

export function setBotSpeed(speed) {
  if (!(speed in SPEEDS)) throw new Error(`no bot speed ${speed}`);
  localStorage.setItem(SPEED_KEY, speed);
}

export function tableModes(h, redraw) {
  let kind = null;
  let shownSeat = null;  // the seat whose hand the player at the device asked to see
  let speed = botSpeed();
  const queue = [];
  let timer = null;
  let deliver = () => {};

  let released = 0;  // when the last paced message was shown (ms)
  const wait = () => Math.max(0, released + SPEEDS[speed] - Date.now());

  function release() {
    timer = null;
    const next = queue.shift();
    if (!next) return;
    released = Date.now();
    deliver(next);
    if (queue.length) timer = setTimeout(release, wait());
  }

  return {
    // Wrap the table's message handler: a bots-only table's moves are released one per
    // ``speed`` step; a snapshot (a resync) replaces whatever was still waiting.
    pace(handler) {
      deliver = handler;
      return (message) => {
        if (message.type === "snapshot") {
          kind = message.table?.kind ?? kind;
          queue.length = 0;
          if (timer) { clearTimeout(timer); timer = null; }
          return handler(message);
        }
        const paced = kind === "ai" && SPEEDS[speed] > 0 && (message.type === "moved" || message.type === "match_over");
        if (!paced) return handler(message);
        queue.push(message);
        if (!timer) timer = setTimeout(release, wait());
        return undefined;
      };
    },
    stop() {
      if (timer) clearTimeout(timer);
      queue.length = 0;
    },
    // The speed chooser of a bots-only table.
    controls() {
      if (kind !== "ai") return null;
      const id = "bot-speed";
      return h("p", { class: "bot-speed" }, h("label", { for: id }, t("botSpeed")), " ",
        h("select", {
          id, onchange: (e) => { speed = e.target.value; setBotSpeed(speed); },
        }, Object.keys(SPEEDS).map((s) => h("option", { value: s, selected: s === speed }, t(`speed_${s}`)))));
    },
    // A same-device table hides the hand until the player whose turn it is takes the device.
    guard(you, panel) {
      if (kind !== "same_device" || you === shownSeat) return panel();
      const take = () => { shownSeat = you; redraw(); };
      return h("section", { id: "hand-over", "aria-labelledby": "hand-over-h" },
        h("h3", { id: "hand-over-h" }, t("handOver")),
        h("p", {}, t("handOverText").replace("{seat}", String(you + 1))),
        h("button", { type: "button", id: "show-hand", onclick: take },
          t("showHand").replace("{seat}", String(you + 1))));
    },
  };
}
