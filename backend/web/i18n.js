// Spanish and English strings. The seeds are Spanish-speaking products: Spanish is the default.
// Every table of words, here and in the screens' modules, gives each key once: [es, en].

const STRINGS = { es: {}, en: {} };

/** Add a screen's words: `{key: [es, en], ...}`. */
export function addWords(words) {
  for (const [key, [es, en]] of Object.entries(words)) {
    // One key, one sentence: a second module giving other words would decide by load order.
    if (key in STRINGS.es && (STRINGS.es[key] !== es || STRINGS.en[key] !== en)) {
      throw new Error(`the words "${key}" are already defined differently`);
    }
    STRINGS.es[key] = es;
    STRINGS.en[key] = en;
  }
}

// The header, sign-in, lobby, table, replay, history and dashboard.
addWords({
  lobby: ["Salón", "Lobby"],
  history: ["Historial", "History"],
  dashboard: ["Avatares y becas", "Avatars & scholarships"],
  connect: ["Conectar billetera", "Connect wallet"],
  signin: ["Iniciar sesión con Ethereum", "Sign in with Ethereum"],
  signout: ["Cerrar sesión", "Sign out"],
  noWallet: ["No se encontró ninguna billetera (EIP-1193).", "No wallet found (EIP-1193)."],
  wallets: ["Billeteras disponibles", "Available wallets"],
  signedInAs: ["Conectado como", "Signed in as"],
  signingIn: ["Firma el mensaje en tu billetera…", "Sign the message in your wallet…"],
  openTables: ["Mesas abiertas", "Open tables"],
  liveTables: ["Partidas en juego", "Matches in play"],
  none: ["Ninguna.", "None."],
  join: ["Sentarse", "Take a seat"],
  watch: ["Mirar", "Watch"],
  createTable: ["Crear mesa", "Create a table"],
  preset: ["Modalidad", "Game"],
  seats: ["Asientos", "Seats"],
  kind: ["Tipo", "Kind"],
  human: ["Humanos", "Humans"],
  practice: ["Práctica contra bots", "Practice against bots"],
  ai: ["Bots contra bots", "Bots against bots"],
  visibility: ["Visibilidad", "Visibility"],
  public: ["Pública", "Public"],
  private: ["Privada", "Private"],
  invite: ["Invitar (direcciones, separadas por comas)", "Invite (addresses, comma separated)"],
  create: ["Crear", "Create"],
  earning: ["Mesa con recompensas", "Earning table"],
  avatar: ["Avatar (id)", "Avatar (id)"],
  matchmaking: ["Buscar partida", "Find a match"],
  queue: ["Buscar", "Find"],
  waiting: ["Buscando rivales…", "Looking for opponents…"],
  cancel: ["Cancelar", "Cancel"],
  table: ["Mesa", "Table"],
  seat: ["Asiento", "Seat"],
  you: ["tú", "you"],
  bot: ["bot", "bot"],
  empty: ["libre", "empty"],
  startBots: ["Empezar con bots", "Start with bots"],
  leave: ["Levantarse", "Leave"],
  inviteLink: ["Enlace de invitación", "Invite link"],
  inviteFriends: ["Invitar a tus amigos", "Invite your friends"],
  yourHand: ["Tu mano", "Your hand"],
  line: ["Línea de juego", "Line of play"],
  scores: ["Puntos", "Scores"],
  turn: ["Turno", "Turn"],
  yourTurn: ["¡Es tu turno!", "Your turn!"],
  yourTurnTitle: ["▶ Te toca", "▶ Your move"],
  yourTurnBody: ["Tu mesa de dominó te espera.", "Your domino table is waiting for you."],
  waitingTurn: ["Esperando a", "Waiting for"],
  timer: ["Tiempo", "Time"],
  draw: ["Robar", "Draw"],
  pass: ["Pasar", "Pass"],
  left: ["Izquierda", "Left"],
  right: ["Derecha", "Right"],
  boneyard: ["Pozo", "Boneyard"],
  matchOver: ["Partida terminada", "Match over"],
  winner: ["Ganador", "Winner"],
  placement: ["Puesto", "Place"],
  points: ["Puntos", "Points"],
  reconnecting: ["Reconectando…", "Reconnecting…"],
  connected: ["Conectado", "Connected"],
  spectator: ["Espectador", "Spectator"],
  replay: ["Repetición", "Replay"],
  verify: ["Verificar", "Verify"],
  verified: ["Verificado", "Verified"],
  notVerified: ["NO verificado", "NOT verified"],
  commitment: ["Compromiso de la semilla", "Seed commitment"],
  deals: ["Repartos derivados de la semilla", "Deals derived from the seed"],
  resultHash: ["Hash del resultado", "Result hash"],
  hand: ["Mano", "Hand"],
  move: ["Jugada", "Move"],
  prev: ["Anterior", "Previous"],
  next: ["Siguiente", "Next"],
  results: ["Resultados", "Results"],
  myAvatars: ["Mis avatares", "My avatars"],
  offers: ["Ofertas para mí", "Offers to me"],
  agreements: ["Acuerdos", "Agreements"],
  earnings: ["Ganancias", "Earnings"],
  offerAvatar: ["Ofrecer un avatar", "Offer an avatar"],
  scholar: ["Becario (vacío: cualquiera)", "Scholar (empty: anyone)"],
  terms: ["Condiciones", "Terms"],
  fixedRent: ["Renta fija", "Fixed Rent"],
  rewardsDivision: ["División de recompensas", "Rewards Division"],
  durationS: ["Duración (s)", "Duration (s)"],
  rent: ["Renta (DEW)", "Rent (DEW)"],
  ownerBps: ["Parte del dueño (puntos básicos)", "Owner's share (basis points)"],
  offer: ["Ofrecer", "Offer"],
  accept: ["Aceptar", "Accept"],
  terminate: ["Terminar", "Terminate"],
  txToSign: ["Transacciones que tu billetera debe firmar", "Transactions your wallet must sign"],
  signSend: ["Firmar y enviar", "Sign and send"],
  sent: ["Enviada", "Sent"],
  confirmed: ["Confirmada", "Confirmed"],
  gross: ["Bruto", "Gross"],
  ownerShare: ["Dueño", "Owner"],
  scholarShare: ["Becario", "Scholar"],
  matches: ["Partidas", "Matches"],
  wins: ["Victorias", "Wins"],
  status: ["Estado", "Status"],
  earned: ["Ganado", "Earned"],
  pending: ["Pendiente", "Pending"],
  paid: ["Pagado", "Paid"],
  owner: ["Dueño", "Owner"],
  role: ["Rol", "Role"],
  noAccount: ["Conecta tu billetera para jugar.", "Connect your wallet to play."],
  playNow: ["Jugar ya contra un bot", "Play a bot now"],
  playNowHint: ["Una mano de robar a dos contra un bot fácil.", "A two-player draw game against an easy bot."],
  guestHint: ["Sin billetera: juegas como invitado, gratis. Conéctala luego y guardas tu historial.",
    "No wallet needed: you play as a guest, for free. Connect one later and keep your history."],
  guestPlayer: ["Invitado", "Guest"],
  error: ["Error", "Error"],
  signInFirst: ["Inicia sesión primero.", "Sign in first."],
  ply: ["Jugada n.º", "Ply"],
  tiles: ["fichas", "tiles"],
  stake: ["Apuesta", "Stake"],
  noStake: ["sin apuesta", "no stake"],
  earningShort: ["Recompensas", "Earning"],
  turnTimer: ["Tiempo por turno", "Turn timer"],
  yes: ["sí", "yes"],
  no: ["no", "no"],
  confirmStake: [
    "Esta mesa aparta una apuesta de {stake} de tu saldo en la bóveda mientras ocupas el asiento, "
      + "y la retiene cuando empieza la partida. Tiempo por turno: {timer} s; cuando se te acaba juega un bot por ti, "
      + "y si se te acaba varias veces seguidas pierdes la partida y la apuesta. ¿Sentarte?",
    "This table sets a stake of {stake} aside from your vault balance while you hold the seat, "
      + "and escrows it when the match starts. Turn timer: {timer} s; when it runs out a bot plays for you, "
      + "and after several timeouts in a row you forfeit the match and the stake. Take the seat?",
  ],
});

