// The DEW web client: wallet sign-in, lobby, table, history with replay checks, and the
// owner/scholar dashboard. Plain ES modules; the protocol comes from protocol.js.

import { ApiError, DewApi } from "./api.js";
import { createForm, feesCell, feesText, queueFields, readQueue } from "./create.js";
import { tableModes } from "./tablemodes.js";
import { currentLang, t, toggleLang } from "./i18n.js";
import { talkBar } from "./talk.js";
import { Wallet, discoverWallets } from "./wallet.js";
import { preloadTerms, termsGate } from "./terms.js";

const api = new DewApi();
const main = document.getElementById("main");
const statusLine = document.getElementById("status");
let wallet = null;
let leaveView = () => {};

// --- tiny DOM helpers (no innerHTML with data) ---------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const short = (address) => (address ? `${address.slice(0, 6)}…${address.slice(-4)}` : "");
const dew = (wei) => {
  const value = BigInt(wei || "0");
  const whole = value / 10n ** 18n;
  const cents = (value % 10n ** 18n) / 10n ** 16n;
  return `${whole}.${String(cents).padStart(2, "0")} DEW`;
};

function show(...nodes) {
  main.replaceChildren(...nodes.filter((node) => node !== null && node !== undefined && node !== false));
}

let sayTimer = null;
function say(text, isError = false) {
  // A note clears itself so the bar never sits over the page's buttons; an error stays.
  clearTimeout(sayTimer);
  if (!isError) sayTimer = setTimeout(() => { statusLine.textContent = ""; statusLine.className = ""; }, 6000);
  statusLine.textContent = text;
  statusLine.title = text;  // one line on screen (style.css); the whole text on hover
  statusLine.className = isError ? "error" : "";
}

function fail(error) {
  console.error(error);
  say(`${t("error")}: ${error instanceof ApiError ? error.message + ` (${error.code})` : error.message}`, true);
}

