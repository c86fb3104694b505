// Keccak-256 (Ethereum's hash, not NIST SHA3-256) of an ASCII string, for EIP-55 checksums.
// Small and slow on purpose (BigInt lanes): it hashes 40 characters once per sign-in.

const MASK = (1n << 64n) - 1n;
const RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

function rotl(x, n) {
  const s = BigInt(n);
  return n === 0 ? x : ((x << s) | (x >> (64n - s))) & MASK;
}

function permute(a) {
  for (let round = 0; round < 24; round++) {
    const c = [0, 1, 2, 3, 4].map((x) => a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20]);
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
      for (let y = 0; y < 25; y += 5) a[y + x] ^= d;
    }
    const b = new Array(25);
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], ROT[x + 5 * y]);
    }
    for (let i = 0; i < 25; i += 5) {
      for (let x = 0; x < 5; x++) a[i + x] = b[i + x] ^ (~b[i + ((x + 1) % 5)] & MASK & b[i + ((x + 2) % 5)]);
    }
    a[0] ^= RC[round];
  }
}

export function keccak256Hex(text) {
  const rate = 136;
  const bytes = [...new TextEncoder().encode(text)];
  bytes.push(0x01);
  while (bytes.length % rate) bytes.push(0);
  bytes[bytes.length - 1] |= 0x80;
  const state = new Array(25).fill(0n);
  for (let offset = 0; offset < bytes.length; offset += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let k = 7; k >= 0; k--) lane = (lane << 8n) | BigInt(bytes[offset + i * 8 + k]);
      state[i] ^= lane;
    }
    permute(state);
  }
  let out = "";
  for (let i = 0; i < 4; i++) {
    for (let k = 0; k < 8; k++) out += Number((state[i] >> BigInt(8 * k)) & 0xffn).toString(16).padStart(2, "0");
  }
  return out;
}
