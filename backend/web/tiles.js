// Domino tiles drawn as SVG from code (no image files): faces with pips 0-9 (double-six sets
// use 0-6; the layouts go to 9 so a larger set needs nothing new), tile backs for the tiles a
// seat holds, and the spoken name of a tile ("six-four" / "seis-cuatro") for screen readers.

import { t } from "./i18n.js";

export const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element: attributes set as given, children appended (strings become text). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

// Pip centres in a unit square, per value: the classic patterns (7-9 for larger sets).
const L = 0.24;
const M = 0.5;
const R = 0.76;
const PIPS = {
  0: [],
  1: [[M, M]],
  2: [[L, L], [R, R]],
  3: [[L, L], [M, M], [R, R]],
  4: [[L, L], [R, L], [L, R], [R, R]],
  5: [[L, L], [R, L], [M, M], [L, R], [R, R]],
  6: [[L, L], [L, M], [L, R], [R, L], [R, M], [R, R]],
  7: [[L, L], [L, M], [L, R], [M, M], [R, L], [R, M], [R, R]],
  8: [[L, L], [L, M], [L, R], [M, L], [M, R], [R, L], [R, M], [R, R]],
  9: [[L, L], [L, M], [L, R], [M, L], [M, M], [M, R], [R, L], [R, M], [R, R]],
};

const NUMBER_KEYS = ["blank", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/** "6:4" -> [6, 4]. */
export function parseTile(name) {
  const [a, b] = String(name).split(":").map(Number);
  return [a, b];
}

/** The spoken name of a tile in the page's language: "six-four", "double six". */
export function tileName(a, b) {
  const word = (n) => t(`pip_${NUMBER_KEYS[n] ?? n}`);
  return a === b ? t("doubleOf").replace("{n}", word(a)) : `${word(a)}-${word(b)}`;
}

function half(value, x, y) {
  return (PIPS[value] || []).map(([px, py]) => svg("circle", {
    class: "pip", cx: (x + px).toFixed(3), cy: (y + py).toFixed(3), r: value > 6 ? 0.085 : 0.1,
  }));
}

/**
 * One tile face as an SVG group in tile units: horizontal tiles are 2x1 (a on the left),
 * vertical tiles 1x2 (a on top). The caller positions it with a transform.
 */
export function tileFace(a, b, vertical = false) {
  const w = vertical ? 1 : 2;
  const h = vertical ? 2 : 1;
  return svg("g", { class: "face" },
    svg("rect", { class: "tile-body", x: 0.03, y: 0.03, width: w - 0.06, height: h - 0.06, rx: 0.12 }),
    vertical
      ? svg("line", { class: "tile-bar", x1: 0.15, y1: 1, x2: 0.85, y2: 1 })
      : svg("line", { class: "tile-bar", x1: 1, y1: 0.15, x2: 1, y2: 0.85 }),
    half(a, 0, 0),
    vertical ? half(b, 0, 1) : half(b, 1, 0));
}

/** A tile back (the face-down tiles a seat holds, the boneyard). */
export function tileBack(vertical = true) {
  const w = vertical ? 1 : 2;
  const h = vertical ? 2 : 1;
  return svg("g", { class: "back" },
    svg("rect", { class: "tile-back", x: 0.03, y: 0.03, width: w - 0.06, height: h - 0.06, rx: 0.12 }),
    svg("rect", { class: "tile-back-mark", x: 0.25, y: 0.25, width: w - 0.5, height: h - 0.5, rx: 0.08 }));
}

/** A standalone tile picture (a hand's tile): `size` px per unit, named for screen readers. */
export function tileSvg(name, { vertical = true, size = 22 } = {}) {
  const [a, b] = parseTile(name);
  const w = vertical ? 1 : 2;
  const h = vertical ? 2 : 1;
  return svg("svg", {
    class: "tile-svg", viewBox: `0 0 ${w} ${h}`, width: w * size, height: h * size,
    role: "img", "aria-label": tileName(a, b), focusable: "false",
  }, tileFace(a, b, vertical));
}

/** `count` tile backs in a row (a seat's hand seen from across the table). */
export function backsSvg(count, size = 10) {
  const shown = Math.min(count, 14);
  const step = 1.1;
  const width = Math.max(1, shown * step);
  return svg("svg", {
    class: "backs", viewBox: `0 0 ${width} 2`, width: width * size, height: 2 * size,
    role: "img", "aria-label": `${count} ${t("tiles")}`, focusable: "false",
  }, Array.from({ length: shown }, (_, i) => svg("g", { transform: `translate(${i * step} 0)` }, tileBack(true))));
}
