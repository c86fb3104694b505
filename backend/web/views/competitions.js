// Competitions: the list of tournaments, one tournament's entry rules, registration (the fee
// comes from the wallet's vault stake balance, as POST /competitions/{id}/register takes it),
// its live bracket (elimination) or Swiss standings, and its results and prizes. The page
// follows the tournament socket /competitions/{id}/ws (docs/competitions.md, section 8): every
// `tournament`, `registration`, `bracket` and `standings` event replaces that part and redraws.
// Loaded on demand by app.js, which passes its helpers in `ui`.

import { dewToWei } from "../create.js";
import { addWords, fill, t } from "../i18n.js";
import { presetName } from "../rulewords.js";

addWords({
  tournaments: ["Torneos", "Tournaments"],
  tier: ["Categoría", "Tier"],
  format: ["Formato", "Format"],
  startsAt: ["Empieza", "Starts"],
  entryFee: ["Inscripción", "Entry fee"],
  tier_campeonato: ["Campeonato", "Campeonato"],
  tier_campeonisimo: ["Campeonísimo", "Campeonísimo"],
  tier_supercampeones: ["Supercampeones", "Supercampeones"],
  format_swiss: ["Suizo", "Swiss"],
  format_elimination: ["Eliminación directa", "Single elimination"],
  t_registering: ["inscripción abierta", "open for entry"],
  t_running: ["en juego", "running"],
  t_finished: ["terminado", "finished"],
  t_cancelled: ["cancelado", "cancelled"],
  entryRules: ["Reglas de entrada", "Entry rules"],
  free: ["gratis", "free"],
  feeFrom: ["se descuenta de tu saldo depositado en la bóveda", "taken from your balance deposited in the vault"],
  prizePool: ["Premios", "Prizes"],
  addedPrize: ["Premio añadido por la temporada", "Prize added by the season"],
  platformFee: ["Comisión sobre inscripciones", "Fee on entry fees"],
  placeShare: ["Puesto {place}: {pct} % del bote", "Place {place}: {pct} % of the pool"],
  eligibility: ["Quién puede entrar", "Who may enter"],
  anyone: ["Cualquier billetera", "Any wallet"],
  needsVip: ["Hace falta el pase VIP", "A VIP pass is needed"],
  needsAvatar: ["Se juega con un avatar NFT (propio o alquilado)", "Played with an NFT avatar (owned or rented)"],
  maxRank: ["Hace falta estar entre los {rank} primeros de la clasificación de la temporada",
    "Only the top {rank} of the season's leaderboard"],
  qualifierOf: ["Solo los clasificados del torneo #{id}", "Only the qualifiers of tournament #{id}"],
  qualifyTop: ["Los {n} primeros se clasifican a la categoría siguiente", "The top {n} qualify for the next tier"],
  entrantsRange: ["Participantes: de {min} a {max}", "Entrants: {min} to {max}"],
  rounds: ["Rondas", "Rounds"],
  round: ["Ronda", "Round"],
  turnTimerS: ["Tiempo por turno: {s} s", "Turn timer: {s} s"],
  register: ["Inscribirme", "Register"],
  registered: ["Inscrito", "Registered"],
  entrants: ["Participantes", "Entrants"],
  bracket: ["Cuadro", "Bracket"],
  standings: ["Clasificación", "Standings"],
  board: ["Mesa", "Board"],
  score: ["Puntos", "Score"],
  tiebreak: ["Desempate", "Tiebreak"],
  prize: ["Premio", "Prize"],
  qualified: ["Clasificado", "Qualified"],
  live: ["en directo", "live"],
  waitingStart: ["El cuadro aparece cuando empieza el torneo.", "The bracket appears when the tournament starts."],
  versus: ["contra", "vs"],
  resultsPrizes: ["Resultados y premios", "Results and prizes"],
  watchGame: ["Ver / jugar", "Watch / play"],
  cancelReason: ["Motivo", "Reason"],
  g_live: ["en juego", "live"],
  g_finished: ["terminada", "finished"],
  g_bye: ["pasa sin jugar", "bye"],
  o_won: ["ganada", "won"],
  o_draw: ["empate", "draw"],
  o_abandoned: ["abandonada", "abandoned"],
  o_bye: ["pasa sin jugar", "bye"],
  socketLive: ["Actualización en directo", "Live updates"],
  socketClosed: ["Actualización detenida", "Live updates stopped"],
  backToList: ["Todos los torneos", "All tournaments"],
  notSignedIn: ["Inicia sesión para inscribirte.", "Sign in to register."],
  closedForEntry: ["La inscripción está cerrada.", "Registration is closed."],
  yourStake: ["Tu saldo depositado en la bóveda", "Your balance deposited in the vault"],
  depositMore: ["Depositar DEW", "Deposit DEW"],
  poolTitle: ["Aportaciones al premio", "Contributions to the prizes"],
  poolTotal: ["Aportado en total", "Contributed in all"],
  poolNone: ["Nadie ha aportado DEW a este torneo todavía.", "Nobody has contributed DEW to this tournament yet."],
  contributeLabel: ["DEW que aportas al premio", "DEW you add to the prizes"],
  contributeHint: [
    "Los DEW van de tu billetera a la bóveda y se reparten con los premios; no se devuelven.",
    "The DEW goes from your wallet to the vault and is paid out with the prizes; it is not returned.",
  ],
  contribute: ["Aportar", "Contribute"],
  contributeSignIn: ["Inicia sesión para aportar DEW al premio.", "Sign in to add DEW to the prizes."],
  contributeBooked: ["Tu aportación ya está en el premio.", "Your contribution is in the prizes."],
});

