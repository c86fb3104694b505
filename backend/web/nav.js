// The header's navigation: the player's screens, the owner's tools under one "Scholarships"
// entry, and the tools of a role (screener, center host) only for a wallet that holds it. On
// a phone the list sits behind one menu button (style.css); a group opens as a disclosure.
// Both close with Escape (focus back on their button), on a click elsewhere, or on a new route.

import { ApiError } from "./api.js";
import { addWords, fill, t } from "./i18n.js";

addWords({
  navPlay: ["Jugar", "Play"],
  // The care screens (care.js and views/: limits, standing, support, moderation) and the
  // status bar's link to why a door is closed.
  seeWhy: ["Ver por qué", "See why"],
  navLimits: ["Límites y pausas", "Limits and breaks"],
  navStanding: ["Mi cuenta y apelaciones", "My account and appeals"],
  navSupport: ["Ayuda con un pago o partida", "Help with a payout or match"],
  navModeration: ["Moderación", "Moderation"],
  navMenu: ["Menú", "Menu"],
  navScholarships: ["Becas", "Scholarships"],
  navScreeningApply: ["Revisión de dueños", "Owner screening"],
  navMore: ["Más", "More"],
  navTools: ["Herramientas", "Tools"],
  navScreeningQueue: ["Solicitudes por revisar", "Applications to review"],
  navMyCenter: ["Mi centro: {name}", "My center: {name}"],
  settings: ["Ajustes", "Settings"],
  friends: ["Amigos", "Friends"],
});

// What a wallet may do beyond playing, read once per address from the routes that enforce it:
// the screening queue answers only a screener (403 otherwise, 503 without a chain), the
// moderators' routes the operator and the wallets it granted the role (403 not_moderator
// otherwise), and a center's page names its host.
const roleCache = new Map();

async function answers(api, path) {
  try {
    await api.request("GET", path);
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

async function hostedCenters(api) {
  try {
    const centers = await api.request("GET", "/centers?limit=100");
    const me = api.address.toLowerCase();
    return centers.filter((c) => String(c.host || "").toLowerCase() === me);
  } catch (error) {
    if (error instanceof ApiError) return [];
    throw error;
  }
}

const NO_ROLES = { screener: false, moderator: false, centers: [] };

/** The role tools of the signed-in wallet: `{screener, moderator, centers: [...]}` (none for a guest). */
export function rolesOf(api) {
  if (!api.address || api.guest) return Promise.resolve(NO_ROLES);
  const key = api.address.toLowerCase();
  if (!roleCache.has(key)) {
    roleCache.set(key, Promise.all([
      answers(api, "/economy/screening/queue?limit=1"),
      answers(api, "/care/moderation/sanctions?appealed=true&limit=1"),
      hostedCenters(api),
    ])
      .then(([screener, moderator, centers]) => ({ screener, moderator, centers }))
      .catch(() => { roleCache.delete(key); return NO_ROLES; }));
  }
  return roleCache.get(key);
}

// Every open disclosure (the phone's menu, a group): closed by closeAll().
const openers = new Set();

function disclosure(h, { id, label, panel, className }) {
  const button = h("button", {
    type: "button", id, class: className, "aria-expanded": "false", "aria-controls": panel.id,
  }, label);
  const set = (open) => {
    button.setAttribute("aria-expanded", String(open));
    panel.hidden = !open;
    if (open) openers.add(close); else openers.delete(close);
  };
  const close = (focus = false) => {
    set(false);
    if (focus) button.focus();
  };
  close.owns = (node) => button.contains(node) || panel.contains(node);
  close.button = button;
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    set(button.getAttribute("aria-expanded") !== "true");
  });
  set(false);
  return button;
}

function closeAll(except = null) {
  for (const close of [...openers]) if (close !== except) close();
}

function group(h, id, label, links) {
  const list = h("ul", { id: `${id}-list`, class: "nav-group-list" }, links.map((a) => h("li", {}, a)));
  const button = disclosure(h, { id, label: `${label} ▾`, panel: list, className: "nav-group" });
  return h("div", { class: "nav-group-box" }, button, list);
}

/** Draw the navigation into `nav` (the list) and `menuButton`'s place; roles fill in later. */
export function drawNav(h, api, nav) {
  const link = (hash, id, key) => h("a", { href: hash, id }, t(key));
  const roleBox = h("div", { class: "nav-roles" });
  nav.replaceChildren(
    link("#/lobby", "nav-play", "navPlay"),
    link("#/wallet", "nav-wallet", "wallet"),
    link("#/shop", "nav-shop", "shop"),
    link("#/market", "nav-market", "market"),
    link("#/seasons", "nav-seasons", "seasons"),
    link("#/competitions", "nav-competitions", "competitions"),
    link("#/help", "nav-help", "help"),
    group(h, "nav-scholarships", t("navScholarships"), [
      link("#/dashboard", "nav-dashboard", "dashboard"),
      link("#/screening", "nav-screening", "navScreeningApply"),
    ]),
    group(h, "nav-more", t("navMore"), [
      link("#/friends", "nav-friends", "friends"),
      link("#/history", "nav-history", "history"),
      link("#/centers", "nav-centers", "centers"),
      link("#/creator", "nav-creator", "creator"),
      link("#/settings", "nav-settings", "settings"),
      link("#/limits", "nav-limits", "navLimits"),
      link("#/standing", "nav-standing", "navStanding"),
      link("#/support", "nav-support", "navSupport"),
    ]),
    roleBox,
  );
  const drawnFor = api.address;
  rolesOf(api).then(({ screener, moderator, centers }) => {
    if (api.address !== drawnFor || !roleBox.isConnected) return;
    const tools = [];
    if (screener) tools.push(link("#/screening", "nav-screening-queue", "navScreeningQueue"));
    if (moderator) tools.push(link("#/moderation", "nav-moderation", "navModeration"));
    for (const c of centers) {
      tools.push(h("a", { href: `#/centers/${c.center_id}`, class: "nav-my-center" },
        fill(t("navMyCenter"), { name: c.name })));
    }
    roleBox.replaceChildren(tools.length ? group(h, "nav-tools", t("navTools"), tools) : "");
  });
}

/** The phone's menu button over `panel` (the nav and the account); wired once at start. */
export function menuButton(h, panel) {
  const button = disclosure(h, { id: "menu-button", label: "☰", panel, className: "menu-button" });
  button.setAttribute("aria-label", t("navMenu"));
  return button;
}

/** Relabel the menu button (after a change of language). */
export function relabelMenu(button) {
  button.setAttribute("aria-label", t("navMenu"));
}

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !openers.size) return;
  // The innermost open disclosure around the focus closes first; else every one.
  const inside = [...openers].filter((close) => close.owns(document.activeElement));
  const close = inside.find((c) => c.button.id !== "menu-button") ?? inside[0];
  if (close) close(true); else closeAll();
});
document.addEventListener("click", (event) => {
  for (const close of [...openers]) {
    // A link followed closes everything; a click elsewhere closes what it is outside of.
    if (event.target.closest?.("a") || !close.owns(event.target)) close();
  }
});
window.addEventListener("hashchange", () => closeAll());
