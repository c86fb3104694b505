// GENERATED from backend/protocol/messages.py by gen_protocol_js.py: do not edit.
// The DEW play protocol (version 1): messages, routes, codes, and checks.

export const PROTOCOL_VERSION = 1;
export const MOVE_PATTERN = new RegExp("^([0-6]:[0-6][LR]|draw|pass)$");
export const CLIENT_MESSAGES = {
  "move": {
    "doc": "play a move",
    "fields": [
      {
        "doc": "\"6:4L\", \"6:4R\", \"draw\" or \"pass\"",
        "name": "move",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "the ply you saw: refused with stale_ply if moved on",
        "name": "ply",
        "nullable": true,
        "required": false,
        "type": "integer"
      },
      {
        "doc": "echoed in the ack or error",
        "name": "ref",
        "nullable": true,
        "required": false,
        "type": "string"
      }
    ]
  },
  "mute": {
    "doc": "stop (or resume) receiving a seat's talk on this socket",
    "fields": [
      {
        "doc": "the seat to mute or unmute",
        "name": "seat",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "true mutes, false unmutes",
        "name": "muted",
        "nullable": false,
        "required": true,
        "type": "boolean"
      },
      {
        "doc": "echoed in an error",
        "name": "ref",
        "nullable": true,
        "required": false,
        "type": "string"
      }
    ]
  },
  "ping": {
    "doc": "keep-alive",
    "fields": [
      {
        "doc": "echoed",
        "name": "ref",
        "nullable": true,
        "required": false,
        "type": "string"
      }
    ]
  },
  "resync": {
    "doc": "ask for a full snapshot",
    "fields": []
  },
  "talk": {
    "doc": "say something at the table: exactly one of phrase, emote or text (seated players only)",
    "fields": [
      {
        "doc": "a TALK_PHRASES id",
        "name": "phrase",
        "nullable": true,
        "required": false,
        "type": "string"
      },
      {
        "doc": "a TALK_EMOTES id",
        "name": "emote",
        "nullable": true,
        "required": false,
        "type": "string"
      },
      {
        "doc": "free text, if the server allows it",
        "name": "text",
        "nullable": true,
        "required": false,
        "type": "string"
      },
      {
        "doc": "echoed in an error",
        "name": "ref",
        "nullable": true,
        "required": false,
        "type": "string"
      }
    ]
  }
};
export const SERVER_MESSAGES = {
  "ack": {
    "doc": "your move is committed",
    "fields": [
      {
        "doc": "",
        "name": "ref",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "",
        "name": "ply",
        "nullable": false,
        "required": true,
        "type": "integer"
      }
    ]
  },
  "error": {
    "doc": "a refused message; nothing changed",
    "fields": [
      {
        "doc": "",
        "name": "ref",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "code, message, detail",
        "name": "error",
        "nullable": false,
        "required": true,
        "type": "object"
      }
    ]
  },
  "match_over": {
    "doc": "the match ended",
    "fields": [
      {
        "doc": "",
        "name": "match_id",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "",
        "name": "ply",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "seats, winner_seats, forfeited_seat, scores",
        "name": "result",
        "nullable": false,
        "required": true,
        "type": "object"
      },
      {
        "doc": "the revealed seed",
        "name": "server_seed",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "0x + sha256 of the record",
        "name": "result_hash",
        "nullable": true,
        "required": true,
        "type": "string"
      }
    ]
  },
  "moved": {
    "doc": "a move was committed",
    "fields": [
      {
        "doc": "",
        "name": "match_id",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "the ply after the move",
        "name": "ply",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "",
        "name": "seat",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "public: a draw hides the tile",
        "name": "move",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "player, bot or timeout",
        "name": "actor",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "",
        "name": "view",
        "nullable": false,
        "required": true,
        "type": "object"
      },
      {
        "doc": "",
        "name": "deadline_ms",
        "nullable": true,
        "required": true,
        "type": "integer"
      }
    ]
  },
  "muted": {
    "doc": "answer to mute",
    "fields": [
      {
        "doc": "the seats this socket has muted",
        "name": "seats",
        "nullable": false,
        "required": true,
        "type": "array"
      }
    ]
  },
  "pong": {
    "doc": "answer to ping",
    "fields": [
      {
        "doc": "",
        "name": "ref",
        "nullable": true,
        "required": true,
        "type": "string"
      }
    ]
  },
  "snapshot": {
    "doc": "the full state: on connect and on resync",
    "fields": [
      {
        "doc": "the table (TableOut fields)",
        "name": "table",
        "nullable": false,
        "required": true,
        "type": "object"
      },
      {
        "doc": "seat, address, bot, avatar_id per seat",
        "name": "seats",
        "nullable": false,
        "required": true,
        "type": "array"
      },
      {
        "doc": "your seat; null for a spectator",
        "name": "you",
        "nullable": true,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "",
        "name": "match_id",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "none, live, finished or abandoned",
        "name": "match_status",
        "nullable": false,
        "required": true,
        "type": "string"
      },
      {
        "doc": "sha256 of the server seed",
        "name": "seed_commitment",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "",
        "name": "ply",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "[seat, move, actor] public move log",
        "name": "moves",
        "nullable": false,
        "required": true,
        "type": "array"
      },
      {
        "doc": "the engine's view for your seat",
        "name": "view",
        "nullable": true,
        "required": true,
        "type": "object"
      },
      {
        "doc": "turn deadline, Unix ms",
        "name": "deadline_ms",
        "nullable": true,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "the match_over message if over",
        "name": "final",
        "nullable": true,
        "required": true,
        "type": "object"
      }
    ]
  },
  "talk": {
    "doc": "a seat said something (not sent to sockets that muted that seat)",
    "fields": [
      {
        "doc": "who said it",
        "name": "seat",
        "nullable": false,
        "required": true,
        "type": "integer"
      },
      {
        "doc": "a TALK_PHRASES id",
        "name": "phrase",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "a TALK_EMOTES id",
        "name": "emote",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "free text (control characters stripped)",
        "name": "text",
        "nullable": true,
        "required": true,
        "type": "string"
      },
      {
        "doc": "when the server relayed it, Unix ms",
        "name": "at_ms",
        "nullable": false,
        "required": true,
        "type": "integer"
      }
    ]
  }
};
export const WS_ERROR_CODES = [
  "malformed_json",
  "malformed_message",
  "message_too_large",
  "rate_limited",
  "unsupported_version",
  "unknown_type",
  "illegal_move",
  "not_your_turn",
  "stale_ply",
  "match_not_live",
  "unavailable",
  "forbidden",
  "invalid_request",
  "invalid_talk",
  "free_text_off"
];
export const CLOSE_CODES = {
  "1000": "normal",
  "4401": "bad token",
  "4403": "not allowed",
  "4404": "unknown table",
  "4408": "too slow",
  "4429": "too many sockets"
};
export const ROUTES = {
  "accept": [
    "POST",
    "/economy/agreements/{agreement_id}/accept"
  ],
  "agreements": [
    "GET",
    "/economy/agreements"
  ],
  "cancel_offer": [
    "POST",
    "/economy/agreements/{agreement_id}/cancel"
  ],
  "cancel_ticket": [
    "DELETE",
    "/matchmaking/{ticket_id}"
  ],
  "create_table": [
    "POST",
    "/tables"
  ],
  "deposit": [
    "POST",
    "/wallet/deposit"
  ],
  "guest": [
    "POST",
    "/auth/guest"
  ],
  "invite": [
    "POST",
    "/tables/{table_id}/invite"
  ],
  "join": [
    "POST",
    "/tables/{table_id}/join"
  ],
  "leave": [
    "POST",
    "/tables/{table_id}/leave"
  ],
  "lobby": [
    "GET",
    "/tables"
  ],
  "logout": [
    "POST",
    "/auth/logout"
  ],
  "match": [
    "GET",
    "/matches/{match_id}"
  ],
  "me": [
    "GET",
    "/auth/me"
  ],
  "money": [
    "GET",
    "/wallet"
  ],
  "nonce": [
    "POST",
    "/auth/nonce"
  ],
  "offers": [
    "POST",
    "/economy/offers"
  ],
  "owner_avatars": [
    "GET",
    "/economy/owners/{address}/avatars"
  ],
  "presets": [
    "GET",
    "/presets"
  ],
  "queue": [
    "POST",
    "/matchmaking"
  ],
  "refresh": [
    "POST",
    "/auth/refresh"
  ],
  "report": [
    "POST",
    "/complaints"
  ],
  "results": [
    "GET",
    "/results"
  ],
  "scholar_earnings": [
    "GET",
    "/economy/scholars/{address}/earnings"
  ],
  "screening_apply": [
    "POST",
    "/economy/screening/applications"
  ],
  "screening_approve": [
    "POST",
    "/economy/screening/applications/{application_id}/approve"
  ],
  "screening_mine": [
    "GET",
    "/economy/screening/applications/mine"
  ],
  "screening_queue": [
    "GET",
    "/economy/screening/queue"
  ],
  "screening_receipt": [
    "POST",
    "/economy/screening/applications/{application_id}/receipt"
  ],
  "screening_reject": [
    "POST",
    "/economy/screening/applications/{application_id}/reject"
  ],
  "signin": [
    "POST",
    "/auth/signin"
  ],
  "start": [
    "POST",
    "/tables/{table_id}/start"
  ],
  "table": [
    "GET",
    "/tables/{table_id}"
  ],
  "table_limits": [
    "GET",
    "/tables/limits"
  ],
  "table_socket": [
    "WS",
    "/ws/tables/{table_id}"
  ],
  "terminate": [
    "POST",
    "/economy/agreements/{agreement_id}/terminate"
  ],
  "terms": [
    "GET",
    "/auth/terms"
  ],
  "ticket": [
    "GET",
    "/matchmaking/{ticket_id}"
  ],
  "wallet": [
    "GET",
    "/economy/wallets/{address}"
  ],
  "withdraw": [
    "POST",
    "/wallet/withdrawals"
  ],
  "withdrawal": [
    "GET",
    "/wallet/withdrawals/{withdrawal_id}"
  ],
  "withdrawals": [
    "GET",
    "/wallet/withdrawals"
  ]
};
export const TALK_PHRASES = [
  "hello",
  "good_luck",
  "nice_move",
  "well_played",
  "thanks",
  "sorry",
  "oops",
  "thinking",
  "hurry_up",
  "good_game",
  "rematch",
  "bye"
];
export const TALK_EMOTES = [
  "smile",
  "laugh",
  "wow",
  "thumbs_up",
  "clap",
  "sad",
  "angry",
  "think"
];
export const REPORT_REASONS = [
  "abusive_language",
  "cheating",
  "collusion",
  "stalling",
  "spam",
  "impersonation",
  "other"
];

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
      if (!field.required) continue;
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
