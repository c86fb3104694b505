// Spanish and English strings. The seeds are Spanish-speaking products: Spanish is the default.

const STRINGS = {
  es: {
    lobby: "Salón", history: "Historial", dashboard: "Avatares y becas", connect: "Conectar billetera",
    signin: "Iniciar sesión con Ethereum", signout: "Cerrar sesión",
    noWallet: "No se encontró ninguna billetera (EIP-1193).",
    wallets: "Billeteras disponibles", signedInAs: "Conectado como", signingIn: "Firma el mensaje en tu billetera…",
    openTables: "Mesas abiertas", liveTables: "Partidas en juego", none: "Ninguna.", join: "Sentarse",
    watch: "Mirar", createTable: "Crear mesa", preset: "Modalidad", seats: "Asientos", kind: "Tipo",
    human: "Humanos", practice: "Práctica contra bots", ai: "Bots contra bots", visibility: "Visibilidad",
    public: "Pública", private: "Privada", invite: "Invitar (direcciones, separadas por comas)",
    create: "Crear", earning: "Mesa con recompensas", avatar: "Avatar (id)", matchmaking: "Buscar partida",
    queue: "Buscar", waiting: "Buscando rivales…", cancel: "Cancelar", table: "Mesa", seat: "Asiento",
    you: "tú", bot: "bot", empty: "libre", startBots: "Empezar con bots", leave: "Levantarse",
    inviteLink: "Enlace de invitación", yourHand: "Tu mano", line: "Línea de juego", scores: "Puntos",
    turn: "Turno", yourTurn: "¡Es tu turno!", waitingTurn: "Esperando a", timer: "Tiempo",
    draw: "Robar", pass: "Pasar", left: "Izquierda", right: "Derecha", boneyard: "Pozo",
    matchOver: "Partida terminada", winner: "Ganador", placement: "Puesto", points: "Puntos",
    reconnecting: "Reconectando…", connected: "Conectado", spectator: "Espectador",
    replay: "Repetición", verify: "Verificar", verified: "Verificado", notVerified: "NO verificado",
    commitment: "Compromiso de la semilla", deals: "Repartos derivados de la semilla", resultHash: "Hash del resultado",
    hand: "Mano", move: "Jugada", prev: "Anterior", next: "Siguiente", results: "Resultados",
    myAvatars: "Mis avatares", offers: "Ofertas para mí", agreements: "Acuerdos", earnings: "Ganancias",
    offerAvatar: "Ofrecer un avatar", scholar: "Becario (vacío: cualquiera)", terms: "Condiciones",
    fixedRent: "Renta fija", rewardsDivision: "División de recompensas", durationS: "Duración (s)",
    rent: "Renta (DEW)", ownerBps: "Parte del dueño (puntos básicos)", offer: "Ofrecer",
    accept: "Aceptar", terminate: "Terminar", txToSign: "Transacciones que tu billetera debe firmar",
    signSend: "Firmar y enviar",
    sent: "Enviada", confirmed: "Confirmada", gross: "Bruto", ownerShare: "Dueño", scholarShare: "Becario",
    matches: "Partidas", wins: "Victorias", status: "Estado", earned: "Ganado", pending: "Pendiente",
    paid: "Pagado", owner: "Dueño", role: "Rol", noAccount: "Conecta tu billetera para jugar.",
    playNow: "Jugar ya contra un bot", playNowHint: "Una mano de robar a dos contra un bot fácil.",
    guestHint: "Sin billetera: juegas como invitado, gratis. Conéctala luego y guardas tu historial.",
    guestPlayer: "Invitado",
    error: "Error", signInFirst: "Inicia sesión primero.", ply: "Jugada n.º", tiles: "fichas",
    stake: "Apuesta", noStake: "sin apuesta", earningShort: "Recompensas", turnTimer: "Tiempo por turno",
    yes: "sí", no: "no",
    confirmStake: "Esta mesa aparta una apuesta de {stake} de tu saldo en la bóveda mientras ocupas el asiento, "
      + "y la retiene cuando empieza la partida. "
      + "Tiempo por turno: {timer} s; cuando se te acaba juega un bot por ti, y si se te acaba varias veces "
      + "seguidas pierdes la partida y la apuesta. ¿Sentarte?",
  },
  en: {
    lobby: "Lobby", history: "History", dashboard: "Avatars & scholarships", connect: "Connect wallet",
    signin: "Sign in with Ethereum", signout: "Sign out", noWallet: "No wallet found (EIP-1193).",
    wallets: "Available wallets", signedInAs: "Signed in as", signingIn: "Sign the message in your wallet…",
    openTables: "Open tables", liveTables: "Matches in play", none: "None.", join: "Take a seat",
    watch: "Watch", createTable: "Create a table", preset: "Game", seats: "Seats", kind: "Kind",
    human: "Humans", practice: "Practice against bots", ai: "Bots against bots", visibility: "Visibility",
    public: "Public", private: "Private", invite: "Invite (addresses, comma separated)",
    create: "Create", earning: "Earning table", avatar: "Avatar (id)", matchmaking: "Find a match",
    queue: "Find", waiting: "Looking for opponents…", cancel: "Cancel", table: "Table", seat: "Seat",
    you: "you", bot: "bot", empty: "empty", startBots: "Start with bots", leave: "Leave",
    inviteLink: "Invite link", yourHand: "Your hand", line: "Line of play", scores: "Scores",
    turn: "Turn", yourTurn: "Your turn!", waitingTurn: "Waiting for", timer: "Time",
    draw: "Draw", pass: "Pass", left: "Left", right: "Right", boneyard: "Boneyard",
    matchOver: "Match over", winner: "Winner", placement: "Place", points: "Points",
    reconnecting: "Reconnecting…", connected: "Connected", spectator: "Spectator",
    replay: "Replay", verify: "Verify", verified: "Verified", notVerified: "NOT verified",
    commitment: "Seed commitment", deals: "Deals derived from the seed", resultHash: "Result hash",
    hand: "Hand", move: "Move", prev: "Previous", next: "Next", results: "Results",
    myAvatars: "My avatars", offers: "Offers to me", agreements: "Agreements", earnings: "Earnings",
    offerAvatar: "Offer an avatar", scholar: "Scholar (empty: anyone)", terms: "Terms",
    fixedRent: "Fixed Rent", rewardsDivision: "Rewards Division", durationS: "Duration (s)",
    rent: "Rent (DEW)", ownerBps: "Owner's share (basis points)", offer: "Offer",
    accept: "Accept", terminate: "Terminate", txToSign: "Transactions your wallet must sign", signSend: "Sign and send",
    sent: "Sent", confirmed: "Confirmed", gross: "Gross", ownerShare: "Owner", scholarShare: "Scholar",
    matches: "Matches", wins: "Wins", status: "Status", earned: "Earned", pending: "Pending",
    paid: "Paid", owner: "Owner", role: "Role", noAccount: "Connect your wallet to play.",
    playNow: "Play a bot now", playNowHint: "A two-player draw game against an easy bot.",
    guestHint: "No wallet needed: you play as a guest, for free. Connect one later and keep your history.",
    guestPlayer: "Guest",
    error: "Error", signInFirst: "Sign in first.", ply: "Ply", tiles: "tiles",
    stake: "Stake", noStake: "no stake", earningShort: "Earning", turnTimer: "Turn timer",
    yes: "yes", no: "no",
    confirmStake: "This table sets a stake of {stake} aside from your vault balance while you hold the seat, "
      + "and escrows it when the match starts. "
      + "Turn timer: {timer} s; when it runs out a bot plays for you, and after several timeouts in a row "
      + "you forfeit the match and the stake. Take the seat?",
  },
};

