// Help: a glossary (seed 000 lists a "Glossary of Terms" page but keeps only its title, so the
// terms are the ones the seeds use, defined as docs/rules.md and docs/economy.md apply them),
// and a rules page per preset (GET /presets: seats, options, premium choices) with seed 004's
// "Tips for Winning". Spanish and English. Loaded on demand by app.js (`ui` holds its helpers).

import { addWords, currentLang, t } from "../i18n.js";
import { optionHelp, optionName, optionValue, presetName } from "../rulewords.js";

addWords({
  glossary: ["Glosario", "Glossary"],
  rulesOf: ["Reglas", "Rules"],
  tips: ["Consejos para ganar", "Tips for winning"],
  option: ["Opción", "Option"],
  choices: ["Valores", "Values"],
  defaultValue: ["Por defecto", "Default"],
  premium: ["premium (pase VIP)", "premium (VIP pass)"],
  seatCounts: ["Jugadores", "Players"],
  helpVipOnly: ["Modalidad solo con pase VIP", "This game needs a VIP pass"],
  presetsList: ["Reglas de cada modalidad", "Rules of each game"],
  glossaryIntro: ["Términos que usan las reglas y la economía de DEW.", "Terms used by DEW's rules and economy."],
  tipsSource: ["Consejos de los jugadores de robar a dos.", "Tips from players of the two-player draw game."],
  needs: ["solo si", "only with"],
  unknownPreset: ["No existe esa modalidad.", "There is no such game."],
});

// [term, definition] per language, in the seeds' order of appearance.
const GLOSSARY = {
  es: [
    ["Ficha", "Cada una de las 28 piezas del juego doble seis; se escribe con la mitad mayor primero (6:4)."],
    ["Doble", "Ficha con los dos lados iguales (5:5). Se coloca atravesada pero no abre nuevos brazos."],
    ["Pintas (pips)", "Los puntos de una ficha. 6:4 tiene 10 pintas."],
    ["Mano", "Cada reparto hasta que alguien se queda sin fichas o el juego se tranca; también el jugador que sale."],
    ["Salida", "La primera ficha de una mano. En la primera mano sale el doble seis (o el doble más alto)."],
    ["Línea de juego", "La fila de fichas en la mesa, con dos extremos abiertos."],
    ["Extremos abiertos", "Los dos números libres de la línea; en el Modo 1 se cobra si suman un múltiplo de 5."],
    ["Pozo (cementerio)", "Las fichas sin repartir con 2 o 3 jugadores; quien no puede jugar roba de él."],
    ["Pasar", "Ceder el turno cuando no se puede jugar ni robar."],
    ["Dominó", "Quedarse sin fichas: gana la mano."],
    ["Tranque (mano bloqueada)", "Nadie puede jugar y no queda pozo: se cuentan las pintas de cada mano."],
    ["Empate en tranque",
      "Si la menor cuenta de pintas está repetida nadie cobra, y la misma persona sale en la mano siguiente."],
    ["Capicúa", "Dominar con una ficha que cabe en los dos extremos (un punto colectivo)."],
    ["Parejas", "Con cuatro jugadores, los compañeros se sientan enfrente (asientos 0+2 contra 1+3)."],
    ["Avatar NFT", "El personaje con el que se juega en mesas con recompensas; se puede alquilar a un becario."],
    ["Becario", "Quien juega con el avatar de otro dueño según un acuerdo de beca."],
    ["Renta fija", "Beca en la que el becario paga una renta en DEW por adelantado y cobra todo lo que gane."],
    ["División de recompensas",
      "Beca sin renta: lo que gana el avatar se reparte entre dueño y becario según lo pactado."],
    ["Selección de dueños", "Un evaluador aprueba a los dueños que pueden ofrecer avatares."],
    ["Pase VIP", "Da acceso a las opciones premium de las reglas y a torneos VIP."],
    ["Temporada", "Periodo con un presupuesto de emisión de DEW y una clasificación por victorias y puntos."],
    ["Campeonato, Campeonísimo, Supercampeones",
      "Las tres categorías de torneo; los mejores de una se clasifican a la siguiente."],
    ["Bóveda y saldo depositado",
      "El DEW que depositaste para apuestas e inscripciones; lo retenido en juego no se puede retirar."],
  ],
  en: [
    ["Tile", "One of the 28 pieces of the double-six set, written high half first (6:4)."],
    ["Double", "A tile with both halves equal (5:5). It is laid across but opens no new arms."],
    ["Pips (\"pints\")", "The dots on a tile. 6:4 has 10 pips."],
    ["Hand", "One deal, until someone runs out of tiles or the game is blocked; also the player who leads."],
    ["Lead", "The first tile of a hand. In the first hand the double six (or the highest double) leads."],
    ["Line of play", "The row of tiles on the table, with two open ends."],
    ["Open ends", "The two free numbers of the line; in Mode 1 they score when they total a multiple of 5."],
    ["Boneyard (graveyard)", "The tiles not dealt with 2 or 3 players; a player who cannot play draws from it."],
    ["Pass", "Giving up the turn when one can neither play nor draw."],
    ["Domino", "Playing one's last tile: that player wins the hand."],
    ["Blocked hand", "Nobody can play and the boneyard is empty: each hand's pips are counted."],
    ["Tied block", "If the lowest pip count is shared nobody scores, and the same player leads the next hand."],
    ["Capicua", "Dominoing with a tile that fits both ends (a collective point)."],
    ["Partners", "With four players, partners sit across (seats 0+2 against 1+3)."],
    ["NFT avatar", "The character one plays with at earning tables; it can be rented to a scholar."],
    ["Scholar", "Someone who plays another owner's avatar under a scholarship agreement."],
    ["Fixed Rent", "A scholarship where the scholar pays DEW rent up front and keeps all they earn."],
    ["Rewards Division",
      "A scholarship without rent: the avatar's earnings are split between owner and scholar as agreed."],
    ["Screening of Owners", "A screener approves the owners who may offer avatars."],
    ["VIP pass", "Unlocks the premium rule options and VIP tournaments."],
    ["Season", "A period with a DEW emission budget and a leaderboard by wins and points."],
    ["Campeonato, Campeonísimo, Supercampeones", "The three tournament tiers; the best of one qualify for the next."],
    ["Vault and deposited balance",
      "The DEW you deposited for stakes and entry fees; what is held in play cannot be withdrawn."],
  ],
};

