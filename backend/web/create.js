// The create-table and matchmaking forms: every option of the chosen preset (GET /presets),
// the bot level per seat, the stake and the turn timer within the server's bounds
// (GET /tables/limits). A choice is offered only while its requirement holds; premium choices
// are marked, and the server refuses them without a VIP pass.

import { ApiError } from "./api.js";
import { t } from "./i18n.js";
import { kindName, optionHelp, optionName, optionValue, presetName } from "./rulewords.js";
import { errorSentence } from "./ui.js";

const DEW_DECIMALS = 18n;

// "12.5" DEW -> "12500000000000000000" wei, as a decimal string (JSON numbers lose digits).
export function dewToWei(text) {
  const value = String(text || "").trim();
  if (!value) return "0";
  if (!/^\d{1,12}(\.\d{1,18})?$/.test(value)) throw new Error(t("badStake"));
  const [whole, fraction = ""] = value.split(".");
  return (BigInt(whole) * 10n ** DEW_DECIMALS + BigInt(fraction.padEnd(18, "0"))).toString();
}

// replaceChildren() would write "null" for a part left out.
const present = (...nodes) => nodes.filter((node) => node !== null && node !== undefined);

// The option's value as the server spells it (selects hold text).
const typed = (spec, text) => spec.choices.find((c) => String(c) === text) ?? spec.default;

// Choices of ``spec`` whose requirements hold under ``chosen``.
export function offered(spec, chosen) {
  return spec.choices.filter((choice) => (spec.requires || []).every(
    (need) => !need.choices.some((c) => c === choice) || chosen[need.option] === need.value,
  ));
}

// The options fieldset of one preset; ``read()`` gives the chosen options.
function optionsFieldset(h, preset, chosen) {
  const box = h("fieldset", { class: "rule-options" });
  const note = h("p", { class: "premium-note", "aria-live": "polite" });
  function render() {
    const rows = preset.option_specs.map((spec) => {
      const choices = offered(spec, chosen);
      if (!choices.some((c) => c === chosen[spec.name])) chosen[spec.name] = spec.default;
      const id = `opt-${preset.preset}-${spec.name}`;
      const select = h("select", {
        id, name: `option:${spec.name}`, "data-option": spec.name,
        onchange: (event) => { chosen[spec.name] = typed(spec, event.target.value); render(); },
      }, choices.map((c) => {
        const premium = (spec.premium || []).some((p) => p === c);
        return h("option", {
          value: String(c), selected: c === chosen[spec.name], "data-premium": premium ? "true" : null,
        }, `${optionValue(spec.name, c)}${premium ? ` ★ ${t("vipOnly")}` : ""}`);
      }));
      const held = spec.requires || [];
      const helpId = `${id}-help`;
      select.setAttribute("aria-describedby", helpId);
      return h("div", { class: "rule-option" },
        h("label", { for: id }, optionName(spec.name)), " ", select,
        h("p", { class: "hint", id: helpId }, optionHelp(spec.name),
          held.map((need) => h("span", { class: "requires" },
            ` ${t("onlyWith").replace("{choices}", need.choices.map((c) => optionValue(spec.name, c)).join(", "))
              .replace("{option}", optionName(need.option))
              .replace("{value}", optionValue(need.option, need.value))}`))));
    });
    const premium = preset.option_specs.filter((spec) => (spec.premium || []).some((p) => p === chosen[spec.name]));
    note.textContent = premium.length
      ? t("premiumWhy").replace("{options}", premium.map((s) => optionName(s.name)).join(", "))
      : "";
    box.dataset.premium = premium.length ? "true" : "false";
    box.replaceChildren(h("legend", {}, t("ruleOptions")), ...rows, note);
  }
  render();
  return { box, read: () => ({ ...chosen }) };
}

function botLevelsFieldset(h, limits, seats, kind) {
  if (kind === "same_device") return { box: h("div"), read: () => null };
  const first = kind === "ai" ? 0 : 1;  // seat 0 is the creator's, except bots-only
  const levels = [];
  const rows = [];
  for (let seat = 0; seat < seats; seat += 1) {
    levels.push("medium");
    if (seat < first) continue;
    const id = `bot-level-${seat}`;
    rows.push(h("div", { class: "bot-level" },
      h("label", { for: id }, `${t("botLevelSeat")} ${seat}`), " ",
      h("select", { id, name: `bot_level:${seat}`, onchange: (e) => { levels[seat] = e.target.value; } },
        limits.bot_levels.map((level) => h("option", { value: level, selected: level === "medium" },
          t(`level_${level}`))))));
  }
  const box = h("fieldset", { class: "bot-levels" }, h("legend", {}, t("botLevels")), rows);
  // Seats typed but not yet re-rendered: their bots play at the default level.
  return { box, read: (count) => Array.from({ length: count }, (_, seat) => levels[seat] || "medium") };
}

