// The first-game guide: on a newcomer's first hand, three hints over the board's top (the raised
// tiles are the ones that can be played, a tile goes on either end of the line, and with no
// tile to play the player draws). Shown once per browser: it counts as seen when dismissed or
// when the player leaves the table it was shown at (localStorage "dew.guide").

import { addWords, t } from "./i18n.js";

addWords({
  guideTitle: ["Tu primera mano", "Your first hand"],
  guideRaised: ["Las fichas levantadas y marcadas son las que puedes jugar ahora.",
    "The raised, outlined tiles are the ones you can play now."],
  guideEnds: ["Una ficha va en cualquiera de los dos extremos de la línea si coincide su número; "
      + "cuando sirve en ambos, eliges el extremo.",
    "A tile goes on either end of the line when its number matches; when it fits both, you choose the end."],
  guideDraw: ["Si no tienes ninguna ficha que sirva, roba del pozo (o pasa si ya no queda).",
    "With no tile that fits, draw from the boneyard (or pass when it is empty)."],
  guideDismiss: ["Entendido", "Got it"],
});

const KEY = "dew.guide";

export const guideSeen = () => localStorage.getItem(KEY) === "seen";
export const resetGuide = () => localStorage.removeItem(KEY);

/** Watch `main` (the table's screen) for the player's own hand and lay the guide over the top
 * of the board (`.board-row`, as the hand's count is; put back if a redraw drops it), once;
 * returns the function that stops watching (called when the route changes). */
export function watchFirstGame(h, main) {
  if (guideSeen()) return () => {};
  let box = null;
  const seen = () => localStorage.setItem(KEY, "seen");
  const dismiss = () => {
    seen();
    observer.disconnect();
    box?.remove();
    main.querySelector("#hand .tile-btn.legal, #hand .tile-btn")?.focus();
  };
  const maybeShow = () => {
    if (box?.isConnected || guideSeen() || !main.querySelector("#hand .tile-btn")) return;
    const slot = main.querySelector(".board-row");
    if (!slot) return;
    box ??= h("aside", { class: "first-guide", id: "first-guide", "aria-labelledby": "first-guide-h" },
      h("h2", { id: "first-guide-h" }, t("guideTitle")),
      h("ul", {}, h("li", {}, t("guideRaised")), h("li", {}, t("guideEnds")), h("li", {}, t("guideDraw"))),
      h("button", { type: "button", id: "guide-dismiss", onclick: dismiss }, t("guideDismiss")));
    slot.append(box);
  };
  const observer = new MutationObserver(maybeShow);
  observer.observe(main, { childList: true, subtree: true });
  maybeShow();
  return () => {
    observer.disconnect();
    if (box) seen();
  };
}
