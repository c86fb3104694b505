// The avatar picker of earning play: the avatars this wallet owns or rents, each with its
// picture and terms, chosen with a radio button (no typed ids). The list comes from the
// markets' wallet items (GET /markets/wallets/{address}/items) when the server has them,
// else from the owner report (/economy/owners/{address}/avatars) and the scholar agreements.

import { ApiError } from "./api.js";
import { avatarPicture, loadAvatarPainter } from "./board.js";
import { t } from "./i18n.js";

const cache = new Map();  // address -> Promise of the list

const pct = (bps) => String(Number(bps) / 100);
const dew = (wei) => `${(Number(BigInt(wei || "0") / 10n ** 14n) / 10000).toFixed(2)} DEW`;
const day = (seconds) => (seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : null);

function termsOf(agreement) {
  if (!agreement) return "";
  if (agreement.terms === "fixed_rent") return t("avatarTermsRent").replace("{rent}", dew(agreement.rent));
  return t("avatarTermsSplit").replace("{owner}", pct(agreement.owner_bps))
    .replace("{scholar}", pct(10000 - agreement.owner_bps - (agreement.manager_bps || 0)));
}

async function fromMarkets(api) {
  const items = await api.get(`/markets/wallets/${api.address}/items`);
  return (items?.avatars || []).map((a) => ({
    id: a.avatar_id, role: a.role, until: a.rented_until || null, accessories: a.accessories || [], terms: "",
  }));
}

async function fromEconomy(api) {
  const me = api.address;
  const [owned, agreements] = await Promise.all([
    api.call("owner_avatars", { address: me }).catch(() => []),
    api.call("agreements", {}, undefined, { scholar: me }).catch(() => []),
  ]);
  const mine = owned
    .filter((a) => !(a.agreement_status === "active" && a.scholar && a.scholar !== me))  // rented out now
    .map((a) => ({ id: a.avatar_id, role: "owner", until: null, accessories: [], terms: "" }));
  const rented = agreements.filter((a) => a.status === "active" && a.scholar === me)
    .map((a) => ({ id: a.avatar_id, role: "renter", until: a.ends_at, accessories: [], terms: termsOf(a) }));
  return [...mine, ...rented];
}

/** The wallet's playable avatars: [{id, role, until, accessories, terms}]. */
export function walletAvatars(api) {
  if (!api.address) return Promise.resolve([]);
  if (!cache.has(api.address)) {
    cache.set(api.address, fromMarkets(api).catch((error) => {
      if (error instanceof ApiError && error.status !== 404 && error.status !== 405) console.warn(error);
      return fromEconomy(api);
    }));
  }
  return cache.get(api.address);
}

/** A fieldset of radio buttons named `avatar_id`, filled once the list arrives. */
export function avatarPicker(h, api, { selected, onChange } = {}) {
  const box = h("fieldset", { id: "avatar-pick", class: "avatar-pick", "data-loaded": "false" },
    h("legend", {}, t("avatarPick")));
  Promise.all([walletAvatars(api), loadAvatarPainter()]).then(([avatars]) => {
    box.dataset.loaded = "true";
    box.dataset.count = String(avatars.length);
    if (!avatars.length) return box.append(h("p", { class: "hint" }, t("avatarNone")));
    avatars.forEach((a, i) => {
      const id = `avatar-${a.id}`;
      const until = a.until ? ` · ${t("avatarUntil").replace("{date}", day(a.until))}` : "";
      box.append(h("label", { for: id, class: "avatar-choice", "data-avatar": String(a.id), "data-role": a.role },
        h("input", {
          type: "radio", id, name: "avatar_id", value: String(a.id),
          checked: selected ? String(selected) === String(a.id) : i === 0,
          onchange: () => onChange?.(a.id),
        }),
        avatarPicture(a.id, 40),
        h("span", {}, `#${a.id} · ${a.role === "owner" ? t("avatarOwned") : t("avatarRented")}${until}`,
          a.terms ? ` · ${a.terms}` : "")));
    });
    if (!selected) onChange?.(avatars[0].id);
  });
  return box;
}
