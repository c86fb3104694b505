// The resale market: fixed-price listings of avatars and accessories for DEW, with no escrow
// (the item stays with its seller, who approves the market to move it). A seller lists an
// owned item with a price and an expiry, and cancels; a buyer buys (the royalty and the
// market fee are taken on chain). Every step is a transaction the server builds and the
// wallet signs. A listing whose item moved since is shown "stale" and cannot be bought.
// Loaded on demand by app.js.

import { addWords, t } from "../i18n.js";
import { accessorySvg, avatarSvg } from "./avatar.js";
import { parseDew } from "./wallet.js";
import { isMe, markets, toDate, when } from "../marketapi.js";

addWords({
  marketIntro: [
    "Reventa a precio fijo, sin depósito: el artículo sigue en la billetera del vendedor hasta la venta. "
      + "Una regalía va al tesoro (ERC-2981).",
    "Fixed-price resale with no escrow: the item stays in the seller's wallet until it is sold. "
      + "A royalty goes to the treasury (ERC-2981).",
  ],
  openListings: ["En venta", "For sale"],
  myListings: ["Mis anuncios", "My listings"],
  sell: ["Vender", "Sell"],
  sellWhat: ["Qué vendes", "What you sell"],
  amountItems: ["Cantidad", "Amount"],
  priceDew: ["Precio (DEW)", "Price (DEW)"],
  expiresIn: ["Caduca en (horas)", "Expires in (hours)"],
  expires: ["Caduca", "Expires"],
  seller: ["Vendedor", "Seller"],
  listIt: ["Poner en venta", "List for sale"],
  l_open: ["en venta", "for sale"],
  l_sold: ["vendido", "sold"],
  l_cancelled: ["cancelado", "cancelled"],
  l_expired: ["caducado", "expired"],
  l_stale: ["ya no disponible", "no longer available"],
  nothingToSell: ["No tienes avatares ni accesorios propios para vender.", "You own no avatar or accessory to sell."],
  badExpiry: ["Indica cuántas horas (de 1 a 8760).", "Say how many hours (1 to 8760)."],
  badItems: ["Indica una cantidad entera positiva.", "Say a whole positive amount."],
  listed: ["Anuncio enviado: aparece cuando la cadena lo confirma.",
    "Listing sent: it shows once the chain confirms it."],
  rentedNoSale: ["alquilado: no se puede vender", "rented: cannot be sold"],
  myItems: ["Mis artículos", "My items"],
  renter: ["alquilado por ti", "rented by you"],
});

const MAX_HOURS = 8760; // a year

function itemCell(h, listing) {
  const kind = listing.item_kind;
  const label = `${t(`kind_${kind}`)} #${listing.id}${Number(listing.amount) > 1 ? ` × ${listing.amount}` : ""}`;
  const picture = kind === "avatar" ? avatarSvg(listing.id, [], { size: 32 })
    : accessorySvg({ type_id: listing.id }, { size: 32 });
  const link = kind === "avatar" ? h("a", { href: `#/avatar/${listing.id}` }, label) : label;
  return h("span", { class: "listing-item", "data-kind": kind, "data-item": listing.id }, picture, " ", link);
}

/** The page; `ui` holds app.js's helpers (h, show, table, txPanel, dew, short, say, fail, onLeave). */
export async function marketView(api, ui) {
  const { h, show, table, txPanel, dew, short, fail, onLeave } = ui;
  const [open, own, items] = await Promise.all([
    markets.listings(api, { status: "open" }),
    api.address ? markets.listings(api, { seller: api.address }) : [],
    api.address ? markets.items(api, api.address).catch(() => null) : null,
  ]);
  const pendingTx = h("div", { id: "pending-tx" });
  let timer = null;
  onLeave(() => window.clearTimeout(timer));
  const again = (ms = 1500) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => location.hash.startsWith("#/market") && marketView(api, ui).catch(fail), ms);
  };
  const sign = async (build, button) => {
    if (button) button.disabled = true;
    try {
      pendingTx.replaceChildren(txPanel(await build(), () => again()));
      pendingTx.scrollIntoView?.({ block: "nearest" });
    } catch (error) {
      if (button) button.disabled = false;
      fail(error);
    }
  };
  const status = (l) => h("span", { class: "listing-status", "data-status": l.status }, t(`l_${l.status}`));
  const action = (l) => {
    if (l.status !== "open") return "";
    if (isMe(api, l.seller)) {
      return h("button", { type: "button", class: "cancel-listing", "data-listing": l.listing_id,
        onclick: (e) => sign(() => markets.cancel(api, l.listing_id), e.target) }, t("cancel"));
    }
    return h("button", { type: "button", class: "buy-listing", "data-listing": l.listing_id, disabled: !api.token,
      onclick: (e) => sign(() => markets.buy(api, l.listing_id), e.target) }, t("buy"));
  };
  const row = (l) => [
    itemCell(h, l), h("code", { title: l.seller }, isMe(api, l.seller) ? t("you") : short(l.seller)),
    h("span", { class: "price", "data-wei": l.price }, dew(l.price)), when(l.expires_at), status(l), action(l),
  ];
  const headers = [t("item"), t("seller"), t("price"), t("expires"), t("status"), ""];
  const mine = own.filter((l) => l.status !== "open"); // the open ones are in the first table
  const tagRows = (section, rows) => {
    section.querySelectorAll("tbody tr").forEach((tr, i) => { tr.dataset.listing = rows[i].listing_id; });
    return section;
  };
  show(
    h("h2", {}, t("market")),
    h("p", { class: "hint" }, t("marketIntro")),
    tagRows(h("section", { id: "open-listings", class: "wide" }, h("h3", {}, t("openListings")),
      table(headers, open.map(row))), open),
    api.address ? tagRows(h("section", { id: "my-listings", class: "wide" }, h("h3", {}, t("myListings")),
      table(headers, mine.map(row))), mine) : h("p", { class: "hint" }, t("signInFirst")),
    items ? myItems(ui, items) : null,
    items ? sellForm(ui, api, items, (build, button) => sign(build, button)) : null,
    pendingTx,
  );
}