function field(label, input) {
  const id = `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return h("p", {}, h("label", { for: id }, label), " ", input);
}

function select(name, options, value) {
  const option = ([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label);
  return h("select", { name }, options.map(option));
}

function table(headers, rows, caption) {
  if (!rows.length) return h("p", {}, t("none"));
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cell))))),
  );
}

// --- account ---------------------------------------------------------------------------------

async function connectAndSignIn(candidate) {
  try {
    wallet = new Wallet(candidate.provider, candidate.info);
    await wallet.connect();
    say(t("signingIn"));
    await api.signIn(wallet);
    say(`${t("signedInAs")} ${short(api.address)}`);
    renderAccount();
    route();
  } catch (error) {
    fail(error);
  }
}

async function chooseWallet() {
  const wallets = await discoverWallets();
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
  const wallets = await discoverWallets();
  if (!wallets.length) throw new Error(t("noWallet"));
  wallet = new Wallet(wallets[0].provider, wallets[0].info);
  await wallet.connect();
  return wallet;
}

function renderAccount() {
  const box = document.getElementById("account");
  if (api.address) {
    const signOut = async () => {
      await api.signOut();
      wallet = null;
      renderAccount();
      route();
    };
    box.replaceChildren(
      h("span", { id: "me", "data-address": api.address, title: api.address },
        `${t("signedInAs")} ${short(api.address)}`),
      " ",
      h("button", { type: "button", onclick: signOut }, t("signout")),
    );
  } else {
    box.replaceChildren(h("button", { type: "button", id: "connect", onclick: chooseWallet }, t("connect")));
  }
  document.getElementById("nav").replaceChildren(
    h("a", { href: "#/lobby" }, t("lobby")),
    h("a", { href: "#/history" }, t("history")),
    h("a", { href: "#/dashboard" }, t("dashboard")),
    h("a", { href: "#/wallet", id: "nav-wallet" }, t("wallet")),
    h("a", { href: "#/seasons", id: "nav-seasons" }, t("seasons")),
    h("a", { href: "#/competitions", id: "nav-competitions" }, t("competitions")),
    h("a", { href: "#/help", id: "nav-help" }, t("help")),
    h("a", { href: "#/screening", id: "nav-screening" }, t("screening")),
    h("a", { href: "#/shop", id: "nav-shop" }, t("shop")),
    h("a", { href: "#/market", id: "nav-market" }, t("market")),
    // Game Centers and content creators (centers.js and creator.js).
    h("a", { href: "#/centers", id: "nav-centers" }, t("centers")),
    h("a", { href: "#/creator", id: "nav-creator" }, t("creator")),
  );
  document.getElementById("lang").textContent = currentLang() === "es" ? "EN" : "ES";
}

// --- lobby -----------------------------------------------------------------------------------

async function lobbyView() {
  preloadTerms(api); // terms.js: a seat at an earning or staked table checks it
  const [presets, limits, open, live] = await Promise.all([
    api.call("presets"),
    api.call("table_limits"),
    api.call("lobby", {}, undefined, { status: "open" }),
    api.call("lobby", {}, undefined, { status: "playing" }),
  ]);
  // Every rule option, bot levels, stake and timer: create.js.
  const form = createForm(h, api, presets, limits, {
    go: (id) => { location.hash = `#/table/${id}`; },
    fail,
    beforeCreate: (body) => termsGate(api, { h, say, ensureWallet }, body),
  });
  const queue = h("form", { id: "matchmaking", onsubmit: findMatch }, h("h2", {}, t("matchmaking")));
  queue.append(queueFields(h, presets, queue),
    h("button", { type: "submit", disabled: !api.token }, t("queue")),
    h("output", { name: "ticket", "aria-live": "polite" }));
  const seatsText = (tbl) => `${tbl.seats.length}/${tbl.seat_count}`;
  // What a seat costs and how fast one must play, before anyone sits down.
  const stakeCell = (tbl) => h("span", { class: "stake", "data-wei": tbl.stake },
    BigInt(tbl.stake || "0") > 0n ? dew(tbl.stake) : t("noStake"));
  const earningCell = (tbl) => h("span", { class: "earning-flag", "data-earning": String(tbl.earning) },
    tbl.earning ? t("yes") : t("no"));
  const timerCell = (tbl) => h("span", { class: "turn-timer", "data-seconds": String(tbl.turn_timeout_s) },
    `${tbl.turn_timeout_s} s`);
  const openHeaders = [
    t("table"), t("preset"), t("seats"), t("stake"), t("earningShort"), t("turnTimer"), t("fees"), "",
  ];
  show(
    h("h2", {}, t("lobby")),
    api.token ? null : h("p", { class: "hint" }, t("noAccount")),
    h("section", { "aria-labelledby": "open-h" }, h("h3", { id: "open-h" }, t("openTables")),
      table(openHeaders, open.map((tbl) => [
        h("a", { href: `#/table/${tbl.id}` }, tbl.id.slice(0, 8)), tbl.preset, seatsText(tbl),
        stakeCell(tbl), earningCell(tbl), timerCell(tbl), feesCell(h, tbl),
        h("button", {
          type: "button", class: "join", disabled: !api.token, onclick: () => joinTable(tbl.id, undefined, tbl),
        }, t("join")),
      ]))),
    h("section", { "aria-labelledby": "live-h", id: "live-tables" }, h("h3", { id: "live-h" }, t("liveTables")),
      table([t("table"), t("preset"), t("seats"), ""], live.map((tbl) => [
        tbl.id.slice(0, 8), tbl.preset, tbl.seats.map((s) => (s.address ? short(s.address) : t("bot"))).join(", "),
        h("a", { href: `#/table/${tbl.id}`, class: "watch" }, t("watch")),
      ]))),
    h("div", { class: "columns" }, form, queue),
  );
}

// A seat at a staked table escrows the stake when the match starts: the player says yes
// to the amount, the earning flag and the turn timer first.
function confirmJoin(tbl) {
  if (!tbl || BigInt(tbl.stake || "0") === 0n) return true;
  const fees = feesText(tbl);
  return window.confirm(t("confirmStake")
    .replace("{stake}", dew(tbl.stake))
    .replace("{timer}", String(tbl.turn_timeout_s)) + (fees ? `\n${t("fees")}: ${fees}` : ""));
}

async function joinTable(tableId, inviteCode, tbl) {
  if (!confirmJoin(tbl)) return;
  try {
    if (tbl && !(await termsGate(api, { h, say, ensureWallet }, tbl))) return;
    await api.call("join", { table_id: tableId }, inviteCode ? { invite_code: inviteCode } : {});
    if (location.hash.split("?")[0] === `#/table/${tableId}`) route();
    else location.hash = `#/table/${tableId}`;
  } catch (error) {
    fail(error);
  }
}

