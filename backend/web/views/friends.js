// Friends and private messages (seed 000, "Private Messaging"): ask a player by name or
// address, answer requests, remove or block; the tables you are invited to, each a link that
// opens the table; one conversation per friend, a page at a time, with the report of a
// message. Opened as #/friends?table=ID from your table, each friend can be invited to it.
// Loaded on demand by app.js, which passes its helpers in `ui`.

import { ApiError } from "../api.js";
import { addWords, fill, t } from "../i18n.js";
import { presetName } from "../rulewords.js";
import { reportDialog } from "../talk.js";

addWords({
  friendsGuest: ["Los amigos y los mensajes son entre billeteras: conecta la tuya.",
    "Friends and messages are between wallets: connect yours."],
  friendAdd: ["Añadir un amigo", "Add a friend"],
  friendWho: ["Nombre o dirección", "Name or address"],
  friendAsk: ["Enviar solicitud", "Send request"],
  friendAsked: ["Solicitud enviada.", "Request sent."],
  friendNowFriends: ["Ahora sois amigos.", "You are friends now."],
  friendList: ["Tus amigos", "Your friends"],
  friendIncoming: ["Solicitudes para ti", "Requests to you"],
  friendOutgoing: ["Tus solicitudes", "Your requests"],
  friendBlocked: ["Bloqueados", "Blocked"],
  friendAccept: ["Aceptar", "Accept"],
  friendRefuse: ["Rechazar", "Refuse"],
  friendWithdraw: ["Retirar", "Withdraw"],
  friendRemove: ["Quitar", "Remove"],
  friendBlock: ["Bloquear", "Block"],
  friendUnblock: ["Desbloquear", "Unblock"],
  friendBlockSure: ["¿Bloquear a {who}? Ninguno verá ni escribirá al otro.",
    "Block {who}? Neither of you will see or write to the other."],
  friendMessages: ["Mensajes", "Messages"],
  friendInvite: ["Invitar a tu mesa", "Invite to your table"],
  friendInvited: ["Invitación enviada.", "Invitation sent."],
  friendInviteHint: ["Elige a quién invitar a tu mesa.", "Choose whom to invite to your table."],
  friendInvitations: ["Te invitan a jugar", "Invitations to play"],
  friendInvitation: ["{who} te invita a una mesa de {game} ({seats} asientos).",
    "{who} invites you to a table of {game} ({seats} seats)."],
  friendOpenTable: ["Abrir la mesa", "Open the table"],
  friendNone: ["Nadie todavía.", "Nobody yet."],
  chatWith: ["Mensajes con {who}", "Messages with {who}"],
  chatBack: ["Volver a tus amigos", "Back to your friends"],
  chatText: ["Tu mensaje", "Your message"],
  chatSend: ["Enviar", "Send"],
  chatOlder: ["Mensajes anteriores", "Older messages"],
  chatEmpty: ["Aún no hay mensajes.", "No messages yet."],
  chatYou: ["Tú", "You"],
  chatRemoved: ["(mensaje retirado)", "(message removed)"],
  chatReport: ["Denunciar este mensaje", "Report this message"],
});

const MESSAGE_MAX = 500;
const POLL_MS = 4000;

const nameOf = (ui, friend) => friend.name || ui.short(friend.address);
const when = (iso) => new Date(iso).toLocaleString();

function signedOut(api, ui) {
  if (!api.address) return ui.show(ui.h("p", { id: "friends-signed-out" }, t("signInFirst")));
  return ui.show(ui.h("p", { id: "friends-guest" }, t("friendsGuest")));
}

/** Run `act` from `button` (disabled meanwhile), say `done`, then draw the screen again. */
async function acting(ui, button, act, done, again) {
  button.disabled = true;
  try {
    await act();
    if (done) ui.say(t(done));
    await again();
  } catch (error) {
    button.disabled = false;
    ui.fail(error);
  }
}

