// Settings: the choices this browser keeps (language, the table's sounds, motion, the pace of
// bots-only tables, the first-game guide) in one place, and the signed-in wallet's VIP pass
// with its expiry (GET /wallet/vip). Loaded on demand by app.js, which passes its helpers in `ui`.

import { ApiError } from "../api.js";
import { guideSeen, resetGuide } from "../guide.js";
import { addWords, currentLang, fill, t, toggleLang } from "../i18n.js";
import { MOTION_CHOICES, motionChoice, setMotionChoice } from "../motion.js";
import { nameForm } from "../names.js";
import { setSoundEnabled, soundEnabled } from "../sound.js";
import { BOT_SPEEDS, botSpeed, setBotSpeed } from "../tablemodes.js";

addWords({
  settingsTitle: ["Ajustes", "Settings"],
  settingsKept: ["Estas elecciones se guardan en este navegador.", "These choices are kept in this browser."],
  language: ["Idioma", "Language"],
  langName_es: ["Español", "Español"],
  langName_en: ["English", "English"],
  tableSounds: ["Sonidos de la mesa", "Table sounds"],
  motionLabel: ["Movimiento", "Motion"],
  motion_system: ["Como indique el dispositivo", "As the device says"],
  motion_reduce: ["Reducido: sin animaciones", "Reduced: no animations"],
  motion_full: ["Completo", "Full"],
  guideLabel: ["Guía de la primera partida", "First-game guide"],
  guideAgain: ["Mostrarla otra vez", "Show it again"],
  guideWillShow: ["Se mostrará en tu próxima mano.", "It will show on your next hand."],
  vipTitle: ["Pase VIP", "VIP pass"],
  vipValid: ["Tienes un pase VIP vigente hasta el {date}.", "You hold a VIP pass, valid until {date}."],
  vipNone: ["No tienes un pase VIP vigente. Lo encuentras en la tienda.",
    "You hold no valid VIP pass. The shop sells them."],
  vipUnknown: ["No se puede consultar el pase VIP ahora mismo.", "The VIP pass cannot be checked right now."],
  vipSignIn: ["Conecta tu billetera para ver tu pase VIP.", "Connect your wallet to see your VIP pass."],
  nameSignIn: ["Conecta tu billetera o juega como invitado para elegir tu nombre.",
    "Connect your wallet or play as a guest to choose your name."],
  settingsSaved: ["Guardado.", "Saved."],
});

/** A date in the player's language: "3 de marzo de 2027" / "3 March 2027". */
export function longDate(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleDateString(currentLang() === "es" ? "es-ES" : "en-GB", { dateStyle: "long" });
}

async function vipLine(api, h) {
  if (!api.address || api.guest) return h("p", { id: "vip-status", "data-vip": "signed-out" }, t("vipSignIn"));
  try {
    const pass = await api.request("GET", "/wallet/vip");
    if (pass.valid) {
      return h("p", { id: "vip-status", "data-vip": "valid", "data-expires": pass.expires_at },
        fill(t("vipValid"), { date: longDate(pass.expires_at) }));
    }
    return h("p", { id: "vip-status", "data-vip": "none" }, t("vipNone"), " ", h("a", { href: "#/shop" }, t("shop")));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return h("p", { id: "vip-status", "data-vip": "unknown" }, t("vipUnknown"));
  }
}

export async function settingsView(api, ui) {
  const { h, show, say } = ui;
  const saved = () => say(t("settingsSaved"));
  const choice = (name, values, current, label, onchange) => {
    const id = `setting-${name}`;
    return h("p", {}, h("label", { for: id }, label), " ",
      h("select", { id, name, onchange: (e) => { onchange(e.target.value); saved(); } },
        values.map((v) => h("option", { value: v, selected: v === current }, t(`${name}_${v}`)))));
  };

  const language = h("p", {}, h("label", { for: "setting-lang" }, t("language")), " ",
    h("select", {
      id: "setting-lang", name: "langName",
      onchange: (e) => {
        if (e.target.value === currentLang()) return;
        toggleLang();
        ui.account();
        ui.refresh();
      },
    }, ["es", "en"].map((v) => h("option", { value: v, selected: v === currentLang() }, t(`langName_${v}`)))));

  const sound = h("input", {
    type: "checkbox", id: "setting-sound", checked: soundEnabled(),
    onchange: (e) => { setSoundEnabled(e.target.checked); saved(); },
  });
  const guideNote = h("span", { id: "guide-note", "aria-live": "polite" });
  const guide = h("button", {
    type: "button", id: "guide-again", disabled: !guideSeen(),
    onclick: () => { resetGuide(); guide.disabled = true; guideNote.textContent = t("guideWillShow"); },
  }, t("guideAgain"));

  show(h("section", { id: "settings", "aria-labelledby": "settings-h" },
    h("h2", { id: "settings-h" }, t("settingsTitle")),
    h("div", { class: "settings-box" },
      h("p", {}, t("settingsKept")),
      language,
      h("p", {}, h("label", { for: "setting-sound" }, sound, t("tableSounds"))),
      choice("motion", MOTION_CHOICES, motionChoice(), t("motionLabel"), setMotionChoice),
      choice("speed", BOT_SPEEDS, botSpeed(), t("botSpeed"), setBotSpeed),
      h("p", {}, h("span", {}, t("guideLabel")), " ", guide, " ", guideNote)),
    // The display name: a signed-in wallet or guest chooses it here (names.js checks nothing
    // the server does not check again).
    h("div", { id: "settings-name", "data-slot": "display-name" },
      api.address ? nameForm(h, api, { say, fail: ui.fail }) : h("p", { id: "name-signed-out" }, t("nameSignIn"))),
    h("section", { id: "settings-vip", class: "settings-box", "aria-labelledby": "settings-vip-h" },
      h("h3", { id: "settings-vip-h" }, t("vipTitle")), await vipLine(api, h)),
  ));
}