// The wallet page (money.js): balances, escrow, deposits and withdrawals.
const WALLET_STRINGS = {
  es: {
    wallet: "Billetera", dewOnChain: "DEW en tu billetera (en cadena)", stakeBalance: "Saldo depositado en la bóveda",
    escrowed: "Retenido en juego", escrowWhy: "Retenido y por qué", tableMatch: "Partida de la mesa",
    tournament: "Torneo", deposit: "Depositar",
    depositHelp: "Transfiere DEW a la bóveda; se acredita cuando la transferencia queda confirmada.",
    withdraw: "Retirar", withdrawHelp: "Paga parte de tu saldo depositado a tu billetera (nunca lo retenido en juego).",
    amountDew: "Cantidad (DEW)", withdrawals: "Retiros", stakeHistory: "Movimientos del saldo",
    amount: "Cantidad", since: "Desde", when: "Fecha", txHash: "Transacción", reference: "Referencia",
    refresh: "Actualizar",
    badAmount: "Cantidad no válida (p. ej. 2.5)", chainUnavailable: "La cadena no responde",
    state_requested: "solicitado", state_sent: "enviado", state_waiting: "esperando el límite de la bóveda",
    state_paid: "pagado", state_failed: "fallido (devuelto al saldo)", state_done: "hecho",
    kind_deposit: "depósito", kind_escrow: "retenido", kind_release: "devuelto", kind_withdrawal: "retiro",
    kind_reversal: "retiro devuelto", kind_hold: "apartado para un asiento", kind_unhold: "asiento liberado",
  },
  en: {
    wallet: "Wallet", dewOnChain: "DEW in your wallet (on chain)", stakeBalance: "Balance deposited in the vault",
    escrowed: "Held in play", escrowWhy: "Held, and why", tableMatch: "Match at table", tournament: "Tournament",
    deposit: "Deposit", depositHelp: "Transfers DEW into the vault; credited once the transfer is confirmed.",
    withdraw: "Withdraw",
    withdrawHelp: "Pays part of your deposited balance to your wallet (never what is held in play).",
    amountDew: "Amount (DEW)", withdrawals: "Withdrawals", stakeHistory: "Balance history",
    amount: "Amount", since: "Since", when: "Date", txHash: "Transaction", reference: "Reference", refresh: "Refresh",
    badAmount: "Not a valid amount (e.g. 2.5)", chainUnavailable: "The chain does not answer",
    state_requested: "requested", state_sent: "sent", state_waiting: "waiting on the vault's limit",
    state_paid: "paid", state_failed: "failed (back in the balance)", state_done: "done",
    kind_deposit: "deposit", kind_escrow: "escrow", kind_release: "refund", kind_withdrawal: "withdrawal",
    kind_reversal: "withdrawal returned", kind_hold: "set aside for a seat", kind_unhold: "seat released",
  },
};
// The create-table form (create.js) and the table modes of seed 004 (tablemodes.js).
const TABLE_OPTION_STRINGS = {
  es: {
    same_device: "Dos jugadores en este dispositivo", ruleOptions: "Reglas de la mesa", vipOnly: "VIP",
    premiumWhy: "Elección premium ({options}): solo una billetera con pase VIP vigente puede crear esta mesa; "
      + "cualquiera puede sentarse después.",
    vipRequiredWhy: "El servidor rechazó la mesa: las elecciones marcadas con ★ VIP necesitan un pase VIP vigente "
      + "en tu billetera. Elige otras reglas o consigue un pase.",
    onlyWith: "({choices} solo con {option} = {value})", botLevels: "Nivel de cada bot",
    botLevelSeat: "Bot del asiento", level_easy: "Fácil", level_medium: "Medio", level_hard: "Difícil",
    level_expert: "Experto", badStake: "La apuesta es una cantidad de DEW, p. ej. 2.5",
    sameDeviceHint: "Dos jugadores se turnan en este dispositivo: solo se ve la mano de quien juega, "
      + "con una pantalla para pasar el dispositivo entre turnos. Sin recompensas ni apuestas.",
    handOver: "Pasa el dispositivo", handOverText: "Turno del asiento {seat}. La otra mano queda oculta: "
      + "pasa el dispositivo a ese jugador.",
    showHand: "Soy el asiento {seat}: ver mi mano", botSpeed: "Velocidad de los bots (solo para ti)",
    speed_live: "En vivo", speed_normal: "Normal", speed_slow: "Lenta",
  },
  en: {
    same_device: "Two players on this device", ruleOptions: "Table rules", vipOnly: "VIP",
    premiumWhy: "Premium choice ({options}): only a wallet with a valid VIP pass can create this table; "
      + "anyone may take a seat afterwards.",
    vipRequiredWhy: "The server refused the table: choices marked ★ VIP need a valid VIP pass in your wallet. "
      + "Pick other rules or get a pass.",
    onlyWith: "({choices} only with {option} = {value})", botLevels: "Each bot's level",
    botLevelSeat: "Bot in seat", level_easy: "Easy", level_medium: "Medium", level_hard: "Hard",
    level_expert: "Expert", badStake: "The stake is an amount of DEW, e.g. 2.5",
    sameDeviceHint: "Two players take turns on this device: only the hand of the player to move is shown, "
      + "with a hand-over screen between turns. No rewards, no stake.",
    handOver: "Hand the device over", handOverText: "Seat {seat} to play. The other hand stays hidden: "
      + "pass the device to that player.",
    showHand: "I am seat {seat}: show my hand", botSpeed: "Bot speed (for you only)",
    speed_live: "Live", speed_normal: "Normal", speed_slow: "Slow",
  },
};
Object.assign(STRINGS.es, TABLE_OPTION_STRINGS.es);
Object.assign(STRINGS.en, TABLE_OPTION_STRINGS.en);
Object.assign(STRINGS.es, WALLET_STRINGS.es);
Object.assign(STRINGS.en, WALLET_STRINGS.en);

