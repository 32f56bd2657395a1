// The records: the game history, a ticket's whole story, the auditors' report, exceptions,
// exports and verification, and the monitoring of the draw.
"use strict";

(() => {
  const { page, api, h, money, when, say, table, figures, board, act, view, fileButton, go, can } = Console;
  const OVERSIGHT = ["supervisor", "inspector", "auditor"];
  const AUDIT = ["inspector", "auditor"];
  const today = () => new Date().toISOString().slice(0, 10);

  // ---- the game history -------------------------------------------------------------------

  function gameLink(n) {
    return h("a", { href: `#/history?game=${n}` }, String(n));
  }

  function gamesView(args) {
    return view("Games", async () => {
      const q = new URLSearchParams();
      if (args.get("day")) q.set("keno_day", args.get("day"));
      if (args.get("from")) q.set("from", args.get("from"));
      if (args.get("to")) q.set("to", args.get("to"));
      if (![...q.keys()].length) q.set("keno_day", today());
      q.set("order", "desc");
      q.set("limit", "200");
      const games = await api("GET", `/api/v1/games?${q}`);
      return table([
        ["Game", (g) => gameLink(g.number), "num"],
        ["Keno Day", (g) => g.keno_day],
        ["State", (g) => say(g.state)],
        ["Source", (g) => say(g.source)],
        ["Drawn in order", (g) => g.drawn.join(" ")],
        ["Closed", (g) => closedWords(g)],
      ], games, "No games.");
    }, "games");
  }

  /** When a game closed; one closed by hand before its time says so (the exceptions say who and why). */
  function closedWords(g) {
    if (!g.closed_at) return "—";
    const early = Date.parse(g.closed_at) < Date.parse(g.closes_at);
    return early ? `${when(g.closed_at)}, early (due ${when(g.closes_at)})` : when(g.closed_at);
  }

  function gameDetail(number) {
    return view(`Game ${number}`, async () => {
      const s = await api("GET", `/api/v1/games/${number}/summary`);
      const g = s.game;
      return [
        figures([["State", say(g.state), "summary-state"], ["Keno Day", g.keno_day], ["Source", say(g.source)],
          ["Closed", closedWords(g), "summary-closed"],
          ["Tickets", String(s.tickets), "summary-tickets"], ["Stake", money(s.stake_cents), "summary-stake"],
          ["Prizes", s.settlement ? money(s.settlement.total_prizes_cents) : "—", "summary-prizes"]]),
        board(g.drawn, "summary-board", `Game ${number} as drawn`),
        h("p", { class: "drawn-order", id: "summary-order" }, `In drawn order: ${g.drawn.join(" ") || "—"}`),
        h("p", {}, h("a", { href: `#/draws?game=${number}` }, "Its draw record: balls, faults, corrections")),
        s.settlement ? figures([
          ["Ways settled", String(s.settlement.ways)],
          ["Major prizes", String(s.settlement.major_prizes)],
          ["Pro-rated (rule 12.4)", s.settlement.prorated ? `yes: ${money(s.settlement.prorate_before_cents)} to ${money(s.settlement.prorate_after_cents)}` : "no", "summary-prorated"],
          ["Bonus prizes", money(s.settlement.bonus_cents)],
          ["Settled", when(s.settlement.settled_at)],
        ]) : h("p", { class: "muted" }, "Not settled."),
        s.invalidation ? h("p", { class: "alarm" }, `Invalidated by ${s.invalidation.invalidated_by}: ${s.invalidation.reason}; ${money(s.invalidation.refunded_cents)} refunded.`) : null,
        h("h4", {}, "Jackpot pools"),
        table([["Spots", (j) => String(j.spots), "num"], ["Carried in", (j) => money(j.carried_in_cents), "num"],
          ["Added", (j) => money(j.contributions_cents), "num"], ["Pool", (j) => money(j.pool_cents), "num"],
          ["Winners", (j) => String(j.winners), "num"], ["Paid", (j) => money(j.paid_cents), "num"],
          ["Carried out", (j) => money(j.next_pool_cents), "num"]], s.jackpots, "No jackpot pools."),
        h("h4", {}, `Tickets (${s.tickets}; the ${s.shown.length} with the largest prizes)`),
        table([["Serial", (t) => h("a", { href: `#/ticket?serial=${t.serial}` }, t.serial)],
          ["Bet", (t) => say(t.bet_type)], ["Where", (t) => `${t.site}/${t.terminal}`],
          ["Cost", (t) => money(t.total_cents), "num"], ["Status", (t) => t.status],
          ["Won here", (t) => money(t.prize_cents), "num"],
          ["Paid", (t) => (t.paid_at ? `${money(t.paid_cents)} ${t.pay_method || ""} ${when(t.paid_at)}` : "—")]],
        s.shown, "No tickets."),
      ];
    }, "game-detail");
  }

  page({
    id: "history",
    title: "Game history",
    roles: OVERSIGHT,
    render(main, args) {
      main.append(act({
        id: "pick-history", title: "Games of a Keno Day, or a range",
        fields: [{ name: "day", label: "Keno Day", type: "date", value: args.get("day") || "", optional: true },
          { name: "game", label: "Or one game", type: "number", value: args.get("game") || "", optional: true }],
        button: "Show",
        call: async (v) => go("history", v.game ? { game: v.game } : v.day ? { day: v.day } : {}),
      }));
      main.append(args.get("game") ? gameDetail(args.get("game")) : gamesView(args));
    },
  });

  // ---- a ticket's story -------------------------------------------------------------------

  function ticketView(serial) {
    return view(`Ticket ${serial}`, async () => {
      const t = await api("GET", `/api/v1/tickets/${encodeURIComponent(serial)}`);
      const story = await api("GET", `/api/v1/tickets/${encodeURIComponent(serial)}/story`);
      return [
        figures([["Status", ticketStatus(t), "ticket-status"], ["Bet", betWords(t)],
          ["Games", gamesWords(t), "ticket-games"], ["Cost", money(t.total_cents), "ticket-cost"],
          ["Won", money(t.won_cents), "ticket-won"], ["Paid", money(t.paid_cents), "ticket-paid"],
          ["Sold", `${when(t.issued_at)} at ${t.site}/${t.terminal} by ${t.writer}`]]),
        h("p", {}, `Numbers: ${t.groups.map((g) => g.join(" ")).join(" / ")}`),
        h("h4", {}, "Game by game"),
        table([["Game", (r) => h("a", { href: `#/history?game=${r.game}` }, String(r.game)), "num"],
          ["State", (r) => (r.voided ? `${r.state}; the ticket took no part (wagers void, rule 17.2)` : r.state)],
          ["Prize", (r) => money(r.prize_cents), "num"],
          ["Refund", (r) => money(r.refund_cents), "num"]], t.results),
        h("h4", {}, "Its story in the audit trail"),
        table([["When", (e) => when(e.at)], ["What", (e) => e.said], ["Who", (e) => e.by_name],
          ["Entry", (e) => String(e.seq), "num"]], story, "Nothing recorded."),
      ];
    }, "ticket");
  }

  /** "quick pick on the Standard schedule": the ticket's type and, when it differs, its schedule. */
  function betWords(t) {
    const type = t.bet_type.replace(/_/g, " ");
    const schedule = t.schedule.replace(/_/g, " ");
    return type === schedule ? type : `${type} on the ${schedule} schedule`;
  }

  /** Its status, and the games a cancellation took back (rule 8). */
  function ticketStatus(t) {
    const cancelled = t.cancelled_games || [];
    if (t.status === "active" && cancelled.length) {
      return `active; ${cancelled.length} game${cancelled.length === 1 ? "" : "s"} cancelled, ${money(t.refund_cents)} refunded`;
    }
    return t.status;
  }

  function gamesWords(t) {
    const cancelled = t.cancelled_games || [];
    const all = t.first_game === t.last_game ? `game ${t.first_game}` : `games ${t.first_game} to ${t.last_game}`;
    if (!cancelled.length) return all;
    const gone = cancelled.length === 1 ? `game ${cancelled[0]}` : `games ${cancelled[0]} to ${cancelled[cancelled.length - 1]}`;
    return `${all} (${gone} cancelled)`;
  }

  page({
    id: "ticket",
    title: "Ticket inquiry",
    roles: OVERSIGHT,
    render(main, args) {
      main.append(act({
        id: "find-ticket", title: "Find a ticket", fields: [{ name: "serial", label: "Serial", value: args.get("serial") || "" }],
        button: "Find", call: async (v) => go("ticket", { serial: v.serial.replace(/\s/g, "") }),
      }));
      const serial = args.get("serial");
      if (serial) {
        main.append(ticketView(serial));
        if (can("supervisor")) {
          main.append(act({
            id: "void-ticket", title: "Void this ticket (rule 17.2)",
            fields: [{ name: "reason", label: "Why" }, { name: "forfeit", label: "Its stake is forfeited", type: "checkbox" }],
            button: "Void it",
            confirm: (v) => `Void the wagers of ticket ${serial}? It takes no part in any game not yet settled, its prizes are withheld, and ${v.forfeit ? "its stake is forfeited" : "its stake is refunded"}. Reason: “${v.reason}”.`,
            call: (v) => api("POST", `/api/v1/tickets/${encodeURIComponent(serial)}/void`, v),
          }));
        }
      }
    },
  });

  // ---- the auditors' tools ----------------------------------------------------------------

  function exceptionsView(day) {
    return view(`Exceptions of ${day}`, async () => {
      const found = await api("GET", `/api/v1/audit/exceptions?day=${day}`);
      const list = found.exceptions;
      return table([["When", (e) => when(e.at)], ["Kind", (e) => say(e.kind)], ["Game", (e) => (e.game ? String(e.game) : "")],
        ["Ticket", (e) => e.serial || ""], ["What", (e) => e.what], ["Who", (e) => e.who], ["Why", (e) => e.why]],
      list, "Nothing to review.");
    }, "exceptions");
  }

  function verifyForm() {
    const out = h("div", { id: "verify-result" });
    return h("div", {}, act({
      id: "verify", title: "Verify the audit trail", button: "Run audit verify",
      call: () => api("GET", "/api/v1/audit/verify"),
      done: (r) => out.replaceChildren(r.verified
        ? h("p", { class: "ok" }, `Verified at ${when(r.checked_at)}: the audit trail is intact and every record matches it.`)
        : h("div", {}, h("p", { class: "alarm" }, `${r.differences.length} differences`),
          h("ul", {}, r.differences.map((d) => h("li", {}, d))))),
    }), out);
  }

  function exportsForm(kinds, day) {
    const chosen = { kind: kinds[0], from: day, to: day, format: "csv" };
    const path = () => `/api/v1/audit/exports/${chosen.kind}?from=${chosen.from}&to=${chosen.to}&format=${chosen.format}`;
    const form = act({
      id: "export", title: "Export records",
      fields: [{ name: "kind", label: "What", type: "select", options: kinds.map((k) => [k, k]) },
        { name: "from", label: "From Keno Day", type: "date", value: day }, { name: "to", label: "To Keno Day", type: "date", value: day },
        { name: "format", label: "Format", type: "select", options: [["csv", "CSV"], ["json", "JSON"]] }],
      button: "Download",
      call: async (v) => {
        Object.assign(chosen, v);
        return Console.download(path(), `keno-${v.kind}-${v.from}-${v.to}.${v.format}`);
      },
      done: (file, out) => { out.textContent = `Downloaded ${file.bytes} bytes.`; out.dataset.bytes = file.bytes; },
    });
    return form;
  }

  page({
    id: "audit",
    title: "Audit",
    roles: OVERSIGHT,
    render(main, args) {
      const day = args.get("day") || today();
      main.append(act({
        id: "pick-audit-day", title: "Which Keno Day", fields: [{ name: "day", label: "Keno Day", type: "date", value: day }],
        button: "Show", call: async (v) => go("audit", { day: v.day }),
      }));
      main.append(h("div", { class: "view" }, h("h3", {}, `Daily report of ${day}`),
        fileButton("Daily report (PDF)", `/api/v1/audit/report.pdf?day=${day}`, `keno-report-${day}.pdf`)));
      main.append(exceptionsView(day));
      if (can(...AUDIT)) {
        api("GET", "/api/v1/audit/exports").then((kinds) => main.append(exportsForm(kinds, day), verifyForm()));
      }
    },
  });

  // ---- monitoring the draw ----------------------------------------------------------------

  page({
    id: "monitoring",
    title: "Draw monitoring",
    roles: OVERSIGHT,
    render(main) {
      main.append(view("The draw's statistics", async () => {
        const m = await api("GET", "/api/v1/draw-monitoring");
        if (!m.groups.length) return h("p", { class: "muted" }, "No games drawn yet.");
        return m.groups.map((g) => h("div", { class: "group", "data-source": g.source, "data-device": g.device || "" },
          h("h4", {}, `${say(g.source)}${g.device ? " " + g.device : ""}: games ${g.first_game} to ${g.last_game} (${g.games} of the last ${m.window})`,
            g.alarm ? h("span", { class: "alarm" }, " ALARM") : null),
          table([["Test", (t) => t.test], ["Chi-square", (t) => t.statistic.toFixed(1), "num"],
            ["Degrees of freedom", (t) => String(t.degrees_of_freedom), "num"], ["p", (t) => t.p_value.toPrecision(3), "num"],
            ["At 99.9%", (t) => verdict(t, g.games)]], g.tests),
          heatOf(g.frequency, g.games)));
      }, "monitoring"));
    },
  });

  /** Games a chi-square needs before its verdict means anything: each number expected drawn
   *  five times (20 of 80 a game). */
  const JUDGED_FROM = 20;

  function verdict(t, games) {
    if (t.fails) return h("span", { class: "alarm" }, "fails");
    if (games < JUDGED_FROM) return `too few games to judge (${games} of the ${JUDGED_FROM} it needs)`;
    return "passes";
  }

  function heatOf(frequency, games) {
    const expected = (games * 20) / 80;
    return h("div", { class: "board heat", role: "img", "aria-label": "How often each number was drawn" },
      frequency.map((count, i) => {
        const off = expected ? Math.max(-1, Math.min(1, (count - expected) / Math.max(1, 3 * Math.sqrt(expected)))) : 0;
        return h("div", { class: "cell", "data-n": i + 1, "data-count": count, title: `${i + 1}: drawn ${count} times`,
          style: `background: hsl(${off >= 0 ? 8 : 210}, 70%, ${Math.round(95 - 40 * Math.abs(off))}%)` }, String(i + 1));
      }));
  }

})();