// The create-table form. ``go(tableId)`` opens the new table; ``fail`` reports errors.
export function createForm(h, api, presets, limits, { go, fail, beforeCreate = async () => true }) {
  const state = { preset: presets.find((p) => p.preset === "draw") || presets[0], kind: "practice", chosen: {} };
  const form = h("form", { id: "create-table" });
  const message = h("p", { class: "form-error", role: "alert" });
  let options = null;
  let levels = null;
  const fieldP = (label, input) => h("p", {}, h("label", { for: input.id }, label), " ", input);

  // The picker (avatars.js, with the pictures of board.js) loads when earning play is chosen.
  function avatarSlot() {
    const slot = h("div", { class: "avatar-slot" });
    const onChange = (id) => { state.avatar = id; };
    import("./avatars.js").then((m) => slot.replaceWith(m.avatarPicker(h, api, { selected: state.avatar, onChange })))
      .catch(fail);
    return slot;
  }

  function render() {
    const preset = state.preset;
    const sameDevice = state.kind === "same_device";
    const counts = sameDevice ? [limits.same_device_seats] : preset.seat_counts;
    if (!counts.includes(state.seats)) state.seats = counts.includes(2) ? 2 : counts[0];
    state.chosen[preset.preset] ||= { ...preset.options };
    options = optionsFieldset(h, preset, state.chosen[preset.preset]);
    levels = botLevelsFieldset(h, limits, state.seats, state.kind);
    // A guest (no wallet) plays free only: the server refuses the rest, the form offers none.
    const earningAllowed = !api.guest && (state.kind === "human" || state.kind === "practice");
    if (!earningAllowed) state.earning = false;
    const stakeAllowed = state.kind === "human" && state.earning;
    const timerMin = state.earning ? limits.min_earning_turn_timeout_s : limits.min_turn_timeout_s;
    const timer = h("input", {
      id: "turn-timer", name: "turn_timeout_s", type: "number", step: "any",
      min: timerMin, max: limits.max_turn_timeout_s,
      value: state.timer ?? Math.max(limits.default_turn_timeout_s, timerMin),
      onchange: (e) => { state.timer = e.target.value; },
    });
    form.replaceChildren(...present(
      h("h2", {}, t("createTable")),
      fieldP(t("preset"), h("select", {
        id: "create-preset", name: "preset",
        onchange: (e) => { state.preset = presets.find((p) => p.preset === e.target.value); render(); },
      }, presets.map((p) => h("option", { value: p.preset, selected: p === preset }, presetName(p.preset, p.title))))),
      fieldP(t("kind"), h("select", {
        id: "create-kind", name: "kind", onchange: (e) => { state.kind = e.target.value; render(); },
      }, limits.kinds.map((k) => h("option", { value: k, selected: k === state.kind }, kindName(k))))),
      sameDevice ? h("p", { class: "hint", id: "same-device-hint" }, t("sameDeviceHint")) : null,
      fieldP(t("seats"), h("input", {
        id: "create-seats", name: "seats", type: "number", required: true, readonly: sameDevice,
        min: Math.min(...counts), max: Math.max(...counts), value: state.seats,
        oninput: (e) => { state.seats = Number(e.target.value); },
        onchange: () => render(),  // the bot-level rows follow the seat count
      })),
      options.box,
      levels.box,
      fieldP(`${t("turnTimer")} (${timerMin}–${limits.max_turn_timeout_s} s)`, timer),
      fieldP(t("visibility"), h("select", { id: "create-visibility", name: "visibility" },
        [["public", t("public")], ["private", t("private")]].map(([v, l]) => h("option", { value: v }, l)))),
      fieldP(t("invite"), h("input", { id: "create-invite", name: "invite", type: "text", size: 30 })),
      earningAllowed ? fieldP(t("earning"), h("input", {
        id: "create-earning", name: "earning", type: "checkbox", checked: Boolean(state.earning),
        onchange: (e) => { state.earning = e.target.checked; render(); },
      })) : null,
      stakeAllowed ? fieldP(`${t("stake")} (DEW)`, h("input", {
        id: "create-stake", name: "stake", type: "text", inputmode: "decimal", placeholder: "0",
        value: state.stake ?? "", onchange: (e) => { state.stake = e.target.value; },
      })) : null,
      // Earning play: one of the wallet's avatars (owned or rented), picked, never typed.
      state.earning ? avatarSlot() : null,
      h("button", { type: "submit", disabled: !api.token }, t("create")),
      message,
    ));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const data = new FormData(form);
    try {
      const body = {
        preset: state.preset.preset,
        kind: state.kind,
        seats: Number(data.get("seats") || state.seats),
        options: options.read(),
        visibility: data.get("visibility"),
        earning: Boolean(state.earning),
        invite: String(data.get("invite") || "").split(",").map((s) => s.trim()).filter(Boolean),
      };
      const levelsRead = levels.read(body.seats);
      if (levelsRead) body.bot_levels = levelsRead;
      if (data.get("turn_timeout_s")) body.turn_timeout_s = Number(data.get("turn_timeout_s"));
      if (data.get("stake")) body.stake = dewToWei(data.get("stake"));
      if (data.get("avatar_id")) body.avatar_id = Number(data.get("avatar_id"));
      if (!(await beforeCreate(body))) return; // app.js: the terms gate of earning/staked tables
      const created = await api.call("create_table", {}, body);
      go(created.id);
    } catch (error) {
      if (error instanceof ApiError && error.code === "vip_required") message.textContent = t("vipRequiredWhy");
      else message.textContent = await errorSentence(error);
      fail(error);
    }
  });
  render();
  return form;
}

