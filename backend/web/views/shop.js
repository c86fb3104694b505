// The shop (first sale): the operator's listings of avatars, accessories and VIP passes at a
// DEW price with a supply. Buying is a transaction the server builds (a DEW approval when the
// shop may not yet spend enough, then Shop.buy) and the buyer's wallet signs; the item is
// minted to the buyer in that same transaction. Loaded on demand by app.js.

import { addWords, t } from "../i18n.js";
import { accessorySvg, avatarSvg } from "./avatar.js";
import { markets } from "../marketapi.js";

addWords({
  shopIntro: ["Primera venta: lo compras con DEW de tu billetera y se acuña a tu nombre en la misma transacción.",
    "First sale: you pay DEW from your wallet and the item is minted to you in the same transaction."],
  supplyLeft: ["Quedan", "Left"],
  vipTerm: ["Pase VIP", "VIP pass"],
  soldOut: ["agotado", "sold out"],
  closed: ["cerrado", "closed"],
  days: ["días", "days"],
  unlimited: ["sin límite", "unlimited"],
  bought: ["Comprado: llega a tu billetera cuando la cadena lo confirma.",
    "Bought: it reaches your wallet when the chain confirms it."],
  benefitsTitle: ["Qué te da cada compra", "What each purchase gives you"],
  benefitAvatar: [
    "Avatar: juegas partidas con premio como su dueño, puedes alquilarlo a otro jugador (renta fija o reparto "
      + "de premios) y revenderlo en el mercado.",
    "Avatar: you play matches that earn as its owner, you can rent it to another player (fixed rent or a split "
      + "of the rewards) and resell it on the market.",
  ],
  benefitAccessory: [
    "Accesorio: cambia cómo se ve tu avatar; va con él si lo vendes y lo puedes revender.",
    "Accessory: it changes how your avatar looks; it goes with the avatar if you sell it, and you can resell it.",
  ],
  benefitVip: [
    "Pase VIP: juegas partidas con premio sin avatar y abres las opciones de reglas premium mientras dure; "
      + "su fecha de fin está en Ajustes.",
    "VIP pass: you play matches that earn without an avatar and open the premium rule options while it lasts; "
      + "its end date is in Settings.",
  ],
  benefitFair: [
    "Ninguna compra cambia las reglas de una partida ni tus posibilidades de ganarla.",
    "No purchase changes a match's rules or your chances of winning it.",
  ],
});

/** Benefits of buying (seed 000): what an avatar, an accessory and a pass give, in words. */
function benefits(h) {
  return h("section", { id: "benefits", "aria-labelledby": "benefits-h" },
    h("h3", { id: "benefits-h" }, t("benefitsTitle")),
    h("ul", {}, ["benefitAvatar", "benefitAccessory", "benefitVip"].map((key) => h("li", { "data-benefit": key },
      t(key)))),
    h("p", { class: "hint" }, t("benefitFair")));
}

/** What is left of a listing's supply (null: no cap). */
export function supplyLeft(listing) {
  if (listing.supply === null || listing.supply === undefined || Number(listing.supply) === 0) return null;
  return Math.max(0, Number(listing.supply) - Number(listing.sold || 0));
}

/** A VIP term (seconds) in days, as the shop states it. */
function term(seconds) {
  const s = Number(seconds || 0);
  if (!s) return "—";
  const days = s / 86400;
  return `${Number.isInteger(days) ? days : days.toFixed(1)} ${t("days")}`;
}

function preview(h, listing) {
  if (listing.item_kind === "avatar") return avatarSvg(listing.item_id, [], { size: 40 });
  if (listing.item_kind === "accessory") {
    return accessorySvg({ type_id: listing.item_id, name: listing.name, image: listing.image, slot: listing.slot });
  }
  return h("span", { class: "item-badge", "aria-hidden": "true" }, listing.item_kind === "vip" ? "VIP" : "★");
}

/** The page; `ui` holds app.js's helpers (h, show, table, txPanel, dew, say, fail, onLeave). */
export async function shopView(api, ui) {
  const { h, show, table, txPanel, dew, say, fail } = ui;
  const listings = await markets.shop(api);
  const pendingTx = h("div", { id: "pending-tx" });
  const buy = async (listing, button) => {
    button.disabled = true;
    try {
      const result = await markets.buyShop(api, listing.listing_id);
      pendingTx.replaceChildren(txPanel(result, () => {
        say(t("bought"));
        setTimeout(() => location.hash.startsWith("#/shop") && shopView(api, ui).catch(fail), 1500);
      }));
    } catch (error) {
      button.disabled = false;
      fail(error);
    }
  };
  const action = (listing) => {
    const left = supplyLeft(listing);
    if (!listing.open) return h("span", { class: "closed" }, t("closed"));
    if (left === 0) return h("span", { class: "sold-out" }, t("soldOut"));
    return h("button", {
      type: "button", class: "buy", "data-listing": listing.listing_id, disabled: !api.token,
      onclick: (e) => buy(listing, e.target),
    }, t("buy"));
  };
  const rows = listings.map((l) => [
    preview(h, l),
    h("span", { class: "item-name", "data-kind": l.item_kind, "data-item": l.item_id }, l.name || `#${l.item_id}`),
    t(`kind_${l.item_kind}`),
    h("span", { class: "price", "data-wei": l.price }, dew(l.price)),
    h("span", { class: "left", "data-left": supplyLeft(l) ?? "" }, String(supplyLeft(l) ?? t("unlimited"))),
    l.item_kind === "vip" ? term(l.vip_term_s) : "—",
    action(l),
  ]);
  show(
    h("h2", {}, t("shop")),
    h("p", { class: "hint" }, t("shopIntro")),
    api.token ? null : h("p", { class: "hint" }, t("signInFirst")),
    h("section", { id: "shop", class: "wide" },
      table(["", t("item"), t("kind"), t("price"), t("supplyLeft"), t("vipTerm"), ""], rows)),
    pendingTx,
    benefits(h),
  );
  // Rows carry their listing id, so a test (or a reader) finds one without parsing text.
  document.querySelectorAll("#shop tbody tr").forEach((tr, i) => { tr.dataset.listing = listings[i].listing_id; });
}