/** The friends screen: requests, lists, invitations; `query`'s `table` picks a table to invite to. */
export async function friendsView(api, ui, query) {
  const { h, show } = ui;
  if (!api.address || api.guest) return signedOut(api, ui);
  const tableId = query?.get("table") || null;
  const again = () => friendsView(api, ui, query);
  const [circle, invitations] = await Promise.all([api.call("friends"), api.call("invitations")]);

  const button = (key, cls, act, done) => {
    const b = h("button", { type: "button", class: cls }, t(key));
    b.addEventListener("click", () => acting(ui, b, act, done, again));
    return b;
  };
  const block = (friend) => {
    const b = h("button", { type: "button", class: "block" }, t("friendBlock"));
    b.addEventListener("click", () => {
      if (!window.confirm(fill(t("friendBlockSure"), { who: nameOf(ui, friend) }))) return;
      acting(ui, b, () => api.call("friend_block", { address: friend.address }), null, again);
    });
    return b;
  };
  const who = (friend) => h("span", { class: "friend-name", title: friend.address }, nameOf(ui, friend));
  const list = (id, heading, friends, actions) => h("section", { id, "aria-labelledby": `${id}-h` },
    h("h3", { id: `${id}-h` }, t(heading)),
    friends.length
      ? h("ul", { class: "friend-rows" }, friends.map((f) => h("li", { "data-address": f.address },
        who(f), h("span", { class: "friend-actions" }, actions(f)))))
      : h("p", { class: "friend-none" }, t("friendNone")));

  const ask = h("form", { id: "friend-form", onsubmit: async (event) => {
    event.preventDefault();
    const input = event.target.elements.who;
    const sent = event.target.querySelector("button");
    const whom = input.value.trim();
    if (!whom) return input.focus();
    await acting(ui, sent, async () => {
      await api.call("friend_request", {}, { who: whom });
      input.value = "";
    }, "friendAsked", again);
    document.getElementById("friend-who")?.focus();  // the next name, from the keyboard
  } },
  h("h3", {}, t("friendAdd")),
  h("p", {}, h("label", { for: "friend-who" }, t("friendWho")), " ",
    h("input", { id: "friend-who", name: "who", type: "text", maxlength: 42, autocomplete: "off", required: true }),
    " ", h("button", { type: "submit" }, t("friendAsk"))));

  const invitationList = invitations.length ? h("section", { id: "friend-invitations", "aria-labelledby": "fi-h" },
    h("h3", { id: "fi-h" }, t("friendInvitations")),
    h("ul", { class: "friend-rows" }, invitations.map((inv) => h("li", { "data-table": inv.table_id },
      fill(t("friendInvitation"), {
        who: inv.creator_name || ui.short(inv.creator), game: presetName(inv.preset), seats: inv.seat_count,
      }), " ",
      h("a", { href: `#/table/${inv.table_id}`, class: "open-table" }, t("friendOpenTable")))))) : null;

  show(h("section", { id: "friends", "aria-labelledby": "friends-h" },
    h("h2", { id: "friends-h" }, t("friends")),
    tableId ? h("p", { id: "friend-invite-hint", "data-table": tableId }, t("friendInviteHint")) : null,
    invitationList,
    list("friend-incoming", "friendIncoming", circle.incoming, (f) => [
      button("friendAccept", "accept", () => api.call("friend_accept", { address: f.address }), "friendNowFriends"),
      button("friendRefuse", "refuse", () => api.call("friend_refuse", { address: f.address })),
      block(f),
    ]),
    list("friend-list", "friendList", circle.friends, (f) => [
      h("a", { href: `#/friends/${f.address}`, class: "talk-to" }, t("friendMessages")),
      tableId ? button("friendInvite", "invite",
        () => api.call("friend_invite", { address: f.address }, { table_id: tableId }), "friendInvited") : null,
      button("friendRemove", "remove", () => api.call("friend_remove", { address: f.address })),
      block(f),
    ]),
    ask,
    list("friend-outgoing", "friendOutgoing", circle.outgoing, (f) => [
      button("friendWithdraw", "withdraw", () => api.call("friend_remove", { address: f.address })),
    ]),
    circle.blocked.length ? list("friend-blocked", "friendBlocked", circle.blocked, (f) => [
      button("friendUnblock", "unblock", () => api.call("friend_unblock", { address: f.address })),
    ]) : null,
  ));
}

