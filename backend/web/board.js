// The table's board: the line of play laid out from its first tile outwards, bending at the
// edges like a snake (the right arm turns down, the left arm turns up), doubles crosswise,
// scaled so that a full 28-tile line fits the board's box on a 390x844 phone and a desktop
// without scrolling; the boneyard with its count; the seats with their tiles as backs, score,
// timer and avatar.

import { t } from "./i18n.js";
import { backsSvg, parseTile, svg, tileBack, tileFace, tileName } from "./tiles.js";

const PITCH = 2.2;  // distance between two rows' centre lines, in tile units (a tile is 2x1)
const PAD = 6;      // px kept free around the drawing

/** Where the first tile of the hand sits in `line`: every left play after it moved it right. */
export function anchorIndex(history, lineLength) {
  let anchor = -1;
  for (const [, move] of history || []) {
    if (!/^\d:\d[LR]$/.test(move)) continue;
    if (anchor < 0) anchor = 0;
    else if (move.endsWith("L")) anchor += 1;
  }
  if (anchor < 0 || anchor >= lineLength) return Math.floor((lineLength - 1) / 2);
  return anchor;
}

// One arm of the snake: tiles leave the anchor along `dir` (+1 east, -1 west) and turn a row
// towards `vdir` (+1 down, -1 up) when the next tile and a corner would not fit in [0, width].
function layArm(tiles, start, dir, vdir, width, out) {
  const arm = dir > 0 ? "R" : "L";
  let x = start;
  let y = 0;
  for (const { index, near, far } of tiles) {
    const double = near === far;
    const w = double ? 1 : 2;
    const fits = dir > 0 ? x + w + 1 <= width : x - w - 1 >= 0;
    if (fits) {
      const x0 = dir > 0 ? x : x - w;
      const faces = dir > 0 ? [near, far] : [far, near];
      out.push(double
        ? { index, arm, x: x0, y: y - 1, w: 1, h: 2, vertical: true, faces, double, orient: "cross" }
        : { index, arm, x: x0, y: y - 0.5, w: 2, h: 1, vertical: false, faces, double, orient: "along" });
      x += dir * w;
      continue;
    }
    // The corner: a tile down (or up) between this row and the next, then the row reverses.
    const cx = dir > 0 ? x : x - 1;
    const cy = y + (vdir * PITCH) / 2;
    const faces = vdir > 0 ? [near, far] : [far, near];
    out.push(double
      ? { index, arm, x: dir > 0 ? cx - 1 : cx, y: cy - 0.5, w: 2, h: 1, vertical: false, faces, double,
        orient: "cross", corner: true }
      : { index, arm, x: cx, y: cy - 1, w: 1, h: 2, vertical: true, faces, double, orient: "along", corner: true });
    y += vdir * PITCH;
    dir = -dir;
    x = dir < 0 ? cx : cx + 1;
  }
  return { x, y, dir };
}

/**
 * The line laid out in tile units for a board `width` units wide: one rectangle per tile
 * ({index, x, y, w, h, vertical, faces, double, orient, corner}), the open ends, and the
 * vertical extent. Row 0 holds the anchor (the hand's first tile).
 */
export function layoutLine(line, anchor, width) {
  const tiles = line.map(parseTile);
  const out = [];
  if (!tiles.length) return { rects: out, ends: null, top: -1, bottom: 1 };
  const [a, b] = tiles[anchor];
  const double = a === b;
  const aw = double ? 1 : 2;
  const ax = (width - aw) / 2;
  out.push(double
    ? { index: anchor, x: ax, y: -1, w: 1, h: 2, vertical: true, faces: [a, b], double, orient: "cross" }
    : { index: anchor, x: ax, y: -0.5, w: 2, h: 1, vertical: false, faces: [a, b], double, orient: "along" });
  const right = tiles.slice(anchor + 1).map(([p, q], i) => ({ index: anchor + 1 + i, near: p, far: q }));
  const left = tiles.slice(0, anchor).reverse().map(([p, q], i) => ({ index: anchor - 1 - i, near: q, far: p }));
  const rightEnd = layArm(right, ax + aw, 1, 1, width, out);
  const leftEnd = layArm(left, ax, -1, -1, width, out);
  const top = Math.min(...out.map((r) => r.y));
  const bottom = Math.max(...out.map((r) => r.y + r.h));
  return { rects: out, ends: { L: leftEnd, R: rightEnd }, top, bottom };
}

