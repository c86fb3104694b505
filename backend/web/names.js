// Display names: the one name a wallet or guest shows at tables (GET/PUT /names/me), and the
// names of a table's seats in one request (GET /names?address=...). A Settings screen mounts
// `nameForm`; the table reads `seatNames`. The server checks every rule (length, characters,
// one alphabet, unique however spelled, one change a day) and answers with a code the
// catalogue turns into a sentence.

import { routePath } from "./api.js";
import { addWords, t } from "./i18n.js";

addWords({
  displayName: ["Tu nombre en la mesa", "Your name at the table"],
  displayNameHint: ["De 3 a 20 letras, números y espacios. Puedes cambiarlo una vez al día.",
    "3 to 20 letters, digits and spaces. You can change it once a day."],
  displayNameSave: ["Guardar nombre", "Save name"],
  displayNameSaved: ["Nombre guardado.", "Name saved."],
  displayNameNext: ["Podrás cambiarlo de nuevo el {date}.", "You can change it again on {date}."],
});

const known = new Map();  // address -> name (or null: asked, has none)

/** The names of `addresses` that have one: {address: name}. Asked once per address. */
export async function seatNames(api, addresses) {
  const wanted = [...new Set(addresses.filter(Boolean))].filter((a) => !known.has(a)).slice(0, 8);
  if (wanted.length) {
    const query = new URLSearchParams(wanted.map((a) => ["address", a])).toString();
    const found = await api.request("GET", `${routePath("names")}?${query}`);
    for (const a of wanted) known.set(a, found.names[a] ?? null);
  }
  return Object.fromEntries(addresses.filter((a) => known.get(a)).map((a) => [a, known.get(a)]));
}

/** This wallet's (or guest's) name: {address, name, changed_at, next_change_at}. */
export function myName(api) {
  return api.call("my_name");
}

/** Set or change this player's name; resolves to the same shape as myName. */
export async function setMyName(api, name) {
  const saved = await api.call("set_name", {}, { name });
  known.set(saved.address, saved.name);
  return saved;
}

/** The name form a Settings screen mounts: the current name, saved with its own button. */
export function nameForm(h, api, { say, fail }) {
  const input = h("input", {
    id: "display-name", name: "name", type: "text", maxlength: 20, minlength: 3, autocomplete: "nickname",
    "aria-describedby": "display-name-hint",
  });
  const next = h("p", { id: "display-name-next", class: "hint" });
  const showNext = (at) => {
    next.textContent = at ? t("displayNameNext").replace("{date}", new Date(at).toLocaleString()) : "";
  };
  myName(api).then((x) => { input.value = x.name ?? ""; showNext(x.next_change_at); }).catch(fail);
  const submit = (event) => {
    event.preventDefault();
    setMyName(api, input.value).then((x) => {
      input.value = x.name;
      showNext(x.next_change_at);
      say(t("displayNameSaved"));
    }).catch(fail);
  };
  return h("form", { id: "name-form", onsubmit: submit },
    h("label", { for: "display-name" }, t("displayName")), " ", input,
    h("p", { id: "display-name-hint", class: "hint" }, t("displayNameHint")), next,
    h("button", { type: "submit" }, t("displayNameSave")));
}
