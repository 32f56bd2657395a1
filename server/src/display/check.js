// The ticket-check page: a player types or scans a serial and sees each game's catches and
// prize, from the public check endpoint. Wrong or unknown serials get a plain message.
"use strict";

const $ = (id) => document.getElementById(id);

// Cents as dollars, always with the cents ("$20,000.00" beside "$2,000.40"): integer
// arithmetic only, never floats (money is cents).
function dollars(cents) {
  const whole = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return "$" + whole + "." + String(cents % 100).padStart(2, "0");
}

function say(text) {
  $("message").textContent = text ?? "";
  $("message").classList.toggle("shown", !!text);
}

function escape(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

const plainWords = {
  invalid_serial: "That is not a ticket number. Check the digits on your ticket and try again.",
  not_found: "We cannot find a ticket with that number. Check the digits on your ticket.",
  too_many_requests: "Too many checks from this screen. Please wait a minute and try again.",
};

// Consecutive games as "5-10", or "5" for one game.
function gameRange(games) {
  return games.length > 1 ? `${games[0]}-${games[games.length - 1]}` : `${games[0]}`;
}

// One game played (or still to play): its catches, marked against the numbers drawn.
function playedGame(r, drawn) {
  const ways = r.ways.map((w) => {
    const numbers = w.numbers
      .map((n) => `<span class="${drawn.includes(n) ? "hit" : ""}">${n}</span>`)
      .join("");
    const prize = w.prize_cents ? ` · <b class="won">${dollars(w.prize_cents)}</b>` : "";
    return `<div class="numbers">${numbers} · caught ${w.catch} of ${w.spots}${prize}</div>`;
  }).join("");
  const outcome = {
    settled: r.prize_cents ? `WON ${dollars(r.prize_cents)}` : "no prize",
    // Rule 17.3: an invalidated game pays nothing; its share of the wager is refunded.
    invalidated: `INVALIDATED (REFUNDED ${dollars(r.refund_cents ?? 0)})`,
  }[r.state] ?? "not drawn yet";
  return `<div class="game" data-game="${r.game}"><b>Game ${r.game}</b>: ` +
    `<span class="${r.prize_cents ? "won" : ""}">${escape(outcome)}</span>${ways}</div>`;
}

// Rule 8: the games cancelled are never played; the cancellation refunded them together.
function cancelledGames(body) {
  const games = body.cancelled_games ?? [];
  if (!games.length) return "";
  const refund = games.length > 1
    ? `REFUNDED (${dollars(body.refund_cents ?? 0)} for games ${gameRange(games)})`
    : `REFUNDED ${dollars(body.refund_cents ?? 0)}`;
  return games.map((g) => `<div class="game cancelled" data-game="${g}"><b>Game ${g}</b>: ` +
    `<span>CANCELLED, ${escape(refund)}</span></div>`).join("");
}

// What the ticket came to: a cancelled ticket its refund, never "won $0.00".
function summary(body) {
  const cancelled = body.cancelled_games ?? [];
  const refund = dollars(body.refund_cents ?? 0);
  if (body.status === "cancelled") {
    return `Ticket ${escape(body.serial)} · CANCELLED: <b>${refund}</b> refunded`;
  }
  // Rule 12.2: a payment in parts says what was paid in cash and what by cheque.
  const parts = body.payment_parts ?? [];
  const paid = parts.length > 1
    ? ` (${parts.map((p) => `${dollars(p.cents)} ${p.method === "cheque" ? "by cheque" : "in cash"}`).join(" and ")})`
    : "";
  const status = body.status === "paid" ? ` · PAID${paid}` : "";
  return `Ticket ${escape(body.serial)}${status}: won <b>${dollars(body.won_cents)}</b>` +
    (cancelled.length ? `; games ${gameRange(cancelled)} cancelled, ${refund} refunded` : "") +
    (body.payable_cents ? `, ${dollars(body.payable_cents)} to collect at a Keno writer` : "") +
    // Rule 13.1: more than 12 months after its Keno Day a writer no longer pays it.
    (body.not_payable === "claim_required"
      ? ", no longer paid at a Keno writer (more than 12 months): claim it with an Unclaimed Prize Claim Form"
      : "");
}

async function check(serial) {
  say(null);
  $("result").innerHTML = "";
  const response = await fetch(`/api/v1/tickets/${encodeURIComponent(serial)}/check`,
    { cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    say(plainWords[body.error] ?? "The ticket cannot be checked just now. Please ask a writer.");
    return;
  }
  const drawn = {};
  await Promise.all(body.results.map(async (r) => {
    const g = await fetch(`/api/v1/games/${r.game}`).then((x) => x.json()).catch(() => null);
    drawn[r.game] = g ? g.drawn : [];
  }));
  // Every game of the ticket, in order: played, invalidated, to come, then cancelled.
  const games = body.results.map((r) => playedGame(r, drawn[r.game])).join("") +
    cancelledGames(body);
  $("result").innerHTML = `<p id="summary">${summary(body)}</p>` +
    `<p>Your numbers: ${body.groups.map((g) => g.join(" ")).join(" | ")}</p>${games}`;
}

$("form").addEventListener("submit", (e) => {
  e.preventDefault();
  const serial = $("serial").value.replace(/[\s-]/g, "");
  if (!/^\d+$/.test(serial)) {
    say(plainWords.invalid_serial);
    return;
  }
  check(serial).catch(() => say("The Keno server cannot be reached just now. Please try again."));
});

// A receipt's QR code or a scanner's link opens /check?serial=...: checked at once.
const linked = new URLSearchParams(location.search).get("serial");
if (linked) {
  $("serial").value = linked;
  $("form").requestSubmit();
}

// Rule 16.2: the notice of an early closure, here as on the board: read at load and again
// whenever the event stream (re)connects or announces a closure or its withdrawal.
let closure = null;

function paintClosure() {
  const c = $("closure");
  if (!closure) {
    c.hidden = true;
    c.textContent = "";
    return;
  }
  const closed = Date.now() >= Date.parse(closure.closes_at);
  c.textContent = (closed ? "KENO CLOSED AT " : "KENO CLOSES AT ") + closure.closes_at_local;
  c.hidden = false;
}

async function readClosure() {
  const response = await fetch("/api/v1/keno/closure", { cache: "no-store" });
  if (response.ok) {
    closure = (await response.json()).closure;
    paintClosure();
  }
}

function listen() {
  const events = new EventSource("/api/v1/events");
  events.onopen = () => readClosure().catch(() => {});
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
  };
  events.addEventListener("keno_closure", (e) => {
    const d = JSON.parse(e.data);
    closure = d.withdrawn ? null : d;
    paintClosure();
  });
  events.addEventListener("resync", () => readClosure().catch(() => {}));
}

listen();
setInterval(paintClosure, 1000);
// A closure binds its own Keno Day: read again now and then, so the next day's page drops it.
setInterval(() => readClosure().catch(() => {}), 60000);
