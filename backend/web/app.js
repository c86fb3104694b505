// The DEW web client's frame and router: the header (navigation, account, language), the
// status bar, and one launcher that loads a screen of views/ and calls it as
// `view(api, ui, ...args)`. Every screen lives in views/; the kit is ui.js, HTTP is api.js.

import { DewApi } from "./api.js";
import { currentLang, t, toggleLang } from "./i18n.js";
import { dew, errorSentence, field, h, select, short, table, txPanel } from "./ui.js";
import { drawNav, menuButton, relabelMenu } from "./nav.js";

// What the lobby's first load does not need loads when it is first used: the wallet's
// connection (wallet.js) on a click, the first-game guide (guide.js) with a table.
const walletKit = () => import("./wallet.js");

const api = new DewApi();
const main = document.getElementById("main");
const statusLine = document.getElementById("status");
// The phone's menu button, before the list it opens (the nav; on a wide screen always shown).
const menu = menuButton(h, document.getElementById("nav"));
document.getElementById("nav").before(menu);
let wallet = null;
let leaveView = () => {};
let stopGuide = () => {};

function show(...nodes) {
  main.replaceChildren(...nodes.filter((node) => node !== null && node !== undefined && node !== false));
}

let sayTimer = null;
function clearStatus() {
  clearTimeout(sayTimer);
  statusLine.textContent = "";
  statusLine.className = "";
  delete statusLine.dataset.code;
  statusLine.title = "";
}

// A refusal of the one gate: a link to the screen that says why (a moderator's action, with
// its reason, end and appeal) or what the player set itself (a break, a limit).
const WHY = {
  banned: "#/standing", suspended: "#/standing", muted: "#/standing",
  timed_out: "#/limits", self_excluded: "#/limits", limit_reached: "#/limits",
};

function say(text, isError = false, code = undefined) {
  // A note clears itself so the bar never sits over the page's buttons; an error stays until
  // it is dismissed or the player goes to another screen.
  clearStatus();
  if (!text) return;
  if (!isError) sayTimer = setTimeout(clearStatus, 6000);
  statusLine.title = text;  // one line on screen (style.css); the whole text on hover
  statusLine.className = isError ? "error" : "";
  if (code) statusLine.dataset.code = code;
  const text_ = h("span", { class: "status-text" }, text);
  const dismiss = h("button", {
    type: "button", class: "dismiss", "aria-label": t("close"), title: t("close"), onclick: clearStatus,
  }, "×");
  const why = isError && Object.hasOwn(WHY, code)
    ? h("a", { href: WHY[code], class: "status-why" }, t("seeWhy")) : "";
  statusLine.replaceChildren(text_, why ? " " : "", why, isError ? dismiss : "");
}

function fail(error, renamed = {}) {
  console.error(error);
  errorSentence(error, renamed).then((text) => say(text, true, error?.code));
}

// --- account ---------------------------------------------------------------------------------

async function connectAndSignIn(candidate) {
  try {
    const { Wallet } = await walletKit();
    wallet = new Wallet(candidate.provider, candidate.info);
    await wallet.connect();
    say(t("signingIn"));
    await api.signIn(wallet);
    renderAccount();
    await route();
    say(`${t("signedInAs")} ${short(api.address)}`);
  } catch (error) {
    fail(error);
  }
}

async function chooseWallet() {
  const wallets = await (await walletKit()).discoverWallets();
  if (!wallets.length) return say(t("noWallet"), true);
  if (wallets.length === 1) return connectAndSignIn(wallets[0]);
  const box = document.getElementById("account");
  box.replaceChildren(
    h("span", {}, t("wallets"), ": "),
    ...wallets.map((w) => h("button", { type: "button", onclick: () => connectAndSignIn(w) }, w.info.name)),
  );
}

async function ensureWallet() {
  if (wallet) return wallet;
  const { Wallet, discoverWallets } = await walletKit();
  const wallets = await discoverWallets();
  if (!wallets.length) throw new Error(t("noWallet"));
  wallet = new Wallet(wallets[0].provider, wallets[0].info);
  await wallet.connect();
  return wallet;
}