// A table's fees (the `fees` field of a table summary, when the server sends it): the rake and
// how it is split. Without the field: "—".
export function feesText(tbl) {
  const fees = tbl?.fees;
  if (!fees || fees.rake_bps === undefined) return "";
  const pct = (bps) => String((Number(bps) || 0) / 100);
  return `${t("feeRake").replace("{rake}", pct(fees.rake_bps))} (${t("feeLegs")
    .replace("{treasury}", pct(fees.treasury_bps)).replace("{center}", pct(fees.center_bps))
    .replace("{creator}", pct(fees.creator_bps))})`;
}

export function feesCell(h, tbl) {
  const text = feesText(tbl);
  return h("span", { class: "fees", "data-rake-bps": tbl?.fees?.rake_bps ?? null }, text || t("feesNone"));
}

// The matchmaking form's fields: the preset, its options and a stake. ``readQueue(form)``
// gives the ticket's body; the lobby's own submit handler waits for the table.
export function queueFields(h, presets, form, guest = false) {
  const state = { preset: presets.find((p) => p.preset === "dew200") || presets[0], earning: false, seats: 4 };
  const holder = h("div", { class: "queue-fields" });
  // The table size: one radio button per size the mode has (DEW Mode 1: 2, 3 or 4 players).
  function seatsFieldset() {
    const counts = state.preset.seat_counts || [4];
    if (!counts.includes(state.seats)) state.seats = counts.includes(4) ? 4 : counts[counts.length - 1];
    return h("fieldset", { id: "queue-seats", class: "seat-choice" }, h("legend", {}, t("seatsPick")),
      counts.map((n) => h("label", { for: `queue-seats-${n}` }, h("input", {
        type: "radio", id: `queue-seats-${n}`, name: "seats", value: String(n), checked: n === state.seats,
        onchange: () => { state.seats = n; },
      }), ` ${n}`)));
  }
  function render() {
    const options = optionsFieldset(h, state.preset, { ...state.preset.options });
    form.queueOptions = options;
    holder.replaceChildren(...present(
      h("p", {}, h("label", { for: "queue-preset" }, t("preset")), " ", h("select", {
        id: "queue-preset", name: "preset",
        onchange: (e) => { state.preset = presets.find((p) => p.preset === e.target.value); render(); },
      }, presets.map((p) => h("option", { value: p.preset, selected: p === state.preset },
        presetName(p.preset, p.title))))),
      seatsFieldset(),
      options.box,
      guest ? null : h("p", {}, h("label", { for: "queue-earning" }, t("earning")), " ", h("input", {
        id: "queue-earning", name: "earning", type: "checkbox", checked: state.earning,
        onchange: (e) => { state.earning = e.target.checked; render(); },
      })),
      state.earning ? h("p", {}, h("label", { for: "queue-stake" }, `${t("stake")} (DEW)`), " ",
        h("input", { id: "queue-stake", name: "stake", type: "text", inputmode: "decimal", placeholder: "0" })) : null,
    ));
  }
  render();
  return holder;
}

export function readQueue(form) {
  const data = new FormData(form);
  const body = { preset: data.get("preset"), options: form.queueOptions.read(), earning: data.get("earning") === "on" };
  if (data.get("stake")) body.stake = dewToWei(data.get("stake"));
  if (data.get("seats")) body.seats = Number(data.get("seats"));
  return body;
}
