// Table talk: the chat bar at a table (quick-chat phrases, emotes, mute per seat) and the
// dialog that reports a player. Phrases and emotes are ids of the protocol's catalogue; the
// words are each player's language (i18n.js). Spectators read the talk and cannot talk.

import { REPORT_REASONS, TALK_EMOTES, TALK_PHRASES } from "./protocol.js";

const EMOJI = {
  smile: "🙂", laugh: "😂", wow: "😮", thumbs_up: "👍", clap: "👏", sad: "😢", angry: "😠", think: "🤔",
};
const KEPT = 50; // lines of the log kept on the page

const short = (address) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/**
 * The dialog that reports a player (a table mate, or a friend's private message): a reason of
 * the protocol's list and an optional note, given to ``send(body)``; `heading` names whom.
 */
export function reportDialog({ h, t, say, fail, heading, send }) {
  const reason = h("select", { name: "reason", id: "report-reason", required: true },
    REPORT_REASONS.map((r) => h("option", { value: r }, t(`reason_${r}`))));
  const note = h("textarea", { name: "note", id: "report-note", maxlength: "280", rows: "3" });
  const dialog = h("dialog", { id: "report-dialog", "aria-labelledby": "report-h" });
  const close = () => { dialog.close(); dialog.remove(); };
  const submit = async (event) => {
    event.preventDefault();
    const body = { reason: reason.value };
    if (note.value.trim()) body.note = note.value.trim();
    try {
      await send(body);
      close();
      say(t("reportSent"));
    } catch (error) {
      close();
      fail(error);
    }
  };
  dialog.append(h("form", { method: "dialog", onsubmit: submit },
    h("h3", { id: "report-h" }, heading),
    h("p", {}, h("label", { for: "report-reason" }, t("reportReason")), " ", reason),
    h("p", {}, h("label", { for: "report-note" }, t("reportNote")), h("br"), note),
    h("p", {}, h("button", { type: "submit", id: "report-send" }, t("reportSend")), " ",
      h("button", { type: "button", onclick: close }, t("cancel")))));
  document.body.append(dialog);
  dialog.showModal();
}

/**
 * The talk of one table's socket. ``receive`` gets every socket message; ``element(state)``
 * is the bar for the table's current state (seats, your seat), redrawn with the table.
 */
export function talkBar({ h, t, api, socket, tableId, say, fail }) {
  const muted = new Set();
  const log = h("ul", { id: "talk-log", "aria-live": "polite" });
  let seats = [];
  let you = null;

  const seatLabel = (seat) => {
    const s = seats.find((x) => x.seat === seat);
    const who = s?.address ? short(s.address) : "";
    return `${t("seat")} ${seat}${who ? ` (${who})` : ""}${seat === you ? ` · ${t("you")}` : ""}`;
  };

  function heard(message) {
    const words = message.phrase ? t(`phrase_${message.phrase}`)
      : message.emote ? (EMOJI[message.emote] ?? message.emote) : message.text;
    const line = h("li", {
      "data-seat": String(message.seat),
      "data-phrase": message.phrase ?? undefined,
      "data-emote": message.emote ?? undefined,
    }, h("strong", {}, `${seatLabel(message.seat)}: `), words ?? "");
    log.append(line);
    while (log.children.length > KEPT) log.firstElementChild.remove();
  }

  function receive(message) {
    if (message.type === "talk") heard(message);
    else if (message.type === "muted") {
      muted.clear();
      message.seats.forEach((seat) => muted.add(seat));
    } else if (message.type === "snapshot" && muted.size) {
      // A new socket (a reconnect) starts with no mutes: ask for ours again.
      for (const seat of muted) socket.send("mute", { seat, muted: true });
    }
  }

  const talk = (fields) => socket.send("talk", fields);

  const reportSeat = (address) => reportDialog({
    h, t, say, fail, heading: `${t("reportPlayer")} ${short(address)}`,
    send: (body) => api.call("report", {}, { table_id: tableId, address, ...body }),
  });

  function element(state) {
    seats = state.seats || [];
    you = state.you;
    const parts = [h("h3", { id: "talk-h" }, t("talk")), log];
    if (you === null || you === undefined) {
      parts.push(h("p", { class: "talk-note" }, t("talkSpectator")));
    } else {
      parts.push(
        h("div", { id: "phrases", role: "group", "aria-label": t("phrases") },
          TALK_PHRASES.map((p) => h("button", { type: "button", "data-phrase": p, onclick: () => talk({ phrase: p }) },
            t(`phrase_${p}`)))),
        h("div", { id: "emotes", role: "group", "aria-label": t("emotes") },
          TALK_EMOTES.map((e) => h("button", {
            type: "button", "data-emote": e, "aria-label": t(`emote_${e}`), title: t(`emote_${e}`),
            onclick: () => talk({ emote: e }),
          }, EMOJI[e] ?? e))),
      );
    }
    const others = seats.filter((s) => s.address && s.seat !== you);
    const signedIn = api.address && seats.some((s) => s.address === api.address);
    if (others.length) {
      parts.push(h("ul", { id: "talk-seats" }, others.map((s) => {
        const isMuted = muted.has(s.seat);
        const toggle = () => socket.send("mute", { seat: s.seat, muted: !isMuted });
        return h("li", {}, seatLabel(s.seat), " ",
          you !== null && you !== undefined
            ? h("button", { type: "button", class: "mute", "data-seat": String(s.seat), "aria-pressed": String(isMuted),
              onclick: toggle }, isMuted ? t("unmute") : t("mute"))
            : null,
          " ",
          signedIn
            ? h("button", { type: "button", class: "report", "data-address": s.address,
              onclick: () => reportSeat(s.address) }, t("report"))
            : null);
      })));
    }
    return h("section", { id: "talk", "aria-labelledby": "talk-h" }, parts);
  }

  return { receive, element };
}
