// The venue board (rules 9.3, 9.4): lights each number as the server announces it. It shows
// only what the server has committed: the state it reads and the events it hears, which the
// server sends after each commit. After any reconnection it reads the whole state again.
"use strict";

const $ = (id) => document.getElementById(id);
const shown = { game: null, drawn: [], state: null, open: null, closesAt: null, skew: 0, closure: null,
  suspended: false };
let schedules = [];
let prizeTurn = 0;

// Cents as dollars, always with the cents ("$20,000.00" beside "$2,000.40"): integer
// arithmetic only, never floats (money is cents).
function dollars(cents) {
  const whole = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return "$" + whole + "." + String(cents % 100).padStart(2, "0");
}

async function api(path) {
  const response = await fetch(path, { cache: "no-store" });
  const date = response.headers.get("Date");
  if (date) shown.skew = Date.parse(date) - Date.now();
  if (!response.ok) {
    const e = new Error(path + ": " + response.status);
    e.status = response.status;
    throw e;
  }
  return response.json();
}

function buildBoard() {
  const board = $("board");
  for (let n = 1; n <= 80; n++) {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.id = "n" + n;
    cell.textContent = n;
    board.appendChild(cell);
  }
}

function paintBoard() {
  for (let n = 1; n <= 80; n++) {
    const cell = $("n" + n);
    cell.classList.toggle("lit", shown.drawn.includes(n));
    cell.classList.toggle("last", shown.drawn[shown.drawn.length - 1] === n);
  }
  const last = shown.drawn[shown.drawn.length - 1];
  $("last-ball").textContent = last === undefined ? "—" : last;
  $("drawn-count").textContent = shown.drawn.length + " of 20 drawn";
  $("game").textContent = "GAME " + (shown.game ?? "—");
  const status = $("status");
  const words = {
    closed: "GAME CLOSED", drawing: "GAME CLOSED · DRAWING", drawn: "DRAWN", settled: "RESULTS",
    void: "DRAW VOID · REDRAWING", invalidated: "GAME INVALIDATED", open: "OPEN FOR PLAY",
  };
  status.textContent = shown.suspended ? "SUSPENDED" : words[shown.state] ?? "";
  status.className = shown.suspended || shown.state === "closed" || shown.state === "drawing" ? "closed" : "";
  if (shown.state === "drawing" && shown.drawn.length) status.className = "drawing";
}

function showGame(game) {
  shown.game = game.number;
  shown.state = game.state;
  shown.drawn = game.drawn.slice();
  paintBoard();
}

function notice(text) {
  const n = $("notice");
  n.textContent = text ?? "";
  n.classList.toggle("shown", !!text);
}

function paintJackpots(pools) {
  $("jackpots").innerHTML = "";
  for (const p of pools) {
    const row = document.createElement("div");
    row.innerHTML = `<span>${p.spots} spot</span><b>${dollars(p.pool_cents)}</b>`;
    $("jackpots").appendChild(row);
  }
}

function paintHistory(games) {
  const history = $("history");
  history.innerHTML = "";
  for (const g of games) {
    const row = document.createElement("div");
    row.className = "row";
    const label = g.state === "invalidated" ? "invalidated" : g.drawn.join(" ");
    row.innerHTML = `<b>${g.number}</b>${label}`;
    history.appendChild(row);
  }
}

// The prize board turns through the spot counts of the standard schedule.
function paintPrizes() {
  const standard = schedules.find((s) => s.schedule === "standard");
  if (!standard || !standard.spots.length) return;
  const column = standard.spots[prizeTurn++ % standard.spots.length];
  const rows = column.pays
    .slice()
    .reverse()
    .map((p) => `<tr><td>Catch ${p.catch}</td><td>${p.jackpot ? "JACKPOT" : dollars(p.prize_cents)}</td></tr>`)
    .join("");
  $("prizes").innerHTML =
    `<h2>Prizes</h2><table><caption>${column.spots} spot · ${dollars(standard.base_wager_cents)} ticket</caption>${rows}</table>`;
}

// Rule 16.2: notice of an early closure from the moment it is scheduled until Keno next opens.
// `closure` is the server's notice (GET /api/v1/keno/closure) or a keno_closure event.
function paintClosure() {
  const c = $("closure");
  const closure = shown.closure;
  if (!closure) {
    c.hidden = true;
    c.textContent = "";
    return;
  }
  const closed = Date.now() + shown.skew >= Date.parse(closure.closes_at);
  c.textContent = (closed ? "KENO CLOSED AT " : "KENO CLOSES AT ") + closure.closes_at_local;
  c.hidden = false;
}

// Issue 33: the system suspended (GET /api/v1/suspension or a suspension_changed event):
// nothing is sold, paid or drawn meanwhile, said in players' words; why is for the staff.
function paintSuspension(suspended) {
  shown.suspended = suspended;
  const s = $("suspended");
  s.textContent = suspended
    ? "KENO IS SUSPENDED: no tickets are sold or paid and no game is drawn until it resumes."
    : "";
  s.hidden = !suspended;
  paintBoard();
  tick();
}

