// Avatars with their accessories: `avatarSvg` draws one as inline SVG made by code (no image
// file per item: the page's CSP allows images from this origin only, so an accessory whose
// image is a same-origin path is an <image>, any other is drawn as shapes keyed by its slot
// and type id), `seatAvatar` draws a seat's avatar at the table (its accessories fetched
// once per avatar and page), and `avatarView` is the avatar page where its owner equips and
// unequips accessories (the server builds the transaction, the owner's wallet signs it).

import { DewApi } from "../api.js";
import { addWords, t } from "../i18n.js";
import { isMe, markets, toDate, when } from "../marketapi.js";

addWords({
  avatarTitle: ["Avatar", "Avatar"],
  accessories: ["Accesorios", "Accessories"],
  equipped: ["Equipados", "Equipped"],
  equip: ["Equipar", "Equip"],
  unequip: ["Quitar", "Remove"],
  inWallet: ["Accesorios en tu billetera", "Accessories in your wallet"],
  slot: ["Lugar", "Slot"],
  balance: ["Cantidad", "Balance"],
  user: ["Usuario (becario)", "User (scholar)"],
  rentedUntil: ["Alquilado hasta", "Rented until"],
  rentedLocked: ["Este avatar está alquilado: sus accesorios no se pueden poner ni quitar hasta que acabe la beca.",
    "This avatar is rented: its accessories cannot be put on or taken off until the scholarship ends."],
  notOwner: ["Solo el dueño de este avatar puede equiparlo.", "Only this avatar's owner can equip it."],
  equipDone: ["Hecho: el avatar se actualiza en cadena.", "Done: the avatar is updated on chain."],
  noAccessories: ["Sin accesorios.", "No accessories."],
});

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A hue (0-359) that is always the same for the same number: avatars and types keep colours. */
const hue = (n, salt = 0) => (Math.imul(Number(n) + salt + 1, 2654435761) >>> 0) % 360;
const paint = (n, salt, light = 55) => `hsl(${hue(n, salt)} 60% ${light}%)`;

/** An image the page may load: a same-origin path (the CSP's img-src is 'self'), else null. */
function sameOriginImage(uri) {
  const text = String(uri || "");
  return text.startsWith("/") && !text.startsWith("//") ? text : null;
}

// Where each slot goes on the 64x64 drawing, and the shape drawn there when there is no image.
const SLOTS = {
  background: { box: [0, 0, 64, 64], draw: (c) => [svg("circle", { cx: 32, cy: 32, r: 30, fill: "none",
    stroke: c, "stroke-width": 3, "stroke-dasharray": "6 3" })] },
  head: { box: [18, 2, 28, 16], draw: (c) => [svg("rect", { x: 21, y: 4, width: 22, height: 11, rx: 2, fill: c }),
    svg("rect", { x: 15, y: 14, width: 34, height: 3, rx: 1.5, fill: c })] },
  eyes: { box: [19, 18, 26, 10], draw: (c) => [svg("circle", { cx: 26, cy: 24, r: 4, fill: "none", stroke: c,
    "stroke-width": 2 }), svg("circle", { cx: 38, cy: 24, r: 4, fill: "none", stroke: c, "stroke-width": 2 }),
  svg("line", { x1: 30, y1: 24, x2: 34, y2: 24, stroke: c, "stroke-width": 2 })] },
  neck: { box: [20, 36, 24, 8], draw: (c) => [svg("path", { d: "M20 38 Q32 46 44 38 L44 41 Q32 49 20 41 Z",
    fill: c })] },
  body: { box: [16, 42, 32, 20], draw: (c) => [svg("path", { d: "M18 62 Q18 46 32 46 Q46 46 46 62 Z",
    fill: c }), svg("path", { d: "M32 46 L32 62 M25 52 L39 52", stroke: "#fff", "stroke-width": 1.5 })] },
  hand: { box: [46, 40, 16, 16], draw: (c) => [svg("path", { d: "M54 40 L60 48 L54 56 L48 48 Z", fill: c })] },
};
const SLOT_ALIASES = { hat: "head", glasses: "eyes", face: "eyes", scarf: "neck", necklace: "neck",
  shirt: "body", outfit: "body", held: "hand", item: "hand", frame: "background", aura: "background" };
const SLOT_ORDER = ["head", "eyes", "neck", "body", "hand"];

/** The slot an accessory is drawn in: its own when the server names a known one, else one
 * chosen by its type id, so every type has a place and a look without a file. */