// The competitions routes give amounts as JSON integers: above 2**53 a browser reads them as
// the nearest double, so an amount is shown to the cent, never more exactly than that.
const wei = (value) => (typeof value === "number" ? BigInt(Math.round(value)).toString() : String(value ?? "0"));

const tr = (prefix, value) => {
  const text = t(`${prefix}${value}`);
  return text === `${prefix}${value}` ? String(value) : text;
};

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

// --- the list --------------------------------------------------------------------------------

export async function competitionsView(api, ui) {
  const { h, show, table, dew } = ui;
  const rows = await api.request("GET", "/competitions");
  show(
    h("h2", {}, t("tournaments")),
    h("div", { class: "wide", id: "tournaments" }, table(
      ["#", t("tournaments"), t("tier"), t("format"), t("preset"), t("entryFee"), t("startsAt"), t("status")],
      rows.map((c) => [
        String(c.id),
        h("a", { href: `#/competitions/${c.id}`, class: "tournament", "data-tournament": c.id }, c.name),
        tr("tier_", c.tier), tr("format_", c.format), presetName(c.preset),
        c.entry_fee ? dew(wei(c.entry_fee)) : t("free"), when(c.starts_at),
        h("span", { "data-status": c.status }, tr("t_", c.status)),
      ]),
    )),
  );
}

// --- one tournament --------------------------------------------------------------------------