// The largest tile size (px per unit) at which the line fits a box of width x height px.
function fit(line, anchor, width, height) {
  for (let u = 40; u >= 6; u -= 1) {
    const layout = layoutLine(line, anchor, (width - 2 * PAD) / u);
    if ((layout.bottom - layout.top) * u <= height - 2 * PAD) return { u, layout };
  }
  const u = 6;
  return { u, layout: layoutLine(line, anchor, (width - 2 * PAD) / u) };
}

/** The board: `update(view)` redraws the line; `tileAt(index)` and `endPoint(side)` help motion. */
export function createBoard(h) {
  const el = h("div", { id: "line", class: "board" });
  let last = { line: [], anchor: 0 };
  let geometry = null;

  function render() {
    const width = el.clientWidth || 360;
    const height = el.clientHeight || 240;
    const { line, anchor } = last;
    const { u, layout } = fit(line, anchor, width, height);
    // Row 0 in the middle of the box when the drawing allows it, else as near as it fits.
    let oy = height / 2;
    if (oy + layout.bottom * u > height - PAD) oy = height - PAD - layout.bottom * u;
    if (oy + layout.top * u < PAD) oy = PAD - layout.top * u;
    const ox = PAD;
    const toPx = (x, y) => [ox + x * u, oy + y * u];
    geometry = { u, layout, toPx };
    const groups = layout.rects.sort((p, q) => p.index - q.index).map((r) => {
      const [px, py] = toPx(r.x, r.y);
      const name = line[r.index];
      const [a, b] = parseTile(name);
      return svg("g", {
        class: "tile", "data-tile": name, "data-index": r.index, "data-orient": r.orient, "data-arm": r.arm ?? "anchor",
        "data-double": r.double ? "true" : null, "data-corner": r.corner ? "true" : null,
        "data-vertical": r.vertical ? "true" : "false", transform: `translate(${px.toFixed(2)} ${py.toFixed(2)})`,
        role: "img", "aria-label": tileName(a, b),
      }, svg("g", { class: "slide" },
        svg("g", { transform: `scale(${u})` }, tileFace(r.faces[0], r.faces[1], r.vertical))));
    });
    el.dataset.tileSize = String(u);
    el.dataset.rows = String(Math.round((layout.bottom - layout.top) / PITCH));
    el.replaceChildren(svg("svg", {
      width, height, viewBox: `0 0 ${width} ${height}`, class: "board-svg", role: "group",
      "aria-label": `${t("line")}: ${line.length} ${t("tiles")}`,
    }, groups));
  }

  new ResizeObserver(() => { if (el.isConnected) render(); }).observe(el);

  return {
    el,
    update(line, history) {
      el.classList.remove("choosing");  // a choice of ends belongs to the state it was offered in
      last = { line: [...line], anchor: anchorIndex(history, line.length) };
      render();
    },
    tileAt(index) {
      return el.querySelector(`g.tile[data-index="${index}"]`);
    },
    /** The open end `side` ("L" or "R") in px inside the board, or the centre before any tile. */
    endPoint(side) {
      if (!geometry?.layout.ends) return [el.clientWidth / 2, el.clientHeight / 2];
      const end = geometry.layout.ends[side];
      return geometry.toPx(end.x + (end.dir > 0 ? 0.5 : -0.5), end.y);
    },
  };
}

/** The boneyard: a stack of backs and its count. */
export function boneyardEl(h, count) {
  return h("div", { id: "boneyard", "data-count": String(count), title: t("boneyard") },
    svg("svg", { viewBox: "0 0 1.6 2.4", width: 26, height: 39, "aria-hidden": "true" },
      count > 1 ? svg("g", { transform: "translate(0.5 0.3)" }, tileBack(true)) : null,
      count > 0 ? tileBack(true) : null),
    h("span", { class: "count" }, `${t("boneyard")}: ${count}`));
}

// The avatar hook: avatar.js (the markets' avatars with accessories) draws it when present —
// its exported drawAvatar (or avatarSvg / avatar / default) is called with
// {avatarId, avatar_id, size} and must return a Node; otherwise, or if it throws, a neutral
// head-and-shoulders figure.
let avatarPainter = null;
let avatarLoading = null;
export function loadAvatarPainter() {
  avatarLoading ??= import("./views/avatar.js").then((m) => {
    const fn = m.drawAvatar ?? m.avatarSvg ?? m.avatar ?? m.default;
    if (typeof fn === "function") avatarPainter = fn;
  }).catch(() => {});
  return avatarLoading;
}

