// Motion at the table: a played tile slides from the hand (or from its seat) to its place,
// draws and passes are shown at the seat, a score on a multiple of 5 flashes its points, and
// the end-of-hand count is shown tile by tile. `prefers-reduced-motion` turns every movement
// into an instant change. Each play animation is measured ("dew-play" performance entries:
// scripts/bench_web.py reads the frame times inside them).

import { t } from "./i18n.js";
import { tileSvg } from "./tiles.js";

const SLIDE_MS = 320;

// The player's choice on the settings page: "system" (the device's setting), "reduce" or "full".
const MOTION_KEY = "dew.motion";
export const MOTION_CHOICES = ["system", "reduce", "full"];

export function motionChoice() {
  const kept = localStorage.getItem(MOTION_KEY);
  return MOTION_CHOICES.includes(kept) ? kept : "system";
}

export function setMotionChoice(choice) {
  if (!MOTION_CHOICES.includes(choice)) throw new Error(`no motion choice ${choice}`);
  localStorage.setItem(MOTION_KEY, choice);
  document.documentElement.dataset.motion = choice;  // style.css stops transitions on "reduce"
}
document.documentElement.dataset.motion = motionChoice();

export function reducedMotion() {
  const choice = motionChoice();
  if (choice !== "system") return choice === "reduce";
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Slide the board's tile group `tile` from the screen rectangle `from` to where it lies. */
export function slideIn(tile, from) {
  if (!tile) return Promise.resolve();
  const start = performance.now();
  const finish = () => {
    tile.dataset.anim = "done";
    performance.measure("dew-play", { start, end: performance.now() });
  };
  if (!from || reducedMotion()) {
    finish();
    return Promise.resolve();
  }
  const to = tile.getBoundingClientRect();
  const dx = from.x + from.width / 2 - (to.x + to.width / 2);
  const dy = from.y + from.height / 2 - (to.y + to.height / 2);
  tile.dataset.anim = "running";
  const slide = tile.querySelector(".slide") || tile;
  const animation = slide.animate(
    [{ transform: `translate(${dx}px, ${dy}px)`, opacity: 0.85 }, { transform: "translate(0, 0)", opacity: 1 }],
    { duration: SLIDE_MS, easing: "cubic-bezier(.2,.7,.3,1)" },
  );
  return animation.finished.then(finish, finish);
}

/**
 * A short note inside a seat's own box ("draws", "passes"), faded out after a moment: it
 * takes the place kept for it there, so it never covers another seat. `who` is read out
 * before it (screen readers only: the box already says whose seat it is).
 */
export function seatBubble(root, seat, text, kind, who = "") {
  const bubble = root.querySelector(`#seats li[data-seat="${seat}"] .bubble`);
  const counter = `shown${kind[0].toUpperCase()}${kind.slice(1)}s`;
  root.dataset[counter] = String(Number(root.dataset[counter] || 0) + 1);
  if (!bubble) return;
  const name = document.createElement("span");
  name.className = "sr-only";
  name.textContent = who ? `${who}: ` : "";
  bubble.replaceChildren(name, text);
  bubble.dataset.kind = kind;
  bubble.classList.add("show");
  if (!reducedMotion()) {
    bubble.animate([{ opacity: 0, transform: "translateY(4px)" }, { opacity: 1, transform: "none" }],
      { duration: 200, easing: "ease-out" });
  }
  setTimeout(() => bubble.classList.remove("show"), 1600);
}

/** "+15" over the board when a play scores points on a multiple of 5. */
export function flashScore(h, root, points, side) {
  const felt = root.querySelector("#felt");
  if (!felt) return;
  root.dataset.lastFlash = String(points);
  const flash = h("div", { class: "score-flash", "data-points": String(points), role: "status" },
    `+${points}`, h("span", { class: "who" }, ` ${t("side")} ${side}`));
  felt.append(flash);
  const remove = () => flash.remove();
  if (reducedMotion()) {
    setTimeout(remove, 1500);
    return;
  }
  flash.animate([
    { opacity: 0, transform: "translate(-50%, -30%) scale(.6)" },
    { opacity: 1, transform: "translate(-50%, -50%) scale(1.2)", offset: 0.25 },
    { opacity: 1, transform: "translate(-50%, -50%) scale(1)", offset: 0.7 },
    { opacity: 0, transform: "translate(-50%, -80%) scale(1)" },
  ], { duration: 1400, easing: "ease-out" }).finished.then(remove, remove);
}

/**
 * The end-of-hand count: the tiles left in this player's hand, one at a time with the running
 * pip total, then the points each side scored (the server's figures).
 */
export function handCount(h, { hands, summary, sideName, seatName, scores, mine }) {
  // `hands`: [seat, tiles] for every seat whose tiles are known (all of them once the server
  // shows the hand's end; only this player's on an older server). Counted one tile at a time.
  const total = h("output", { class: "count-total", "data-sum": "0" }, "0");
  const winner = summary.winner === null || summary.winner === undefined
    ? t("handNoWinner") : t("handWinner").replace("{side}", sideName(summary.winner));
  const points = h("div", { class: "count-points", hidden: true },
    h("p", {}, `${t("handPoints")}: `, summary.points.map((p, side) => `${sideName(side)} ${p}`).join(" · ")),
    h("p", { id: "match-score" }, `${t("matchScore")}: `,
      scores.map((p, side) => `${sideName(side)} ${p}`).join(" · ")));
  const lists = hands.map(([seat, tiles]) => {
    const list = h("ol", { class: "count-tiles", "data-seat": String(seat) });
    const sum = h("output", { class: "seat-sum" }, "0");
    const row = h("li", { "data-seat": String(seat) }, h("span", {}, `${seatName(seat)}: `), list, " = ", sum);
    return { tiles, list, sum, row, pips: 0 };
  });
  const steps = lists.flatMap((row) => row.tiles.map((tile) => [row, tile]));
  const box = h("section", { id: "hand-count", "data-hand": String(summary.index), "aria-live": "polite" },
    h("h3", {}, `${t("handEnd")} ${summary.index + 1}`), h("p", { id: "hand-winner" }, winner),
    h("p", {}, mine ? t("yourTilesLeft") : t("tilesLeft")),
    h("ul", { class: "count-seats" }, ...lists.map((r) => r.row)),
    h("p", {}, `${t("pipTotal")}: `, total), points);
  let sum = 0;
  const step = (i) => {
    if (i >= steps.length) {
      points.hidden = false;
      box.dataset.done = "true";
      return;
    }
    const [row, tile] = steps[i];
    const [a, b] = tile.split(":").map(Number);
    sum += a + b;
    row.list.append(h("li", { "data-tile": tile }, tileSvg(tile, { size: 16 })));
    row.pips += a + b;
    row.sum.textContent = String(row.pips);
    total.textContent = String(sum);
    total.dataset.sum = String(sum);
    if (reducedMotion()) step(i + 1);
    else setTimeout(() => step(i + 1), 350);
  };
  step(0);
  return box;
}