// Navigation to the seasons, competitions and help pages; their own strings live in their
// modules (seasons.js, competitions.js, help.js), which add them with addStrings().
Object.assign(STRINGS.es, { seasons: "Temporadas", competitions: "Competiciones", help: "Ayuda" });
Object.assign(STRINGS.en, { seasons: "Seasons", competitions: "Competitions", help: "Help" });
// Navigation to the markets: shop.js, market.js and avatar.js add their own strings.
Object.assign(STRINGS.es, { shop: "Tienda", market: "Mercado" });
Object.assign(STRINGS.en, { shop: "Shop", market: "Market" });
// Game Centers and content creators: the nav links; the pages add the rest.
Object.assign(STRINGS.es, { centers: "Centros", creator: "Creadores" });
Object.assign(STRINGS.en, { centers: "Centers", creator: "Creators" });

/** Add a screen's strings: `{es: {...}, en: {...}}`. */
export function addStrings(tables) {
  for (const [code, strings] of Object.entries(tables)) Object.assign(STRINGS[code], strings);
}
// Screening of owners (screening.js).
const SCREENING_STRINGS = {
  es: {
    screening: "Evaluación de dueños", myApplication: "Mi solicitud",
    noApplication: "Aún no has solicitado la evaluación.",
    applyScreening: "Solicitar la evaluación",
    applyScreeningHelp:
      "Para alquilar avatares, un evaluador debe aprobarte. Cuéntale quién eres y qué avatares ofrecerás.",
    statement: "Declaración", apply: "Solicitar", applicationSent: "Solicitud enviada.",
    statementEmpty: "Escribe una declaración.", reason: "Motivo", reasonEmpty: "Escribe el motivo del rechazo.",
    screeningQueue: "Solicitudes por evaluar", approve: "Aprobar (en cadena)", reject: "Rechazar",
    signingApproval: "Firma la aprobación en tu billetera…",
    waitingChain: "Esperando la confirmación en cadena…",
    screening_pending: "pendiente", screening_approved: "aprobada (en cadena)", screening_rejected: "rechazada",
    screening_withdrawn: "aprobación retirada",
  },
  en: {
    screening: "Owner screening", myApplication: "My application", noApplication: "You have not applied yet.",
    applyScreening: "Apply to be screened",
    applyScreeningHelp:
      "To rent out avatars a screener must approve you. Tell them who you are and what you will offer.",
    statement: "Statement", apply: "Apply", applicationSent: "Application sent.",
    statementEmpty: "Write a statement.", reason: "Reason", reasonEmpty: "Write the reason for the rejection.",
    screeningQueue: "Applications to review", approve: "Approve (on chain)", reject: "Reject",
    signingApproval: "Sign the approval in your wallet…", waitingChain: "Waiting for the chain to confirm it…",
    screening_pending: "pending", screening_approved: "approved (on chain)", screening_rejected: "rejected",
    screening_withdrawn: "approval withdrawn",
  },
};
Object.assign(STRINGS.es, SCREENING_STRINGS.es);
Object.assign(STRINGS.en, SCREENING_STRINGS.en);
// The terms gate (terms.js): terms of service and legal age before earning or staked play.
const TERMS_STRINGS = {
  es: {
    termsTitle: "Condiciones de servicio y mayoría de edad",
    termsWhy: "Las mesas con ganancias o con apuesta exigen aceptar las condiciones vigentes y confirmar "
      + "que eres mayor de edad. Tu billetera firma ambas cosas en un nuevo mensaje de inicio de sesión.",
    termsRead: "Leer las condiciones (versión {version})",
    termsLegalAge: "Confirmo que soy mayor de edad donde vivo.",
    termsAccept: "Aceptar y firmar", termsAccepted: "Condiciones aceptadas.",
    stakedOff: "Este servidor no ofrece mesas con apuesta.",
  },
  en: {
    termsTitle: "Terms of service and legal age",
    termsWhy: "Earning and staked tables need the current terms accepted and your legal age confirmed. "
      + "Your wallet signs both in a new sign-in message.",
    termsRead: "Read the terms (version {version})",
    termsLegalAge: "I confirm that I am of legal age where I live.",
    termsAccept: "Accept and sign", termsAccepted: "Terms accepted.",
    stakedOff: "This server offers no staked tables.",
  },
};
Object.assign(STRINGS.es, TERMS_STRINGS.es);
Object.assign(STRINGS.en, TERMS_STRINGS.en);
// Table talk (talk.js): the chat bar's phrases and emotes, mute, and reports of players.
const TALK_STRINGS = {
  es: {
    talk: "Charla", phrases: "Frases", emotes: "Gestos", mute: "Silenciar", unmute: "Dejar de silenciar",
    talkSpectator: "Los espectadores leen la charla; solo hablan los jugadores sentados.",
    phrase_hello: "¡Hola!", phrase_good_luck: "¡Buena suerte!", phrase_nice_move: "¡Buena jugada!",
    phrase_well_played: "Bien jugado", phrase_thanks: "Gracias", phrase_sorry: "Perdón", phrase_oops: "¡Uy!",
    phrase_thinking: "Déjame pensar…", phrase_hurry_up: "¿Juegas?", phrase_good_game: "Buena partida",
    phrase_rematch: "¿Otra?", phrase_bye: "¡Adiós!",
    emote_smile: "sonrisa", emote_laugh: "risa", emote_wow: "asombro", emote_thumbs_up: "pulgar arriba",
    emote_clap: "aplauso", emote_sad: "tristeza", emote_angry: "enfado", emote_think: "pensando",
    report: "Denunciar", reportPlayer: "Denunciar a", reportReason: "Motivo",
    reportNote: "Nota (opcional, 280 caracteres)",
    reportSend: "Enviar denuncia", reportSent: "Denuncia enviada: la revisará el operador.",
    reason_abusive_language: "Lenguaje ofensivo", reason_cheating: "Trampas", reason_collusion: "Confabulación",
    reason_stalling: "Hace esperar a propósito", reason_spam: "Mensajes repetidos",
    reason_impersonation: "Suplantación",
    reason_other: "Otro",
  },
  en: {
    talk: "Chat", phrases: "Phrases", emotes: "Emotes", mute: "Mute", unmute: "Unmute",
    talkSpectator: "Spectators read the chat; only seated players talk.",
    phrase_hello: "Hello!", phrase_good_luck: "Good luck!", phrase_nice_move: "Nice move!",
    phrase_well_played: "Well played", phrase_thanks: "Thanks", phrase_sorry: "Sorry", phrase_oops: "Oops!",
    phrase_thinking: "Let me think…", phrase_hurry_up: "Your turn?", phrase_good_game: "Good game",
    phrase_rematch: "Rematch?", phrase_bye: "Bye!",
    emote_smile: "smile", emote_laugh: "laugh", emote_wow: "wow", emote_thumbs_up: "thumbs up",
    emote_clap: "applause", emote_sad: "sad", emote_angry: "angry", emote_think: "thinking",
    report: "Report", reportPlayer: "Report", reportReason: "Reason",
    reportNote: "Note (optional, 280 characters)",
    reportSend: "Send report", reportSent: "Report sent: the operator will review it.",
    reason_abusive_language: "Abusive language", reason_cheating: "Cheating", reason_collusion: "Collusion",
    reason_stalling: "Stalling on purpose", reason_spam: "Spam", reason_impersonation: "Impersonation",
    reason_other: "Other",
  },
};
// The table's board, tiles, motion and the lobby's avatar picker (board.js, tiles.js, play.js,
// felt.js, motion.js, sound.js, avatars.js).
const BOARD_STRINGS = {
  es: {
    pip_blank: "blanca", pip_one: "uno", pip_two: "dos", pip_three: "tres", pip_four: "cuatro", pip_five: "cinco",
    pip_six: "seis", pip_seven: "siete", pip_eight: "ocho", pip_nine: "nueve", doubleOf: "doble {n}",
    chooseEnd: "Elige el extremo", playable: "se puede jugar", draws: "roba del pozo", passes: "pasa",
    side: "Lado", handPoints: "Puntos de la mano", handEnd: "Fin de la mano", yourTilesLeft: "Te quedaron:",
    pipTotal: "Suma de puntos", close: "Cerrar", soundOn: "Sonido: sí", soundOff: "Sonido: no", won: "ganada",
    fees: "Comisiones", feesNone: "—", feeRake: "comisión {rake} %",
    feeLegs: "tesorería {treasury} % · centro {center} % · creador {creator} %",
    avatarPick: "Avatar para jugar con recompensas", avatarNone: "Tu billetera no tiene ni alquila ningún avatar.",
    avatarOwned: "Propio", avatarRented: "Alquilado", avatarUntil: "hasta {date}",
    avatarTermsRent: "renta fija {rent}", avatarTermsSplit: "el dueño recibe {owner} %, tú {scholar} %",
    confirmTitle: "Confirmar la apuesta", confirmYes: "Sentarme", confirmNo: "Cancelar",
  },
  en: {
    pip_blank: "blank", pip_one: "one", pip_two: "two", pip_three: "three", pip_four: "four", pip_five: "five",
    pip_six: "six", pip_seven: "seven", pip_eight: "eight", pip_nine: "nine", doubleOf: "double {n}",
    chooseEnd: "Choose the end", playable: "playable", draws: "draws from the boneyard", passes: "passes",
    side: "Side", handPoints: "Points of the hand", handEnd: "End of hand", yourTilesLeft: "Left in your hand:",
    pipTotal: "Pip total", close: "Close", soundOn: "Sound: on", soundOff: "Sound: off", won: "won",
    fees: "Fees", feesNone: "—", feeRake: "rake {rake} %",
    feeLegs: "treasury {treasury} % · center {center} % · creator {creator} %",
    avatarPick: "Avatar for earning play", avatarNone: "Your wallet neither owns nor rents an avatar.",
    avatarOwned: "Owned", avatarRented: "Rented", avatarUntil: "until {date}",
    avatarTermsRent: "fixed rent {rent}", avatarTermsSplit: "the owner gets {owner} %, you {scholar} %",
    confirmTitle: "Confirm the stake", confirmYes: "Take the seat", confirmNo: "Cancel",
  },
};
Object.assign(STRINGS.es, BOARD_STRINGS.es);
Object.assign(STRINGS.en, BOARD_STRINGS.en);
Object.assign(STRINGS.es, TALK_STRINGS.es);
Object.assign(STRINGS.en, TALK_STRINGS.en);

let lang = localStorage.getItem("dew.lang") || (navigator.language || "es").slice(0, 2);
if (!STRINGS[lang]) lang = "es";

export function t(key) {
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
}

/** Every string of one language (the browser tests compare a page with the other language). */
export function catalogue(code) {
  return { ...STRINGS[code] };
}

export function currentLang() {
  return lang;
}

export function toggleLang() {
  lang = lang === "es" ? "en" : "es";
  localStorage.setItem("dew.lang", lang);
  document.documentElement.lang = lang;
  return lang;
}

document.documentElement.lang = lang;
