// The room: the live game and its liability, closing early, the draw record with its faults and
// corrections, invalidation, devices.
"use strict";

(() => {
  const { page, api, h, money, when, say, table, figures, board, act, view, every, can } = Console;
  const OVERSIGHT = ["supervisor", "inspector", "auditor"];

  function countdown(game) {
    const el = h("span", { id: "countdown" });
    every(() => {
      if (!game || game.state !== "open") {
        el.textContent = "";
        return;
      }
      const left = Math.max(0, Math.round((Date.parse(game.closes_at) - Date.now()) / 1000));
      el.textContent = `closes in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    });
    return el;
  }

  /** The game being drawn if there is one, else the open game. */
  async function gameOnFloor() {
    const drawing = await api("GET", "/api/v1/games?state=closed,drawing&limit=1&order=desc");
    if (drawing && drawing.length) return drawing[0];
    return api("GET", "/api/v1/games/current").catch(() => null);
  }

  function heat(perNumber) {
    const most = Math.max(1, ...perNumber.map((n) => n.stake_cents));
    const cells = [];
    for (const n of perNumber) {
      // Lighter to darker with the stake on the number; the figure itself is in the title.
      const shade = Math.round(95 - 55 * (n.stake_cents / most));
      cells.push(h("div", {
        class: "cell", "data-n": n.number, "data-stake": n.stake_cents,
        style: `background: hsl(8, 80%, ${shade}%); color: ${shade < 60 ? "#fff" : "inherit"}`,
        title: `${n.number}: ${money(n.stake_cents)} on ${n.ways} ways`,
      }, String(n.number)));
    }
    return h("div", { class: "board heat", id: "heat", role: "img",
      "aria-label": "Stake on each of the 80 numbers: darker is more" }, cells);
  }

  function liabilityView() {
    return view("Liability of the open game", async () => {
      const l = await api("GET", "/api/v1/games/current/liability");
      return [
        figures([
          ["Game", String(l.game), "liability-game"],
          ["Tickets", String(l.tickets), "tickets"],
          ["Ways", String(l.ways), "ways"],
          ["Stake", money(l.stake_cents), "stake"],
          ["Expected payout", money(l.expected_payout_cents), "expected"],
          ["Worst case (bound)", money(l.worst_case_cents), "worst"],
          ["Jackpot pools at stake", money(l.jackpot_pools_cents), "pools"],
          ["Won, not yet paid", money(l.unpaid_prizes_cents), "unpaid"],
          ["Live vouchers", money(l.live_vouchers_cents), "vouchers"],
        ]),
        limitsLine(l.limits),
        h("div", { class: "split" },
          h("div", {}, h("h4", {}, "Stake per number"), heat(l.per_number)),
          h("div", {},
            simulatedTable(l.simulated),
            h("h4", {}, "Per spot count and schedule"),
            table([
              ["Schedule", (c) => c.schedule],
              ["Spots", (c) => String(c.spots), "num"],
              ["Ways", (c) => String(c.ways), "num"],
              ["Stake", (c) => money(c.stake_cents), "num"],
            ], l.per_column, "No tickets yet."))),
      ];
    }, "liability", 2000);
  }

  function limitsLine(limits) {
    const shown = [["a ticket's potential", limits.ticket_potential_cents],
      ["the game's expected payout", limits.game_expected_payout_cents],
      ["the stake on one number", limits.number_stake_cents]].filter(([, v]) => v !== null && v !== undefined);
    return h("p", { id: "limits", class: "muted" }, shown.length
      ? `Limits: ${shown.map(([what, v]) => `${what} ${money(v)}`).join("; ")}. A sale over one is refused.`
      : "No liability limits are set.");
  }

  function simulatedTable(s) {
    const top = Math.max(1, s.largest_cents);
    return h("div", { id: "simulated" },
      h("h4", {}, `Payout over ${s.draws} simulated draws`),
      h("table", { class: "curve" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Percentile"), h("th", { scope: "col", class: "num" }, "Payout"), h("th", { scope: "col" }, ""))),
        h("tbody", {}, s.percentiles.map((p) => h("tr", {},
          h("td", {}, `${p.per_mille / 10}%`),
          h("td", { class: "num" }, money(p.payout_cents)),
          h("td", { class: "bar" }, h("span", { style: `width: ${((12 * p.payout_cents) / top).toFixed(2)}rem` })))))));
  }

  function gameView() {
    return view("The game", async () => {
      const game = await gameOnFloor();
      if (!game) return h("p", {}, "No game is open: Keno is closed.");
      const closure = await api("GET", "/api/v1/keno/closure");
      return h("div", { class: "split" },
        board(game.drawn, "drawn-board", "The board as drawn"),
        h("div", {},
          figures([
            ["Game", String(game.number), "game-number"],
            ["State", say(game.state), "game-state"],
            ["Keno Day", game.keno_day],
            ["Closes", when(game.closes_at)],
            ["Drawn", `${game.drawn.length} of 20`, "drawn-count"],
          ]),
          h("p", { class: "countdown" }, countdown(game)),
          closure && closure.closure ? h("p", { class: "alarm", id: "closure-in-force" },
            `Keno closes early today at ${closure.closure.closes_at_local}: ${closure.closure.reason}`) : null,
          h("p", { class: "drawn-order", id: "drawn-order" }, game.drawn.length ? `In drawn order: ${game.drawn.join(" ")}` : "")));
    }, "game");
  }

  page({
    id: "game",
    title: "Live game",
    roles: OVERSIGHT,
    render(main) {
      main.append(gameView(), liabilityView());
      if (can("supervisor")) {
        main.append(
          act({
            id: "close-game", title: "Close the open game now",
            fields: [{ name: "reason", label: "Why (recorded, and shown among the day's exceptions)" }],
            button: "Close the game",
            confirm: (v) => `Close the open game for sale now, before its time? No more tickets are sold for it, it is drawn next, and the next game opens. Reason: “${v.reason}”.`,
            call: (v) => api("POST", "/api/v1/games/current/close", { reason: v.reason }),
            done: (g, out) => { out.textContent = `Game ${g.number} is ${g.state}, closed early.`; },
          }),
          act({
            id: "close-keno", title: "Close Keno early for the day (rule 16.2)",
            fields: [
              { name: "closes_at", label: "Closes at (local date and time)", type: "datetime" },
              { name: "inspector_notified", label: "Inspector told (who, how)" },
              { name: "reason", label: "Why" },
            ],
            button: "Schedule the closure",
            confirm: (v) => `Close Keno for the day at ${new Date(v.closes_at).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })}? From then no game opens and nothing is sold until the next Keno Day. Inspector told: ${v.inspector_notified}. Your reason: "${v.reason}".`,
            call: (v) => api("POST", "/api/v1/keno/closures", {
              closes_at: new Date(v.closes_at).toISOString(), inspector_notified: v.inspector_notified, reason: v.reason,
            }),
            done: (c, out) => { out.textContent = `Closure ${c.id} scheduled: Keno closes at ${c.closes_at_local}.`; },
          }),
          act({
            id: "withdraw-closure", title: "Withdraw a scheduled closure",
            fields: [{ name: "closure", label: "Closure number", type: "number" }, { name: "reason", label: "Why" }],
            button: "Withdraw it",
            confirm: (v) => `Withdraw closure ${v.closure}: Keno stays open to its usual hours. Your reason: "${v.reason}".`,
            call: (v) => api("POST", `/api/v1/keno/closures/${v.closure}/withdraw`, { reason: v.reason }),
          }));
      }
    },
  });

  // ---- the draw record --------------------------------------------------------------------

  function correctionRow(c) {
    const pending = c.state === "pending";
    const buttons = pending && can("supervisor", "inspector") ? [
      act({ inline: true, id: `approve-correction-${c.id}`, title: `Approve correction ${c.id}`, button: "Approve",
        confirm: () => `Approve correction ${c.id}: ball ${c.position} of game ${c.game} becomes ${c.new_number} (drawn as ${c.old_number}) once both a supervisor and an inspector approve; the game's tickets are settled again.`,
        call: () => api("POST", `/api/v1/corrections/${c.id}/approve`) }),
      act({ inline: true, id: `reject-correction-${c.id}`, title: `Reject correction ${c.id}`, button: "Reject",
        fields: [{ name: "reason", label: "Why" }],
        confirm: (v) => `Reject correction ${c.id}: game ${c.game}'s numbers stay as drawn. Your reason: "${v.reason}".`,
        call: (v) => api("POST", `/api/v1/corrections/${c.id}/reject`, v) }),
    ] : [];
    return h("div", {}, ...buttons);
  }

  function drawRecord(game) {
    return view(`Draw record of game ${game}`, async () => {
      const r = await api("GET", `/api/v1/games/${game}/draw-record`);
      return [
        figures([["State", say(r.game.state), "record-state"], ["Source", say(r.game.source)], ["Attempt", String(r.game.draw_attempt)]]),
        board(r.game.drawn, "record-board", `Game ${game} as drawn`),
        h("p", { class: "drawn-order" }, `In drawn order: ${r.game.drawn.join(" ") || "—"}`),
        h("h4", {}, "Balls"),
        table([["Position", (b) => String(b.position), "num"], ["Number", (b) => String(b.number), "num"],
          ["Entered by", (b) => b.entered_by || "the RNG"], ["At", (b) => when(b.drawn_at)]], r.balls),
        h("h4", {}, "Voided balls"),
        table([["Number", (b) => String(b.number), "num"], ["Position", (b) => String(b.position), "num"],
          ["Attempt", (b) => String(b.attempt), "num"], ["Fault", (b) => String(b.fault ?? "")]], r.voided),
        h("h4", {}, "Faults"),
        table([["Id", (f) => String(f.id), "num"], ["Kind", (f) => say(f.kind)], ["Why", (f) => f.reason],
          ["Device", (f) => f.device_id || ""], ["By", (f) => f.principal_id], ["At", (f) => when(f.recorded_at)]], r.faults, "No faults."),
        h("h4", {}, "Corrections"),
        h("div", { id: "corrections" }, table([["Id", (c) => String(c.id), "num"], ["Position", (c) => String(c.position), "num"],
          ["From", (c) => String(c.old_number), "num"], ["To", (c) => String(c.new_number), "num"],
          ["State", (c) => say(c.state)], ["Why", (c) => c.reason], ["Asked by", (c) => c.requested_by],
          ["", correctionRow]], r.corrections, "No corrections.")),
      ];
    }, "draw-record");
  }

  page({
    id: "draws",
    title: "Draw record",
    roles: OVERSIGHT,
    render(main, args) {
      main.append(act({
        id: "pick-game", title: "Which game", fields: [{ name: "game", label: "Game number", type: "number", value: args.get("game") }],
        button: "Show", call: async (v) => Console.go("draws", { game: v.game }),
      }));
      const show = async () => {
        let game = args.get("game");
        if (!game) {
          const latest = await api("GET", "/api/v1/games?state=closed,drawing,drawn,settled,void&limit=1&order=desc");
          if (!latest.length) return;
          game = latest[0].number;
        }
        main.append(drawRecord(game));
        if (can("supervisor", "inspector")) {
          main.append(act({
            id: "request-correction", title: `Correct a number of game ${game} (rule 10)`,
            fields: [{ name: "position", label: "Position (1 to 20)", type: "number" },
              { name: "number", label: "The right number", type: "number" }, { name: "reason", label: "Why" }],
            button: "Ask for the correction",
            confirm: (v) => `Ask to make ball ${v.position} of game ${game} the number ${v.number}? Nothing changes until a supervisor and an inspector both approve. Your reason: "${v.reason}".`,
            call: (v) => api("POST", `/api/v1/games/${game}/corrections`, v),
          }));
        }
      };
      show();
    },
  });

  // ---- invalidation -----------------------------------------------------------------------

  page({
    id: "invalidate",
    title: "Invalidate a game",
    roles: ["supervisor"],
    render(main) {
      const preview = h("div", { id: "invalidation-preview" });
      main.append(act({
        id: "preview-invalidation", title: "1. See what it refunds",
        fields: [{ name: "game", label: "Game number", type: "number" },
          { name: "forfeit", label: "Tickets whose wagers are forfeited (serials, comma-separated)", optional: true }],
        button: "Show the refunds",
        call: (v) => api("GET", `/api/v1/games/${v.game}/invalidation?forfeit=${encodeURIComponent(v.forfeit || "")}`),
        done: (p) => preview.replaceChildren(
          figures([["Game", String(p.game), "preview-game"], ["Tickets refunded", String(p.tickets_refunded), "preview-tickets"],
            ["Refunds", money(p.refunded_cents), "preview-cents"]]),
          table([["Serial", (r) => r.serial], ["Refund", (r) => money(r.refund_cents), "num"]], p.refunds, "No wagers to refund."),
          act({
            id: "confirm-invalidation", title: `2. Invalidate game ${p.game} (rule 17.3)`,
            fields: [{ name: "reason", label: "Why (commotion, fire, robbery, act of God, fraud)" }],
            button: `Invalidate game ${p.game}`,
            confirm: (v) => `Invalidate game ${p.game}: ${p.tickets_refunded} tickets are refunded ${money(p.refunded_cents)} and it pays no prizes. This cannot be undone. Your reason: "${v.reason}".`,
            call: (v) => api("POST", `/api/v1/games/${p.game}/invalidate`, { reason: v.reason, forfeit: p.forfeited }),
            done: (d, out) => { out.textContent = `Game ${d.game} invalidated: ${d.tickets_refunded} tickets refunded ${money(d.refunded_cents)}.`; },
          })),
      }), preview);
    },
  });

  // ---- devices ----------------------------------------------------------------------------

  page({
    id: "devices",
    title: "Devices",
    roles: OVERSIGHT,
    render(main) {
      main.append(view("Ball-drawing devices", async () => {
        const devices = await api("GET", "/api/v1/devices");
        return table([
          ["Device", (d) => d.id],
          ["Name", (d) => d.name],
          ["In service", (d) => (d.in_service ? "yes" : h("span", { class: "alarm" }, "held"))],
          ["Holds", (d) => d.holds.map((x) => `${x.fault_kind} from game ${x.blocks_from_game} (${when(x.opened_at)}${x.returned_at ? ", returned " + when(x.returned_at) : ""})`).join("; ")],
          ["", (d) => (!d.in_service && can("supervisor", "inspector") ? act({
            inline: true, id: `return-${d.id}`, title: `Return ${d.id} to service`, button: "Return to service",
            fields: [{ name: "note", label: "Tested how" }],
            confirm: (v) => `Return ${d.name || d.id} to service: its draws are accepted again from the next game. Tested: "${v.note}".`,
            call: (v) => api("POST", `/api/v1/devices/${encodeURIComponent(d.id)}/return`, { note: v.note }),
          }) : "")],
        ], devices, "No devices have reported.");
      }, "devices"));
    },
  });
})();

