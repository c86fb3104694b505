// Game Centers: find a center by place, nearest first from a place the player
// chooses (one of the centers' own cities, or coordinates typed in), a center's page with its
// open tables to join and its Campeonatos, and, for the center's host, opening a table there.
// Loaded on demand by app.js, which passes its helpers in `ui` (`join` is the lobby's join,
// with its stake confirmation and terms gate).

import { addWords, fill, t } from "../i18n.js";
import { presetName } from "../rulewords.js";
import "./competitions.js";  // the tournaments' status words

addWords({
  centersTitle: ["Centros de juego", "Game Centers"],
  findCenter: ["Buscar un centro", "Find a center"],
  place: ["Lugar", "Place"],
  chooseCity: ["Elige una ciudad…", "Choose a city…"],
  latitude: ["Latitud (°)", "Latitude (°)"],
  longitude: ["Longitud (°)", "Longitude (°)"],
  searchNearest: ["Buscar los más cercanos", "Find the nearest"],
  nearestFirst: ["Los más cercanos primero", "Nearest first"],
  centerName: ["Centro", "Center"],
  cityCountry: ["Ciudad", "City"],
  distance: ["Distancia", "Distance"],
  capacity: ["Mesas a la vez", "Tables at once"],
  centerHost: ["Anfitrión", "Host"],
  centerTables: ["Mesas abiertas en el centro", "Open tables at the center"],
  centerCups: ["Campeonatos del centro", "The center's Campeonatos"],
  openAtCenter: ["Abrir una mesa en el centro", "Open a table at the center"],
  openTable: ["Abrir la mesa", "Open the table"],
  rentedBy: ["Alquilado por", "Rented by"],
  noCenters: ["No hay centros con esa búsqueda.", "No centers match that search."],
  allCenters: ["Todos los centros", "All centers"],
  kmAway: ["{km} km", "{km} km"],
  badPlace: ["Elige una ciudad o escribe latitud y longitud.", "Choose a city or type a latitude and a longitude."],
  earningsTitle: ["Lo que gana tu centro", "What your center earns"],
  earnedAll: ["Ganado en total", "Earned in all"],
  paidAll: ["Pagado", "Paid"],
  season: ["Temporada", "Season"],
  noSeason: ["Sin temporada", "No season"],
  matchesHosted: ["Partidas", "Matches"],
  earned: ["Ganado", "Earned"],
  pendingPay: ["Por pagar", "To be paid"],
  failedPay: ["Fallido", "Failed"],
  finishedAt: ["Terminó", "Finished"],
  payState: ["Estado", "State"],
  payTx: ["Transacción", "Transaction"],
  pay_paid: ["pagado", "paid"],
  pay_pending: ["por pagar", "to be paid"],
  pay_failed: ["fallido", "failed"],
  noEarnings: ["Tu centro aún no ha ganado nada: cada partida o campeonato que acoge con comisión suma aquí.",
    "Your center has not earned anything yet: each match or Campeonato it hosts with a fee adds up here."],
});

function resultsTable(ui, rows) {
  const { h, table } = ui;
  if (!rows.length) return h("p", { id: "no-centers" }, t("noCenters"));
  return table(
    [t("centerName"), t("cityCountry"), t("distance"), t("capacity")],
    rows.map((c) => [
      h("a", { href: `#/centers/${c.center_id}`, class: "center", "data-center": c.center_id }, c.name),
      `${c.city} (${c.country})`,
      c.distance_km === null ? "" : h("span", { class: "distance", "data-km": String(c.distance_km) },
        fill(t("kmAway"), { km: c.distance_km.toFixed(1) })),
      String(c.capacity),
    ]),
    t("nearestFirst"),
  );
}

// --- find a center by place -------------------------------------------------------------------

export async function centersView(api, ui) {
  const { h, show, field, say, fail } = ui;
  // The places offered are the centers' own cities (their first center's coordinates).
  const all = await api.request("GET", "/centers?limit=100");
  const cities = new Map();
  for (const c of all) {
    const key = `${c.city} (${c.country})`;
    if (!cities.has(key)) cities.set(key, c);
  }
  const city = h("select", { name: "city" }, h("option", { value: "" }, t("chooseCity")),
    [...cities.keys()].sort().map((key) => h("option", { value: key }, key)));
  const lat = h("input", { name: "lat", type: "number", step: "0.01", min: "-90", max: "90", inputmode: "decimal" });
  const lon = h("input", { name: "lon", type: "number", step: "0.01", min: "-180", max: "180", inputmode: "decimal" });
  city.addEventListener("change", () => {
    const chosen = cities.get(city.value);
    if (chosen) {
      lat.value = String(chosen.lat);
      lon.value = String(chosen.lon);
    }
  });
  const results = h("div", { id: "center-results", class: "wide" }, resultsTable(ui, all));
  const search = async (event) => {
    event.preventDefault();
    if (lat.value === "" || lon.value === "") return say(t("badPlace"), true);
    try {
      const query = new URLSearchParams({ lat: lat.value, lon: lon.value, limit: "20" });
      const found = await api.request("GET", `/centers?${query}`);
      results.replaceChildren(resultsTable(ui, found));
      results.dataset.searched = "true";
      say("");
    } catch (error) {
      fail(error);
    }
  };
  show(
    h("h2", {}, t("centersTitle")),
    h("form", { id: "center-search", onsubmit: search },
      h("h3", {}, t("findCenter")),
      field(t("place"), city), field(t("latitude"), lat), field(t("longitude"), lon),
      h("button", { type: "submit" }, t("searchNearest"))),
    results,
  );
}

