// The game modes and their rule options in the player's words: a mode's name and one-line
// description, each option's name, each of its values and a help line, in es and en. The
// server's /presets gives ids and values (`blocked_scoring: "pairwise"`); nothing here shows them.

import { addWords, t } from "./i18n.js";

addWords({
  preset_dew200: ["DEW Modo 1 (200 puntos)", "DEW Mode 1 (200 points)"],
  preset_doscientos: ["Doscientos", "Doscientos"],
  preset_partnership: ["Parejas a tu medida", "Partnership, your rules"],
  preset_draw: ["Robar a dos", "Two-player draw game"],
  presetd_dew200: ["De 2 a 4 jugadores. Cobras cuando los extremos suman múltiplo de 5; gana quien llega a 200.",
    "2 to 4 players. Score when the open ends total a multiple of 5; first to 200 wins."],
  presetd_doscientos: ["4 jugadores en parejas, juego de tranque hasta 200 puntos.",
    "4 players in partnerships, a block game to 200 points."],
  presetd_partnership: ["Parejas con reglas a elegir: puntos, quién sale y cómo se decide un tranque.",
    "Partnerships with rules to choose: points, who leads and how a blocked game is decided."],
  presetd_draw: ["Dos jugadores, 7 fichas cada uno; quien no puede jugar roba del pozo.",
    "Two players, 7 tiles each; a player who cannot play draws from the boneyard."],
  opt_target: ["Puntos para ganar", "Points to win"],
  opt_blocked_scoring: ["Cobro de la mano trancada", "Scoring a blocked hand"],
  opt_next_hand: ["Quién sale en las manos siguientes", "Who leads the next hands"],
  opt_blocked: ["Cómo se decide un tranque", "How a blocked game is decided"],
  opt_pass_bonus: ["Bono por hacer pasar", "Bonus for a forced pass"],
  opt_collective_bonus: ["Puntos colectivos", "Collective points"],
  opt_dead_double_blank: ["Doble blanco muerto", "Dead double blank"],
  opt_scoring: ["Qué puntos se cobran", "Which points score"],
  opt_first_hand: ["Quién sale en la primera mano", "Who leads the first hand"],
  opt_multiples_of_five: ["Cobrar múltiplos de 5", "Score multiples of 5"],
  optv_target_0: ["Una sola mano", "A single hand"],
  optv_blocked_scoring_pairwise: ["Diferencia con cada rival", "The difference with each opponent"],
  optv_blocked_scoring_sum_minus_own: ["Pintas de los rivales menos las tuyas", "Opponents' pips minus your own"],
  optv_next_hand_counterclockwise: ["El jugador de la derecha", "The player on the right"],
  optv_next_hand_previous_winner: ["Quien ganó la mano", "The hand's winner"],
  optv_blocked_team_pips: ["Pintas de la pareja", "The partnership's pips"],
  optv_blocked_tie_to_first_player: ["Empate: gana quien salió", "A tie goes to the leader"],
  optv_blocked_tie_to_last_player: ["Empate: gana quien jugó la última", "A tie goes to the last to play"],
  optv_blocked_last_or_right: ["Quien jugó la última o el de su derecha",
    "The last to play or the player on their right"],
  optv_blocked_team: ["Por pareja", "By partnership"],
  optv_blocked_individual: ["Individual", "Individual"],
  optv_scoring_opponents: ["Solo los de los rivales", "Only the opponents'"],
  optv_scoring_all: ["Todos los de la mesa", "All points on the table"],
  optv_first_hand_double_six: ["El doble seis", "The double six"],
  optv_first_hand_random: ["Al azar", "At random"],
  opth_target: ["Puntos para ganar la partida.", "Points needed to win the match."],
  opth_blocked_scoring: [
    "En un tranque: "
      + "cobrar la diferencia con cada rival que tiene más pintas, o las pintas de los rivales menos las propias.",
    "In a blocked hand: "
      + "score the difference with each opponent holding more pips, or the opponents' pips minus your own.",
  ],
  opth_next_hand: ["Quién sale en las manos siguientes: el jugador de la derecha o quien ganó la mano anterior.",
    "Who leads the later hands: the player on the right or the previous hand's winner."],
  opth_blocked: ["Cómo se decide un tranque: por pintas de la pareja o individuales, o a quién va el empate.",
    "How a blocked game is decided: by the partnership's or each player's pips, or who wins a tie."],
  opth_pass_bonus: ["Una jugada que hace pasar al siguiente cobra 20 la primera vez en la mano y luego 10.",
    "A play that makes the next player pass scores 20 the first time in a hand, then 10."],
  opth_collective_bonus: ["Pase de salida, pase redondo, capicúa y doble blanco muerto dan puntos.",
    "Passing the lead, a round pass, a capicúa and a dead double blank score points."],
  opth_dead_double_blank: ["Con puntos colectivos: el doble blanco que no se pudo jugar cuenta 15 puntos.",
    "With collective points: a double blank that could not be played counts 15 points."],
  opth_scoring: ["Se cobran solo los puntos de los rivales o todos los puntos de la mesa.",
    "Score only the opponents' points or every point on the table."],
  opth_first_hand: ["Quién sale en la primera mano: el doble seis o al azar.",
    "Who leads the first hand: the double six or at random."],
  opth_multiples_of_five: ["Cobrar también cuando los extremos suman múltiplo de 5.",
    "Also score when the open ends total a multiple of 5."],
  kind_human: ["Contra personas", "Against people"],
  kind_practice: ["Práctica contra bots", "Practice against bots"],
  kind_same_device: ["Dos en este dispositivo", "Two on this device"],
  kind_ai: ["Bots contra bots", "Bots against bots"],
  option: ["Opción", "Option"],
});

const known = (key, fallback) => {
  const text = t(key);
  return text === key ? fallback : text;
};

/** A game mode's name (its id is never shown; an unknown mode falls back to the server's title). */
export const presetName = (preset, title = undefined) => known(`preset_${preset}`, title ?? t("preset"));
export const presetLine = (preset) => known(`presetd_${preset}`, "");
export const optionName = (name) => known(`opt_${name}`, t("option"));
export const optionHelp = (name) => known(`opth_${name}`, "");
export const kindName = (kind) => known(`kind_${kind}`, t(kind));

/** A value of an option: yes/no, a number of points, or the catalogue's words for it. */
export function optionValue(name, value) {
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  const key = `optv_${name}_${value}`;
  const text = t(key);
  if (text !== key) return text;
  return typeof value === "number" ? String(value) : t("option");
}
