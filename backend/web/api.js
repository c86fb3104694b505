// The DEW client library for browsers: HTTP routes and the table WebSocket, built on the
// message definitions of protocol.js (generated from backend/protocol.py, like the Python
// client backend/client.py). No dependencies.

import { CLOSE_CODES, ProtocolError, ROUTES, clientMessage, parseServerMessage, routePath } from "./protocol.js";

/** A refused request: `code` is the stable error code of docs/protocol.md. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(`${code}: ${message}`);
    this.code = code;
    this.status = status;
  }
}

const TOKEN_KEY = "dew.session";

export class DewApi {
  constructor(baseUrl = location.origin) {
    this.baseUrl = baseUrl;
    const saved = JSON.parse(sessionStorage.getItem(TOKEN_KEY) || "null");
    this.address = saved?.address ?? null;
    this.token = saved?.token ?? null;
    this.refreshToken = saved?.refresh ?? null;
    this.refreshing = null;
  }

  remember(tokens) {
    this.address = tokens.address;
    this.token = tokens.access_token;
    this.refreshToken = tokens.refresh_token;
    const kept = { address: this.address, token: this.token, refresh: this.refreshToken };
    sessionStorage.setItem(TOKEN_KEY, JSON.stringify(kept));
  }

  /** A new token pair from the refresh token (rotated: the old one is spent). One at a time. */
  refresh() {
    if (!this.refreshToken) return Promise.resolve(false);
    this.refreshing ??= (async () => {
      try {
        const response = await fetch(this.baseUrl + routePath("refresh"), {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ refresh_token: this.refreshToken }),
        });
        if (!response.ok) {
          this.forget();
          return false;
        }
        this.remember(await response.json());
        return true;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** Call a route of protocol.ROUTES: api.call("join", {table_id}, {seat: 1}). */
  async call(name, params = {}, body = undefined, query = undefined, retried = false) {
    const [method] = ROUTES[name];
    let url = this.baseUrl + routePath(name, params);
    if (query) {
      const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null));
      const text = search.toString();  // (URLSearchParams.size is missing in older browsers)
      if (text) url += `?${text}`;
    }
    const headers = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const error = data?.error ?? { code: "http_error", message: text.slice(0, 200) };
      // An expired (or otherwise refused) access token: rotate once with the refresh token.
      if (response.status === 401 && this.token && !["signin", "refresh", "nonce"].includes(name)) {
        if (!retried && (await this.refresh())) return this.call(name, params, body, query, true);
        this.forget();
      }
      throw new ApiError(error.code, error.message, response.status);
    }
    return data;
  }

  /**
   * GET a path that protocol.ROUTES may not list yet (a route another part of the server adds,
   * e.g. /markets/...): the same headers, errors and token refresh as call().
   */
  async get(path, retried = false) {
    const headers = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    const response = await fetch(this.baseUrl + path, { headers });
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (response.status === 401 && this.token && !retried && (await this.refresh())) return this.get(path, true);
    if (!response.ok) {
      const error = data?.error ?? { code: "http_error", message: text.slice(0, 200) };
      throw new ApiError(error.code, error.message, response.status);
    }
    return data;
  }

  /** Sign-In with Ethereum: the server composes the EIP-4361 text, the wallet signs it. */
  async signIn(wallet) {
    const address = wallet.address ?? (await wallet.connect());
    const checksummed = await this.checksum(address);
    const grant = await this.call("nonce", {}, { address: checksummed });
    const signature = await wallet.signMessage(grant.message);
    const tokens = await this.call("signin", {}, { message: grant.message, signature });
    this.remember(tokens);
    return tokens;
  }

  /** The EIP-55 form of an address, as the server returns it for an unchecked one. */
  async checksum(address) {
    // The nonce route refuses a non-EIP-55 address; wallets answer in lowercase or mixed case.
    if (address !== address.toLowerCase()) return address;
    const { keccak256Hex } = await import("./keccak.js");
    const hex = address.slice(2).toLowerCase();
    const hash = keccak256Hex(hex);
    return "0x" + [...hex].map((c, i) => (parseInt(hash[i], 16) >= 8 ? c.toUpperCase() : c)).join("");
  }

  async signOut() {
    try {
      if (this.token) await this.call("logout");
    } finally {
      this.forget();
    }
  }

  forget() {
    this.address = null;
    this.token = null;
    this.refreshToken = null;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  /** The WebSocket of a table (see TableSocket). */
  openTable(tableId, handlers) {
    return new TableSocket(this, tableId, handlers);
  }
}

/**
 * One table's socket: checks every message, reconnects after a drop (the snapshot that
 * follows is a full resync), and sends moves with the ply they were chosen at.
 */
export class TableSocket {
  constructor(api, tableId, { onMessage, onState } = {}) {
    this.api = api;
    this.tableId = tableId;
    this.onMessage = onMessage || (() => {});
    this.onState = onState || (() => {});
    this.closed = false;
    this.retries = 0;
    this.refs = 0;
    this.open();
  }

  open() {
    const base = this.api.baseUrl.replace(/^http/, "ws") + routePath("table_socket", { table_id: this.tableId });
    const url = this.api.token ? `${base}?token=${encodeURIComponent(this.api.token)}` : base;
    this.ws = new WebSocket(url);
    this.onState("connecting");
    this.ws.onopen = () => {
      this.retries = 0;
      this.onState("open");
    };
    this.ws.onmessage = (event) => {
      let message;
      try {
        message = parseServerMessage(event.data);
      } catch (error) {
        if (error instanceof ProtocolError) {
          console.error("protocol error", error.message);
          return;
        }
        throw error;
      }
      if (message.type === "snapshot") this.refreshed = false; // the token was accepted
      // A refused token is announced just before the 4401 close that rotates it and
      // reconnects: not news for the page unless that rotation cannot happen.
      const refused = message.type === "error" && ["token_expired", "token_invalid"].includes(message.error.code);
      if (refused && this.api.refreshToken && !this.refreshed) return;
      this.onMessage(message);
    };
    this.ws.onclose = async (event) => {
      if (this.closed) return;
      // A refused token (expired during a long match): rotate it and reconnect at once.
      if (event.code === 4401 && !this.refreshed && (await this.api.refresh())) {
        this.refreshed = true;
        this.open();
        return;
      }
      const permanent = [4401, 4403, 4404].includes(event.code);
      this.onState(permanent ? `closed: ${CLOSE_CODES[event.code] ?? event.code}` : "reconnecting");
      if (permanent) return;
      // A full table (4429: its spectators' or an address's cap) is retried more slowly.
      const delay = event.code === 4429
        ? Math.min(60000, 5000 * 2 ** Math.min(this.retries++, 4)) * (0.5 + Math.random() / 2)
        : Math.min(5000, 250 * 2 ** this.retries++);
      setTimeout(() => !this.closed && this.open(), delay);
    };
  }

  send(type, fields = {}) {
    const message = clientMessage(type, fields);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    return message;
  }

  move(move, ply) {
    return this.send("move", { move, ply, ref: `m${++this.refs}` });
  }

  close() {
    this.closed = true;
    this.ws.close(1000);
  }
}
