// The markets routes (docs/markets.md; backend/api/routers/markets.py): the shop, the resale
// market, avatars with their accessories, and a wallet's items. The routes are not in
// protocol.js (generated from backend/protocol), so they are called by path, with the
// session's token, as competitions.js calls its own. Shared by shop.js, market.js and avatar.js.

import { addWords } from "./i18n.js";

// The words the shop, the market and the avatar page share.
addWords({
  item: ["Artículo", "Item"],
  price: ["Precio", "Price"],
  buy: ["Comprar", "Buy"],
  kind_avatar: ["Avatar", "Avatar"],
  kind_accessory: ["Accesorio", "Accessory"],
  kind_vip: ["Pase VIP", "VIP pass"],
  kind_center: ["Centro de juego", "Game center"],
});

const enc = encodeURIComponent;

/** What the page needs from the server, one function per route of the markets router. */
export const markets = {
  shop: (api) => api.request("GET", "/markets/shop"),
  buyShop: (api, listingId) => api.request("POST", `/markets/shop/${enc(listingId)}/buy`, {}),
  listings: (api, filters = {}) => {
    const search = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== undefined && v !== null));
    const query = search.toString();
    return api.request("GET", `/markets/listings${query ? `?${query}` : ""}`);
  },
  list: (api, body) => api.request("POST", "/markets/listings", body),
  cancel: (api, listingId) => api.request("POST", `/markets/listings/${enc(listingId)}/cancel`, {}),
  buy: (api, listingId) => api.request("POST", `/markets/listings/${enc(listingId)}/buy`, {}),
  avatar: (api, avatarId) => api.request("GET", `/markets/avatars/${enc(avatarId)}`),
  equip: (api, avatarId, typeId, equip) =>
    api.request("POST", `/markets/avatars/${enc(avatarId)}/equip`, { type_id: Number(typeId), equip }),
  items: (api, address) => api.request("GET", `/markets/wallets/${enc(address)}/items`),
};

/** A time the server gives as unix seconds (a number or a digit string) or as ISO 8601. */
export function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number" || /^[0-9]+$/.test(String(value))) return new Date(Number(value) * 1000);
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A time as the reader's locale writes it, or "—". */
export function when(value) {
  const date = toDate(value);
  return date ? date.toLocaleString() : "—";
}

/** Is an address the signed-in wallet's (addresses compared without their EIP-55 case)? */
export const isMe = (api, address) =>
  Boolean(api.address && address && api.address.toLowerCase() === String(address).toLowerCase());
