// Checks a match record in the page, as `dew replay` does for its fairness part: the revealed
// seed hashes to the commitment published before play, every seeded deal is the one the seed
// gives (docs/match-record.md), and the record hashes to the result hash the server published.

export const TILE_NAMES = [];
for (let high = 0; high <= 6; high++) for (let low = 0; low <= high; low++) TILE_NAMES.push(`${high}:${low}`);

async function sha256(text) {
  if (!crypto.subtle) throw new Error("SHA-256 needs a secure context (https or localhost)");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The seed's order of the 28 tiles for a label: Fisher-Yates driven by sha256(seed/label). */
export async function shuffledTiles(seed, label) {
  let x = BigInt("0x" + (await sha256(`${seed}/${label}`)));
  const order = [...Array(28).keys()];
  for (let k = 27; k >= 1; k--) {
    const size = BigInt(k + 1);
    const j = Number(x % size);
    x /= size;
    [order[k], order[j]] = [order[j], order[k]];
  }
  return order.map((tile) => TILE_NAMES[tile]);
}

/** Python's json.dumps(sort_keys=True, separators=(",", ":")) with its ASCII escapes. */
export function canonicalJson(value) {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isInteger(value)) throw new Error("records hold integers only");
    const unicodeEscape = (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, unicodeEscape);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

/** Every check with its outcome: [{name, ok, detail}]. */
export async function verifyRecord(match) {
  const checks = [];
  const record = match.record;
  if (!record) return [{ name: "record", ok: false, detail: "the record is revealed when the match is over" }];
  const seed = record.fairness?.server_seed;
  const commitment = seed === undefined ? null : await sha256(String(seed));
  checks.push({
    name: "commitment",
    ok: commitment !== null && commitment === record.fairness.commitment && commitment === match.seed_commitment,
    detail: `sha256(seed) = ${commitment}; published ${match.seed_commitment}`,
  });
  let dealsOk = true;
  const details = [];
  for (const hand of record.hands) {
    if (hand.seeded === false) {
      dealsOk = false;
      details.push(`hand ${hand.index}: explicit deal (proves nothing)`);
      continue;
    }
    const expected = await shuffledTiles(seed, `hand/${hand.index}/deal/${hand.redeals ?? 0}`);
    const recorded = [...(hand.deal?.hands ?? []).flat(), ...(hand.deal?.boneyard ?? [])];
    const same = recorded.length === 28 && recorded.every((tile, i) => tile === expected[i]);
    if (!same) dealsOk = false;
    details.push(`hand ${hand.index}: ${same ? "=" : "≠"}`);
  }
  checks.push({ name: "deals", ok: dealsOk, detail: details.join(", ") });
  const hash = "0x" + (await sha256(canonicalJson(record)));
  checks.push({ name: "resultHash", ok: hash === match.result_hash, detail: `${hash} vs ${match.result_hash}` });
  return checks;
}

/** The line of play after each move of a hand: [{seat, move, line}] (tiles as laid). */
export function lineSteps(hand) {
  const steps = [];
  let line = [];
  for (const [seat, move] of hand.moves) {
    const played = /^(\d):(\d)([LR])$/.exec(move);
    if (played) {
      const a = Number(played[1]);
      const b = Number(played[2]);
      if (!line.length) line = [[a, b]];
      else if (played[3] === "L") {
        const end = line[0][0];
        line = [[a === end ? b : a, end], ...line];
      } else {
        const end = line[line.length - 1][1];
        line = [...line, [end, a === end ? b : a]];
      }
    }
    steps.push({ seat, move, line: line.map(([x, y]) => `${x}:${y}`) });
  }
  return steps;
}