function tick() {
  paintClosure();
  const c = $("countdown");
  if (shown.suspended) {
    c.textContent = "";
    return;
  }
  if (!shown.closesAt) {
    c.textContent = shown.open === null ? "Keno is closed" : "";
    return;
  }
  const left = Math.max(0, Math.round((shown.closesAt - (Date.now() + shown.skew)) / 1000));
  const m = Math.floor(left / 60);
  const s = String(left % 60).padStart(2, "0");
  c.innerHTML = `Game ${shown.open} closes in <b>${m}:${s}</b>`;
}

async function refresh() {
  try {
    try {
      const open = await api("/api/v1/games/current");
      shown.open = open.number;
      shown.closesAt = Date.parse(open.closes_at);
    } catch (e) {
      if (e.status !== 404) throw e;
      shown.open = null;
      shown.closesAt = null;
    }
    shown.closure = (await api("/api/v1/keno/closure")).closure;
    paintClosure();
    paintSuspension((await api("/api/v1/suspension")).suspended);
    const recent = await api(
      "/api/v1/games?state=closed,drawing,drawn,settled,void,invalidated&order=desc&limit=7");
    if (recent.length) {
      showGame(recent[0]);
      paintHistory(recent.filter((g) => g.state === "settled" || g.state === "invalidated").slice(0, 6));
    } else if (shown.open !== null) {
      showGame({ number: shown.open, state: "open", drawn: [] });
    }
    paintJackpots(await api("/api/v1/jackpots"));
    if (!schedules.length) {
      schedules = await api("/api/v1/schedules");
      paintPrizes();
    }
    notice(null);
  } catch (e) {
    notice("Reconnecting to the Keno server…");
  }
}

// A registered display's credential (`keno-server display add`): opened once as
// `/?display=kd_...`, it is kept in this browser and taken out of the address bar. Its stream
// comes before anonymous ones, so a crowd of other clients cannot shut this board out.
const DISPLAY_KEY = "keno-display";
function displayCredential() {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("display");
  if (given) {
    try { localStorage.setItem(DISPLAY_KEY, given); } catch (e) { return given; }
    url.searchParams.delete("display");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
    return given;
  }
  try { return localStorage.getItem(DISPLAY_KEY); } catch (e) { return null; }
}
let display = displayCredential();

function streamUrl() {
  return "/api/v1/events" + (display ? "?display=" + encodeURIComponent(display) : "");
}

// EventSource does not say why it was refused: ask once. A credential refused (disabled or
// rotated) is forgotten, and the board goes on as an anonymous one rather than retrying it.
async function refusedCredential() {
  if (!display) return false;
  const stop = new AbortController();
  try {
    const response = await fetch(streamUrl(), { signal: stop.signal, cache: "no-store" });
    stop.abort();
    if (response.status !== 401) return false;
  } catch (e) {
    return false;
  }
  try { localStorage.removeItem(DISPLAY_KEY); } catch (e) { /* not kept */ }
  display = null;
  return true;
}

function listen() {
  const events = new EventSource(streamUrl());
  // Connected, or connected again after a restart: read everything again.
  events.onopen = () => refresh();
  events.onerror = () => {
    notice("Reconnecting to the Keno server…");
    if (events.readyState === EventSource.CLOSED) {
      refusedCredential().then(() => setTimeout(listen, 2000));
    }
  };
  const on = (kind, handle) =>
    events.addEventListener(kind, (e) => handle(JSON.parse(e.data)));
  on("game_opened", (d) => {
    shown.open = d.game;
    shown.closesAt = Date.parse(d.closes_at);
    // A game opening after an early closure is the next Keno Day's (rule 16.2): read whether
    // a closure is still in force.
    if (shown.closure) refresh();
    tick();
  });
  on("game_closed", (d) => {
    // Rule 9.4: the displays say the game is closed before it is drawn.
    showGame({ number: d.game, state: "closed", drawn: [] });
    notice(null);
  });
  on("number_drawn", (d) => {
    if (d.game !== shown.game) showGame({ number: d.game, state: "drawing", drawn: [] });
    shown.state = "drawing";
    shown.drawn.length = Math.min(shown.drawn.length, d.position - 1);
    shown.drawn.push(d.number);
    paintBoard();
  });
  on("game_drawn", (d) => showGame({ number: d.game, state: "drawn", drawn: d.drawn }));
  on("game_settled", () => refresh());
  on("jackpot_changed", (pools) => paintJackpots(pools));
  on("draw_fault", (d) => {
    showGame({ number: d.game, state: d.state, drawn: d.drawn });
    notice("Game " + d.game + ": draw fault (" + d.kind.replace(/_/g, " ") + ")");
  });
  on("number_corrected", (d) => {
    if (d.game === shown.game && d.position <= shown.drawn.length) {
      shown.drawn[d.position - 1] = d.number;
      paintBoard();
    }
  });
  on("game_invalidated", (d) =>
    refresh().then(() =>
      notice("Game " + d.game + " is invalidated: every wager on it is refunded")));
  on("keno_closure", (d) => {
    shown.closure = d.withdrawn ? null : d;
    paintClosure();
  });
  on("suspension_changed", (d) => paintSuspension(d.suspended));
  on("resync", () => refresh());
}

buildBoard();
paintBoard();
listen();
setInterval(tick, 250);
setInterval(paintPrizes, 8000);
