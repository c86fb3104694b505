// Your turn while the tab is hidden: the title says so (and a notification, where the player
// allowed them), whether the turn came while the tab was hidden or the tab was left during
// the turn; the title comes back when the tab is seen again or the turn is over.

import { t } from "./i18n.js";

const PLAIN = document.title;
let mine = false;
let raised = false;

function lower() {
  if (raised) {
    raised = false;
    document.title = PLAIN;
  }
}

function raise() {
  if (raised || !mine || !document.hidden) return;
  raised = true;
  document.title = `${t("yourTurnTitle")} · DEW`;
  if ("Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(t("yourTurn"), { body: t("yourTurnBody"), tag: "dew-turn" });
    } catch {
      // a browser that only notifies from a service worker: the title is enough
    }
  }
}

document.addEventListener("visibilitychange", () => (document.hidden ? raise() : lower()));

/** Called on every redraw of a table: `myTurn` is whether this player is to move. */
export function turnNotice(myTurn) {
  mine = myTurn;
  if (mine) raise();
  else lower();
}
