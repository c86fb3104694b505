// Seasons: the schedule (GET /economy/seasons), the leaderboard of the running season, or of the
// one chosen (#/seasons/{id}, GET /economy/seasons/{id}/leaderboard), its reward table (a
// season's `rewards`: place, amount, status reserved|planned|paid|failed|returned and, once
// planned, the wallet or avatar paid, the amount booked and the transaction; a leaderboard row's
// `reward` for its place), and the season's tournaments. Loaded on demand by app.js, which passes its helpers in `ui`.

import { addWords, t } from "../i18n.js";

addWords({
  schedule: ["Calendario", "Schedule"],
  season: ["Temporada", "Season"],
  starts: ["Empieza", "Starts"],
  ends: ["Termina", "Ends"],
  budget: ["Presupuesto de emisión", "Emission budget"],
  emitted: ["Emitido", "Emitted"],
  remaining: ["Queda", "Left"],
  leaderboard: ["Clasificación", "Leaderboard"],
  rank: ["Puesto", "Rank"],
  player: ["Jugador", "Player"],
  s_upcoming: ["próxima", "upcoming"],
  s_running: ["en curso", "running"],
  s_finished: ["terminada", "finished"],
  noSeason: ["No hay ninguna temporada.", "There is no season."],
  seasonRewards: ["Premios de la temporada por puesto", "Season rewards per place"],
  reward: ["Premio", "Reward"],
  share: ["Parte", "Share"],
  leaderboardHelp: ["Ordenada por victorias, luego por puntos de juego; solo jugadores humanos.",
    "By wins, then game points; human players only."],
  seasonTournaments: ["Torneos de la temporada", "The season's tournaments"],
  show: ["Ver", "Show"],
  noRewards: ["Esta temporada no anuncia premios por puesto.", "This season announces no rewards per place."],
  paidTo: ["Pagado a", "Paid to"],
  avatarNo: ["Avatar", "Avatar"],
  booked: ["Importe", "Amount"],
  tx: ["Transacción", "Transaction"],
  r_reserved: ["reservado", "reserved"],
  r_planned: ["en pago", "being paid"],
  r_paid: ["pagado", "paid"],
  r_failed: ["fallido", "failed"],
  r_returned: ["devuelto (nadie llegó)", "returned (nobody reached it)"],
});

const day = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleDateString();
};

/** The season the page shows: the one asked for, else the running one, else the latest started. */
export function chooseSeason(seasons, wanted) {
  if (wanted) return seasons.find((s) => String(s.id) === String(wanted)) ?? null;
  return seasons.find((s) => s.status === "running")
    ?? [...seasons].reverse().find((s) => s.status === "finished")
    ?? seasons[0] ?? null;
}

function rewardsSection(ui, season) {
  const { h, table, dew, short } = ui;
  const rewards = Array.isArray(season.rewards) ? season.rewards : [];
  if (!rewards.length) {
    return h("section", { id: "season-rewards" }, h("h3", {}, t("seasonRewards")), h("p", {}, t("noRewards")));
  }
  const wei = (amount) => (amount === null || amount === undefined ? "—"
    : h("span", { "data-wei": String(amount) }, dew(amount)));
  const payee = (r) => {
    if (r.avatar_id !== null && r.avatar_id !== undefined) {
      return h("span", { "data-avatar": String(r.avatar_id) }, `${t("avatarNo")} #${r.avatar_id}`);
    }
    if (r.address) return h("span", { "data-address": r.address, title: r.address }, short(r.address));
    return "—";
  };
  const tx = (r) => (r.tx_hash ? h("code", { "data-tx": r.tx_hash, title: r.tx_hash }, short(r.tx_hash)) : "—");
  return h("section", { id: "season-rewards" }, h("h3", {}, t("seasonRewards")),
    h("div", { class: "wide" }, table(
      [t("rank"), t("reward"), t("status"), t("paidTo"), t("booked"), t("tx")],
      rewards.map((r) => [String(r.place), wei(r.amount),
        h("span", { "data-state": r.status }, t(`r_${r.status}`)), payee(r), wei(r.paid), tx(r)]),
    )));
}

export async function seasonsView(api, ui, wanted) {
  const { h, show, table, dew, short } = ui;
  const seasons = await api.request("GET", "/economy/seasons");
  const season = chooseSeason(seasons, wanted);
  const schedule = h("section", { id: "season-schedule", "aria-labelledby": "schedule-h" },
    h("h3", { id: "schedule-h" }, t("schedule")),
    h("div", { class: "wide" }, table(
      [t("season"), t("starts"), t("ends"), t("status"), t("budget"), t("emitted"), t("remaining")],
      seasons.map((s) => [
        h("a", { href: `#/seasons/${s.id}`, "data-season": s.id }, s.name),
        day(s.starts_at), day(s.ends_at), h("span", { "data-status": s.status }, t(`s_${s.status}`)),
        dew(s.emission_budget), dew(s.emitted), dew(s.remaining),
      ]),
    )));
  if (!season) return show(h("h2", {}, t("seasons")), h("p", {}, t("noSeason")), schedule);
  const [rows, tournaments] = await Promise.all([
    api.request("GET", `/economy/seasons/${season.id}/leaderboard?limit=100`),
    api.request("GET", "/competitions").catch(() => []),
  ]);
  const withReward = Array.isArray(season.rewards) && season.rewards.length > 0;
  const headers = [t("rank"), t("player"), t("matches"), t("wins"), t("points"), t("earned"),
    ...(withReward ? [t("reward")] : [])];
  const rewardCell = (r) => (r.reward === null || r.reward === undefined ? "—"
    : h("span", { class: "reward", "data-wei": String(r.reward) }, dew(r.reward)));
  const board = h("div", { class: "wide" }, table(headers, rows.map((r) => [
    String(r.rank),
    h("span", { class: "player", "data-address": r.address, title: r.address },
      short(r.address), r.address === api.address ? ` (${t("you")})` : ""),
    String(r.matches), String(r.wins), String(r.points),
    h("span", { "data-wei": String(r.earned) }, dew(r.earned)),
    ...(withReward ? [rewardCell(r)] : []),
  ])));
  // The player's own row stands out.
  board.querySelectorAll("tbody tr").forEach((tr, i) => { if (rows[i].address === api.address) tr.className = "me"; });
  const mine = tournaments.filter((c) => c.season_id === season.id);
  show(
    h("h2", {}, t("seasons")),
    h("section",
      { id: "season", "data-season": season.id, "data-status": season.status, "aria-labelledby": "season-h" },
      h("h3", { id: "season-h" }, `${season.name} (${t(`s_${season.status}`)})`),
      h("p", {}, `${day(season.starts_at)} – ${day(season.ends_at)} · ${t("budget")} ${dew(season.emission_budget)}`
        + ` · ${t("remaining")} ${dew(season.remaining)}`),
      h("section", { id: "leaderboard", "aria-labelledby": "leaderboard-h", "data-rows": String(rows.length) },
        h("h4", { id: "leaderboard-h" }, t("leaderboard")), h("p", { class: "hint" }, t("leaderboardHelp")), board),
      rewardsSection(ui, season),
      mine.length ? h("section", { id: "season-tournaments" }, h("h4", {}, t("seasonTournaments")),
        h("ul", {}, mine.map((c) => h("li", {}, h("a", { href: `#/competitions/${c.id}` }, c.name))))) : null),
    schedule,
  );
}