function slotOf(accessory) {
  const named = String(accessory.slot || "").toLowerCase();
  if (SLOTS[named]) return named;
  if (SLOT_ALIASES[named]) return SLOT_ALIASES[named];
  return SLOT_ORDER[Number(accessory.type_id) % SLOT_ORDER.length] ?? "hand";
}

function accessoryShape(accessory) {
  const slot = slotOf(accessory);
  const { box, draw } = SLOTS[slot];
  const image = sameOriginImage(accessory.image);
  const [x, y, width, height] = box;
  const shape = image
    ? [svg("image", { href: image, x, y, width, height, preserveAspectRatio: "xMidYMid meet" })]
    : draw(paint(accessory.type_id, 7, 45));
  return svg("g", { class: "accessory", "data-type-id": accessory.type_id, "data-slot": slot },
    svg("title", {}, accessory.name || `#${accessory.type_id}`), shape);
}

/**
 * An avatar drawn with its accessories as an inline <svg>: `avatar` is an id or an object with
 * `avatar_id`; `accessories` the equipped ones ({type_id, name, image, slot}). The colours come
 * from the ids, so the same avatar looks the same on every page and at every table.
 */
export function avatarSvg(avatar, accessories = [], { size = 64, ghost = false } = {}) {
  const id = typeof avatar === "object" && avatar !== null ? avatar.avatar_id : avatar;
  const items = [...(accessories || [])];
  const names = items.map((a) => a.name || `#${a.type_id}`).join(", ");
  const label = `${t("avatarTitle")} #${id}${names ? ` · ${names}` : ""}`;
  const background = items.filter((a) => slotOf(a) === "background").map(accessoryShape);
  const worn = items.filter((a) => slotOf(a) !== "background").map(accessoryShape);
  return svg("svg", {
    xmlns: SVG, viewBox: "0 0 64 64", width: size, height: size, role: "img", "aria-label": label,
    class: "avatar-svg", "data-avatar": id, "data-accessories": items.map((a) => a.type_id).join(","),
  },
  svg("title", {}, label),
  svg("circle", { cx: 32, cy: 32, r: 31, fill: ghost ? "#eee" : paint(id, 0, 85) }),
  background,
  svg("path", { d: "M18 62 Q18 46 32 46 Q46 46 46 62 Z", fill: ghost ? "#ccc" : paint(id, 3, 40) }),
  svg("circle", { cx: 32, cy: 28, r: 12, fill: ghost ? "#ddd" : paint(id, 5, 70) }),
  svg("circle", { cx: 27.5, cy: 26, r: 1.6, fill: "#222" }),
  svg("circle", { cx: 36.5, cy: 26, r: 1.6, fill: "#222" }),
  svg("path", { d: "M27 32 Q32 36 37 32", fill: "none", stroke: "#222", "stroke-width": 1.5 }),
  worn);
}

/** One accessory on a grey stand-in avatar: how the shop and the market show an item type. */
export function accessorySvg(accessory, { size = 40 } = {}) {
  return avatarSvg(0, [accessory], { size, ghost: true });
}

// --- at the table ---------------------------------------------------------------------------

const seen = new Map(); // avatar id -> Promise of its equipped accessories (once per page)

function equippedOf(api, avatarId) {
  if (!seen.has(avatarId)) {
    // An avatar the server cannot describe (no markets, a gone id) is drawn bare.
    seen.set(avatarId, markets.avatar(api, avatarId).then((a) => a.accessories || []).catch(() => []));
  }
  return seen.get(avatarId);
}

/** A seat's avatar: drawn bare at once, redrawn with its accessories when they arrive. */
export function seatAvatar(api, avatarId, { size = 32 } = {}) {
  const box = document.createElement("span");
  box.className = "seat-avatar";
  box.dataset.avatar = String(avatarId);
  box.append(avatarSvg(avatarId, [], { size }));
  equippedOf(api, avatarId).then((accessories) => {
    if (accessories.length) box.replaceChildren(avatarSvg(avatarId, accessories, { size }));
    box.dataset.drawn = "true";
  });
  return box;
}

// The avatar GET is public: the board draws seats without the page's session.
const PUBLIC_API = Object.assign(new DewApi(), { address: null, token: null, refreshToken: null });

/** The board's hook (board.js): a seat's avatar, redrawn with its accessories when known. */
export function drawAvatar({ avatarId, size = 32 }) {
  return seatAvatar(PUBLIC_API, avatarId, { size });
}