// Seed 004, "Tips for Winning".
const TIPS = {
  es: [
    "Juega pronto tus dobles, sobre todo los altos.",
    "Guarda variedad de números en la mano para tener más jugadas posibles.",
    "Fíjate en los números de los extremos. Si puedes, deja números que tu rival quizá no tenga "
      + "(por ejemplo, si ya salieron muchos cincos, dejar un 5 puede trancarle).",
    "Si crees que la mano se va a trancar, deshazte de las fichas de muchas pintas.",
  ],
  en: [
    "Try to play your doubles early, especially high-value ones.",
    "Keep a variety of numbers in your hand to maximize your playing options.",
    "Pay attention to the numbers on the ends of the chain. If you can, try to leave numbers that your "
      + "opponent might not have (e.g., if many 5s have been played, leaving a 5 might be a good block).",
    "Manage your hand to get rid of high-pip tiles if you think the game might get blocked.",
  ],
};

// Each preset in a few lines; a preset the client does not know shows its title and options only.
const SUMMARIES = {
  es: {
    dew200: "DEW Modo 1: de 2 a 4 jugadores, cada uno por su cuenta. Se cobra cuando los "
      + "extremos suman múltiplo de 5; quien domina cobra las pintas de los rivales redondeadas a 5. "
      + "Gana quien llega a 200.",
    doscientos: "Doscientos: 4 jugadores en parejas, juego de tranque hasta 200 puntos; "
      + "variantes para el tranque y bonos por pase.",
    partnership: "Parejas configurable: puntuación máxima, cobrar los puntos de los rivales o todos, "
      + "quién sale en la primera mano y en las siguientes, tranque por pareja o individual.",
    draw: "Juego de robar a dos: 7 fichas cada uno; quien no puede jugar roba una ficha del pozo. "
      + "Gana quien domina o, en tranque, quien tiene menos pintas.",
  },
  en: {
    dew200: "DEW Mode 1: 2 to 4 players, each on their own. Open ends totalling a multiple of 5 "
      + "score; the player who dominoes scores the opponents' pips rounded to 5. First to 200 wins.",
    doscientos: "Doscientos: 4 players in partnerships, a block game to 200 points; variants for "
      + "blocked games and pass bonuses.",
    partnership: "Configurable partnership game: maximum score, scoring opponents' points or all points, "
      + "who leads the first and later hands, blocked game by team or by individual.",
    draw: "Two-player draw game: 7 tiles each; a player who cannot play draws one tile from the boneyard. "
      + "Dominoing wins, or in a blocked game the fewest pips.",
  },
};