// The create-table form (create.js) and the table modes of seed 004 (tablemodes.js).
addWords({
  same_device: ["Dos jugadores en este dispositivo", "Two players on this device"],
  ruleOptions: ["Reglas de la mesa", "Table rules"],
  vipOnly: ["VIP", "VIP"],
  premiumWhy: [
    "Elección premium ({options}): solo una billetera con pase VIP vigente puede crear esta mesa; "
      + "cualquiera puede sentarse después.",
    "Premium choice ({options}): only a wallet with a valid VIP pass can create this table; "
      + "anyone may take a seat afterwards.",
  ],
  vipRequiredWhy: [
    "El servidor rechazó la mesa: las elecciones marcadas con ★ VIP necesitan "
      + "un pase VIP vigente en tu billetera. Elige otras reglas o consigue un pase.",
    "The server refused the table: choices marked ★ VIP need a valid VIP pass in your wallet. "
      + "Pick other rules or get a pass.",
  ],
  onlyWith: ["({choices} solo con {option} = {value})", "({choices} only with {option} = {value})"],
  botLevels: ["Nivel de cada bot", "Each bot's level"],
  botLevelSeat: ["Bot del asiento", "Bot in seat"],
  level_easy: ["Fácil", "Easy"],
  level_medium: ["Medio", "Medium"],
  level_hard: ["Difícil", "Hard"],
  level_expert: ["Experto", "Expert"],
  badStake: ["La apuesta es una cantidad de DEW, p. ej. 2.5", "The stake is an amount of DEW, e.g. 2.5"],
  sameDeviceHint: [
    "Dos jugadores se turnan en este dispositivo: solo se ve la mano de quien juega, "
      + "con una pantalla para pasar el dispositivo entre turnos. Sin recompensas ni apuestas.",
    "Two players take turns on this device: "
      + "only the hand of the player to move is shown, with a hand-over screen between turns. No rewards, no stake.",
  ],
  handOver: ["Pasa el dispositivo", "Hand the device over"],
  handOverText: ["Turno del Jugador {seat}. La otra mano queda oculta: pasa el dispositivo a ese jugador.",
    "Player {seat} to play. The other hand stays hidden: pass the device to that player."],
  showHand: ["Soy el Jugador {seat}: ver mi mano", "I am Player {seat}: show my hand"],
  botSpeed: ["Velocidad de los bots (solo para ti)", "Bot speed (for you only)"],
  speed_live: ["En vivo", "Live"],
  speed_normal: ["Normal", "Normal"],
  speed_slow: ["Lenta", "Slow"],
});

