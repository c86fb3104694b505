// The owner and scholar dashboard: avatars, offers, agreements and earnings by role. The owner
// acts on an avatar from its row (reclaims an idle rental, withdraws every open offer at once),
// either party closes an agreement whose term ran out, and an offer names its manager's share
// and how long it stays open. Every action is a transaction the player's own wallet signs.

import { ApiError } from "../api.js";
import { dewToWei } from "../create.js";
import { addWords, fill, t } from "../i18n.js";
import { when } from "../marketapi.js";

addWords({
  ownerActions: ["Acciones", "Actions"],
  scholarWho: ["Becario actual", "Current scholar"],
  managerShare: ["Gestor", "Manager"],
  reclaim: ["Recuperar (inactivo)", "Reclaim (idle)"],
  reclaimLabel: ["Recuperar el avatar #{avatar}: su becario no juega", "Reclaim avatar #{avatar}: its scholar is idle"],
  reclaimHint: [
    "Puedes recuperar un avatar en División de recompensas si no se liquidó ninguna partida suya en 7 días "
      + "(1 hora si lo tomaron de una oferta abierta y nunca jugaron).",
    "You can reclaim a Rewards Division avatar when none of its matches was settled for 7 days "
      + "(1 hour if it was taken from an open listing and never played).",
  ],
  cancelOffers: ["Retirar sus {n} ofertas", "Withdraw its {n} offers"],
  cancelOffersLabel: ["Retirar todas las ofertas abiertas del avatar #{avatar}",
    "Withdraw every open offer for avatar #{avatar}"],
  closeAgreement: ["Cerrar", "Close"],
  closeLabel: ["Cerrar el acuerdo #{id}: su plazo terminó", "Close agreement #{id}: its term is over"],
  cancelLabel: ["Retirar la oferta #{id}", "Withdraw offer #{id}"],
  validUntil: ["válida hasta {date}", "open until {date}"],
  validHours: ["Válida durante (horas)", "Open for (hours)"],
  managerAddress: ["Gestor (dirección, opcional)", "Manager (address, optional)"],
  managerBps: ["Parte del gestor (puntos básicos)", "Manager's share (basis points)"],
  managerNeeded: [
    "Un gestor necesita una parte mayor que 0, y una parte del gestor necesita su dirección.",
    "A manager needs a share above 0, and a manager's share needs the manager's address.",
  ],
  splitWords: ["dueño {owner} % · gestor {manager} % · becario {scholar} %",
    "owner {owner} % · manager {manager} % · scholar {scholar} %"],
  agreement_offered: ["ofrecido", "offered"],
  agreement_active: ["activo", "active"],
  agreement_expired: ["plazo cumplido: por cerrar", "term over: to close"],
  agreement_closed: ["plazo cumplido", "term over"],
  agreement_terminated: ["terminado por el becario", "ended by the scholar"],
  agreement_reclaimed: ["recuperado por inactividad", "reclaimed (idle)"],
  agreement_cancelled: ["retirado", "withdrawn"],
  agreement_ended: ["terminado", "ended"],
  agreement_none: ["sin acuerdo", "no agreement"],
  role_owner: ["dueño", "owner"],
  role_manager: ["gestor", "manager"],
  role_scholar: ["becario", "scholar"],
  role_wallet: ["jugador", "player"],
  role_withdrawal: ["retiro", "withdrawal"],
  role_other: ["otro", "other"],
});

/** A word of the catalogue for a server's value (`agreement_active`), or the `other` one. */
const wordFor = (prefix, value, other) => {
  const key = `${prefix}_${value}`;
  const word = t(key);
  return word === key ? t(other) : word;
};

// An agreement whose term ran out (by chain time) stays active on chain until someone closes
// it; once closed it has ended_at, and the same status "expired".
const toClose = (a) => a.status === "expired" && a.ended_at === null;
const statusWord = (a) => (a.status === "expired" && !toClose(a)
  ? t("agreement_closed") : wordFor("agreement", a.status, "agreement_ended"));

