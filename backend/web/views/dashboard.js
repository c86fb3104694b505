// The owner and scholar dashboard: avatars, offers, agreements and earnings by role.

import { ApiError } from "../api.js";
import { dewToWei } from "../create.js";
import { t } from "../i18n.js";

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
  const offerForm = h("form", { id: "offer-form", onsubmit: async (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const body = {
      owner: me, avatar_id: Number(data.get("avatar_id")), terms: data.get("terms"),
      duration_s: Number(data.get("duration_s")),
    };
    if (data.get("scholar")) body.scholar = String(data.get("scholar")).trim();
    if (body.terms === "fixed_rent") body.rent = dewToWei(data.get("rent"));
    else body.owner_bps = Number(data.get("owner_bps"));
    try {
      pendingTx.replaceChildren(txPanel(await api.call("offers", {}, body), refresh));
    } catch (error) {
      fail(error);
    }
  } },
  h("h3", {}, t("offerAvatar")),
  field(t("avatar"), h("input", { name: "avatar_id", type: "number", min: 1, required: true })),
  field(t("scholar"), h("input", { name: "scholar", type: "text", size: 44 })),
  field(t("terms"),
    select("terms", [["rewards_division", t("rewardsDivision")], ["fixed_rent", t("fixedRent")]], "rewards_division")),
  field(t("durationS"), h("input", { name: "duration_s", type: "number", min: 1, value: 3600, required: true })),
  field(t("ownerBps"), h("input", { name: "owner_bps", type: "number", min: 0, max: 10000, value: 3000 })),
  field(t("rent"), h("input", { name: "rent", type: "text", value: "0", inputmode: "decimal" })),
  h("button", { type: "submit" }, t("offer")));

  const accept = async (agreement) => {
    try {
      const result = await api.call("accept", { agreement_id: agreement.id }, { scholar: me });
      pendingTx.replaceChildren(txPanel(result, refresh));
    } catch (error) {
      fail(error);
    }
  };
  // The owner withdraws an offer nobody accepted; the scholar ends an active agreement early.
  const endAgreement = async (agreement, route, party) => {
    try {
      const result = await api.call(route, { agreement_id: agreement.id }, { [party]: me });
      pendingTx.replaceChildren(txPanel(result, refresh));
    } catch (error) {
      fail(error);
    }
  };
  const agreementAction = (a) => {
    if (a.owner === me && a.status === "offered") {
      const cancelOffer = () => endAgreement(a, "cancel_offer", "owner");
      return h("button",
        { type: "button", class: "cancel-offer", "data-agreement": a.id, onclick: cancelOffer }, t("cancel"));
    }
    if (a.scholar === me && a.status === "active") {
      const terminate = () => endAgreement(a, "terminate", "scholar");
      return h("button",
        { type: "button", class: "terminate", "data-agreement": a.id, onclick: terminate }, t("terminate"));
    }
    return "";
  };
  const toMe = [...offered, ...openListings.filter((a) => a.owner !== me)].filter((a) => a.status === "offered");
  const terms = (a) => (a.terms === "fixed_rent"
    ? `${t("fixedRent")} ${dew(a.rent)}`
    : `${t("rewardsDivision")} ${a.owner_bps / 100}% / ${(10000 - a.owner_bps - a.manager_bps) / 100}%`);
  const roles = earnings ? Object.entries(earnings.by_role) : [];
  const avatarHeaders = [
    t("avatar"), t("matches"), t("wins"), t("gross"), t("ownerShare"), t("scholarShare"), t("status"),
    t("scholarShare"),
  ];
  const listed = [...agreements, ...offered.filter((a) => a.owner !== me)];
  show(
    h("h2", {}, t("dashboard")),
    h("section", { id: "my-avatars" }, h("h3", {}, t("myAvatars")),
      table(avatarHeaders, avatars.map((a) => [
        `#${a.avatar_id}`, String(a.matches), String(a.wins), dew(a.gross),
        h("span", { "data-owner-share": a.owner_share }, dew(a.owner_share)),
        h("span", { "data-scholar-share": a.scholar_share }, dew(a.scholar_share)),
        a.agreement_status, a.scholar ? short(a.scholar) : "—",
      ]))),
    h("section", { id: "offers-to-me" }, h("h3", {}, t("offers")),
      table(["#", t("avatar"), t("owner"), t("terms"), ""], toMe.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), terms(a),
        h("button", { type: "button", class: "accept", "data-agreement": a.id, onclick: () => accept(a) }, t("accept")),
      ]))),
    h("section", { id: "agreements" }, h("h3", {}, t("agreements")),
      table(["#", t("avatar"), t("owner"), t("scholarShare"), t("terms"), t("status"), ""], listed.map((a) => [
        String(a.id), `#${a.avatar_id}`, short(a.owner), a.scholar ? short(a.scholar) : "—", terms(a),
        h("span", { "data-agreement-status": a.status }, a.status),
        agreementAction(a),
      ]))),
    h("section", { id: "earnings" }, h("h3", {}, t("earnings")),
      earnings ? h("p", {},
        `${t("earned")} ${dew(earnings.earned)} · ${t("pending")} ${dew(earnings.pending)} · ${t("paid")} `,
        h("span", { id: "paid", "data-wei": earnings.paid }, dew(earnings.paid))) : null,
      table([t("role"), t("pending"), t("paid")],
        roles.map(([role, v]) => [role, dew(v.pending ?? "0"), dew(v.paid ?? "0")]))),
    offerForm,
    pendingTx,
  );
}
