// Optional table sounds, off by default: short tones made with WebAudio (no sound files).
// The choice is kept in this browser only.

import { t } from "./i18n.js";

const KEY = "dew.sound";
const TONES = {
  play: [[520, 0.07]],
  draw: [[300, 0.06], [260, 0.06]],
  pass: [[220, 0.12]],
  score: [[660, 0.08], [880, 0.12]],
  turn: [[740, 0.05]],
};
let enabled = localStorage.getItem(KEY) === "on";
let context = null;

export function soundEnabled() {
  return enabled;
}

/** Turn the sounds on or off (the settings page and the table's switch share the choice). */
export function setSoundEnabled(on) {
  enabled = Boolean(on);
  localStorage.setItem(KEY, enabled ? "on" : "off");
}

/** Play the tone of `kind` (a move, a score, your turn) when sound is on. */
export function tone(kind) {
  if (!enabled || !TONES[kind] || typeof AudioContext === "undefined") return;
  context ??= new AudioContext();
  let at = context.currentTime;
  for (const [frequency, seconds] of TONES[kind]) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(at);
    oscillator.stop(at + seconds);
    at += seconds;
  }
}

/** The sound switch of the table (a toggle button). */
export function soundButton(h) {
  const button = h("button", {
    type: "button", id: "sound-toggle", "aria-pressed": String(enabled),
    onclick: () => {
      setSoundEnabled(!enabled);
      button.setAttribute("aria-pressed", String(enabled));
      button.textContent = enabled ? t("soundOn") : t("soundOff");
      tone("turn");
    },
  }, enabled ? t("soundOn") : t("soundOff"));
  return button;
}