/** The wallet's avatars (each a link to its page, where its owner dresses it) and loose accessories. */
function myItems(ui, items) {
  const { h, table } = ui;
  const avatars = (items.avatars || []).map((a) => h("li", { "data-avatar": a.avatar_id },
    h("a", { href: `#/avatar/${a.avatar_id}` }, avatarSvg(a, a.accessories, { size: 48 }), ` #${a.avatar_id}`),
    a.role === "renter" ? ` (${t("renter")})` : ""));
  const loose = (items.accessories || []).filter((a) => BigInt(a.balance ?? 0) > 0n);
  return h("section", { id: "my-items" }, h("h3", {}, t("myItems")),
    avatars.length ? h("ul", { class: "avatar-list" }, avatars) : null,
    table(["", t("accessories"), t("balance")], loose.map((a) => [
      accessorySvg(a, { size: 32 }), a.name || `#${a.type_id}`, String(a.balance),
    ])));
}

/** The form that lists one of the wallet's own avatars or accessories. */
function sellForm(ui, api, items, sign) {
  const { h, say } = ui;
  const owned = (items.avatars || []).filter((a) => a.role === "owner");
  // A rented avatar cannot be sold (the market refuses it until the scholarship ends).
  const rented = (a) => toDate(a.rented_until)?.getTime() > Date.now();
  const options = [
    ...owned.map((a) => [`avatar:${a.avatar_id}`,
      `${t("kind_avatar")} #${a.avatar_id}${rented(a) ? ` (${t("rentedNoSale")})` : ""}`, rented(a)]),
    ...(items.accessories || []).filter((a) => BigInt(a.balance ?? 0) > 0n)
      .map((a) => [`accessory:${a.type_id}`, `${t("kind_accessory")} #${a.type_id} ${a.name || ""} (${a.balance})`]),
  ];
  if (!options.length) return h("p", { id: "sell-form", class: "hint" }, t("nothingToSell"));
  const submit = (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const [kind, id] = String(data.get("item")).split(":");
    const price = parseDew(data.get("price"));
    const hours = Number(data.get("hours"));
    const amount = kind === "avatar" ? 1 : Number(data.get("amount"));
    if (price === null) return say(t("badAmount"), true);
    if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS) return say(t("badExpiry"), true);
    if (!Number.isInteger(amount) || amount < 1) return say(t("badItems"), true);
    const body = {
      token_kind: kind, id: String(id), amount, price, expires_at: Math.floor(Date.now() / 1000) + hours * 3600,
    };
    const button = event.target.querySelector("button[type=submit]");
    return sign(async () => {
      const result = await markets.list(api, body);
      say(t("listed"));
      return result;
    }, button);
  };
  const field = (label, input) => h("p", {}, h("label", { for: input.id }, label), " ", input);
  return h("form", { id: "sell-form", onsubmit: submit },
    h("h3", {}, t("sell")),
    field(t("sellWhat"), h("select", { id: "sell-item", name: "item" },
      options.map(([value, label, disabled]) => h("option", { value, disabled }, label)))),
    field(t("amountItems"), h("input", { id: "sell-amount", name: "amount", type: "number", min: 1, value: 1 })),
    field(t("priceDew"), h("input", { id: "sell-price", name: "price", type: "text", inputmode: "decimal",
      size: 12, required: true })),
    field(t("expiresIn"), h("input", { id: "sell-hours", name: "hours", type: "number", min: 1, max: MAX_HOURS,
      value: 72, required: true })),
    h("button", { type: "submit" }, t("listIt")));
}