// ---- what waits for this person's decision ------------------------------------------------

(() => {
  const { page, api, h, money, table, view, can } = Console;

  /** Corrections asked and not yet decided: they hold their game's settlement. */
  async function pendingCorrections() {
    const games = await api("GET", "/api/v1/games?state=closed,drawing,drawn&order=desc&limit=20");
    const records = await Promise.all(games.map((g) => api("GET", `/api/v1/games/${g.number}/draw-record`)));
    return records.flatMap((r) => r.corrections.filter((c) => c.state === "pending")
      .map((c) => ({ kind: "Correction", what: `game ${c.game} position ${c.position}: ${c.old_number} to ${c.new_number} (${c.reason})`,
        link: `#/draws?game=${c.game}`, id: `correction-${c.id}` })));
  }

  async function waiting() {
    const items = [];
    if (can("supervisor", "inspector")) {
      items.push(...await pendingCorrections());
      const devices = await api("GET", "/api/v1/devices");
      items.push(...devices.filter((d) => !d.in_service).map((d) => ({ kind: "Device held", what: `${d.id} (${d.name})`, link: "#/devices", id: `device-${d.id}` })));
    }
    const claims = await api("GET", "/api/v1/claims");
    if (can("inspector")) {
      items.push(...claims.filter((c) => c.state === "submitted").map((c) => ({ kind: "Claim to decide", what: `claim ${c.id} by ${c.claimant_name}`, link: "#/claims", id: `claim-${c.id}` })));
      const bonuses = await api("GET", "/api/v1/bonus-prizes");
      items.push(...bonuses.bonuses.filter((b) => b.state === "proposed").map((b) => ({ kind: "Bonus prize to approve", what: `${b.name}: ${money(b.prize_cents)}`, link: "#/approvals", id: `bonus-${b.id}` })));
    }
    if (can("supervisor")) {
      items.push(...claims.filter((c) => c.state === "approved").map((c) => ({ kind: "Claim to pay by cheque", what: `claim ${c.id} by ${c.claimant_name}`, link: "#/claims", id: `claim-${c.id}` })));
      const shifts = await api("GET", "/api/v1/shifts");
      items.push(...shifts.filter((s) => s.state === "awaiting_sign_off").map((s) => ({ kind: "Shift to sign off", what: `shift ${s.id} of ${s.writer}: ${money(s.over_short_cents)}`, link: "#/shifts", id: `shift-${s.id}` })));
    }
    return items;
  }

  page({
    id: "waiting",
    title: "Waiting for you",
    roles: ["supervisor", "inspector", "auditor"],
    render(main) {
      main.append(view("Approvals and decisions waiting for you", async () =>
        table([["What", (i) => i.kind], ["", (i) => h("a", { href: i.link, "data-item": i.id }, i.what)]],
          await waiting(), "Nothing waits for you."), "waiting"));
    },
  });
})();