// The wallet page (money.js): balances, escrow, deposits and withdrawals.
addWords({
  wallet: ["Billetera", "Wallet"],
  dewOnChain: ["DEW en tu billetera (en cadena)", "DEW in your wallet (on chain)"],
  stakeBalance: ["Saldo depositado en la bóveda", "Balance deposited in the vault"],
  escrowed: ["Retenido en juego", "Held in play"],
  escrowWhy: ["Retenido y por qué", "Held, and why"],
  tableMatch: ["Partida de la mesa", "Match at table"],
  tournament: ["Torneo", "Tournament"],
  deposit: ["Depositar", "Deposit"],
  depositHelp: ["Transfiere DEW a la bóveda; se acredita cuando la transferencia queda confirmada.",
    "Transfers DEW into the vault; credited once the transfer is confirmed."],
  withdraw: ["Retirar", "Withdraw"],
  withdrawHelp: ["Paga parte de tu saldo depositado a tu billetera (nunca lo retenido en juego).",
    "Pays part of your deposited balance to your wallet (never what is held in play)."],
  amountDew: ["Cantidad (DEW)", "Amount (DEW)"],
  withdrawals: ["Retiros", "Withdrawals"],
  stakeHistory: ["Movimientos del saldo", "Balance history"],
  amount: ["Cantidad", "Amount"],
  since: ["Desde", "Since"],
  when: ["Fecha", "Date"],
  txHash: ["Transacción", "Transaction"],
  reference: ["Referencia", "Reference"],
  refresh: ["Actualizar", "Refresh"],
  badAmount: ["Cantidad no válida (p. ej. 2.5)", "Not a valid amount (e.g. 2.5)"],
  chainUnavailable: ["La cadena no responde", "The chain does not answer"],
  state_requested: ["solicitado", "requested"],
  state_sent: ["enviado", "sent"],
  state_waiting: ["esperando el límite de la bóveda", "waiting on the vault's limit"],
  state_paid: ["pagado", "paid"],
  state_failed: ["fallido (devuelto al saldo)", "failed (back in the balance)"],
  state_done: ["hecho", "done"],
  kind_deposit: ["depósito", "deposit"],
  kind_escrow: ["retenido", "escrow"],
  kind_release: ["devuelto", "refund"],
  kind_withdrawal: ["retiro", "withdrawal"],
  kind_reversal: ["retiro devuelto", "withdrawal returned"],
  kind_hold: ["apartado para un asiento", "set aside for a seat"],
  kind_unhold: ["asiento liberado", "seat released"],
});

// Navigation to the seasons, competitions and help pages, the markets (shop.js, market.js,
// avatar.js), Game Centers and content creators: the nav links; the pages add their own words.
addWords({
  seasons: ["Temporadas", "Seasons"],
  competitions: ["Competiciones", "Competitions"],
  help: ["Ayuda", "Help"],
  shop: ["Tienda", "Shop"],
  market: ["Mercado", "Market"],
  centers: ["Centros", "Centers"],
  creator: ["Creadores", "Creators"],
});