async function findMatch(event) {
  event.preventDefault();
  const out = event.target.elements.ticket;
  try {
    const ticket = await api.call("queue", {}, readQueue(event.target));
    let stop = false;
    const cancel = () => { stop = true; return api.call("cancel_ticket", { ticket_id: ticket.id }); };
    const cancelClicked = () => cancel().then(() => { out.textContent = ""; }).catch(fail);
    const cancelButton = h("button", { type: "button", id: "cancel-ticket", onclick: cancelClicked }, t("cancel"));
    out.replaceChildren(t("waiting"), " ", cancelButton);
    // Only this form shows the ticket: leaving the lobby cancels it, or the player would be
    // seated later at a table the page no longer watches (and refused when queueing again).
    leaveView = () => { if (!stop) cancel().catch(() => {}); };
    while (!stop) {
      const now = await api.call("ticket", { ticket_id: ticket.id });
      if (now.table_id) {
        stop = true;
        location.hash = `#/table/${now.table_id}`;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } catch (error) {
    fail(error);
  }
}

// --- the table -------------------------------------------------------------------------------

async function tableView(tableId, query) {
  // The board, the hand and the motion load with the first table, not with the lobby.
  const [{ createBoard }, { handPanel }, { feltEl, tableEffects }] = await Promise.all([
    import("./board.js"), import("./play.js"), import("./felt.js"),
  ]);
  const state = {
    snapshot: null, view: null, ply: 0, final: null, you: null, seats: [], deadline: null, link: "connecting",
    playedFrom: null, handCount: null, scrolled: false,
  };
  const board = createBoard(h);  // kept across redraws: motion needs the tiles where they are
  const root = h("section", { id: "table", "data-table": tableId });
  const modes = tableModes(h, () => draw());  // same-device hand-over, bots-only pacing
  show(root);
  let info = null;
  if (api.token) {
    try {
      info = await api.call("table", { table_id: tableId }, undefined, { invite_code: query.get("invite") });
    } catch (error) {
      fail(error);
    }
  }
  let talk = null;
  const socket = api.openTable(tableId, {
    onState: (link) => {
      state.link = link;
      draw();
    },
    onMessage: modes.pace((message) => {
      talk?.receive(message);
      if (message.type === "snapshot") {
        Object.assign(state, {
          snapshot: message, view: message.view, ply: message.ply, final: message.final, you: message.you,
          seats: message.seats, deadline: message.deadline_ms,
        });
        if (message.match_status === "none" && api.token) {
          api.call("table", { table_id: tableId }, undefined, { invite_code: query.get("invite") })
            .then((x) => { info = x; draw(); }).catch(() => {});
        }
      } else if (message.type === "moved") {
        const before = state.view;
        Object.assign(state, { view: message.view, ply: message.ply, deadline: message.deadline_ms });
        state.snapshot.moves.push([message.seat, message.move, message.actor]);
        draw();
        return tableEffects({ h, root, board, state, seatName }, message, before);
      } else if (message.type === "match_over") {
        state.final = message;
      } else if (message.type === "error") {
        say(`${t("error")}: ${message.error.message} (${message.error.code})`, true);
        if (message.error.code === "stale_ply") socket.send("resync");
      }
      draw();
    }),
  });
  talk = talkBar({ h, t, api, socket, tableId, say, fail });
  const timer = setInterval(() => {
    const el = root.querySelector("#timer");
    if (el && state.deadline) el.textContent = `${Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000))} s`;
  }, 250);
  leaveView = () => {
    clearInterval(timer);
    modes.stop();
    socket.close();
  };

  function play(move, fromRect) {
    state.playedFrom = fromRect ?? null;
    root.querySelectorAll("#hand button, #actions button, #sides button, .end-target").forEach((b) => {
      b.disabled = true;
    });
    socket.move(move, state.ply);
  }

  function seatName(seat) {
    const s = state.seats.find((x) => x.seat === seat);
    if (!s) return `${t("seat")} ${seat}`;
    const who = s.address ? short(s.address) : `${t("bot")} (${s.bot})`;
    return `${t("seat")} ${seat}: ${who}${seat === state.you ? ` (${t("you")})` : ""}`;
  }

  function draw() {
    const view = state.view;
    const status = state.snapshot?.match_status ?? "none";
    const myTurn = !state.final && view && state.you !== null && view.turn === state.you
      && (view.legal_moves || []).length > 0;
    root.dataset.turn = myTurn ? "mine" : "other";
    root.dataset.ply = String(state.ply);
    root.dataset.status = state.final ? "finished" : status;
    root.dataset.hand = view ? String(view.hand_number) : "";
    root.dataset.link = state.link;
    const linkText = state.link === "open" ? t("connected")
      : state.link === "reconnecting" ? t("reconnecting") : state.link;
    const parts = [h("h2", {}, `${t("table")} ${tableId.slice(0, 8)}`), h("p", { class: "link" }, linkText)];
    const seated = info?.seats?.some((s) => s.address === api.address);
    if (info && info.status === "open") {
      const stakeText = BigInt(info.stake || "0") > 0n ? `${t("stake")} ${dew(info.stake)}` : t("noStake");
      parts.push(h("p", {}, `${info.preset} · ${info.seats.length}/${info.seat_count} ${t("seats")} · ${stakeText}`
        + ` · ${info.earning ? t("earning") : ""} · ${t("turnTimer")} ${info.turn_timeout_s} s`));
      const takeSeat = () => joinTable(tableId, query.get("invite"), info);
      if (!seated) parts.push(h("button", { type: "button", id: "take-seat", onclick: takeSeat }, t("join")));
      if (info.creator === api.address) {
        const startBots = () => api.call("start", { table_id: tableId }).then((x) => { info = x; draw(); }).catch(fail);
        parts.push(h("button", { type: "button", id: "start-bots", onclick: startBots }, t("startBots")));
        if (info.invite_link) {
          const href = `#/table/${tableId}?invite=${info.invite_code}`;
          parts.push(h("p", {}, `${t("inviteLink")}: `, h("a", { href, id: "invite-link" }, info.invite_link)));
        }
        const sendInvites = (e) => {
          e.preventDefault();
          const addresses = e.target.elements.addresses.value.split(",").map((s) => s.trim()).filter(Boolean);
          api.call("invite", { table_id: tableId }, { addresses }).then((x) => { info = x; say("OK"); }).catch(fail);
        };
        const invite = h("form", { id: "invite-form", onsubmit: sendInvites },
          field(t("invite"), h("input", { name: "addresses", type: "text", size: 44 })),
          h("button", { type: "submit" }, t("invite").split(" ")[0]));
        parts.push(invite);
      }
      const leave = () => api.call("leave", { table_id: tableId })
        .then(() => { location.hash = "#/lobby"; }).catch(fail);
      if (seated) parts.push(h("button", { type: "button", id: "leave", onclick: leave }, t("leave")));
    }
    if (view) {
      const handView = myTurn ? view : { ...view, legal_moves: [] };
      const hand = state.you !== null && view.hand
        ? modes.guard(state.you, () => handPanel(h, { view: handView, board, play }))
        : h("p", { id: "spectator" }, t("spectator"));
      const redraw = () => draw();
      parts.push(feltEl({ h, state, view, board, seatName, myTurn, hand, redraw }), modes.controls());
    }
    if (state.final) {
      const ranked = [...state.final.result.seats].sort((a, b) => a.placement - b.placement);
      parts.push(h("section", { id: "final", "aria-labelledby": "final-h" }, h("h3", { id: "final-h" }, t("matchOver")),
        table([t("placement"), t("seat"), t("points")],
          ranked.map((r) => [String(r.placement), seatName(r.seat), String(r.points)])),
        h("a", { href: `#/replay/${state.final.match_id}`, id: "replay-link" }, t("replay"))));
    }
    if (state.snapshot) parts.push(talk.element(state));
    root.replaceChildren(...parts.filter(Boolean));
    if (view) board.update(view.line, view.history);
    // On a phone the header is taller than the table's margin: the felt starts at the top.
    if (view && !state.scrolled) {
      state.scrolled = true;
      root.querySelector("#felt")?.scrollIntoView({ block: "start" });
    }
  }
  draw();
}

// --- history and replay ---------------------------------------------------------------------

async function historyView() {
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const rows = await api.call("results", {}, undefined, { address: api.address });
  show(h("h2", {}, t("history")), table([t("replay"), t("placement"), t("points"), ""], rows.map((r) => [
    h("a", { href: `#/replay/${r.match_id}` }, r.match_id.slice(0, 8)),
    String(r.placement), String(r.points), r.won ? t("won") : "",
  ])));
}

async function replayView(matchId) {
  const { verifyRecord, lineSteps } = await import("./replay.js");
  const { createBoard } = await import("./board.js");
  const match = await api.call("match", { match_id: matchId });
  const checks = await verifyRecord(match);
  const allOk = checks.every((c) => c.ok);
  const names = { commitment: t("commitment"), deals: t("deals"), resultHash: t("resultHash"), record: t("replay") };
  const steps = match.record ? match.record.hands.map((hand) => lineSteps(hand)) : [];
  let handIndex = 0;
  let step = 0;
  const line = createBoard(h);
  const caption = h("p", {});
  const board = h("div", { id: "replay-board", "aria-live": "polite" }, caption,
    h("div", { class: "board-row" }, line.el));
  function showStep() {
    const moves = steps[handIndex] || [];
    const current = moves[step - 1];
    caption.textContent = `${t("hand")} ${handIndex + 1}/${steps.length} · ${t("move")} ${step}/${moves.length}`
      + (current ? ` · ${t("seat")} ${current.seat}: ${current.move}` : "");
    line.update(current?.line ?? [], moves.slice(0, step).map((m) => [m.seat, m.move]));
  }
  const move = (delta) => {
    step += delta;
    const moves = steps[handIndex] || [];
    if (step > moves.length && handIndex < steps.length - 1) { handIndex++; step = 0; }
    if (step < 0) { if (handIndex > 0) { handIndex--; step = steps[handIndex].length; } else step = 0; }
    step = Math.min(step, (steps[handIndex] || []).length);
    showStep();
  };
  show(
    h("h2", {}, `${t("replay")} ${matchId.slice(0, 8)}`),
    h("p", { id: "verdict", "data-ok": String(allOk), class: allOk ? "ok" : "error" },
      allOk ? `✔ ${t("verified")}` : `✘ ${t("notVerified")}`),
    h("ul", { id: "checks" }, checks.map((c) => h("li", { "data-check": c.name, "data-ok": String(c.ok) },
      `${c.ok ? "✔" : "✘"} ${names[c.name] ?? c.name}: `, h("code", {}, c.detail)))),
    h("div", { role: "group", "aria-label": t("replay") },
      h("button", { type: "button", onclick: () => move(-1) }, t("prev")), " ",
      h("button", { type: "button", id: "replay-next", onclick: () => move(1) }, t("next"))),
    board,
  );
  showStep();
}

// --- owner / scholar dashboard ----------------------------------------------------------------

function txPanel(result, done) {
  const txLine = (tx) => `${tx.description} → ${short(tx.to)} (${(tx.data.length - 2) / 2} bytes)`;
  const list = h("ol", { class: "txs" }, result.transactions.map((tx) => h("li", {}, txLine(tx))));
  const button = h("button", { type: "button", class: "sign-send", onclick: async () => {
    button.disabled = true;
    try {
      const w = await ensureWallet();
      for (const [i, tx] of result.transactions.entries()) {
        const hash = await w.sendTransaction(tx);
        list.children[i].append(` · ${t("confirmed")} `, h("code", {}, hash));
      }
      box.dataset.done = "true";
      say(t("confirmed"));
      done?.();
    } catch (error) {
      button.disabled = false;
      fail(error);
    }
  } }, t("signSend"));
  const box = h("section", { class: "tx-panel", "data-done": "false" }, h("h3", {}, t("txToSign")), list, button);
  return box;
}

async function dashboardView() {
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const me = api.address;
  let avatars = [];
  let agreements = [];
  let offered = [];
  let earnings = null;
  try {
    [avatars, agreements, offered, earnings] = await Promise.all([
      api.call("owner_avatars", { address: me }),
      api.call("agreements", {}, undefined, { owner: me }),
      api.call("agreements", {}, undefined, { scholar: me }),
      api.call("wallet", { address: me }),
    ]);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) return fail(error);
  }
  const openListings = await api.call("agreements", {}, undefined, { open_listings: true }).catch(() => []);
  const pendingTx = h("div", { id: "pending-tx" });
  const refresh = () => setTimeout(route, 500);
  const offerForm = h("form", { id: "offer-form", onsubmit: async (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const body = {
      owner: me, avatar_id: Number(data.get("avatar_id")), terms: data.get("terms"),
      duration_s: Number(data.get("duration_s")),
    };
    if (data.get("scholar")) body.scholar = String(data.get("scholar")).trim();
    if (body.terms === "fixed_rent") body.rent = String(data.get("rent") || "0");
    else body.owner_bps = Number(data.get("owner_bps"));
    try {
      pendingTx.replaceChildren(txPanel(await api.call("offers", {}, body), refresh));
    } catch (error) {
      fail(error);
    }
  } },
  h("h3", {}, t("offerAvatar")),
  field(t("avatar"), h("input", { name: "avatar_id", type: "number", min: 1, required: true })),
  field(t("scholar"), h("input", { name: "scholar", type: "text", size: 44 })),
  field(t("terms"),
    select("terms", [["rewards_division", t("rewardsDivision")], ["fixed_rent", t("fixedRent")]], "rewards_division")),
  field(t("durationS"), h("input", { name: "duration_s", type: "number", min: 1, value: 3600, required: true })),
  field(t("ownerBps"), h("input", { name: "owner_bps", type: "number", min: 0, max: 10000, value: 3000 })),
  field(t("rent"), h("input", { name: "rent", type: "text", value: "0", pattern: "[0-9]+" })),
  h("button", { type: "submit" }, t("offer")));

  const accept = async (agreement) => {
    try {
      const result = await api.call("accept", { agreement_id: agreement.id }, { scholar: me });
      pendingTx.replaceChildren(txPanel(result, refresh));
    } catch (error) {
      fail(error);
    }
  };
  // The owner withdraws an offer nobody accepted; the scholar ends an active agreement early.
  const endAgreement = async (agreement, route, party) => {
    try {
      const result = await api.call(route, { agreement_id: agreement.id }, { [party]: me });
      pendingTx.replaceChildren(txPanel(result, refresh));
    } catch (error) {
      fail(error);
    }
  };
  const agreementAction = (a) => {
    if (a.owner === me && a.status === "offered") {
      const cancelOffer = () => endAgreement(a, "cancel_offer", "owner");
      return h("button",
        { type: "button", class: "cancel-offer", "data-agreement": a.id, onclick: cancelOffer }, t("cancel"));
    }
    if (a.scholar === me && a.status === "active") {
      const terminate = () => endAgreement(a, "terminate", "scholar");
      return h("button",
        { type: "button", class: "terminate", "data-agreement": a.id, onclick: terminate }, t("terminate"));
    }
    return "";
  };
  const toMe = [...offered, ...openListings.filter((a) => a.owner !== me)].filter((a) => a.status === "offered");
  const terms = (a) => (a.terms === "fixed_rent"
    ? `${t("fixedRent")} ${dew(a.rent)}`
    : `${t("rewardsDivision")} ${a.owner_bps / 100}% / ${(10000 - a.owner_bps - a.manager_bps) / 100}%`);
  const roles = earnings ? Object.entries(earnings.by_role) : [];
  const avatarHeaders = [
    t("avatar"), t("matches"), t("wins"), t("gross"), t("ownerShare"), t("scholarShare"), t("status"),
    t("scholarShare"),
  ];
  const listed = [...agreements, ...offered.filter((a) => a.owner !== me)];
  show(
    h("h2", {}, t("dashboard")),
    h("section", { id: "my-avatars" }, h("h3", {}, t("myAvatars")),
      table(avatarHeaders, avatars.map((a) => [
        `#${a.avatar_id}`, String(a.matches), String(a.wins), dew(a.gross),
        h("span", { "data-owner-share": a.owner_share }, dew(a.owner_share)),
        h("span", { "data-scholar-share": a.scholar_share }, dew(a.scholar_share)),
        a.agreement_status, a.scholar ? short(a.scholar) : "—",
      ]))),
    h("section", { id: "offers-to-me" }, h("h3", {}, t("offers")),
      table(["#", t("avatar"), t("owner"), t("terms"), ""], toMe.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), terms(a),
        h("button", { type: "button", class: "accept", "data-agreement": a.id, onclick: () => accept(a) }, t("accept")),
      ]))),
    h("section", { id: "agreements" }, h("h3", {}, t("agreements")),
      table(["#", t("avatar"), t("owner"), t("scholarShare"), t("terms"), t("status"), ""], listed.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), a.scholar ? short(a.scholar) : "—", terms(a),
        h("span", { "data-agreement-status": a.status }, a.status),
        agreementAction(a),
      ]))),
    h("section", { id: "earnings" }, h("h3", {}, t("earnings")),
      earnings ? h("p", {},
        `${t("earned")} ${dew(earnings.earned)} · ${t("pending")} ${dew(earnings.pending)} · ${t("paid")} `,
        h("span", { id: "paid", "data-wei": earnings.paid }, dew(earnings.paid))) : null,
      table([t("role"), t("pending"), t("paid")],
        roles.map(([role, v]) => [role, dew(v.pending ?? "0"), dew(v.paid ?? "0")]))),
    offerForm,
    pendingTx,
  );
}

