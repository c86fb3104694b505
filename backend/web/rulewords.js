// The game modes and their rule options in the player's words: a mode's name and one-line
// description, each option's name, each of its values and a help line, in es and en. The
// server's /presets gives ids and values (`blocked_scoring: "pairwise"`); nothing here shows them.

import { addStrings, t } from "./i18n.js";

addStrings({
  es: {
    preset_dew200: "DEW Modo 1 (200 puntos)", preset_doscientos: "Doscientos",
    preset_partnership: "Parejas a tu medida", preset_draw: "Robar a dos",
    presetd_dew200: "De 2 a 4 jugadores. Cobras cuando los extremos suman múltiplo de 5; gana quien llega a 200.",
    presetd_doscientos: "4 jugadores en parejas, juego de tranque hasta 200 puntos.",
    presetd_partnership: "Parejas con reglas a elegir: puntos, quién sale y cómo se decide un tranque.",
    presetd_draw: "Dos jugadores, 7 fichas cada uno; quien no puede jugar roba del pozo.",
    opt_target: "Puntos para ganar", opt_blocked_scoring: "Cobro de la mano trancada",
    opt_next_hand: "Quién sale en las manos siguientes", opt_blocked: "Cómo se decide un tranque",
    opt_pass_bonus: "Bono por hacer pasar", opt_collective_bonus: "Puntos colectivos",
    opt_dead_double_blank: "Doble blanco muerto", opt_scoring: "Qué puntos se cobran",
    opt_first_hand: "Quién sale en la primera mano", opt_multiples_of_five: "Cobrar múltiplos de 5",
    optv_target_0: "Una sola mano",
    optv_blocked_scoring_pairwise: "Diferencia con cada rival",
    optv_blocked_scoring_sum_minus_own: "Pintas de los rivales menos las tuyas",
    optv_next_hand_counterclockwise: "El jugador de la derecha", optv_next_hand_previous_winner: "Quien ganó la mano",
    optv_blocked_team_pips: "Pintas de la pareja", optv_blocked_tie_to_first_player: "Empate: gana quien salió",
    optv_blocked_tie_to_last_player: "Empate: gana quien jugó la última",
    optv_blocked_last_or_right: "Quien jugó la última o el de su derecha",
    optv_blocked_team: "Por pareja", optv_blocked_individual: "Individual",
    optv_scoring_opponents: "Solo los de los rivales", optv_scoring_all: "Todos los de la mesa",
    optv_first_hand_double_six: "El doble seis", optv_first_hand_random: "Al azar",
    opth_target: "Puntos para ganar la partida.",
    opth_blocked_scoring: "En un tranque: cobrar la diferencia con cada rival que tiene más pintas, "
      + "o las pintas de los rivales menos las propias.",
    opth_next_hand: "Quién sale en las manos siguientes: el jugador de la derecha o quien ganó la mano anterior.",
    opth_blocked: "Cómo se decide un tranque: por pintas de la pareja o individuales, o a quién va el empate.",
    opth_pass_bonus: "Una jugada que hace pasar al siguiente cobra 20 la primera vez en la mano y luego 10.",
    opth_collective_bonus: "Pase de salida, pase redondo, capicúa y doble blanco muerto dan puntos.",
    opth_dead_double_blank: "Con puntos colectivos: el doble blanco que no se pudo jugar cuenta 15 puntos.",
    opth_scoring: "Se cobran solo los puntos de los rivales o todos los puntos de la mesa.",
    opth_first_hand: "Quién sale en la primera mano: el doble seis o al azar.",
    opth_multiples_of_five: "Cobrar también cuando los extremos suman múltiplo de 5.",
    kind_human: "Contra personas", kind_practice: "Práctica contra bots", kind_same_device: "Dos en este dispositivo",
    kind_ai: "Bots contra bots", option: "Opción",
  },
  en: {
    preset_dew200: "DEW Mode 1 (200 points)", preset_doscientos: "Doscientos",
    preset_partnership: "Partnership, your rules", preset_draw: "Two-player draw game",
    presetd_dew200: "2 to 4 players. Score when the open ends total a multiple of 5; first to 200 wins.",
    presetd_doscientos: "4 players in partnerships, a block game to 200 points.",
    presetd_partnership: "Partnerships with rules to choose: points, who leads and how a blocked game is decided.",
    presetd_draw: "Two players, 7 tiles each; a player who cannot play draws from the boneyard.",
    opt_target: "Points to win", opt_blocked_scoring: "Scoring a blocked hand",
    opt_next_hand: "Who leads the next hands", opt_blocked: "How a blocked game is decided",
    opt_pass_bonus: "Bonus for a forced pass", opt_collective_bonus: "Collective points",
    opt_dead_double_blank: "Dead double blank", opt_scoring: "Which points score",
    opt_first_hand: "Who leads the first hand", opt_multiples_of_five: "Score multiples of 5",
    optv_target_0: "A single hand",
    optv_blocked_scoring_pairwise: "The difference with each opponent",
    optv_blocked_scoring_sum_minus_own: "Opponents' pips minus your own",
    optv_next_hand_counterclockwise: "The player on the right", optv_next_hand_previous_winner: "The hand's winner",
    optv_blocked_team_pips: "The partnership's pips", optv_blocked_tie_to_first_player: "A tie goes to the leader",
    optv_blocked_tie_to_last_player: "A tie goes to the last to play",
    optv_blocked_last_or_right: "The last to play or the player on their right",
    optv_blocked_team: "By partnership", optv_blocked_individual: "Individual",
    optv_scoring_opponents: "Only the opponents'", optv_scoring_all: "All points on the table",
    optv_first_hand_double_six: "The double six", optv_first_hand_random: "At random",
    opth_target: "Points needed to win the match.",
    opth_blocked_scoring: "In a blocked hand: score the difference with each opponent holding more pips, "
      + "or the opponents' pips minus your own.",
    opth_next_hand: "Who leads the later hands: the player on the right or the previous hand's winner.",
    opth_blocked: "How a blocked game is decided: by the partnership's or each player's pips, or who wins a tie.",
    opth_pass_bonus: "A play that makes the next player pass scores 20 the first time in a hand, then 10.",
    opth_collective_bonus: "Passing the lead, a round pass, a capicúa and a dead double blank score points.",
    opth_dead_double_blank: "With collective points: a double blank that could not be played counts 15 points.",
    opth_scoring: "Score only the opponents' points or every point on the table.",
    opth_first_hand: "Who leads the first hand: the double six or at random.",
    opth_multiples_of_five: "Also score when the open ends total a multiple of 5.",
    kind_human: "Against people", kind_practice: "Practice against bots", kind_same_device: "Two on this device",
    kind_ai: "Bots against bots", option: "Option",
  },
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