// Screening of owners (screening.js).
addWords({
  screening: ["Evaluación de dueños", "Owner screening"],
  myApplication: ["Mi solicitud", "My application"],
  noApplication: ["Aún no has solicitado la evaluación.", "You have not applied yet."],
  applyScreening: ["Solicitar la evaluación", "Apply to be screened"],
  applyScreeningHelp: [
    "Para alquilar avatares, un evaluador debe aprobarte. Cuéntale quién eres y qué avatares ofrecerás.",
    "To rent out avatars a screener must approve you. Tell them who you are and what you will offer.",
  ],
  statement: ["Declaración", "Statement"],
  apply: ["Solicitar", "Apply"],
  applicationSent: ["Solicitud enviada.", "Application sent."],
  statementEmpty: ["Escribe una declaración.", "Write a statement."],
  reason: ["Motivo", "Reason"],
  reasonEmpty: ["Escribe el motivo del rechazo.", "Write the reason for the rejection."],
  screeningQueue: ["Solicitudes por evaluar", "Applications to review"],
  approve: ["Aprobar (en cadena)", "Approve (on chain)"],
  reject: ["Rechazar", "Reject"],
  signingApproval: ["Firma la aprobación en tu billetera…", "Sign the approval in your wallet…"],
  waitingChain: ["Esperando la confirmación en cadena…", "Waiting for the chain to confirm it…"],
  screening_pending: ["pendiente", "pending"],
  screening_approved: ["aprobada (en cadena)", "approved (on chain)"],
  screening_rejected: ["rechazada", "rejected"],
  screening_withdrawn: ["aprobación retirada", "approval withdrawn"],
});

// The terms gate (terms.js): terms of service and legal age before earning or staked play.
addWords({
  termsTitle: ["Condiciones de servicio y mayoría de edad", "Terms of service and legal age"],
  termsWhy: [
    "Las mesas con ganancias o con apuesta exigen aceptar las condiciones vigentes y confirmar que "
      + "eres mayor de edad. Tu billetera firma ambas cosas en un nuevo mensaje de inicio de sesión.",
    "Earning and staked tables need the current terms accepted and your legal age confirmed. "
      + "Your wallet signs both in a new sign-in message.",
  ],
  termsRead: ["Leer las condiciones (versión {version})", "Read the terms (version {version})"],
  termsLegalAge: ["Confirmo que soy mayor de edad donde vivo.", "I confirm that I am of legal age where I live."],
  termsAccept: ["Aceptar y firmar", "Accept and sign"],
  termsAccepted: ["Condiciones aceptadas.", "Terms accepted."],
  stakedOff: ["Este servidor no ofrece mesas con apuesta.", "This server offers no staked tables."],
});

// The table's board, tiles, motion and the lobby's avatar picker (board.js, tiles.js, play.js,
// felt.js, motion.js, sound.js, avatars.js).
addWords({
  pip_blank: ["blanca", "blank"],
  pip_one: ["uno", "one"],
  pip_two: ["dos", "two"],
  pip_three: ["tres", "three"],
  pip_four: ["cuatro", "four"],
  pip_five: ["cinco", "five"],
  pip_six: ["seis", "six"],
  pip_seven: ["siete", "seven"],
  pip_eight: ["ocho", "eight"],
  pip_nine: ["nueve", "nine"],
  doubleOf: ["doble {n}", "double {n}"],
  chooseEnd: ["Elige el extremo", "Choose the end"],
  playable: ["se puede jugar", "playable"],
  draws: ["roba del pozo", "draws from the boneyard"],
  passes: ["pasa", "passes"],
  player: ["Jugador", "Player"],
  botName: ["Bot {n} ({level})", "Bot {n} ({level})"],
  showAddress: ["Mostrar la dirección", "Show the address"],
  hurry: ["¡Se acaba el tiempo!", "Time is running out!"],
  autoPlayed: ["Se acabó tu tiempo: el servidor jugó por ti.", "Your time ran out: the server played for you."],
  seatsPick: ["Jugadores", "Players"],
  side: ["Lado", "Side"],
  handPoints: ["Puntos de la mano", "Points of the hand"],
  handEnd: ["Fin de la mano", "End of hand"],
  yourTilesLeft: ["Te quedaron:", "Left in your hand:"],
  tilesLeft: ["Fichas que quedaron en cada mano:", "Tiles left in each hand:"],
  handWinner: ["Gana la mano: {side}", "Hand won by {side}"],
  handNoWinner: ["La mano termina sin ganador", "The hand ends with no winner"],
  matchScore: ["Marcador", "Match score"],
  playAgain: ["Jugar otra vez", "Play again"],
  backToLobby: ["Volver al salón", "Back to the lobby"],
  pipTotal: ["Suma de puntos", "Pip total"],
  close: ["Cerrar", "Close"],
  soundOn: ["Sonido: sí", "Sound: on"],
  soundOff: ["Sonido: no", "Sound: off"],
  won: ["ganada", "won"],
  fees: ["Comisiones", "Fees"],
  feesNone: ["—", "—"],
  feeRake: ["comisión {rake} %", "rake {rake} %"],
  feeLegs: ["tesorería {treasury} % · centro {center} % · creador {creator} %",
    "treasury {treasury} % · center {center} % · creator {creator} %"],
  avatarPick: ["Avatar para jugar con recompensas", "Avatar for earning play"],
  avatarNone: ["Tu billetera no tiene ni alquila ningún avatar.", "Your wallet neither owns nor rents an avatar."],
  avatarOwned: ["Propio", "Owned"],
  avatarRented: ["Alquilado", "Rented"],
  avatarUntil: ["hasta {date}", "until {date}"],
  avatarTermsRent: ["renta fija {rent}", "fixed rent {rent}"],
  avatarTermsSplit: ["el dueño recibe {owner} %, tú {scholar} %", "the owner gets {owner} %, you {scholar} %"],
  confirmTitle: ["Confirmar la apuesta", "Confirm the stake"],
  confirmYes: ["Sentarme", "Take the seat"],
  confirmNo: ["Cancelar", "Cancel"],
});

