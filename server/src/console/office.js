// The office: claims (rule 13), bonus prizes and Special 3 approvals, set bets, staff and
// terminals, writers' shifts.
"use strict";

(() => {
  const { page, api, h, money, when, say, table, act, view, fileButton, can } = Console;
  const OVERSIGHT = ["supervisor", "inspector", "auditor"];
  /** A Keno Day (`yyyy-mm-dd`) as people read it: 25 Nov 2026. */
  const dayShown = (d) => new Date(`${d}T00:00`).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });

  // ---- claims -----------------------------------------------------------------------------

  function claimActions(c) {
    const out = [fileButton("Diagram E (PDF)", `/api/v1/claims/${c.id}/form.pdf`, `claim-${c.id}.pdf`)];
    if (c.state === "submitted" && can("inspector")) {
      out.push(act({ inline: true, id: `approve-claim-${c.id}`, title: `Approve claim ${c.id}`, button: "Approve",
        fields: [{ name: "serial", label: "The ticket it is for (serial)", optional: true, value: c.candidates[0]?.serial },
          { name: "reason", label: "Why" }],
        confirm: (v) => {
          const t = c.candidates.find((m) => m.serial === v.serial);
          return `Approve claim ${c.id} from ${c.claimant_name}` + (v.serial ? ` for ticket ${v.serial}${t ? `, which is owed ${money(t.owed_cents)}` : ""}` : "")
            + `: a supervisor may then pay it by cheque. Your reason: "${v.reason}".`;
        },
        call: (v) => api("POST", `/api/v1/claims/${c.id}/approve`, v) }));
      out.push(act({ inline: true, id: `reject-claim-${c.id}`, title: `Reject claim ${c.id}`, button: "Reject",
        fields: [{ name: "reason", label: "Why" }],
        confirm: (v) => `Reject claim ${c.id} from ${c.claimant_name}: nothing is paid on it. Your reason: "${v.reason}".`,
        call: (v) => api("POST", `/api/v1/claims/${c.id}/reject`, v) }));
    }
    if (c.state === "approved" && can("supervisor")) {
      out.push(act({ inline: true, id: `pay-claim-${c.id}`, title: `Pay claim ${c.id} by cheque`, button: "Paid by cheque",
        fields: [{ name: "cheque_reference", label: "Cheque number" }],
        confirm: (v) => `Record cheque ${v.cheque_reference} as paying claim ${c.id} to ${c.claimant_name}: the ticket is paid and can never be paid again.`,
        call: (v) => api("POST", `/api/v1/claims/${c.id}/pay`, v) }));
    }
    return h("div", {}, out);
  }

  page({
    id: "claims",
    title: "Claims",
    roles: OVERSIGHT,
    render(main) {
      main.append(view("Claims (rule 13)", async () => {
        const listed = await api("GET", "/api/v1/claims");
        // The list leaves out the tickets each claim matches: those awaiting a decision are
        // read one by one, for the inspector decides from them.
        const claims = await Promise.all(listed.map((c) => (c.state === "submitted" ? api("GET", `/api/v1/claims/${c.id}`) : c)));
        return table([
          ["Claim", (c) => String(c.id), "num"],
          ["Why", (c) => c.reason],
          ["Claimant", (c) => `${c.claimant_name}, ${c.phone}`],
          ["Bought", (c) => `${c.purchase_place}, ${dayShown(c.purchase_date)}`
            + (c.numbers ? `; numbers ${c.numbers.join(" ")}` : "") + (c.amount_cents ? `; ${money(c.amount_cents)}` : "")],
          ["State", (c) => say(c.state)],
          ["Matches", (c) => (c.candidates.length ? h("ol", { class: "matches" }, c.candidates.map((m) => h("li", {},
            h("strong", {}, m.serial), ` owes ${money(m.owed_cents)}`, m.matched.length ? `: ${m.matched.join("; ")}` : ""))) : "—")],
          ["Paid", (c) => (c.paid_cents !== null && c.paid_cents !== undefined ? `${money(c.paid_cents)} cheque ${c.cheque_reference}` : "—")],
          ["", claimActions],
        ], claims, "No claims.");
      }, "claims"));
      if (can("supervisor")) {
        main.append(act({
          id: "file-claim", title: "File a claim for an old, lost or mutilated ticket",
          fields: [
            { name: "reason", label: "Why", type: "select", options: [["old", "Old ticket"], ["lost", "Lost ticket"], ["mutilated", "Mutilated ticket"]] },
            { name: "claimant_name", label: "Claimant's name" },
            { name: "postal_address", label: "Postal address" },
            { name: "phone", label: "Phone" },
            { name: "purchase_place", label: "Where it was bought (the venue's name, or a site, terminal or writer)" },
            { name: "purchase_date", label: "When it was bought", type: "date" },
            { name: "serial", label: "Serial, if known", optional: true },
            { name: "numbers", label: "Numbers played, as many as remembered (e.g. 3 17 42)", optional: true },
            { name: "amount_cents", label: "An amount remembered: what it cost or what it won ($)", type: "money", optional: true },
            { name: "approx_game", label: "About which game, if known", type: "number", optional: true },
            { name: "other_details", label: "Other details", type: "textarea", optional: true },
          ],
          button: "File the claim",
          call: (v) => api("POST", "/api/v1/claims", Object.assign(v, {
            other_details: v.other_details || "",
            numbers: v.numbers ? v.numbers.split(/[\s,]+/).filter((x) => x).map(Number) : null,
          })),
          done: (c, out) => { out.textContent = `Claim ${c.id} filed.`; },
        }));
      }
    },
  });

  // ---- bonus prizes and Special 3 ---------------------------------------------------------

  function bonusActions(b) {
    const out = [];
    if (b.state === "proposed" && can("inspector")) {
      out.push(act({ inline: true, id: `approve-bonus-${b.id}`, title: `Approve bonus ${b.id}`, button: "Approve",
        fields: [{ name: "reference", label: "Approval reference" }],
        confirm: (v) => `Approve ${b.name} (${money(b.prize_cents)}) under ${v.reference}: it is offered in the games it names from the next one opened.`,
        call: (v) => api("POST", `/api/v1/bonus-prizes/${b.id}/approve`, v) }));
    }
    if (b.state !== "withdrawn" && can("supervisor")) {
      out.push(act({ inline: true, id: `withdraw-bonus-${b.id}`, title: `Withdraw bonus ${b.id}`, button: "Withdraw",
        fields: [{ name: "reason", label: "Why" }],
        confirm: (v) => `Withdraw ${b.name}: no game opened from now on offers it; tickets already sold keep it. Your reason: "${v.reason}".`,
        call: (v) => api("POST", `/api/v1/bonus-prizes/${b.id}/withdraw`, v) }));
    }
    return h("div", {}, out);
  }

  function special3View() {
    return view("Special 3 approvals", async () => {
      const s = await api("GET", "/api/v1/special3/approvals");
      return [
        h("p", { id: "special3-state" }, s.on_sale ? "Special 3 is on sale." : s.defined ? "Special 3 is defined but not approved: not on sale." : "No Special 3 schedule is defined."),
        table([
          ["Id", (a) => String(a.id), "num"],
          ["Reference", (a) => a.reference],
          ["Approved by", (a) => `${a.approved_by}, ${when(a.approved_at)}`],
          ["Expires", (a) => when(a.expires_at)],
          ["In force", (a) => (a.in_force ? "yes" : `no${a.withdrawal_reason ? ": " + a.withdrawal_reason : ""}`)],
          ["", (a) => (a.in_force && can("supervisor", "inspector") ? act({ inline: true, id: `withdraw-special3-${a.id}`,
            title: `Withdraw approval ${a.id}`, button: "Withdraw", fields: [{ name: "reason", label: "Why" }],
            confirm: (v) => `Withdraw approval ${a.reference}: without an approval in force Special 3 goes off sale. Your reason: "${v.reason}".`,
            call: (v) => api("POST", `/api/v1/special3/approvals/${a.id}/withdraw`, v) }) : "")],
        ], s.approvals, "No approvals recorded."),
      ];
    }, "special3");
  }

  page({
    id: "approvals",
    title: "Bonus prizes and Special 3",
    roles: OVERSIGHT,
    render(main) {
      main.append(view("Bonus prizes", async () => {
        const board = await api("GET", "/api/v1/bonus-prizes");
        return table([
          ["Id", (b) => String(b.id), "num"],
          ["Name", (b) => b.name],
          ["Catch", (b) => `${b.catch}${b.spots ? " of " + b.spots : ""}`],
          ["Prize", (b) => money(b.prize_cents), "num"],
          ["State", (b) => say(b.state) + (b.withdrawal_reason ? `: ${b.withdrawal_reason}` : "")],
          ["Approval", (b) => (b.approval_reference ? `${b.approval_reference} by ${b.approved_by}` : "—")],
          ["", bonusActions],
        ], board.bonuses, "No bonus prizes.");
      }, "bonuses"));
      if (can("supervisor")) {
        main.append(act({
          id: "new-bonus", title: "Propose a bonus prize",
          fields: [
            { name: "name", label: "Name" },
            { name: "catch", label: "Catch", type: "number" },
            { name: "spots", label: "Spots (empty: any)", type: "number", optional: true },
            { name: "prize_cents", label: "Prize ($)", type: "money" },
            { name: "min_amount_per_way_cents", label: "Least amount per way ($)", type: "money", value: "1.00" },
            { name: "every_nth_game", label: "Offered every Nth game (or give a window below)", type: "number", optional: true, value: "1" },
            { name: "window_from", label: "Or offered from (local date and time)", type: "datetime", optional: true },
            { name: "window_to", label: "to", type: "datetime", optional: true },
            { name: "funded_by_bonus_fund", label: "Paid from the bonus fund", type: "checkbox" },
          ],
          button: "Propose it",
          confirm: (v) => `Propose ${v.name}: ${money(v.prize_cents)} for catching ${v.catch}${v.spots ? ` on a ${v.spots}-spot` : ""}. An inspector must approve it before any game offers it.`,
          call: (v) => api("POST", "/api/v1/bonus-prizes", Object.assign(v, {
            window_from: v.window_from && new Date(v.window_from).toISOString(),
            window_to: v.window_to && new Date(v.window_to).toISOString(),
          })),
        }));
      }
      main.append(special3View());
      if (can("inspector")) {
        main.append(act({
          id: "record-special3", title: "Record the regulator's approval of Special 3",
          fields: [{ name: "reference", label: "Approval reference" }, { name: "approved_by", label: "Approved by" },
            { name: "note", label: "Note", optional: true }],
          button: "Record the approval",
          confirm: (v) => `Record approval ${v.reference} by ${v.approved_by}: Special 3 goes on sale if its schedule is defined.`,
          call: (v) => api("POST", "/api/v1/special3/approvals", v),
        }));
      }
    },
  });

  // ---- set bets ---------------------------------------------------------------------------

  /** "1 2 3 / 4 5 6 / 7" as groups of numbers. */
  function groups(textValue) {
    return textValue.split("/").map((g) => g.trim().split(/[\s,]+/).filter((x) => x).map(Number)).filter((g) => g.length);
  }

  page({
    id: "set-bets",
    title: "Set bets",
    roles: OVERSIGHT,
    render(main) {
      main.append(view("The set bets catalogue", async () => {
        const sets = await api("GET", "/api/v1/set-bets?include_retired=true");
        return table([
          ["Id", (s) => String(s.id), "num"],
          ["Name", (s) => s.name],
          ["Groups", (s) => s.groups.map((g) => g.join(" ")).join(" / ")],
          ["Ways", (s) => `${s.way_count} (combinations of ${s.combine.join(", ")})`],
          ["A game", (s) => money(s.game_cost_cents), "num"],
          ["On sale", (s) => (s.on_sale ? "yes" : `retired ${when(s.retired_at)}${s.retired_reason ? `: ${s.retired_reason}` : ""}`)],
          ["", (s) => (s.on_sale && can("supervisor") ? act({ inline: true, id: `retire-set-${s.id}`, title: `Retire ${s.name}`,
            button: "Retire", fields: [{ name: "reason", label: "Why" }],
            confirm: (v) => `Retire ${s.name}: writers can no longer sell it; tickets already sold stand. Your reason: "${v.reason}".`,
            call: (v) => api("POST", `/api/v1/set-bets/${s.id}/retire`, v) }) : "")],
        ], sets, "No set bets.");
      }, "set-bets"));
      if (can("supervisor")) {
        main.append(act({
          id: "new-set-bet", title: "Add a set bet",
          fields: [
            { name: "name", label: "Name" },
            { name: "groups", label: "Groups of numbers, separated by / (e.g. 1 2 3 / 4 5 6 / 7 8 9)" },
            { name: "combine", label: "Combine how many groups into a way (e.g. 2, 3)" },
            { name: "amount_per_way_cents", label: "Amount per way ($)", type: "money" },
            { name: "description", label: "Description", optional: true },
          ],
          button: "Add it",
          confirm: (v) => `Add ${v.name} to what writers sell: ${money(v.amount_per_way_cents)} a way.`,
          call: (v) => api("POST", "/api/v1/set-bets", Object.assign(v, {
            groups: groups(v.groups), combine: v.combine.split(/[\s,]+/).filter((x) => x).map(Number),
          })),
        }));
      }
    },
  });

  // ---- staff and terminals ----------------------------------------------------------------

  function secretShown(out, lines) {
    out.replaceChildren(h("div", { class: "secret", id: "secret-shown" },
      h("strong", {}, "Shown once: give it to them now. "), lines.filter((l) => l).map((l) => h("div", {}, l))));
  }

  function staffActions(s) {
    const change = (what, label) => act({ inline: true, id: `${what}-${s.staff_id}`, title: `${label} ${s.staff_id}`, button: label,
      fields: [{ name: "reason", label: "Why" }],
      confirm: (v) => `${STAFF_CHANGES[what](s)} Your reason: "${v.reason}".`,
      call: (v) => api("POST", `/api/v1/staff/${encodeURIComponent(s.staff_id)}/${what}`, v),
      done: (r, out) => r && (r.secret || r.totp_secret) && secretShown(out, [r.secret && `Secret: ${r.secret}`, r.totp_uri && `Authenticator: ${r.totp_uri}`]) });
    // The duty table (keno-core's duties): a supervisor manages writers, an administrator the
    // supervisors, inspectors and auditors; the server refuses the rest (`not_your_duty`).
    if (!MANAGES[Console.me().role]?.includes(s.role)) return null;
    const enable = s.disabled || s.locked_until;
    return h("div", {}, enable ? change("enable", s.disabled ? "Enable" : "Unlock") : change("disable", "Disable"), change("reset", "Reset secret"));
  }

  /** What each change to a person does, in a sentence for the confirmation. */
  const STAFF_CHANGES = {
    enable: (s) => `${s.disabled ? "Enable" : "Unlock"} ${s.name} (${s.staff_id}): they can sign on again.`,
    disable: (s) => `Disable ${s.name} (${s.staff_id}): their sessions end now and they cannot sign on.`,
    reset: (s) => `Reset the secret of ${s.name} (${s.staff_id}): the old one stops working and the new one is shown here once.`,
  };

  const MANAGES = {
    supervisor: ["writer"],
    administrator: ["supervisor", "inspector", "auditor"],
  };
  const ROLE_NAMES = { writer: "Writer", supervisor: "Supervisor", inspector: "Inspector", auditor: "Auditor" };

  function terminalsView() {
    return view("Terminals", async () => {
      const terminals = await api("GET", "/api/v1/terminals");
      return table([
        ["Site", (t) => t.site],
        ["Terminal", (t) => t.terminal],
        ["Venue", (t) => t.venue || "—"],
        ["Registered", (t) => (t.registered ? when(t.registered_at) : "no")],
        ["Last ticket", (t) => String(t.last_ticket_number), "num"],
        ["", (t) => act({ inline: true, id: `rotate-${t.site}-${t.terminal}`, title: `New credential for ${t.site}/${t.terminal}`,
          button: "New credential", fields: [{ name: "reason", label: "Why" }],
          confirm: (v) => `Issue a new credential for terminal ${t.terminal} at ${t.site}: the old one stops working at once. Your reason: "${v.reason}".`,
          call: (v) => api("POST", `/api/v1/terminals/${encodeURIComponent(t.site)}/${encodeURIComponent(t.terminal)}/rotate`, v),
          done: (c, out) => secretShown(out, [`Credential for ${c.site}/${c.terminal}: ${c.credential}`]) })],
      ], terminals, "No terminals.");
    }, "terminals");
  }

  page({
    id: "staff",
    title: "Staff and terminals",
    roles: ["supervisor", "administrator"],
    render(main) {
      const manages = MANAGES[Console.me().role] || [];
      main.append(view("Staff", async () => {
        const staff = await api("GET", "/api/v1/staff");
        return table([
          ["Staff ID", (s) => s.staff_id],
          ["Name", (s) => s.name],
          ["Role", (s) => s.role],
          ["Standing", (s) => (s.disabled ? "disabled" : s.locked_until ? `locked until ${when(s.locked_until)}` : "active")],
          ["Sessions", (s) => String(s.open_sessions), "num"],
          ["", staffActions],
        ], staff, "No staff.");
      }, "staff"),
      act({
        id: "add-staff", title: "Add a person",
        fields: [
          { name: "name", label: "Name" },
          { name: "role", label: "Role", type: "select", options: manages.map((r) => [r, ROLE_NAMES[r]]) },
          { name: "reason", label: "Why" },
        ],
        button: "Add",
        confirm: (v) => `Add ${v.name} as ${ROLE_NAMES[v.role] || v.role}: their staff ID and secret are shown here once. Your reason: "${v.reason}".`,
        call: (v) => api("POST", "/api/v1/staff", v),
        done: (s, out) => secretShown(out, [`Staff ID: ${s.staff_id}`, s.secret && `Secret: ${s.secret}`, s.totp_uri && `Authenticator: ${s.totp_uri}`]),
      }),
      );
      // Terminals are the supervisor's: an administrator manages people only.
      if (!can("supervisor")) return;
      main.append(terminalsView(), act({
        id: "add-terminal", title: "Register a terminal",
        fields: [{ name: "site", label: "Site" }, { name: "terminal", label: "Terminal" },
          { name: "venue", label: "The venue's name, as players know it", optional: true }, { name: "reason", label: "Why" }],
        button: "Register",
        confirm: (v) => `Register terminal ${v.terminal} at ${v.site}${v.venue ? ` (${v.venue})` : ""}: its credential is shown here once, and it can sell once a writer signs on there. Your reason: "${v.reason}".`,
        call: (v) => api("POST", "/api/v1/terminals", v),
        done: (c, out) => secretShown(out, [`Credential for ${c.site}/${c.terminal}: ${c.credential}`]),
      }));
    },
  });

  // ---- shifts -----------------------------------------------------------------------------

  page({
    id: "shifts",
    title: "Shifts",
    roles: OVERSIGHT,
    render(main, args) {
      const day = args.get("day") || "";
      main.append(act({
        id: "pick-day", title: "Which Keno Day", fields: [{ name: "day", label: "Keno Day", type: "date", value: day, optional: true }],
        button: "Show", call: async (v) => Console.go("shifts", v.day ? { day: v.day } : {}),
      }), view("Writers' shifts", async () => {
        const shifts = await api("GET", "/api/v1/shifts" + (day ? `?keno_day=${day}` : ""));
        return table([
          ["Shift", (s) => String(s.id), "num"],
          ["Writer", (s) => `${s.writer} (${s.staff_id})`],
          ["Where", (s) => `${s.site}/${s.terminal}`],
          ["Opened", (s) => when(s.opened_at)],
          ["State", (s) => say(s.state)],
          ["Expected", (s) => money(s.expected_cents), "num"],
          ["Counted", (s) => money(s.counted_cents), "num"],
          ["Over/short", (s) => money(s.over_short_cents), "num"],
          ["Signed off", (s) => (s.signed_off_by ? `by ${s.signed_off_by_name || s.signed_off_by}: ${s.sign_off_reason}` : "—")],
          ["", (s) => h("div", {},
            fileButton("Report (PDF)", `/api/v1/shifts/${s.id}/report.pdf`, `shift-${s.id}.pdf`),
            s.state === "awaiting_sign_off" && can("supervisor") ? act({ inline: true, id: `sign-off-${s.id}`,
              title: `Sign off shift ${s.id}`, button: "Sign off", fields: [{ name: "reason", label: "Why the drawer is over or short" }],
              confirm: (v) => `Sign off shift ${s.id} of ${s.writer}: the drawer's ${money(s.over_short_cents)} over or short is final. Your reason: "${v.reason}".`,
              call: (v) => api("POST", `/api/v1/shifts/${s.id}/sign-off`, v) }) : null)],
        ], shifts, "No shifts on this day.");
      }, "shifts"));
    },
  });

})();
