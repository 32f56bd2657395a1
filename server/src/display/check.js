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

// When a game's prize or refund reaches the player (rule 11.5: once, after the ticket's last
// game; 13.1: a claim form after twelve months; 17.2: withheld from a voided ticket).
function collected(line) {
  return {
    now: " · to collect now at a Keno writer",
    after_game: ` · paid after game ${line.after_game}, the ticket's last`,
    paid: " · PAID",
    by_claim: " · claim it with an Unclaimed Prize Claim Form",
    withheld: " · WITHHELD: the ticket was voided",
  }[line.collect] ?? "";
}

// What one game came to, in the server's words (keno-core's one rule for every view).
function outcome(line) {
  switch (line.standing) {
    case "won": return `WON ${dollars(line.prize_cents)}${collected(line)}`;
    // General rule 18.2: an invalidated game's wager comes back with the ticket's payment.
    case "invalidated":
      return `INVALIDATED: ${dollars(line.refund_cents)} refunded${collected(line)}`;
    // Rule 8: never played; the cancellation refunded it (a whole Keno To Go ticket at once).
    case "cancelled": return line.refund_cents === null
      ? "CANCELLED: refunded with the whole ticket"
      : `CANCELLED: ${dollars(line.refund_cents)} refunded`;
    case "no_prize": return "no prize";
    case "drawing": return "being drawn";
    case "excluded": return "VOIDED: takes no part";
    default: return "not drawn yet";
  }
}

// One game, with the catches of each way marked against the numbers drawn.
function gameLine(line, result, drawn) {
  const ways = (result?.ways ?? []).map((w) => {
    const numbers = w.numbers
      .map((n) => `<span class="${drawn.includes(n) ? "hit" : ""}">${n}</span>`)
      .join("");
    const prize = w.prize_cents ? ` · <b class="won">${dollars(w.prize_cents)}</b>` : "";
    return `<div class="numbers">${numbers} · caught ${w.catch} of ${w.spots}${prize}</div>`;
  }).join("");
  return `<div class="game ${line.standing}" data-game="${line.game}"><b>Game ${line.game}</b>: ` +
    `<span class="${line.standing === "won" ? "won" : ""}">${escape(outcome(line))}</span>${ways}</div>`;
}

const paidHow = {
  cash: "in cash",
  cheque: "by cheque",
  voucher: "as a voucher",
  tender: "towards another ticket",
  claim_cheque: "by cheque, on a claim form",
};

// How and when a paid ticket was paid; rule 12.2: in parts, the cash and the cheque.
function payment(body) {
  const parts = body.payment_parts ?? [];
  const how = parts.length > 1
    ? parts.map((p) => `${dollars(p.cents)} ${p.method === "cheque" ? "by cheque" : paidHow[p.method] ?? "in cash"}`).join(" and ")
    : `${dollars(body.paid_cents)} ${paidHow[body.pay_method] ?? ""}`;
  const when = body.paid_at ? ` on ${new Date(body.paid_at).toLocaleString()}` : "";
  return `PAID ${how}${when}`;
}

// What the ticket came to: a cancelled ticket its refund (never "won $0.00"), a paid one how and
// when, an unpaid one what to collect and when.
function summary(body) {
  const cancelled = body.cancelled_games ?? [];
  const refund = dollars(body.refund_cents ?? 0);
  const head = `Ticket ${escape(body.serial)}`;
  if (body.status === "cancelled") return `${head} · CANCELLED: <b>${refund}</b> refunded`;
  if (body.status === "voided") return `${head} · VOIDED: its prizes are withheld (rule 17.2)`;
  if (body.status === "paid") return `${head} · ${escape(payment(body))}`;
  const lines = body.lines ?? [];
  const waiting = lines.find((l) => l.collect === "after_game");
  const invalidated = lines.filter((l) => l.standing === "invalidated");
  const parts = [];
  if (body.won_cents) parts.push(`won <b>${dollars(body.won_cents)}</b>`);
  // General rule 18.2: an invalidated game's wager is refunded with the ticket's payment.
  if (invalidated.length) {
    const games = invalidated.map((l) => l.game).join(", ");
    const refunded = invalidated.reduce((sum, l) => sum + (l.refund_cents ?? 0), 0);
    parts.push(`game${invalidated.length > 1 ? "s" : ""} ${games} invalidated, ${dollars(refunded)} refunded`);
  }
  if (cancelled.length) parts.push(`game${cancelled.length > 1 ? "s" : ""} ${gameRange(cancelled)} cancelled, ${refund} refunded`);
  if (!parts.length) {
    const toCome = lines.some((l) => l.standing === "to_come" || l.standing === "drawing");
    parts.push(toCome ? "no prize yet" : "no prize");
  }
  return `${head}: ${parts.join("; ")}` +
    (body.payable_cents ? `, ${dollars(body.payable_cents)} to collect at a Keno writer` : "") +
    (waiting ? `, paid after game ${waiting.after_game}, the ticket's last` : "") +
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
  const byGame = Object.fromEntries(body.results.map((r) => [r.game, r]));
  const games = body.lines
    .map((l) => gameLine(l, byGame[l.game], drawn[l.game] ?? []))
    .join("");
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

// Issue 33: the system suspended, said here as on the board.
function paintSuspension(suspended) {
  const s = $("suspended");
  s.textContent = suspended
    ? "KENO IS SUSPENDED: no tickets are sold or paid until it resumes. You can still check your ticket here."
    : "";
  s.hidden = !suspended;
}

async function readSuspension() {
  const response = await fetch("/api/v1/suspension", { cache: "no-store" });
  if (response.ok) paintSuspension((await response.json()).suspended);
}

function listen() {
  const events = new EventSource("/api/v1/events");
  events.onopen = () => {
    readClosure().catch(() => {});
    readSuspension().catch(() => {});
  };
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
  };
  events.addEventListener("keno_closure", (e) => {
    const d = JSON.parse(e.data);
    closure = d.withdrawn ? null : d;
    paintClosure();
  });
  events.addEventListener("suspension_changed", (e) => paintSuspension(JSON.parse(e.data).suspended));
  events.addEventListener("resync", () => {
    readClosure().catch(() => {});
    readSuspension().catch(() => {});
  });
}

listen();
setInterval(paintClosure, 1000);
// A closure binds its own Keno Day: read again now and then, so the next day's page drops it.
setInterval(() => readClosure().catch(() => {}), 60000);