export async function dashboardView(api, ui) {
  const { h, show, table, field, select, dew, short, fail, txPanel, refresh: again } = ui;
  if (!api.address) return show(h("p", {}, t("signInFirst")));
  const me = api.address;
  let avatars = [];
  let agreements = [];
  let offered = [];
  let earnings = null;
  try {
    [avatars, agreements, offered, earnings] = await Promise.all([
      api.call("owner_avatars", { address: me }),
      api.call("agreements", {}, undefined, { owner: me }),
      api.call("agreements", {}, undefined, { scholar: me }),
      api.call("wallet", { address: me }),
    ]);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) return fail(error);
  }
  const openListings = await api.call("agreements", {}, undefined, { open_listings: true }).catch(() => []);
  const pendingTx = h("div", { id: "pending-tx" });
  const refresh = () => setTimeout(again, 500);
  // One transaction (or two) for the player's wallet: built by the server, shown to sign.
  const build = async (route, params, body) => {
    try {
      pendingTx.replaceChildren(txPanel(await api.call(route, params, body), refresh));
      pendingTx.querySelector(".sign-send")?.focus();
    } catch (error) {
      fail(error);
    }
  };
  const offerForm = h("form", { id: "offer-form", onsubmit: async (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const body = {
      owner: me, avatar_id: Number(data.get("avatar_id")), terms: data.get("terms"),
      duration_s: Number(data.get("duration_s")), valid_for_s: Math.round(Number(data.get("valid_hours")) * 3600),
    };
    if (data.get("scholar")) body.scholar = String(data.get("scholar")).trim();
    if (body.terms === "fixed_rent") {
      body.rent = dewToWei(data.get("rent"));
    } else {
      body.owner_bps = Number(data.get("owner_bps"));
      const manager = String(data.get("manager") || "").trim();
      const managerBps = Number(data.get("manager_bps") || 0);
      if (Boolean(manager) !== managerBps > 0) return fail(new Error(t("managerNeeded")));
      if (manager) Object.assign(body, { manager, manager_bps: managerBps });
    }
    await build("offers", {}, body);
  } },
  h("h3", {}, t("offerAvatar")),
  field(t("avatar"), h("input", { name: "avatar_id", type: "number", min: 1, required: true })),
  field(t("scholar"), h("input", { name: "scholar", type: "text", size: 44 })),
  field(t("terms"),
    select("terms", [["rewards_division", t("rewardsDivision")], ["fixed_rent", t("fixedRent")]], "rewards_division")),
  field(t("durationS"), h("input", { name: "duration_s", type: "number", min: 1, value: 3600, required: true })),
  field(t("ownerBps"), h("input", { name: "owner_bps", type: "number", min: 0, max: 10000, value: 3000 })),
  field(t("managerAddress"), h("input", { name: "manager", type: "text", size: 44 })),
  field(t("managerBps"), h("input", { name: "manager_bps", type: "number", min: 0, max: 10000, value: 0 })),
  field(t("rent"), h("input", { name: "rent", type: "text", value: "0", inputmode: "decimal" })),
  field(t("validHours"),
    h("input", { name: "valid_hours", type: "number", min: 1, max: 8760, value: 168, required: true })),
  h("button", { type: "submit" }, t("offer")));

  const accept = (agreement) => build("accept", { agreement_id: agreement.id }, { scholar: me });
  const button = (cls, attrs, label, onclick) => h("button", { type: "button", class: cls, ...attrs, onclick }, label);
  // The agreement's own row: the owner withdraws an offer nobody accepted; the scholar ends an
  // active agreement early; either party (anyone, on chain) closes one whose term ran out.
  const agreementAction = (a) => {
    const id = { agreement_id: a.id };
    if (a.owner === me && a.status === "offered") {
      return button("cancel-offer", { "data-agreement": a.id, "aria-label": fill(t("cancelLabel"), { id: a.id }) },
        t("cancel"), () => build("cancel_offer", id, { owner: me }));
    }
    if (a.scholar === me && a.status === "active") {
      return button("terminate", { "data-agreement": a.id }, t("terminate"),
        () => build("terminate", id, { scholar: me }));
    }
    if (toClose(a)) {
      return button("close-agreement", { "data-agreement": a.id, "aria-label": fill(t("closeLabel"), { id: a.id }) },
        t("closeAgreement"), () => build("close_agreement", id, { sender: me }));
    }
    return "";
  };
  // The avatar's row, for its owner: reclaim an idle Rewards Division rental; withdraw every
  // open offer for it in one transaction.
  const mine = new Map(agreements.map((a) => [a.id, a]));
  const avatarActions = (row) => {
    const actions = [];
    const current = mine.get(row.agreement_id);
    if (current && current.status === "active" && current.terms === "rewards_division") {
      actions.push(button("reclaim",
        { "data-agreement": current.id, "aria-label": fill(t("reclaimLabel"), { avatar: row.avatar_id }) },
        t("reclaim"), () => build("reclaim", { agreement_id: current.id }, { owner: me })));
    }
    const open = agreements.filter((a) => a.avatar_id === row.avatar_id && a.status === "offered").length;
    if (open) {
      actions.push(button("cancel-offers",
        { "data-avatar": row.avatar_id, "aria-label": fill(t("cancelOffersLabel"), { avatar: row.avatar_id }) },
        fill(t("cancelOffers"), { n: open }),
        () => build("cancel_offers", { avatar_id: row.avatar_id }, { owner: me })));
    }
    return actions.length ? h("span", { class: "actions" }, actions) : "—";
  };
  const toMe = [...offered, ...openListings.filter((a) => a.owner !== me)].filter((a) => a.status === "offered");
  const percent = (bps) => bps / 100;
  const terms = (a) => {
    if (a.terms === "fixed_rent") return `${t("fixedRent")} ${dew(a.rent)}`;
    const scholarBps = 10000 - a.owner_bps - a.manager_bps;
    if (!a.manager_bps) return `${t("rewardsDivision")} ${percent(a.owner_bps)}% / ${percent(scholarBps)}%`;
    const split = { owner: percent(a.owner_bps), manager: percent(a.manager_bps), scholar: percent(scholarBps) };
    return `${t("rewardsDivision")}: ${fill(t("splitWords"), split)}`;
  };
  const status = (a) => {
    const word = statusWord(a);
    if (a.status !== "offered" || !a.valid_until) return h("span", { "data-agreement-status": a.status }, word);
    const until = fill(t("validUntil"), { date: when(a.valid_until) });
    return h("span", { "data-agreement-status": a.status, "data-valid-until": a.valid_until }, `${word} · ${until}`);
  };
  const roles = earnings ? Object.entries(earnings.by_role) : [];
  const avatarHeaders = [
    t("avatar"), t("matches"), t("wins"), t("gross"), t("ownerShare"), t("managerShare"), t("scholarShare"),
    t("status"), t("scholarWho"), t("ownerActions"),
  ];
  const listed = [...agreements, ...offered.filter((a) => a.owner !== me)];
  show(
    h("h2", {}, t("dashboard")),
    h("section", { id: "my-avatars" }, h("h3", {}, t("myAvatars")),
      table(avatarHeaders, avatars.map((a) => [
        `#${a.avatar_id}`, String(a.matches), String(a.wins), dew(a.gross),
        h("span", { "data-owner-share": a.owner_share }, dew(a.owner_share)),
        dew(a.manager_share),
        h("span", { "data-scholar-share": a.scholar_share }, dew(a.scholar_share)),
        h("span", { "data-avatar-status": a.agreement_status }, mine.has(a.agreement_id)
          ? statusWord(mine.get(a.agreement_id)) : wordFor("agreement", a.agreement_status, "agreement_ended")),
        a.scholar ? short(a.scholar) : "—",
        avatarActions(a),
      ])),
      avatars.length ? h("p", { class: "hint" }, t("reclaimHint")) : null),
    h("section", { id: "offers-to-me" }, h("h3", {}, t("offers")),
      table(["#", t("avatar"), t("owner"), t("terms"), ""], toMe.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), terms(a),
        h("button", { type: "button", class: "accept", "data-agreement": a.id, onclick: () => accept(a) }, t("accept")),
      ]))),
    h("section", { id: "agreements" }, h("h3", {}, t("agreements")),
      table(["#", t("avatar"), t("owner"), t("scholarShare"), t("terms"), t("status"), ""], listed.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), a.scholar ? short(a.scholar) : "—", terms(a),
        status(a), agreementAction(a),
      ]))),
    h("section", { id: "earnings" }, h("h3", {}, t("earnings")),
      earnings ? h("p", {},
        `${t("earned")} ${dew(earnings.earned)} · ${t("pending")} ${dew(earnings.pending)} · ${t("paid")} `,
        h("span", { id: "paid", "data-wei": earnings.paid }, dew(earnings.paid))) : null,
      table([t("role"), t("pending"), t("paid")],
        roles.map(([role, v]) => [
          wordFor("role", role, "role_other"), dew(v.pending ?? "0"), dew(v.paid ?? "0"),
        ]))),
    offerForm,
    pendingTx,
  );
}