// Table talk (talk.js): the chat bar's phrases and emotes, mute, and reports of players.
addWords({
  talk: ["Charla", "Chat"],
  phrases: ["Frases", "Phrases"],
  emotes: ["Gestos", "Emotes"],
  mute: ["Silenciar", "Mute"],
  unmute: ["Dejar de silenciar", "Unmute"],
  talkSpectator: ["Los espectadores leen la charla; solo hablan los jugadores sentados.",
    "Spectators read the chat; only seated players talk."],
  phrase_hello: ["¡Hola!", "Hello!"],
  phrase_good_luck: ["¡Buena suerte!", "Good luck!"],
  phrase_nice_move: ["¡Buena jugada!", "Nice move!"],
  phrase_well_played: ["Bien jugado", "Well played"],
  phrase_thanks: ["Gracias", "Thanks"],
  phrase_sorry: ["Perdón", "Sorry"],
  phrase_oops: ["¡Uy!", "Oops!"],
  phrase_thinking: ["Déjame pensar…", "Let me think…"],
  phrase_hurry_up: ["¿Juegas?", "Your turn?"],
  phrase_good_game: ["Buena partida", "Good game"],
  phrase_rematch: ["¿Otra?", "Rematch?"],
  phrase_bye: ["¡Adiós!", "Bye!"],
  emote_smile: ["sonrisa", "smile"],
  emote_laugh: ["risa", "laugh"],
  emote_wow: ["asombro", "wow"],
  emote_thumbs_up: ["pulgar arriba", "thumbs up"],
  emote_clap: ["aplauso", "applause"],
  emote_sad: ["tristeza", "sad"],
  emote_angry: ["enfado", "angry"],
  emote_think: ["pensando", "thinking"],
  report: ["Denunciar", "Report"],
  reportPlayer: ["Denunciar a", "Report"],
  reportReason: ["Motivo", "Reason"],
  reportNote: ["Nota (opcional, 280 caracteres)", "Note (optional, 280 characters)"],
  reportSend: ["Enviar denuncia", "Send report"],
  reportSent: ["Denuncia enviada: la revisará el operador.", "Report sent: the operator will review it."],
  reason_abusive_language: ["Lenguaje ofensivo", "Abusive language"],
  reason_cheating: ["Trampas", "Cheating"],
  reason_collusion: ["Confabulación", "Collusion"],
  reason_stalling: ["Hace esperar a propósito", "Stalling on purpose"],
  reason_spam: ["Mensajes repetidos", "Spam"],
  reason_impersonation: ["Suplantación", "Impersonation"],
  reason_other: ["Otro", "Other"],
});

let lang = localStorage.getItem("dew.lang") || (navigator.language || "es").slice(0, 2);
if (!STRINGS[lang]) lang = "es";

export function t(key) {
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
}

/** A sentence's {placeholders} filled in: `fill(t("vipValid"), { date })`. */
export function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? ""));
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