function rulesSection(ui, c) {
  const { h, dew } = ui;
  const eligibility = [];
  if (c.requires_vip) eligibility.push(t("needsVip"));
  if (c.requires_avatar) eligibility.push(t("needsAvatar"));
  if (c.max_rank) eligibility.push(fill(t("maxRank"), { rank: c.max_rank }));
  if (c.qualifier_of) eligibility.push(fill(t("qualifierOf"), { id: c.qualifier_of }));
  if (!eligibility.length) eligibility.push(t("anyone"));
  const shares = c.prize_bps.map((bps, i) => fill(t("placeShare"), { place: i + 1, pct: bps / 100 }));
  return h("section", { id: "entry-rules", "aria-labelledby": "rules-h" },
    h("h3", { id: "rules-h" }, t("entryRules")),
    h("p", { id: "entry-fee", "data-wei": wei(c.entry_fee) },
      `${t("entryFee")}: `, c.entry_fee ? `${dew(wei(c.entry_fee))} (${t("feeFrom")})` : t("free")),
    h("p", {}, `${t("eligibility")}:`),
    h("ul", { id: "eligibility" }, eligibility.map((x) => h("li", {}, x))),
    h("p", { id: "format" }, `${t("format")}: ${tr("format_", c.format)} · ${t("preset")}: `,
      h("a", { href: `#/help/${c.preset}` }, presetName(c.preset)),
      ` · ${fill(t("entrantsRange"), { min: c.min_entrants, max: c.max_entrants })}`,
      ` · ${fill(t("turnTimerS"), { s: c.turn_timeout_s })} · ${t("startsAt")}: ${when(c.starts_at)}`),
    h("p", {}, `${t("prizePool")}: ${t("addedPrize")} ${dew(wei(c.added_prize))}`,
      ` · ${t("platformFee")} ${c.fee_bps / 100} %`),
    h("ul", { id: "prize-shares" }, shares.map((x) => h("li", {}, x))),
    c.qualify_top ? h("p", {}, fill(t("qualifyTop"), { n: c.qualify_top })) : null,
  );
}

function entrantName(ui, entrants, number, me) {
  const e = entrants.find((x) => x.number === number);
  if (!e) return number === null || number === undefined ? "—" : `#${number}`;
  const who = e.address ? ui.short(e.address) : `${t("bot")} (${e.bot_level})`;
  return `#${number} ${who}${e.address && e.address === me ? ` (${t("you")})` : ""}`;
}

function bracketSection(ui, state, me) {
  const { h } = ui;
  const rounds = state.bracket || [];
  const name = (n) => entrantName(ui, state.registration || [], n, me);
  const game = (g) => h("div", {
    class: "game", "data-board": g.board, "data-status": g.status, "data-winner": g.winner ?? "",
  },
  h("span", { class: g.winner === g.a && g.winner !== null ? "winner" : "" }, name(g.a)),
  g.b === null || g.b === undefined ? "" : ` ${t("versus")} `,
  g.b === null || g.b === undefined ? "" : h("span", { class: g.winner === g.b ? "winner" : "" }, name(g.b)),
  h("br"),
  h("small", {}, tr("g_", g.status), g.outcome && g.outcome !== g.status ? ` · ${tr("o_", g.outcome)}` : ""),
  g.table_id && g.status === "live"
    ? [" · ", h("a", { href: `#/table/${g.table_id}`, class: "watch-game" }, t("watchGame"))] : "");
  return h("section", { id: "bracket", "aria-labelledby": "bracket-h", "data-rounds": String(rounds.length) },
    h("h3", { id: "bracket-h" }, t("bracket")),
    rounds.length ? h("div", { class: "bracket" }, rounds.map((r) => h("section", { "data-round": r.round },
      h("h4", {}, `${t("round")} ${r.round}`), r.games.map(game))))
      : h("p", {}, t("waitingStart")));
}

function standingsSection(ui, state, me, finished) {
  const { h, table, dew } = ui;
  const rows = state.standings || [];
  const title = finished ? t("resultsPrizes") : t("standings");
  return h("section", { id: finished ? "results" : "standings", "aria-labelledby": "standings-h" },
    h("h3", { id: "standings-h" }, title),
    h("div", { class: "wide" }, table(
      [t("placement"), t("entrants"), t("score"), t("wins"), t("tiebreak"), t("prize"), t("qualified")],
      rows.map((s) => [
        h("span", { class: "place", "data-entrant": s.entrant }, String(s.place)),
        entrantName(ui, state.registration || [], s.entrant, me),
        String(s.score), String(s.wins), String(s.tiebreak),
        h("span", { class: "prize", "data-wei": wei(s.prize) }, dew(wei(s.prize))),
        s.qualified ? t("yes") : "",
      ]),
    )));
}

