// The DEW client library for browsers: HTTP routes and the table WebSocket, built on the
// message definitions of protocol.js (generated from backend/protocol/messages.py, like the
// Python client backend/protocol/client.py). No dependencies.

import {
  CLIENT_MESSAGES, CLOSE_CODES, MOVE_PATTERN, PROTOCOL_VERSION, ROUTES, SERVER_MESSAGES,
} from "./protocol.js";

/**
 * A refused request: `code` is the stable error code of docs/protocol.md; `detail` what else
 * the server named (a chain refusal's contract error: `{revert: "AgreementNotIdle"}`).
 */
export class ApiError extends Error {
  constructor(code, message, status, detail = null) {
    super(`${code}: ${message}`);
    this.code = code;
    this.status = status;
    this.detail = detail;
  }
}

// The messages' checks, as backend/protocol/messages.py's _check makes them (protocol.js gives
// a field's `required: false` and `nullable: true` only where they differ from the defaults).
export class ProtocolError extends Error {}

function typeOk(value, type) {
  switch (type) {
    case "integer": return Number.isInteger(value);
    case "number": return typeof value === "number";
    case "string": return typeof value === "string";
    case "boolean": return typeof value === "boolean";
    case "array": return Array.isArray(value);
    case "object": return value !== null && typeof value === "object" && !Array.isArray(value);
    default: return false;
  }
}

function check(message, catalogue) {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    throw new ProtocolError("a message is a JSON object");
  }
  if (message.v !== PROTOCOL_VERSION) {
    throw new ProtocolError(`protocol version ${message.v}, not ${PROTOCOL_VERSION}`);
  }
  const spec = Object.hasOwn(catalogue, message.type) ? catalogue[message.type] : null;
  if (!spec) throw new ProtocolError(`unknown message type ${JSON.stringify(message.type)}`);
  for (const field of spec.fields) {
    if (!(field.name in message)) {
      if (field.required === false) continue;
      throw new ProtocolError(`${message.type} message without ${field.name}`);
    }
    const value = message[field.name];
    if (value === null) {
      if (field.nullable) continue;
      throw new ProtocolError(`${message.type}.${field.name} null`);
    }
    if (field.name === "ref" && Number.isInteger(value)) continue;
    if (!typeOk(value, field.type)) {
      throw new ProtocolError(`${message.type}.${field.name} must be a ${field.type}`);
    }
  }
  if (message.type === "move" && !MOVE_PATTERN.test(message.move)) {
    throw new ProtocolError(`not a move: ${JSON.stringify(message.move)}`);
  }
  return message;
}

/** A checked client message: clientMessage("move", {move: "6:4L", ply: 3}). */
export function clientMessage(type, fields = {}) {
  const spec = Object.hasOwn(CLIENT_MESSAGES, type) ? CLIENT_MESSAGES[type] : null;
  if (!spec) throw new ProtocolError(`unknown message type ${JSON.stringify(type)}`);
  const known = new Set(spec.fields.map((f) => f.name));
  for (const name of Object.keys(fields)) {
    if (!known.has(name)) throw new ProtocolError(`${type} has no field ${name}`);
  }
  return check({ v: PROTOCOL_VERSION, type, ...fields }, CLIENT_MESSAGES);
}

/** Parse and check a server message (text); throws ProtocolError. */
export function parseServerMessage(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch (error) {
    throw new ProtocolError(`not JSON: ${error.message}`);
  }
  return check(message, SERVER_MESSAGES);
}

/** A route's path with its {placeholders} filled in. */
export function routePath(name, params = {}) {
  const [, template] = ROUTES[name];
  return template.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(String(params[key])));
}

const TOKEN_KEY = "dew.session";

export class DewApi {
  constructor(baseUrl = location.origin) {
    this.baseUrl = baseUrl;
    const saved = JSON.parse(sessionStorage.getItem(TOKEN_KEY) || "null");
    this.address = saved?.address ?? null;
    this.token = saved?.token ?? null;
    this.refreshToken = saved?.refresh ?? null;
    this.guest = Boolean(saved?.guest);
    this.refreshing = null;
  }

  remember(tokens, guest = this.guest) {
    this.address = tokens.address;
    this.token = tokens.access_token;
    this.refreshToken = tokens.refresh_token;
    this.guest = guest;
    const kept = { address: this.address, token: this.token, refresh: this.refreshToken, guest };
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
  call(name, params = {}, body = undefined, query = undefined) {
    const [method] = ROUTES[name];
    let path = routePath(name, params);
    if (query) {
      const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null));
      const text = search.toString();  // (URLSearchParams.size is missing in older browsers)
      if (text) path += `?${text}`;
    }
    // The sign-in routes themselves never rotate a token.
    return this.request(method, path, body, !["signin", "refresh", "nonce", "guest"].includes(name));
  }

  /** GET a path that protocol.ROUTES does not list (e.g. /markets/...). */
  get(path) {
    return this.request("GET", path);
  }

  /**
   * The one HTTP exchange of the client: JSON in and out with the session's token; a refused
   * (expired) access token is rotated once with the refresh token and the request repeated.
   */
  async request(method, path, body = undefined, mayRefresh = true, retried = false) {
    const headers = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(this.baseUrl + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      if (response.status === 401 && this.token && mayRefresh) {
        if (!retried && (await this.refresh())) return this.request(method, path, body, mayRefresh, true);
        this.forget();
      }
      const error = data?.error ?? { code: "http_error", message: text.slice(0, 200) };
      throw new ApiError(error.code, error.message, response.status, error.detail ?? null);
    }
    return data;
  }

  /** Sign-In with Ethereum: the server composes the EIP-4361 text, the wallet signs it. */
  async signIn(wallet) {
    const address = wallet.address ?? (await wallet.connect());
    const checksummed = await this.checksum(address);
    const grant = await this.call("nonce", {}, { address: checksummed });
    const signature = await wallet.signMessage(grant.message);
    // A guest who signs in keeps its history: the server moves it to the wallet.
    const body = { message: grant.message, signature };
    if (this.guest && this.token) body.guest_token = this.token;
    const tokens = await this.call("signin", {}, body);
    this.remember(tokens, false);
    return tokens;
  }

  /** A guest session (no wallet): free play only, until a wallet signs in. */
  async signInAsGuest() {
    const tokens = await this.call("guest", {}, {});
    this.remember(tokens, true);
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
    this.guest = false;
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
