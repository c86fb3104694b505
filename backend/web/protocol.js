// GENERATED from backend/protocol/messages.py by gen_protocol_js.py: do not edit.
// The DEW play protocol (version 1): messages, routes, codes (api.js checks).

export const PROTOCOL_VERSION = 1;
export const MOVE_PATTERN = new RegExp("^([0-6]:[0-6][LR]|draw|pass)$");
export const CLIENT_MESSAGES = {
  "move": {
    "doc": "play a move",
    "fields": [
      {"name": "move", "type": "string", "doc": "\"6:4L\", \"6:4R\", \"draw\" or \"pass\""},
      {
        "name": "ply", "type": "integer", "required": false, "nullable": true,
        "doc": "the ply you saw: refused with stale_ply if moved on"
      },
      {"name": "ref", "type": "string", "required": false, "nullable": true, "doc": "echoed in the ack or error"}
    ]
  },
  "resync": {"doc": "ask for a full snapshot", "fields": []},
  "ping": {
    "doc": "keep-alive",
    "fields": [{"name": "ref", "type": "string", "required": false, "nullable": true, "doc": "echoed"}]
  },
  "talk": {
    "doc": "say something at the table: exactly one of phrase, emote or text (seated players only)",
    "fields": [
      {"name": "phrase", "type": "string", "required": false, "nullable": true, "doc": "a TALK_PHRASES id"},
      {"name": "emote", "type": "string", "required": false, "nullable": true, "doc": "a TALK_EMOTES id"},
      {
        "name": "text", "type": "string", "required": false, "nullable": true,
        "doc": "free text, if the server allows it"
      },
      {"name": "ref", "type": "string", "required": false, "nullable": true, "doc": "echoed in an error"}
    ]
  },
  "mute": {
    "doc": "stop (or resume) receiving a seat's talk on this socket",
    "fields": [
      {"name": "seat", "type": "integer", "doc": "the seat to mute or unmute"},
      {"name": "muted", "type": "boolean", "doc": "true mutes, false unmutes"},
      {"name": "ref", "type": "string", "required": false, "nullable": true, "doc": "echoed in an error"}
    ]
  }
};
export const SERVER_MESSAGES = {
  "snapshot": {
    "doc": "the full state: on connect and on resync",
    "fields": [
      {"name": "table", "type": "object", "doc": "the table (TableOut fields)"},
      {"name": "seats", "type": "array", "doc": "seat, address, bot, avatar_id per seat"},
      {"name": "you", "type": "integer", "nullable": true, "doc": "your seat; null for a spectator"},
      {"name": "match_id", "type": "string", "nullable": true},
      {"name": "match_status", "type": "string", "doc": "none, live, finished or abandoned"},
      {"name": "seed_commitment", "type": "string", "nullable": true, "doc": "sha256 of the server seed"},
      {"name": "ply", "type": "integer"},
      {"name": "moves", "type": "array", "doc": "[seat, move, actor] public move log"},
      {"name": "view", "type": "object", "nullable": true, "doc": "the engine's view for your seat"},
      {"name": "deadline_ms", "type": "integer", "nullable": true, "doc": "turn deadline, Unix ms"},
      {"name": "final", "type": "object", "nullable": true, "doc": "the match_over message if over"}
    ]
  },
  "ack": {
    "doc": "your move is committed",
    "fields": [{"name": "ref", "type": "string", "nullable": true}, {"name": "ply", "type": "integer"}]
  },
  "moved": {
    "doc": "a move was committed",
    "fields": [
      {"name": "match_id", "type": "string"},
      {"name": "ply", "type": "integer", "doc": "the ply after the move"},
      {"name": "seat", "type": "integer"},
      {"name": "move", "type": "string", "doc": "public: a draw hides the tile"},
      {"name": "actor", "type": "string", "doc": "player, bot or timeout"},
      {"name": "view", "type": "object"},
      {"name": "deadline_ms", "type": "integer", "nullable": true}
    ]
  },
  "match_over": {
    "doc": "the match ended",
    "fields": [
      {"name": "match_id", "type": "string"},
      {"name": "ply", "type": "integer"},
      {"name": "result", "type": "object", "doc": "seats, winner_seats, forfeited_seat, scores"},
      {"name": "server_seed", "type": "string", "doc": "the revealed seed"},
      {"name": "result_hash", "type": "string", "nullable": true, "doc": "0x + sha256 of the record"}
    ]
  },
  "pong": {"doc": "answer to ping", "fields": [{"name": "ref", "type": "string", "nullable": true}]},
  "error": {
    "doc": "a refused message; nothing changed",
    "fields": [
      {"name": "ref", "type": "string", "nullable": true},
      {"name": "error", "type": "object", "doc": "code, message, detail"}
    ]
  },
  "talk": {
    "doc": "a seat said something (not sent to sockets that muted that seat)",
    "fields": [
      {"name": "seat", "type": "integer", "doc": "who said it"},
      {"name": "phrase", "type": "string", "nullable": true, "doc": "a TALK_PHRASES id"},
      {"name": "emote", "type": "string", "nullable": true, "doc": "a TALK_EMOTES id"},
      {"name": "text", "type": "string", "nullable": true, "doc": "free text (control characters stripped)"},
      {"name": "at_ms", "type": "integer", "doc": "when the server relayed it, Unix ms"}
    ]
  },
  "muted": {
    "doc": "answer to mute",
    "fields": [{"name": "seats", "type": "array", "doc": "the seats this socket has muted"}]
  }
};
export const WS_ERROR_CODES = [
  "malformed_json", "malformed_message", "message_too_large", "rate_limited", "unsupported_version", "unknown_type",
  "illegal_move", "not_your_turn", "stale_ply", "match_not_live", "unavailable", "forbidden", "invalid_request",
  "invalid_talk", "free_text_off"
];
export const CLOSE_CODES = {
  "1000": "normal", "4401": "bad token", "4403": "not allowed", "4404": "unknown table", "4408": "too slow",
  "4429": "too many sockets"
};
export const ROUTES = {
  "nonce": ["POST", "/auth/nonce"],
  "signin": ["POST", "/auth/signin"],
  "refresh": ["POST", "/auth/refresh"],
  "guest": ["POST", "/auth/guest"],
  "logout": ["POST", "/auth/logout"],
  "me": ["GET", "/auth/me"],
  "terms": ["GET", "/auth/terms"],
  "names": ["GET", "/names"],
  "my_name": ["GET", "/names/me"],
  "set_name": ["PUT", "/names/me"],
  "presets": ["GET", "/presets"],
  "lobby": ["GET", "/tables"],
  "create_table": ["POST", "/tables"],
  "table_limits": ["GET", "/tables/limits"],
  "table": ["GET", "/tables/{table_id}"],
  "join": ["POST", "/tables/{table_id}/join"],
  "leave": ["POST", "/tables/{table_id}/leave"],
  "invite": ["POST", "/tables/{table_id}/invite"],
  "start": ["POST", "/tables/{table_id}/start"],
  "queue": ["POST", "/matchmaking"],
  "ticket": ["GET", "/matchmaking/{ticket_id}"],
  "cancel_ticket": ["DELETE", "/matchmaking/{ticket_id}"],
  "match": ["GET", "/matches/{match_id}"],
  "results": ["GET", "/results"],
  "offers": ["POST", "/economy/offers"],
  "accept": ["POST", "/economy/agreements/{agreement_id}/accept"],
  "cancel_offer": ["POST", "/economy/agreements/{agreement_id}/cancel"],
  "cancel_offers": ["POST", "/economy/avatars/{avatar_id}/offers/cancel"],
  "reclaim": ["POST", "/economy/agreements/{agreement_id}/reclaim"],
  "close_agreement": ["POST", "/economy/agreements/{agreement_id}/close"],
  "terminate": ["POST", "/economy/agreements/{agreement_id}/terminate"],
  "agreements": ["GET", "/economy/agreements"],
  "owner_avatars": ["GET", "/economy/owners/{address}/avatars"],
  "scholar_earnings": ["GET", "/economy/scholars/{address}/earnings"],
  "wallet": ["GET", "/economy/wallets/{address}"],
  "money": ["GET", "/wallet"],
  "deposit": ["POST", "/wallet/deposit"],
  "withdraw": ["POST", "/wallet/withdrawals"],
  "withdrawals": ["GET", "/wallet/withdrawals"],
  "withdrawal": ["GET", "/wallet/withdrawals/{withdrawal_id}"],
  "screening_apply": ["POST", "/economy/screening/applications"],
  "screening_mine": ["GET", "/economy/screening/applications/mine"],
  "screening_queue": ["GET", "/economy/screening/queue"],
  "screening_approve": ["POST", "/economy/screening/applications/{application_id}/approve"],
  "screening_reject": ["POST", "/economy/screening/applications/{application_id}/reject"],
  "screening_receipt": ["POST", "/economy/screening/applications/{application_id}/receipt"],
  "report": ["POST", "/complaints"],
  "friends": ["GET", "/friends"],
  "friend_request": ["POST", "/friends/requests"],
  "friend_accept": ["POST", "/friends/requests/{address}/accept"],
  "friend_refuse": ["POST", "/friends/requests/{address}/refuse"],
  "friend_remove": ["DELETE", "/friends/{address}"],
  "friend_block": ["PUT", "/friends/blocks/{address}"],
  "friend_unblock": ["DELETE", "/friends/blocks/{address}"],
  "friend_messages": ["GET", "/friends/{address}/messages"],
  "friend_write": ["POST", "/friends/{address}/messages"],
  "friend_report": ["POST", "/friends/messages/{message_id}/report"],
  "friend_invite": ["POST", "/friends/{address}/invitations"],
  "invitations": ["GET", "/friends/invitations"],
  "table_socket": ["WS", "/ws/tables/{table_id}"]
};
export const TALK_PHRASES = [
  "hello", "good_luck", "nice_move", "well_played", "thanks", "sorry", "oops", "thinking", "hurry_up", "good_game",
  "rematch", "bye"
];
export const TALK_EMOTES = ["smile", "laugh", "wow", "thumbs_up", "clap", "sad", "angry", "think"];
export const REPORT_REASONS = ["abusive_language", "cheating", "collusion", "stalling", "spam", "impersonation", "other"];