function renderAccount() {
  const box = document.getElementById("account");
  if (api.guest) {
    box.replaceChildren(
      h("span", { id: "me", "data-guest": "true", class: "me-label" }, t("guestPlayer")),
      " ",
      h("button", { type: "button", id: "connect", onclick: chooseWallet }, t("connect")),
    );
  } else if (api.address) {
    const signOut = async () => {
      await api.signOut();
      wallet = null;
      renderAccount();
      route();
    };
    box.replaceChildren(
      h("span", { id: "me", "data-address": api.address, title: api.address },
        h("span", { class: "me-label" }, t("signedInAs"), " "), short(api.address)),
      " ",
      h("button", { type: "button", onclick: signOut }, t("signout")),
    );
  } else {
    box.replaceChildren(h("button", { type: "button", id: "connect", onclick: chooseWallet }, t("connect")));
  }
  drawNav(h, api, document.getElementById("nav"));
  relabelMenu(menu);
  document.getElementById("lang").textContent = currentLang() === "es" ? "EN" : "ES";
}

// --- the one launcher ------------------------------------------------------------------------

// What every view receives besides `api`: the kit (ui.js) and the frame's services.
const ui = {
  h, short, dew, field, select, table, show, say, fail, ensureWallet,
  txPanel: (result, done) => txPanel(ui, result, done),
  onLeave: (fn) => { leaveView = fn; },
  refresh: () => route(),
  account: () => renderAccount(),
  join: (...args) => import("./views/lobby.js").then((m) => m.joinTable(api, ui, ...args)),
};

/** Load a screen of views/ and draw it: `screen("seasons", "seasonsView", id)`. */
async function screen(file, name, ...args) {
  const module = await import(`./views/${file}.js`);
  return module[name](api, ui, ...args);
}

const ROUTES = [
  [/^#\/table\/([0-9a-f]+)$/, (m, q) => screen("table", "tableView", m[1], q)],
  [/^#\/history$/, () => screen("history", "historyView")],
  [/^#\/replay\/([0-9a-f]+)$/, (m) => screen("history", "replayView", m[1])],
  [/^#\/dashboard$/, () => screen("dashboard", "dashboardView")],
  [/^#\/wallet$/, () => screen("wallet", "walletView")],
  [/^#\/seasons(?:\/([0-9]+))?$/, (m) => screen("seasons", "seasonsView", m[1])],
  [/^#\/competitions$/, () => screen("competitions", "competitionsView")],
  [/^#\/competitions\/([0-9]+)$/, (m) => screen("competitions", "competitionView", m[1])],
  [/^#\/help(?:\/([a-z0-9_]+))?$/, (m) => screen("help", "helpView", m[1])],
  [/^#\/screening$/, () => screen("screening", "screeningView")],
  [/^#\/shop$/, () => screen("shop", "shopView")],
  [/^#\/market$/, () => screen("market", "marketView")],
  [/^#\/avatar\/([0-9]+)$/, (m) => screen("avatar", "avatarView", m[1])],
  [/^#\/centers$/, () => screen("centers", "centersView")],
  [/^#\/centers\/([0-9]+)$/, (m) => screen("centers", "centerView", m[1])],
  [/^#\/creator$/, (m, q) => screen("creator", "creatorView", q)],
  [/^#\/settings$/, () => screen("settings", "settingsView")],
  [/^#\/friends$/, (m, q) => screen("friends", "friendsView", q)],
  [/^#\/friends\/(0x[0-9a-fA-F]{40})$/, (m) => screen("friends", "conversationView", m[1])],
  [/^#\/limits$/, () => screen("limits", "limitsView")],
  [/^#\/standing$/, () => screen("standing", "standingView")],
  [/^#\/support$/, (m, q) => screen("support", "supportView", q)],
  [/^#\/moderation$/, () => screen("moderation", "moderationView")],
  [/^.*$/, () => screen("lobby", "lobbyView")],
];

async function route() {
  leaveView();
  leaveView = () => {};
  stopGuide();
  stopGuide = () => {};
  clearStatus();  // an error belongs to the screen it was made on
  const [path, search] = (location.hash || "#/lobby").split("?");
  const query = new URLSearchParams(search || "");
  main.dataset.ready = "false";
  for (const [pattern, view] of ROUTES) {
    const match = pattern.exec(path);
    if (match) {
      try {
        await view(match, query);
      } catch (error) {
        fail(error);
      }
      break;
    }
  }
  main.dataset.ready = "true";
  main.dataset.view = path.split("/")[1] || "lobby";
  if (main.dataset.view === "table") {
    const { watchFirstGame } = await import("./guide.js");
    stopGuide = watchFirstGame(h, main);
  }
  // The first view is usable from here on: scripts/bench_web.py reads this mark.
  if (!performance.getEntriesByName("dew-interactive").length) performance.mark("dew-interactive");
}

document.getElementById("lang").addEventListener("click", () => {
  toggleLang();
  renderAccount();
  route();
});
window.addEventListener("hashchange", route);
renderAccount();
route();