export async function competitionView(api, ui, id) {
  const { h, show, say, fail, onLeave, field } = ui;
  let detail;
  try {
    detail = await api.request("GET", `/competitions/${id}`);
  } catch (error) {
    // Nothing of the page before stays on screen; the status line says why (app.js's fail).
    show(h("p", {}, h("a", { href: "#/competitions" }, t("backToList"))));
    throw error;
  }
  const { entrants, ...summary } = detail;
  const state = { tournament: summary, registration: entrants, bracket: [], standings: [], link: "connecting" };
  [state.bracket, state.standings, state.pool] = await Promise.all([
    api.request("GET", `/competitions/${id}/bracket`),
    api.request("GET", `/competitions/${id}/standings`),
    api.request("GET", `/competitions/${id}/contributions`),
  ]);
  // The stake balance the entry fee comes from (the wallet page's route).
  const loadMoney = async () => {
    state.money = api.token && state.tournament.entry_fee ? await api.call("money").catch(() => null) : null;
  };
  await loadMoney();
  const root = h("section", { id: "competition", "data-tournament": id });
  show(root);

  async function register(event) {
    event.preventDefault();
    const avatar = new FormData(event.target).get("avatar_id");
    const button = event.target.querySelector("button");
    button.disabled = true;
    try {
      const entry = await api.request("POST", `/competitions/${id}/register`,
        avatar ? { avatar_id: Number(avatar) } : {});
      if (!state.registration.some((e) => e.number === entry.number)) state.registration.push(entry);
      say(`${t("registered")}: #${entry.number}`);
      await loadMoney();
      draw();
    } catch (error) {
      button.disabled = false;
      fail(error);
    }
  }

  // DEW Contribution: the wallet signs an approval and Contributions.contribute; the pool
  // grows once the server has seen them confirmed, so the page asks again until it has.
  const pending = h("div", { id: "contribution-txs" });
  async function contribute(event) {
    event.preventDefault();
    const button = event.target.querySelector("button");
    button.disabled = true;
    try {
      const amount = dewToWei(new FormData(event.target).get("amount"));
      const before = BigInt(state.pool.total);
      const result = await api.request("POST", `/competitions/${id}/contributions`, { amount });
      pending.replaceChildren(ui.txPanel(result, async () => {
        for (let i = 0; i < 60 && BigInt(state.pool.total) <= before; i++) {
          await new Promise((resolve) => { setTimeout(resolve, 1000); });
          state.pool = await api.request("GET", `/competitions/${id}/contributions`);
        }
        pending.replaceChildren();
        say(t("contributeBooked"));
        draw();
      }));
    } catch (error) {
      fail(error);
    } finally {
      button.disabled = false;
    }
  }

  function poolSection(c) {
    const { dew } = ui;
    const rows = state.pool.contributions;
    const open = ["registering", "running"].includes(c.status);
    let form = null;
    if (open && !api.token) form = h("p", { class: "hint" }, t("contributeSignIn"));
    if (open && api.token) {
      form = h("form", { id: "contribute-form", onsubmit: contribute },
        field(t("contributeLabel"), h("input", {
          name: "amount", type: "text", inputmode: "decimal", required: true, pattern: "[0-9]+([.][0-9]+)?",
          "aria-describedby": "contribute-hint",
        })),
        h("p", { id: "contribute-hint", class: "hint" }, t("contributeHint")),
        h("button", { type: "submit" }, t("contribute")));
    }
    return h("section", { id: "pool", "aria-labelledby": "pool-h", "data-total": state.pool.total },
      h("h3", { id: "pool-h" }, t("poolTitle")),
      rows.length
        ? h("ul", {}, rows.map((r) => h("li", { class: "contribution", "data-address": r.contributor },
          `${ui.short(r.contributor)} · ${dew(r.amount)}`)))
        : h("p", {}, t("poolNone")),
      h("p", {}, `${t("poolTotal")}: `, h("strong", { id: "pool-total" }, dew(state.pool.total))),
      form, pending);
  }

  function stakeLine() {
    if (!state.money) return null;
    const { dew } = ui;
    return h("p", {}, `${t("yourStake")}: `,
      h("span", { id: "my-stake", "data-wei": state.money.stake_balance }, dew(state.money.stake_balance)),
      " · ", h("a", { href: "#/wallet" }, t("depositMore")));
  }

  function registerSection(c) {
    const mine = state.registration.find((e) => e.address && e.address === api.address);
    if (mine) {
      return h("p", { id: "my-entry", "data-number": mine.number, class: "ok" }, `${t("registered")}: #${mine.number}`);
    }
    if (c.status !== "registering") return h("p", {}, t("closedForEntry"));
    if (!api.token) return h("p", { class: "hint" }, t("notSignedIn"));
    return h("form", { id: "register-form", onsubmit: register },
      c.requires_avatar ? field(t("avatar"), h("input", { name: "avatar_id", type: "number", min: 1, required: true }))
        : null,
      h("button", { type: "submit" }, t("register")));
  }

  function draw() {
    const c = state.tournament;
    const finished = c.status === "finished";
    root.dataset.status = c.status;
    root.dataset.version = String(c.version);
    root.dataset.link = state.link;
    root.replaceChildren(
      h("p", {}, h("a", { href: "#/competitions" }, t("backToList"))),
      h("h2", {}, `${c.name} · ${tr("tier_", c.tier)}`),
      h("p", {}, h("span", { id: "t-status", "data-status": c.status }, tr("t_", c.status)),
        c.status === "running" ? ` · ${t("round")} ${c.current_round}/${c.rounds_total ?? "?"}` : "",
        c.cancel_reason ? ` · ${t("cancelReason")}: ${c.cancel_reason}` : "",
        " · ", h("small", { id: "live-link" }, state.link === "open" ? t("socketLive") : t("socketClosed"))),
      rulesSection(ui, c),
      registerSection(c),
      stakeLine(),
      poolSection(c),
      h("section", { id: "entrants", "aria-labelledby": "entrants-h", "data-count": String(state.registration.length) },
        h("h3", { id: "entrants-h" }, `${t("entrants")} (${state.registration.length}/${c.max_entrants})`),
        h("ol", {}, state.registration.map((e) => h("li", { "data-number": e.number },
          entrantName(ui, state.registration, e.number, api.address))))),
      c.format === "elimination" ? bracketSection(ui, state, api.address) : null,
      c.format !== "elimination" || finished ? standingsSection(ui, state, api.address, finished) : null,
    );
  }

  // The socket: one per page, reconnected after a drop while the tournament is not over.
  let socket = null;
  let closed = false;
  let retries = 0;
  let timer = null;
  const over = () => ["finished", "cancelled"].includes(state.tournament.status);
  function open() {
    // A signed-in entrant's token claims the entrant's own slots (the server keeps them
    // however many others watch); anyone else watches without one.
    const base = `${api.baseUrl.replace(/^http/, "ws")}/competitions/${id}/ws`;
    socket = new WebSocket(api.token ? `${base}?token=${encodeURIComponent(api.token)}` : base);
    socket.onopen = () => { retries = 0; state.link = "open"; draw(); };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "error") return say(`${t("error")}: ${message.error?.message}`, true);
      if (!["tournament", "registration", "bracket", "standings"].includes(message.type)) return;
      if (String(message.tournament_id) !== String(id)) return;
      state[message.type] = message.data;
      draw();
    };
    socket.onclose = (event) => {
      state.link = "closed";
      draw();
      if (closed || over() || [1003, 1008, 4404].includes(event.code)) return;
      // Full (4429): try again later and more slowly (5 s doubling to a minute, spread at
      // random so a crowd of pages does not come back at once) until a slot frees.
      const delay = event.code === 4429
        ? Math.min(60000, 5000 * 2 ** Math.min(retries++, 4)) * (0.5 + Math.random() / 2)
        : Math.min(5000, 250 * 2 ** retries++);
      timer = setTimeout(open, delay);
    };
  }
  onLeave(() => {
    closed = true;
    clearTimeout(timer);
    socket?.close(1000);
  });
  draw();
  if (!over()) open();
}
