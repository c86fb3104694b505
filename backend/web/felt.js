// The table's felt (seats, board, boneyard, turn line, hand) sized to the screen, and what a
// committed move shows on it: the slide, a draw or pass at the seat, a scored multiple of 5,
// the end-of-hand count, and the matching tones when sound is on.

import { t } from "./i18n.js";
import { boneyardEl, seatsEl } from "./board.js";
import { flashScore, handCount, seatBubble, slideIn } from "./motion.js";
import { soundButton, tone } from "./sound.js";

const TILE_MOVE = /^\d:\d[LR]$/;

/** The felt: everything a player needs on one screen, phone or desktop. */
export function feltEl({ h, state, view, board, seatName, who, bottom, myTurn, hand, redraw }) {
  const scores = view.scores.map((score, side) => `${side}: ${score}`).join(" · ");
  const waiting = `${t("waitingTurn")} ${seatName(view.turn)}`;
  const turnText = state.final ? t("matchOver") : myTurn ? t("yourTurn") : waiting;
  const seats = seatsEl(h, { view, seats: state.seats, you: state.you, bottom, who, onAvatars: redraw });
  const closeCount = () => { state.handCount = null; redraw(); };
  const count = state.handCount
    ? h("div", { class: "count-overlay" }, state.handCount,
      h("button", { type: "button", id: "close-count", onclick: closeCount }, t("close")))
    : null;
  // The server played a timed-out turn for this player: said until the player's next move.
  const autoPlayed = state.autoPlayed
    ? h("p", { id: "auto-played", role: "status" }, t("autoPlayed"))
    : null;
  return h("div", { id: "felt", "data-turn": myTurn ? "mine" : "other" },
    h("div", { class: "felt-ring", "data-seats": String(state.seats.length) },
      seats, h("div", { class: "board-row" }, board.el, count)),
    h("div", { class: "felt-bar" },
      boneyardEl(h, view.boneyard),
      h("p", { id: "scores" }, `${t("scores")}: ${scores} · ${t("hand")} ${view.hand_number + 1}`
        + ` · ${t("ply")} ${state.ply}`),
      soundButton(h)),
    h("p", { id: "turn", "aria-live": "polite", class: myTurn ? "mine" : "" },
      turnText, " · ", t("timer"), ": ", h("span", { id: "timer" }, ""),
      h("span", { id: "hurry", hidden: true }, ` · ${t("hurry")}`)),
    autoPlayed,
    hand);
}

function sideName(view, side) {
  return view.seat !== undefined && view.sides?.[view.seat] === side ? `${t("side")} ${side} (${t("you")})`
    : `${t("side")} ${side}`;
}

/** What the move in `message` shows, given the view `before` it. */
export function tableEffects({ h, root, board, state, seatName }, message, before) {
  const view = message.view;
  if (!before || !view) return;
  const sameHand = view.hand_number === before.hand_number && !view.match_over;
  const { seat, move } = message;
  if (TILE_MOVE.test(move) && sameHand) {
    if (state.handCount) {
      state.handCount = null;
      root.querySelector(".count-overlay")?.remove();
    }
    const index = move.endsWith("L") ? 0 : view.line.length - 1;
    const mine = seat === state.you && state.playedFrom;
    const seatBox = () => root.querySelector(`#seats li[data-seat="${seat}"]`)?.getBoundingClientRect();
    const from = mine ? state.playedFrom : seatBox();
    state.playedFrom = null;
    slideIn(board.tileAt(index), from);
    tone("play");
  } else if (move === "draw") {
    seatBubble(root, seat, t("draws"), "draw", seatName(seat));
    tone("draw");
  } else if (move === "pass") {
    seatBubble(root, seat, t("passes"), "pass", seatName(seat));
    tone("pass");
  }
  if (sameHand) {
    view.scores.forEach((score, side) => {
      const gained = score - (before.scores[side] ?? 0);
      if (gained > 0 && gained % 5 === 0) {
        flashScore(h, root, gained, side);
        tone("score");
      }
    });
  } else {
    // The hand is over: count what was left in the hands, tile by tile.
    const summary = view.previous_hands?.find((x) => x.index === before.hand_number)
      ?? { index: before.hand_number, points: view.scores.map((s, side) => s - (before.scores[side] ?? 0)) };
    // Every seat's tiles once the server shows them; none when the target was reached mid-hand,
    // and then only this player's own tiles are known.
    const shown = summary.tiles_left?.length > 0;
    let hands = [];
    if (shown) {
      hands = summary.tiles_left.map((tiles, s) => [s, tiles]);
    } else if (state.you !== null) {
      const tiles = [...before.hand];
      const played = tiles.indexOf(move.slice(0, 3));
      if (TILE_MOVE.test(move) && seat === state.you && played >= 0) tiles.splice(played, 1);
      hands = [[state.you, tiles]];
    }
    state.handCount = handCount(h, {
      hands, summary, scores: view.scores, mine: !shown,
      sideName: (side) => sideName(view, side), seatName,
    });
    const slot = root.querySelector(".board-row");
    if (slot) {
      root.querySelector(".count-overlay")?.remove();
      const close = () => { state.handCount = null; box.remove(); };
      const box = h("div", { class: "count-overlay" }, state.handCount,
        h("button", { type: "button", id: "close-count", onclick: close }, t("close")));
      slot.append(box);
    }
  }
  if (view.turn === state.you && (view.legal_moves || []).length) tone("turn");
}