/** Forget what the table drew, so the next drawing asks again (after equipping). */
export function forgetAvatar(avatarId) {
  seen.delete(avatarId);
}

// --- the avatar page -------------------------------------------------------------------------

/** The page of one avatar; `ui` holds app.js's helpers (h, show, table, txPanel, short, say, fail). */
export async function avatarView(api, ui, avatarId) {
  const { h, show, table, txPanel, short, say, fail } = ui;
  const avatar = await markets.avatar(api, avatarId);
  const mine = isMe(api, avatar.owner);
  const rented = isRented(avatar);
  const items = mine ? await markets.items(api, api.address).catch(() => ({ accessories: [] })) : { accessories: [] };
  const pendingTx = h("div", { id: "pending-tx" });
  const again = () => {
    forgetAvatar(avatarId);
    avatarView(api, ui, avatarId).catch(fail);
  };
  const change = async (typeId, equip, button) => {
    button.disabled = true;
    try {
      const result = await markets.equip(api, avatarId, typeId, equip);
      pendingTx.replaceChildren(txPanel(result, () => { say(t("equipDone")); waitForChange(typeId, equip); }));
    } catch (error) {
      button.disabled = false;
      fail(error);
    }
  };
  // The page follows the server's view of the chain until the change shows, then redraws.
  const waitForChange = async (typeId, equip) => {
    for (let i = 0; i < 60 && location.hash.startsWith(`#/avatar/${avatarId}`); i++) {
      const now = await markets.avatar(api, avatarId).catch(() => null);
      const has = now?.accessories?.some((a) => String(a.type_id) === String(typeId));
      if (now && has === equip) return again();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    again();
  };
  const canChange = mine && !rented;
  const equippedRows = (avatar.accessories || []).map((a) => [
    accessorySvg(a, { size: 32 }), a.name || `#${a.type_id}`, slotOf(a),
    canChange ? h("button", { type: "button", class: "unequip", "data-type-id": a.type_id,
      onclick: (e) => change(a.type_id, false, e.target) }, t("unequip")) : "",
  ]);
  const spare = (items.accessories || []).filter((a) => BigInt(a.balance ?? 0) > 0n);
  const spareRows = spare.map((a) => [
    accessorySvg(a, { size: 32 }), a.name || `#${a.type_id}`, String(a.balance),
    canChange ? h("button", { type: "button", class: "equip", "data-type-id": a.type_id,
      onclick: (e) => change(a.type_id, true, e.target) }, t("equip")) : "",
  ]);
  show(
    h("h2", {}, `${t("avatarTitle")} #${avatar.avatar_id}`),
    h("section", { id: "avatar", "data-avatar": avatar.avatar_id, "data-owner": avatar.owner,
      "data-equipped": (avatar.accessories || []).map((a) => a.type_id).join(",") },
    h("div", { class: "avatar-big" }, avatarSvg(avatar, avatar.accessories, { size: 160 })),
    h("p", {}, `${t("owner")}: `, h("code", { title: avatar.owner }, short(avatar.owner)),
      mine ? ` (${t("you")})` : ""),
    avatar.user ? h("p", {}, `${t("user")}: `, h("code", { title: avatar.user }, short(avatar.user)),
      ` · ${t("rentedUntil")} ${when(avatar.rented_until)}`) : null,
    rented && mine ? h("p", { class: "hint", id: "rented-lock" }, t("rentedLocked")) : null,
    api.address && !mine ? h("p", { class: "hint" }, t("notOwner")) : null),
    h("section", { id: "equipped" }, h("h3", {}, t("equipped")),
      equippedRows.length ? table(["", t("accessories"), t("slot"), ""], equippedRows)
        : h("p", {}, t("noAccessories"))),
    mine ? h("section", { id: "spare-accessories" }, h("h3", {}, t("inWallet")),
      table(["", t("accessories"), t("balance"), ""], spareRows)) : null,
    pendingTx,
  );
}

/** Is the avatar rented out now (an ERC-4907 user other than its owner, whose term is not over)?
 * The contract refuses equipping then; the page says so instead of offering a doomed transaction. */
function isRented(avatar) {
  if (!avatar.user || avatar.user.toLowerCase() === String(avatar.owner).toLowerCase()) return false;
  const until = toDate(avatar.rented_until);
  return until === null || until.getTime() > Date.now();
}