// --- one center -------------------------------------------------------------------------------

function hostForm(api, ui, center, presets) {
  const { h, field, fail } = ui;
  const preset = h("select", { name: "preset" },
    presets.map((p) => h("option", { value: p.preset }, presetName(p.preset, p.title))));
  const seats = h("select", { name: "seats" }, ["2", "4"].map((n) => h("option", { value: n }, n)));
  const fitSeats = () => {
    const chosen = presets.find((p) => p.preset === preset.value);
    const allowed = (chosen?.seat_counts ?? [2, 4]).map(String);
    for (const option of seats.options) option.disabled = !allowed.includes(option.value);
    if (!allowed.includes(seats.value)) seats.value = allowed[0];
  };
  preset.addEventListener("change", fitSeats);
  fitSeats();
  const submit = async (event) => {
    event.preventDefault();
    try {
      const body = { preset: preset.value, seats: Number(seats.value) };
      await api.request("POST", `/centers/${center.center_id}/tables`, body);
      ui.refresh();
    } catch (error) {
      fail(error);
    }
  };
  return h("form", { id: "center-open-table", onsubmit: submit },
    h("h3", {}, t("openAtCenter")), field(t("preset"), preset), field(t("seats"), seats),
    h("button", { type: "submit" }, t("openTable")));
}

export async function centerView(api, ui, centerId) {
  const { h, show, table, short, dew } = ui;
  const center = await api.request("GET", `/centers/${centerId}`);
  const isHost = api.address && api.address.toLowerCase() === center.host.toLowerCase();
  const presets = isHost ? await api.request("GET", "/presets") : [];
  const tables = table(
    [t("table"), t("preset"), t("seats"), t("stake"), ""],
    center.tables.map((tbl) => [
      h("a", { href: `#/table/${tbl.id}` }, tbl.id.slice(0, 8)), presetName(tbl.preset),
      `${tbl.seats.length}/${tbl.seat_count}`,
      BigInt(tbl.stake || "0") > 0n ? dew(tbl.stake) : t("noStake"),
      h("button", { type: "button", class: "join", "data-table": tbl.id, disabled: !api.token,
        onclick: () => ui.join(tbl.id, undefined, tbl) }, t("join")),
    ]),
  );
  const cups = table(
    [t("competitions"), t("preset"), t("status")],
    center.tournaments.map((c) => [
      h("a", { href: `#/competitions/${c.id}` }, c.name), presetName(c.preset), t(`t_${c.status}`),
    ]),
  );
  show(
    h("p", {}, h("a", { href: "#/centers" }, t("allCenters"))),
    h("h2", { id: "center-name", "data-center": center.center_id }, center.name),
    h("p", { id: "center-place" }, `${center.city} (${center.country}) · ${center.lat}, ${center.lon}`),
    h("p", {}, `${t("capacity")}: ${center.capacity} · ${t("centerHost")}: `,
      h("code", { title: center.host }, short(center.host)),
      center.renter && center.host === center.renter ? ` (${t("rentedBy")})` : ""),
    h("section", { id: "center-tables", "aria-labelledby": "ct-h" },
      h("h3", { id: "ct-h" }, t("centerTables")), tables),
    h("section", { id: "center-cups", "aria-labelledby": "cc-h" }, h("h3", { id: "cc-h" }, t("centerCups")), cups),
    isHost ? hostForm(api, ui, center, presets) : null,
    isHost ? earningsSection(ui, await api.request("GET", `/centers/${center.center_id}/report`)) : null,
  );
}

/** The host's earnings: the center's share of fees per season, then per match (newest
 * first) with the transaction that paid it (GET /centers/{id}/report). */
function earningsSection(ui, report) {
  const { h, table, dew, short } = ui;
  const body = report.seasons.length
    ? [
      h("p", {}, `${t("earnedAll")}: `,
        h("strong", { id: "center-earned", "data-wei": report.earned }, dew(report.earned)),
        ` · ${t("paidAll")}: `, h("span", { id: "center-paid", "data-wei": report.paid }, dew(report.paid))),
      table(
        [t("season"), t("matchesHosted"), t("earned"), t("paidAll"), t("pendingPay"), t("failedPay")],
        report.seasons.map((s) => [
          s.season ?? t("noSeason"), String(s.matches), dew(s.earned), dew(s.paid), dew(s.pending), dew(s.failed),
        ]),
      ),
      table(
        [t("finishedAt"), t("season"), t("earned"), t("payState"), t("payTx")],
        report.matches.map((m) => [
          new Date(m.finished_at).toLocaleString(), m.season ?? t("noSeason"),
          h("span", { class: "center-leg", "data-match": m.match_id }, dew(m.amount)),
          t(`pay_${m.status}`),
          m.tx_hash ? h("code", { title: m.tx_hash, class: "leg-tx" }, short(m.tx_hash)) : "",
        ]),
      ),
    ]
    : [h("p", { id: "no-earnings" }, t("noEarnings"))];
  return h("section", { id: "center-earnings", "aria-labelledby": "ce-h" },
    h("h3", { id: "ce-h" }, t("earningsTitle")), ...body);
}