/** One conversation, oldest at the top; new messages come in every few seconds. */
export async function conversationView(api, ui, address) {
  const { h, show } = ui;
  if (!api.address || api.guest) return signedOut(api, ui);
  const circle = await api.call("friends");
  const friend = circle.friends.find((f) => f.address.toLowerCase() === address.toLowerCase())
    ?? { address, name: null };
  const log = h("ol", { id: "chat-log", "aria-live": "polite" });
  const shown = new Set();
  let olderFrom = null;

  const line = (m) => {
    const mine = m.sender.toLowerCase() === api.address.toLowerCase();
    const report = mine || m.body === null ? null : h("button", {
      type: "button", class: "report-message", "aria-label": t("chatReport"), title: t("chatReport"),
      onclick: () => reportDialog({
        h, t, say: ui.say, fail: ui.fail, heading: t("chatReport"),
        send: (body) => api.call("friend_report", { message_id: m.id }, body),
      }),
    }, t("report"));
    return h("li", { "data-id": String(m.id), "data-mine": String(mine), class: mine ? "mine" : "theirs" },
      h("strong", {}, mine ? t("chatYou") : nameOf(ui, friend)), " ",
      h("time", { datetime: m.created_at }, when(m.created_at)), h("br"),
      h("span", { class: "chat-text" }, m.body ?? t("chatRemoved")), " ", report);
  };
  const older = h("button", { type: "button", id: "chat-older", hidden: true }, t("chatOlder"));
  const empty = h("p", { id: "chat-empty" }, t("chatEmpty"));
  /** Add a page (newest first, as the server sends it); `atTop`: an older page. */
  const add = (page, atTop) => {
    const fresh = page.messages.filter((m) => !shown.has(m.id));
    fresh.forEach((m) => shown.add(m.id));
    if (atTop) log.prepend(...fresh.reverse().map(line));
    else log.append(...fresh.reverse().map(line));
    if (atTop || olderFrom === null) {
      olderFrom = page.next_before;
      older.hidden = olderFrom === null;
    }
    empty.hidden = shown.size > 0;
  };
  older.addEventListener("click", async () => {
    try {
      add(await api.call("friend_messages", { address }, undefined, { before: olderFrom }), true);
    } catch (error) {
      ui.fail(error);
    }
  });
  add(await api.call("friend_messages", { address }), false);

  const input = h("input", {
    id: "chat-text", name: "text", type: "text", maxlength: MESSAGE_MAX, autocomplete: "off", required: true,
  });
  const form = h("form", { id: "chat-form", onsubmit: async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return input.focus();
    const send = form.querySelector("button");
    send.disabled = true;
    try {
      const message = await api.call("friend_write", { address }, { text });
      add({ messages: [message], next_before: olderFrom }, false);
      input.value = "";
    } catch (error) {
      ui.fail(error);
    } finally {
      send.disabled = false;
      input.focus();
    }
  } },
  h("label", { for: "chat-text" }, t("chatText")), " ", input, " ", h("button", { type: "submit" }, t("chatSend")));

  // New messages while the conversation is open (the newest page, once every few seconds).
  const timer = setInterval(() => {
    if (!log.isConnected) return clearInterval(timer);
    api.call("friend_messages", { address }, undefined, { limit: 20 })
      .then((page) => add({ messages: page.messages, next_before: olderFrom }, false))
      .catch((error) => { if (!(error instanceof ApiError)) console.error(error); });
  }, POLL_MS);
  ui.onLeave(() => clearInterval(timer));

  show(h("section", { id: "chat", "data-with": address, "aria-labelledby": "chat-h" },
    h("h2", { id: "chat-h" }, fill(t("chatWith"), { who: nameOf(ui, friend) })),
    h("p", {}, h("a", { href: "#/friends", id: "chat-back" }, t("chatBack"))),
    older, empty, log, form));
  input.focus();
}