function glossaryPage(ui, presets) {
  const { h } = ui;
  const lang = currentLang() === "es" ? "es" : "en";
  return [
    h("h2", {}, t("help")),
    h("nav", { "aria-label": t("presetsList"), id: "preset-rules" }, h("h3", {}, t("presetsList")),
      h("ul", {}, presets.map((p) => h("li", {},
        h("a", { href: `#/help/${p.preset}`, "data-preset": p.preset }, presetName(p.preset, p.title)))))),
    h("section", { id: "glossary", "aria-labelledby": "glossary-h" },
      h("h3", { id: "glossary-h" }, t("glossary")), h("p", {}, t("glossaryIntro")),
      h("dl", { class: "glossary" }, GLOSSARY[lang].flatMap(([term, text]) => [h("dt", {}, term), h("dd", {}, text)]))),
    tipsSection(ui, lang),
  ];
}

function tipsSection(ui, lang) {
  const { h } = ui;
  return h("section", { id: "tips", "aria-labelledby": "tips-h" }, h("h3", { id: "tips-h" }, t("tips")),
    h("ul", {}, TIPS[lang].map((tip) => h("li", {}, tip))), h("p", { class: "hint" }, t("tipsSource")));
}

function rulesPage(ui, p) {
  const { h, table } = ui;
  const lang = currentLang() === "es" ? "es" : "en";
  const requires = (spec) => (spec.requires || []).map((r) => ` (${r.choices.map((c) => optionValue(spec.name, c))
    .join(", ")}: ${t("needs")} ${optionName(r.option)} = ${optionValue(r.option, r.value)})`).join("");
  const rows = p.option_specs.map((spec) => [
    h("span", { class: "option-name", "data-option": spec.name }, optionName(spec.name)),
    h("span", { class: "choices" }, spec.choices.map((c) => {
      const premium = (spec.premium || []).some((x) => String(x) === String(c));
      return h("span", { class: premium ? "premium" : "", "data-premium": String(premium) },
        optionValue(spec.name, c), premium ? ` ★ ${t("premium")}` : "", "; ");
    }), requires(spec)),
    optionValue(spec.name, spec.default),
    optionHelp(spec.name),
  ]);
  return [
    h("p", {}, h("a", { href: "#/help" }, `${t("help")} · ${t("glossary")}`)),
    h("section", { id: "rules", "data-preset": p.preset, "aria-labelledby": "rules-h" },
      h("h2", { id: "rules-h" }, `${t("rulesOf")}: ${presetName(p.preset, p.title)}`),
      p.requires_vip ? h("p", { class: "premium" }, `★ ${t("helpVipOnly")}`) : null,
      h("p", { id: "summary" }, SUMMARIES[lang][p.preset] ?? presetName(p.preset, p.title)),
      h("p", {}, `${t("seatCounts")}: ${p.seat_counts.join(", ")}`),
      table([t("option"), t("choices"), t("defaultValue"), t("help")], rows)),
    tipsSection(ui, lang),
  ];
}

export async function helpView(api, ui, preset) {
  const { h, show } = ui;
  const presets = await api.call("presets");
  if (!preset) return show(...glossaryPage(ui, presets));
  const p = presets.find((x) => x.preset === preset);
  if (!p) {
    return show(h("h2", {}, t("help")), h("p", { class: "error" }, t("unknownPreset")), ...glossaryPage(ui, presets));
  }
  return show(...rulesPage(ui, p));
}
