// The table: the felt with its seats, the hand, the line of play, talk and the match's end.

import { t } from "../i18n.js";
import "../errors.js";  // a refused move in the catalogue's words
import { errorText } from "../ui.js";
import { tableModes } from "../tablemodes.js";
import { talkBar } from "../talk.js";
import { joinTable } from "./lobby.js";
import { presetName } from "../rulewords.js";
import { turnNotice } from "../notice.js";
import { seatNames } from "../names.js";

// The countdown warns when this little of the turn is left (the larger of the two).
const WARN_S = 5;
const WARN_SHARE = 0.25;

export async function tableView(api, ui, tableId, query) {
  const { h, show, table, field, dew, say, fail } = ui;
  // The table's own record (a seated player's), asked for while the modules below load.
  const infoLoading = api.token
    ? api.call("table", { table_id: tableId }, undefined, { invite_code: query.get("invite") })
      .catch((error) => { fail(error); return null; })
    : null;
  // The board, the hand and the motion load with the first table, not with the lobby.
  const [{ createBoard, setRing }, { handPanel }, { feltEl, tableEffects }] = await Promise.all([
    import("../board.js"), import("../play.js"), import("../felt.js"),
  ]);
  const state = {
    snapshot: null, view: null, ply: 0, final: null, you: null, seats: [], deadline: null, link: "connecting",
    playedFrom: null, handCount: null, scrolled: false, names: {}, autoPlayed: false,
  };
  const board = createBoard(h);  // kept across redraws: motion needs the tiles where they are
  const root = h("section", { id: "table", "data-table": tableId });
  const modes = tableModes(h, () => draw());  // same-device hand-over, bots-only pacing
  show(root);
  // The socket does not wait for the record: a seated player's hand needs only the socket, and
  // the record (an open table's seats, "play again") is drawn when it comes.
  let info = null;
  infoLoading?.then((loaded) => {
    if (!loaded || info) return;  // a later record (asked for by a snapshot) came first
    info = loaded;
    draw();
  });
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
        loadNames();
        if (message.match_status === "none" && api.token) {
          api.call("table", { table_id: tableId }, undefined, { invite_code: query.get("invite") })
            .then((x) => { info = x; draw(); }).catch(() => {});
        }
      } else if (message.type === "moved") {
        const before = state.view;
        Object.assign(state, { view: message.view, ply: message.ply, deadline: message.deadline_ms });
        state.snapshot.moves.push([message.seat, message.move, message.actor]);
        if (message.seat === state.you && state.you !== null) state.autoPlayed = message.actor === "timeout";
        draw();
        return tableEffects({ h, root, board, state, seatName }, message, before);
      } else if (message.type === "match_over") {
        state.final = message;
      } else if (message.type === "error") {
        say(errorText(message.error), true, message.error.code);
        if (message.error.code === "stale_ply") socket.send("resync");
      }
      draw();
    }),
  });
  talk = talkBar({ h, t, api, socket, tableId, say, fail });
  const timer = setInterval(tick, 250);
  // The turn's time left: the seconds in the turn line and the ring on the active seat, both
  // warning once little is left (and the turn line says to hurry when the turn is this player's).
  function tick() {
    const el = root.querySelector("#timer");
    if (!el || !state.deadline || state.final) return;
    const total = Number(state.snapshot?.table?.turn_timeout_s) || 0;
    const left = Math.max(0, (state.deadline - Date.now()) / 1000);
    el.textContent = `${Math.ceil(left)} s`;
    const warn = left <= Math.max(WARN_S, total * WARN_SHARE);
    setRing(root, total ? left / total : 0, warn);
    root.dataset.warn = warn ? "true" : "false";
    const hurry = root.querySelector("#hurry");
    if (hurry) hurry.hidden = !(warn && root.dataset.turn === "mine");
  }
  ui.onLeave(() => {
    turnNotice(false);
    clearInterval(timer);
    modes.stop();
    socket.close();
  });

  function play(move, fromRect) {
    state.playedFrom = fromRect ?? null;
    state.autoPlayed = false;
    root.querySelectorAll("#hand button, #actions button, #sides button, .end-target").forEach((b) => {
      b.disabled = true;
    });
    socket.move(move, state.ply);
  }

  /** The same table again: its mode, options, seats and bots; the other players are invited. */
  async function playAgain(event) {
    event.target.disabled = true;
    const body = {
      preset: info.preset, options: info.options, seats: info.seat_count, kind: info.kind,
      visibility: info.visibility, bot_level: info.bot_level, earning: info.earning,
      turn_timeout_s: info.turn_timeout_s, stake: info.stake, spectators_allowed: info.spectators_allowed,
      spectator_delay_s: info.spectator_delay_s,
      invite: state.seats.map((s) => s.address).filter((a) => a && a !== api.address),
    };
    if (info.bot_levels) body.bot_levels = info.bot_levels;
    try {
      const created = await api.call("create_table", {}, body);
      location.hash = `#/table/${created.id}`;
    } catch (error) {
      event.target.disabled = false;
      fail(error);
    }
  }

  // Names for the seats' wallets and guests, asked once per table's seats; until they come
  // (and for a player without one) a seat is "Player N".
  function loadNames() {
    const addresses = state.seats.map((s) => s.address).filter(Boolean);
    seatNames(api, addresses).then((names) => {
      const changed = Object.entries(names).some(([a, n]) => state.names[a] !== n);
      state.names = { ...state.names, ...names };
      if (changed) draw();
    }).catch(() => {});
  }

  const sameDevice = () => state.snapshot?.table?.kind === "same_device";

  /** A seat's name and address (null for a bot); on one device, Player 1 and Player 2. */
  function who(seat) {
    const s = state.seats.find((x) => x.seat === seat);
    const numbered = `${t("player")} ${seat + 1}`;
    if (!s) return { name: numbered, address: null };
    if (!s.address) {
      const level = t(`level_${s.bot}`).toLowerCase();
      return { name: t("botName").replace("{n}", String(seat + 1)).replace("{level}", level), address: null };
    }
    if (sameDevice()) return { name: numbered, address: null };
    return { name: state.names[s.address] ?? numbered, address: s.address };
  }

  function seatName(seat) {
    const { name } = who(seat);
    return seat === state.you && !sameDevice() ? `${name} (${t("you")})` : name;
  }

  function draw() {
    const view = state.view;
    const status = state.snapshot?.match_status ?? "none";
    const myTurn = !state.final && view && state.you !== null && view.turn === state.you
      && (view.legal_moves || []).length > 0;
    root.dataset.turn = myTurn ? "mine" : "other";
    turnNotice(myTurn);
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
      const mode = presetName(info.preset);
      parts.push(h("p", {}, `${mode} · ${info.seats.length}/${info.seat_count} ${t("seats")} · ${stakeText}`
        + ` · ${info.earning ? t("earning") : ""} · ${t("turnTimer")} ${info.turn_timeout_s} s`));
      const takeSeat = () => joinTable(api, ui, tableId, query.get("invite"), info);
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
        const friendsHref = `#/friends?table=${tableId}`;
        parts.push(h("p", {}, h("a", { href: friendsHref, id: "invite-friends" }, t("inviteFriends"))));
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
      // You at the bottom; a spectator sees seat 0 there, and so does a same-device table
      // (seed 004: Player 1 at the bottom, Player 2 at the top, whoever holds the device).
      const bottom = state.you === null || sameDevice() ? 0 : state.you;
      parts.push(feltEl({ h, state, view, board, seatName, who, bottom, myTurn, hand, redraw }), modes.controls());
    }
    if (state.final) {
      const ranked = [...state.final.result.seats].sort((a, b) => a.placement - b.placement);
      parts.push(h("section", { id: "final", "aria-labelledby": "final-h" }, h("h3", { id: "final-h" }, t("matchOver")),
        table([t("placement"), t("seat"), t("points")],
          ranked.map((r) => [String(r.placement), seatName(r.seat), String(r.points)])),
        h("div", { class: "final-actions" },
          info && api.token
            ? h("button", { type: "button", id: "play-again", class: "big", onclick: playAgain }, t("playAgain"))
            : null,
          h("a", { href: "#/lobby", id: "back-to-lobby" }, t("backToLobby")),
          h("a", { href: `#/replay/${state.final.match_id}`, id: "replay-link" }, t("replay")))));
    }
    if (state.snapshot) parts.push(talk.element(state));
    root.replaceChildren(...parts.filter(Boolean));
    if (view) board.update(view.line, view.history);
    tick();
    // On a phone the header is taller than the table's margin: the felt starts at the top.
    if (view && !state.scrolled) {
      state.scrolled = true;
      root.querySelector("#felt")?.scrollIntoView({ block: "start" });
    }
  }
  draw();
}
