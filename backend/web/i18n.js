// Spanish and English strings. The seeds are Spanish-speaking products: Spanish is the default.

const STRINGS = {
  es: {
    lobby: "Salón", history: "Historial", dashboard: "Avatares y becas", connect: "Conectar billetera",
    signin: "Iniciar sesión con Ethereum", signout: "Cerrar sesión", noWallet: "No se encontró ninguna billetera (EIP-1193).",
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
    rent: "Renta (wei de DEW)", ownerBps: "Parte del dueño (puntos básicos)", offer: "Ofrecer",
    accept: "Aceptar", terminate: "Terminar", txToSign: "Transacciones que tu billetera debe firmar", signSend: "Firmar y enviar",
    sent: "Enviada", confirmed: "Confirmada", gross: "Bruto", ownerShare: "Dueño", scholarShare: "Becario",
    matches: "Partidas", wins: "Victorias", status: "Estado", earned: "Ganado", pending: "Pendiente",
    paid: "Pagado", owner: "Dueño", role: "Rol", noAccount: "Conecta tu billetera para jugar.",
    error: "Error", signInFirst: "Inicia sesión primero.", ply: "Jugada n.º", tiles: "fichas",
    stake: "Apuesta", noStake: "sin apuesta", earningShort: "Recompensas", turnTimer: "Tiempo por turno",
    yes: "sí", no: "no",
    confirmStake: "Esta mesa retiene una apuesta de {stake} de tu saldo en la bóveda cuando empieza la partida. Tiempo por turno: {timer} s; cuando se te acaba juega un bot por ti, y si se te acaba varias veces seguidas pierdes la partida y la apuesta. ¿Sentarte?",
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
    rent: "Rent (DEW wei)", ownerBps: "Owner's share (basis points)", offer: "Offer",
    accept: "Accept", terminate: "Terminate", txToSign: "Transactions your wallet must sign", signSend: "Sign and send",
    sent: "Sent", confirmed: "Confirmed", gross: "Gross", ownerShare: "Owner", scholarShare: "Scholar",
    matches: "Matches", wins: "Wins", status: "Status", earned: "Earned", pending: "Pending",
    paid: "Paid", owner: "Owner", role: "Role", noAccount: "Connect your wallet to play.",
    error: "Error", signInFirst: "Sign in first.", ply: "Ply", tiles: "tiles",
    stake: "Stake", noStake: "no stake", earningShort: "Earning", turnTimer: "Turn timer",
    yes: "yes", no: "no",
    confirmStake: "This table escrows a stake of {stake} from your vault balance when the match starts. Turn timer: {timer} s; when it runs out a bot plays for you, and after several timeouts in a row you forfeit the match and the stake. Take the seat?",
  },
};

let lang = localStorage.getItem("dew.lang") || (navigator.language || "es").slice(0, 2);
if (!STRINGS[lang]) lang = "es";

export function t(key) {
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
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