// --- wallet: balances, escrow, deposits and withdrawals (money.js) -------------------------

async function walletView() {
  const { walletView: view } = await import("./money.js");
  const onLeave = (fn) => { leaveView = fn; };
  return view(api, { h, show, table, txPanel, dew, short, say, fail, onLeave });
}

// --- seasons, competitions and help (seasons.js, competitions.js, help.js) ----------------

async function screen(load, ...args) {
  const view = await load();
  const onLeave = (fn) => { leaveView = fn; };
  return view(api, { h, show, table, field, dew, short, say, fail, onLeave }, ...args);
}

// --- screening of owners (screening.js) ------------------------------------------------------

async function screeningView() {
  const { screeningView: view } = await import("./screening.js");
  return view(api, { h, show, table, short, say, fail, ensureWallet });
}

// --- markets: the shop, the resale market and avatars (shop.js, market.js, avatar.js) ------

async function marketScreen(load, ...args) {
  const view = await load();
  const onLeave = (fn) => { leaveView = fn; };
  return view(api, { h, show, table, txPanel, dew, short, say, fail, onLeave }, ...args);
}

// --- Game Centers and content creators (centers.js, creator.js) -----------------------------

async function issue20Screen(load, ...args) {
  const view = await load();
  const onLeave = (fn) => { leaveView = fn; };
  const ui = { h, show, table, field, dew, short, say, fail, onLeave, ensureWallet, join: joinTable, refresh: route };
  return view(api, ui, ...args);
}

