// The player's hand at the table: legal tiles raised (the rest dimmed), played by a tap, a
// drag onto the board, or the keyboard (arrows choose, Enter plays). A tile that fits both
// ends lights the two ends up: tap one, drop nearer one, or pick it with the arrows.

import { t } from "./i18n.js";
import { parseTile, tileName, tileSvg } from "./tiles.js";

const DRAG_START_PX = 8;

/** Roving focus inside `box`: arrows move between its enabled buttons. */
function arrowKeys(box, selector) {
  box.addEventListener("keydown", (event) => {
    const keys = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (!(event.key in keys) && event.key !== "Home" && event.key !== "End") return;
    const buttons = [...box.querySelectorAll(selector)].filter((b) => !b.disabled);
    if (!buttons.length) return;
    const at = buttons.indexOf(document.activeElement);
    let next = event.key === "Home" ? 0 : event.key === "End" ? buttons.length - 1 : at + keys[event.key];
    if (at < 0) next = 0;
    next = (next + buttons.length) % buttons.length;
    buttons.forEach((b, i) => { b.tabIndex = i === next ? 0 : -1; });
    buttons[next].focus();
    event.preventDefault();
  });
}

/** "L" or "R": the arm of the line with fewer tiles after the first one (L on a tie). */
export function shorterArm(history) {
  const sides = history.map((entry) => String(entry[1])).filter((move) => move.includes(":")).map((m) => m.slice(-1));
  const count = (side) => sides.slice(1).filter((s) => s === side).length;
  return count("L") <= count("R") ? "L" : "R";
}

/**
 * The hand, the end chooser and the draw/pass buttons. `play(move, fromRect)` sends a move
 * (fromRect: where the tile was, for the slide); `board` is board.js's board.
 */
export function handPanel(h, { view, board, play }) {
  const legal = view.legal_moves || [];
  const chooser = h("div", { id: "sides", role: "group", "aria-label": t("chooseEnd") });
  arrowKeys(chooser, "button");
  const size = view.hand.length > 14 ? 17 : window.innerWidth >= 700 ? 30 : 22;  // px per tile unit

  function clearChoice() {
    chooser.replaceChildren();
    board.el.querySelectorAll(".end-target").forEach((x) => x.remove());
    board.el.classList.remove("choosing");
  }

  function choose(moves, button) {
    const from = () => button.getBoundingClientRect();
    if (moves.length === 1 || !view.line.length) return play(moves[0], from());
    // Two ends with the same number give the same ends and score either way: no question;
    // the tile goes to the shorter arm, so the line grows towards both edges.
    const ends = view.ends || [];
    if (ends.length === 2 && ends[0] === ends[1]) {
      const side = shorterArm(view.history || []);
      return play(moves.find((m) => m.endsWith(side)) ?? moves[0], from());
    }
    clearChoice();
    board.el.classList.add("choosing");
    const label = (m) => `${m.endsWith("L") ? t("left") : t("right")} (${m.endsWith("L") ? ends[0] : ends[1]})`;
    for (const move of moves) {
      const [x, y] = board.endPoint(move.slice(-1));
      const target = h("button", {
        type: "button", class: "end-target", "data-move": move, "aria-label": label(move),
        onclick: () => play(move, from()),
      });
      target.style.left = `${x}px`;
      target.style.top = `${y}px`;
      board.el.append(target);
    }
    const sides = moves.map((move, i) => h("button", {
      type: "button", class: "side", "data-move": move, tabindex: i === 0 ? 0 : -1,
      onclick: () => play(move, from()),
      onkeydown: (e) => { if (e.key === "Escape") { clearChoice(); button.focus(); } },
    }, label(move)));
    chooser.replaceChildren(...sides);
    sides[0].focus();
  }

  // A drag: the tile follows the pointer; dropped on the board it plays (at the nearer end).
  function draggable(button, moves) {
    let start = null;
    let dragging = false;
    button.addEventListener("pointerdown", (event) => {
      if (button.disabled || event.button !== 0) return;
      start = [event.clientX, event.clientY];
      dragging = false;
      button.setPointerCapture(event.pointerId);
    });
    button.addEventListener("pointermove", (event) => {
      if (!start) return;
      const dx = event.clientX - start[0];
      const dy = event.clientY - start[1];
      if (!dragging && Math.hypot(dx, dy) < DRAG_START_PX) return;
      dragging = true;
      button.classList.add("dragging");
      button.style.transform = `translate(${dx}px, ${dy}px)`;
    });
    const drop = (event) => {
      if (!start) return;
      start = null;
      if (!dragging) return;
      button.dataset.dragged = "true";  // the click that follows this pointerup is not a tap
      const from = button.getBoundingClientRect();
      button.classList.remove("dragging");
      button.style.transform = "";
      const box = board.el.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right
        && event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside || event.type === "pointercancel") return;
      let move = moves[0];
      if (moves.length > 1 && view.line.length) {
        const distance = (m) => {
          const [x, y] = board.endPoint(m.slice(-1));
          return Math.hypot(box.left + x - event.clientX, box.top + y - event.clientY);
        };
        move = [...moves].sort((p, q) => distance(p) - distance(q))[0];
      }
      play(move, from);
    };
    button.addEventListener("pointerup", drop);
    button.addEventListener("pointercancel", drop);
  }

  let first = true;
  const buttons = view.hand.map((tile) => {
    const moves = legal.filter((m) => m.slice(0, 3) === tile);
    const [a, b] = parseTile(tile);
    const button = h("button", {
      type: "button", class: moves.length ? "tile-btn legal" : "tile-btn", disabled: !moves.length,
      "data-tile": tile, tabindex: moves.length && first ? 0 : -1,
      "aria-label": `${tileName(a, b)}${moves.length ? `, ${t("playable")}` : ""}`,
      onclick: () => {
        if (button.dataset.dragged) { delete button.dataset.dragged; return; }
        choose(moves, button);
      },
    }, tileSvg(tile, { size }));
    if (moves.length) {
      first = false;
      draggable(button, moves);
    }
    return button;
  });
  const hand = h("div", { id: "hand", role: "toolbar", "aria-label": t("yourHand") }, buttons);
  arrowKeys(hand, "button.tile-btn");
  // "draw" and "pass": the move and the key of its label are the same word.
  const moveButton = (kind) => (legal.includes(kind)
    ? h("button", {
      type: "button", class: "legal", "data-move": kind, onclick: (e) => play(kind, e.target.getBoundingClientRect()),
    }, t(kind))
    : null);
  const actions = h("div", { id: "actions" }, moveButton("draw"), moveButton("pass"));
  return h("section", { id: "hand-panel", "aria-labelledby": "hand-h" },
    h("h3", { id: "hand-h", class: "sr-only" }, t("yourHand")), hand, chooser, actions);
}