export function neutralAvatar(size = 32) {
  return svg("svg", { class: "avatar neutral", viewBox: "0 0 32 32", width: size, height: size, "aria-hidden": "true" },
    svg("circle", { cx: 16, cy: 16, r: 16, class: "avatar-bg" }),
    svg("circle", { cx: 16, cy: 12, r: 6, class: "avatar-fg" }),
    svg("path", { d: "M5 29c2-7 7-9 11-9s9 2 11 9z", class: "avatar-fg" }));
}

/** The picture of a seat's avatar (by id, with its accessories when avatar.js knows them). */
export function avatarPicture(avatarId, size = 32) {
  if (avatarId !== null && avatarId !== undefined && avatarPainter) {
    try {
      const node = avatarPainter({ avatarId, avatar_id: avatarId, size });
      if (node instanceof Node) return node;
    } catch (error) {
      console.warn("avatar.js", error);
    }
  }
  return neutralAvatar(size);
}

// Where each seat sits around the board, counted from the bottom seat in the order of play:
// you at the bottom, a partner across, the opponents left and right.
const PLACES = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };

/** The place ("bottom", "top", "left", "right") of `seat` at a table of `count` seats. */
export function seatPlace(seat, bottom, count) {
  const places = PLACES[count] ?? PLACES[4];
  return places[(seat - bottom + count) % count] ?? "top";
}

const RING_R = 23;

/** The turn's countdown ring around a seat's picture; `setRing` moves it. */
function turnRing() {
  return svg("svg", { class: "turn-ring", viewBox: "0 0 50 50", width: 50, height: 50, "aria-hidden": "true" },
    svg("circle", { cx: 25, cy: 25, r: RING_R, class: "ring-track" }),
    svg("circle", {
      cx: 25, cy: 25, r: RING_R, class: "ring-left", pathLength: 100, "stroke-dasharray": "100 100",
      "stroke-dashoffset": "0", transform: "rotate(-90 25 25)",
    }));
}

/** Show `left` of the turn (0..1) on the active seat's ring; `warn` turns it to a warning. */
export function setRing(root, left, warn) {
  const seat = root.querySelector("#seats li.turn");
  const arc = seat?.querySelector(".ring-left");
  if (!arc) return;
  arc.setAttribute("stroke-dashoffset", String(Math.round((1 - Math.max(0, Math.min(1, left))) * 100)));
  seat.dataset.timeLeft = String(Math.round(left * 100));
  seat.dataset.warn = warn ? "true" : "false";
}

/**
 * Each seat at its place around the board: picture, name (its address on demand), tiles as
 * backs, score, the countdown ring on its turn and the place of its draw and pass notes.
 * `bottom` is the seat drawn at the bottom; `who(seat)` gives {name, address}.
 */
export function seatsEl(h, { view, seats, you, bottom, who, onAvatars }) {
  if (seats.some((s) => s.avatar_id !== null && s.avatar_id !== undefined) && !avatarPainter) {
    loadAvatarPainter().then(() => { if (avatarPainter) onAvatars?.(); });
  }
  return h("ul", { id: "seats", "data-count": String(seats.length) }, seats.map((s) => {
    const count = view.tile_counts[s.seat] ?? 0;
    const side = view.sides ? view.sides[s.seat] : s.seat;
    const turn = view.turn === s.seat && !view.match_over;
    const { name, address } = who(s.seat);
    const shown = h("span", { class: "seat-address", hidden: true }, address ?? "");
    const toggle = () => {
      shown.hidden = !shown.hidden;
      nameEl.setAttribute("aria-expanded", String(!shown.hidden));
    };
    const nameEl = address
      ? h("button", {
        type: "button", class: "seat-name", "aria-expanded": "false", title: t("showAddress"), onclick: toggle,
      }, name)
      : h("span", { class: "seat-name" }, name);
    return h("li", {
      class: `seat${turn ? " turn" : ""}${s.seat === you ? " me" : ""}`, "data-seat": String(s.seat),
      "data-place": seatPlace(s.seat, bottom, seats.length), "data-address": address ?? null,
      "data-tiles": String(count), "data-score": String(view.scores[side] ?? 0),
    },
    h("span", { class: "seat-pic" }, avatarPicture(s.avatar_id, 36), turn ? turnRing() : null),
    h("span", { class: "seat-who" }, nameEl, shown),
    h("span", { class: "seat-tiles" }, backsSvg(count), h("span", { class: "n" }, ` ${count} ${t("tiles")}`)),
    h("span", { class: "seat-score" }, `${t("points")}: ${view.scores[side] ?? 0}`),
    h("span", { class: "bubble", "aria-live": "polite" }));
  }));
}
