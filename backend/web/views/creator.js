// Content creators: the creator dashboard (its code and link, the players it
// brought, their matches since binding, its earnings per season) from GET /creators/me/dashboard,
// registering a code, and binding the signed-in player to a creator through a `?ref=CODE` link:
// the server issues a statement, the player's wallet signs it (EIP-191), POST /creators/bind.
// Loaded on demand by app.js, which passes its helpers in `ui`.

import { addWords, fill, t } from "../i18n.js";

addWords({
  creatorTitle: ["Creador de contenido", "Content creator"],
  yourCode: ["Tu código", "Your code"],
  yourLink: ["Tu enlace para invitar", "Your invitation link"],
  playersBrought: ["Jugadores que trajiste", "Players you brought"],
  player: ["Jugador", "Player"],
  boundAt: ["Desde", "Since"],
  earnsUntil: ["Ganas hasta", "You earn until"],
  creatorEarnings: ["Tus ganancias por temporada", "Your earnings per season"],
  season: ["Temporada", "Season"],
  paid: ["Pagado", "Paid"],
  creatorNoSeason: ["sin temporada", "no season"],
  registerCode: ["Registrar un código", "Register a code"],
  code: ["Código", "Code"],
  registerBtn: ["Registrar", "Register"],
  notCreator: ["Aún no tienes un código de creador.", "You have no creator code yet."],
  creatorSignIn: ["Inicia sesión para ver tu panel.", "Sign in to see your dashboard."],
  bindTitle: ["Unirte a un creador", "Join a creator"],
  bindExplain: ["El creador {code} te invitó. Tu billetera firma la unión; solo se hace una vez.",
    "Creator {code} invited you. Your wallet signs the binding; it is done once."],
  bindBtn: ["Firmar y unirme", "Sign and join"],
  boundTo: ["Estás unido al creador {code}.", "You are bound to creator {code}."],
});

const day = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleDateString();
};
// Amounts may come as JSON integers: above 2**53 a browser rounds them (shown to the cent).
const wei = (value) => (typeof value === "number" ? BigInt(Math.round(value)).toString() : String(value ?? "0"));
const CODE = /^[A-Za-z0-9]{4,16}$/;

function registerForm(api, ui) {
  const { h, field, fail } = ui;
  const code = h("input", { name: "code", required: true, minlength: "4", maxlength: "16", pattern: "[A-Za-z0-9]+" });
  const submit = async (event) => {
    event.preventDefault();
    try {
      await api.request("POST", "/creators", { code: code.value });
      ui.refresh();
    } catch (error) {
      fail(error);
    }
  };
  return h("form", { id: "creator-register", onsubmit: submit },
    h("h3", {}, t("registerCode")), field(t("code"), code), h("button", { type: "submit" }, t("registerBtn")));
}

function bindPanel(api, ui, code) {
  const { h, say, fail } = ui;
  const bind = async () => {
    try {
      const wallet = await ui.ensureWallet();
      const statement = await api.request("POST", "/creators/bind/statement", { code });
      const signature = await wallet.signMessage(statement.message);
      const bound = await api.request("POST", "/creators/bind", { nonce: statement.nonce, signature });
      const text = fill(t("boundTo"), { code: bound.code });
      panel.replaceChildren(h("p", { id: "bound-to", "data-code": bound.code }, text));
      say(fill(t("boundTo"), { code: bound.code }));
    } catch (error) {
      fail(error);
    }
  };
  const panel = h("section", { id: "creator-bind", "aria-labelledby": "bind-h" },
    h("h3", { id: "bind-h" }, t("bindTitle")),
    h("p", {}, fill(t("bindExplain"), { code })),
    h("button", { type: "button", id: "bind-creator", disabled: !api.token, onclick: bind }, t("bindBtn")));
  return panel;
}

export async function creatorView(api, ui, query) {
  const { h, show, table, short, dew } = ui;
  const ref = query?.get("ref") ?? "";
  const bind = CODE.test(ref) ? bindPanel(api, ui, ref) : null;
  if (!api.token) return show(h("h2", {}, t("creatorTitle")), bind, h("p", {}, t("creatorSignIn")));
  let data = null;
  try {
    data = await api.request("GET", "/creators/me/dashboard");
  } catch (error) {
    if (error.status !== 404) throw error;
  }
  if (!data) return show(h("h2", {}, t("creatorTitle")), bind, h("p", { id: "not-creator" }, t("notCreator")),
    registerForm(api, ui));
  const link = `${location.origin}/#/creator?ref=${encodeURIComponent(data.code)}`;
  show(
    h("h2", {}, t("creatorTitle")),
    bind,
    h("p", {}, `${t("yourCode")}: `, h("strong", { id: "creator-code" }, data.code)),
    h("p", {}, `${t("yourLink")}: `, h("code", { id: "creator-link" }, link)),
    h("section", { id: "creator-players", "aria-labelledby": "cp-h" },
      h("h3", { id: "cp-h" }, t("playersBrought")),
      table([t("player"), t("matches"), t("boundAt"), t("earnsUntil")], data.players.map((p) => [
        h("code", { title: p.player, class: "brought", "data-address": p.player }, short(p.player)),
        h("span", { class: "player-matches" }, String(p.matches)), day(p.bound_at), day(p.earns_until),
      ]))),
    h("section", { id: "creator-earnings", "aria-labelledby": "ce-h" },
      h("h3", { id: "ce-h" }, t("creatorEarnings")),
      table([t("season"), t("paid"), t("pending")], data.earnings.map((e) => [
        e.season ?? t("creatorNoSeason"),
        h("span", { class: "earned-paid", "data-wei": wei(e.paid) }, dew(wei(e.paid))),
        h("span", { class: "earned-pending", "data-wei": wei(e.pending) }, dew(wei(e.pending))),
      ]))),
  );
}