// --- routing ----------------------------------------------------------------------------------

const ROUTES = [
  [/^#\/table\/([0-9a-f]+)$/, (m, q) => tableView(m[1], q)],
  [/^#\/history$/, () => historyView()],
  [/^#\/replay\/([0-9a-f]+)$/, (m) => replayView(m[1])],
  [/^#\/dashboard$/, () => dashboardView()],
  [/^#\/wallet$/, () => walletView()],
  [/^#\/seasons(?:\/([0-9]+))?$/, (m) => screen(() => import("./seasons.js").then((x) => x.seasonsView), m[1])],
  [/^#\/competitions$/, () => screen(() => import("./competitions.js").then((x) => x.competitionsView))],
  [/^#\/competitions\/([0-9]+)$/,
    (m) => screen(() => import("./competitions.js").then((x) => x.competitionView), m[1])],
  [/^#\/help(?:\/([a-z0-9_]+))?$/, (m) => screen(() => import("./help.js").then((x) => x.helpView), m[1])],
  [/^#\/screening$/, () => screeningView()],
  [/^#\/shop$/, () => marketScreen(() => import("./shop.js").then((x) => x.shopView))],
  [/^#\/market$/, () => marketScreen(() => import("./market.js").then((x) => x.marketView))],
  [/^#\/avatar\/([0-9]+)$/, (m) => marketScreen(() => import("./avatar.js").then((x) => x.avatarView), m[1])],
  [/^#\/centers$/, () => issue20Screen(() => import("./centers.js").then((x) => x.centersView))],
  [/^#\/centers\/([0-9]+)$/, (m) => issue20Screen(() => import("./centers.js").then((x) => x.centerView), m[1])],
  [/^#\/creator$/, (m, q) => issue20Screen(() => import("./creator.js").then((x) => x.creatorView), q)],
  [/^.*$/, () => lobbyView()],
];

async function route() {
  leaveView();
  leaveView = () => {};
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
