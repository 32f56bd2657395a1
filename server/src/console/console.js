// The console's frame: sign-on, calls to the API, the pages' navigation, and the event stream
// that keeps every open view live. Pages register themselves from room.js, office.js and
// records.js with `Console.page({...})`; they hold no rules: the server decides and refuses.
"use strict";

const Console = (() => {
  const TOKEN = "keno.console.token";
  const pages = [];
  let me = null;
  // The views of the page shown now: each reloads itself when an event says its data moved.
  let views = [];
  let refreshTimer = null;
  let clockTimers = [];

  // ---- calls ------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function headers(extra) {
    const h = Object.assign({ Accept: "application/json" }, extra || {});
    const token = sessionStorage.getItem(TOKEN);
    if (token) h.Authorization = "Bearer " + token;
    return h;
  }

  async function failure(response) {
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    const code = body && body.error ? body.error : "http_" + response.status;
    const message = body && body.message ? body.message : response.statusText;
    if (response.status === 401 && me) {
      // The session ended (idle, end of the Keno Day, signed on elsewhere, disabled).
      signedOut(message);
    }
    return new ApiError(response.status, code, message);
  }

  async function api(method, path, body) {
    const init = { method, headers: headers(), cache: "no-store" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (!response.ok) throw await failure(response);
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  /** A file the API serves (a PDF, a CSV): fetched with the session, offered as a download. */
  async function download(path, filename) {
    const response = await fetch(path, { headers: headers({ Accept: "*/*" }), cache: "no-store" });
    if (!response.ok) throw await failure(response);
    const blob = await response.blob();
    const a = h("a", { href: URL.createObjectURL(blob), download: filename });
    document.body.append(a);
    a.click();
    a.remove();
    return { bytes: blob.size, type: blob.type };
  }

  // ---- building pages ---------------------------------------------------------------------

  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      // Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
      else if (k === "style") el.style.cssText = v;
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : String(kid));
    }
    return el;
  }

  /** Cents as dollars: integer arithmetic only, never floats (money is cents). */
  function money(cents) {
    if (cents === null || cents === undefined) return "—";
    const negative = cents < 0;
    const abs = Math.abs(cents);
    const dollars = Math.floor(abs / 100).toLocaleString("en-US");
    const rest = String(abs % 100).padStart(2, "0");
    return (negative ? "-$" : "$") + dollars + "." + rest;
  }

  /** "12.50" or "12" as cents, or null: parsed as text so no float ever holds money. */
  function cents(text) {
    const m = /^\s*\$?(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text || "");
    if (!m) return null;
    return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
  }

  /** A moment as people read it, with the month in words ("28 Nov 2026, 12:47:17"): no
   *  day-month order to misread beside a date picker that shows another. */
  function when(rfc3339) {
    if (!rfc3339) return "—";
    const d = new Date(rfc3339);
    if (isNaN(d)) return rfc3339;
    const date = d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
    const time = d.toLocaleTimeString("en-GB", { hour12: false });
    return `${date}, ${time}`;
  }

  /** The words for a code the API gives (a state, a kind, a source): people read these. */
  const WORDS = {
    rule_set: "rule set", awaiting_sign_off: "waiting for a supervisor's sign-off",
    quick_pick: "quick pick", mystery_quick_pick: "mystery quick pick", bonus_fund: "the bonus fund",
    rng: "the RNG", ball_device: "a ball device", device: "a ball device", manual: "by hand",
    game_closed_early: "game closed early", ticket_voided: "ticket voided", draw_fault: "draw fault",
    late_payment: "late payment", claim_decision: "claim decided", claim_payment: "claim paid",
    device_returned: "device returned", set_bet: "set bet", special3_approval: "Special 3 approval",
    keno_closure: "closure of Keno", shift_over_short: "shift over or short",
    shift_sign_off: "shift signed off", sign_on: "sign-on", draw_monitor: "draw monitoring",
    jackpot_6: "the 6-spot jackpot", jackpot_8: "the 8-spot jackpot",
  };
  function say(code) {
    if (code === null || code === undefined) return "—";
    return WORDS[code] || String(code).replace(/_/g, " ");
  }

  function table(columns, rows, empty) {
    if (!rows || rows.length === 0) return h("p", { class: "muted" }, empty || "None.");
    return h(
      "table",
      {},
      h("thead", {}, h("tr", {}, columns.map(([title, , cls]) => h("th", { scope: "col", class: cls }, title)))),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h("tr", { "data-key": row.id ?? row.serial ?? row.number ?? row.staff_id ?? null },
            columns.map(([, cell, cls]) => h("td", { class: cls }, cell(row))))
        )
      )
    );
  }

  function figures(pairs) {
    return h("dl", { class: "figures" },
      pairs.map(([label, value, id]) => h("div", {}, h("dt", {}, label), h("dd", { id }, value))));
  }

  function board(lit, id, label) {
    const on = new Set(lit);
    const cells = [];
    for (let n = 1; n <= 80; n++) {
      cells.push(h("div", { class: on.has(n) ? "cell lit" : "cell", "data-n": n }, String(n)));
    }
    return h("div", { class: "board", id, role: "img", "aria-label": label }, cells);
  }

  let formSeq = 0;

  function input(form, f) {
    const id = `f${form}-${f.name}`;
    const common = { id, name: f.name, required: f.required !== false && !f.optional };
    let field;
    if (f.type === "select") {
      field = h("select", common, f.options.map(([value, label]) =>
        h("option", { value, selected: String(f.value) === String(value) }, label)));
    } else if (f.type === "textarea") {
      field = h("textarea", Object.assign({ rows: 3 }, common), f.value || "");
    } else if (f.type === "date" || f.type === "datetime") {
      return dateInput(id, common, f);
    } else if (f.type === "checkbox") {
      // The box before its words, on a line of its own: never read as part of the button.
      field = h("input", { id, name: f.name, type: "checkbox", checked: !!f.value });
      return [h("label", { for: id, class: "check" }, field, " ", f.label)];
    } else {
      field = h("input", Object.assign(common, {
        type: f.type === "money" ? "text" : f.type || "text",
        inputmode: f.type === "money" ? "decimal" : null,
        value: f.value ?? null,
        placeholder: f.placeholder || null,
      }));
    }
    return [h("label", { for: id }, f.label), field];
  }

  // Dates are typed day first, as every page shows them: a browser's own date picker follows
  // the browser's locale (mm/dd/yyyy in a US one), so the same day read two ways.
  const DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2}))?$/;
  const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T\s](\d{2}):(\d{2}))?$/;
  const two = (n) => String(n).padStart(2, "0");
  const datePattern = (type) => (type === "datetime" ? "dd/mm/yyyy hh:mm" : "dd/mm/yyyy");
  const dateExample = (type) => (type === "datetime" ? "27/11/2026 18:30" : "27/11/2026");

  /** `yyyy-mm-dd` (or `yyyy-mm-ddThh:mm`, local time) from what was typed; null if no such day. */
  function typedDate(text, withTime) {
    const s = text.trim();
    let m = s.match(DATE);
    let y, mo, d, hh, mi;
    if (m) [, d, mo, y, hh, mi] = m;
    else if ((m = s.match(ISO_DATE))) [, y, mo, d, hh, mi] = m;
    else return null;
    if (withTime !== (hh !== undefined)) return null;
    const at = new Date(Number(y), Number(mo) - 1, Number(d));
    if (at.getFullYear() !== Number(y) || at.getMonth() !== Number(mo) - 1 || at.getDate() !== Number(d)) return null;
    const day = `${y}-${two(mo)}-${two(d)}`;
    if (!withTime) return day;
    if (Number(hh) > 23 || Number(mi) > 59) return null;
    return `${day}T${two(hh)}:${mi}`;
  }

  /** A stored day (`yyyy-mm-dd`) as the person types it. */
  function shownDate(iso) {
    const m = String(iso).match(ISO_DATE);
    if (!m) return String(iso);
    return `${m[3]}/${m[2]}/${m[1]}` + (m[4] !== undefined ? ` ${m[4]}:${m[5]}` : "");
  }

  /** A text field for a day, with the day it reads in words beside it as it is typed. */
  function dateInput(id, common, f) {
    const hint = h("span", { class: "date-read", id: `${id}-reads`, "aria-live": "polite" });
    const field = h("input", Object.assign(common, {
      type: "text", inputmode: "numeric", autocomplete: "off",
      placeholder: datePattern(f.type), value: f.value ? shownDate(f.value) : null,
      "aria-describedby": `${id}-reads`,
    }));
    const read = () => {
      const d = typedDate(field.value, f.type === "datetime");
      if (field.value.trim() === "") hint.textContent = "";
      else if (d === null) hint.textContent = `as ${datePattern(f.type)}`;
      else {
        const at = new Date(d.length === 10 ? `${d}T00:00` : d);
        // The weekday apart: browsers differ on the comma after it.
        const words = `${at.toLocaleDateString("en-GB", { weekday: "long" })} ${at.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric" })}`;
        hint.textContent = d.length === 10 ? words : `${words}, ${d.slice(11)}`;
      }
    };
    field.addEventListener("input", read);
    read();
    return [h("label", { for: id }, f.label, " ", h("small", {}, `(${datePattern(f.type)})`)), field, hint];
  }

  function values(form, fields) {
    const out = {};
    for (const f of fields) {
      const el = form.elements[f.name];
      if (f.type === "checkbox") out[f.name] = el.checked;
      else if (f.type === "number") out[f.name] = el.value === "" ? null : Number(el.value);
      else if (f.type === "money") {
        if (el.value === "" && f.optional) {
          out[f.name] = null;
          continue;
        }
        const c = cents(el.value);
        if (c === null) throw new ApiError(0, "invalid_amount", `${f.label}: give dollars and cents, e.g. 12.50`);
        out[f.name] = c;
      } else if (f.type === "date" || f.type === "datetime") {
        if (el.value.trim() === "" && f.optional) {
          out[f.name] = null;
          continue;
        }
        const d = typedDate(el.value, f.type === "datetime");
        if (d === null) throw new ApiError(0, "invalid_date", `${f.label}: give the date as ${datePattern(f.type)}, e.g. ${dateExample(f.type)}`);
        out[f.name] = d;
      } else out[f.name] = el.value === "" && f.optional ? null : el.value;
    }
    return out;
  }

  /**
   * A form for one action: its fields, a button, and the server's answer (or refusal, code and
   * message) shown in the form. `call(values)` makes the API call; `done(result, form)` may
   * show what came back; the page's views reload after.
   */
  /**
   * A form that does one act through the API. `confirm(values)`, if given, says what will happen
   * in a sentence; the act goes ahead only once the person agrees to it.
   */
  function act({ title, fields = [], button, call, done, inline, id, confirm }) {
    const n = ++formSeq;
    const result = h("p", { class: "result", role: "status", "aria-live": "polite" });
    const form = h("form", { class: inline ? "act inline" : "act", id: id || null, "aria-label": title },
      inline ? null : h("h3", {}, title),
      fields.map((f) => input(n, f)),
      h("button", { type: "submit" }, button || title),
      result);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const button = form.querySelector("button[type=submit]");
      // One press, one call: a second press while the first is answered does nothing.
      if (button.disabled) return;
      button.disabled = true;
      result.className = "result";
      result.textContent = "…";
      try {
        const v = values(form, fields);
        if (confirm && !window.confirm(confirm(v))) {
          result.textContent = "Not done.";
          outcome(form.getAttribute("id"), title, result);
          return;
        }
        const answer = await call(v);
        result.className = "result ok";
        result.textContent = "Done.";
        if (done) done(answer, result, form);
        outcome(form.getAttribute("id"), title, result);
        // Done: the form lets go, so its view may show what changed (a refusal keeps the
        // values for the person to correct).
        form.reset();
        if (form.contains(document.activeElement)) document.activeElement.blur();
        refreshSoon(0);
      } catch (err) {
        result.className = "result error";
        result.textContent = err.code ? `${err.message} (${err.code})` : String(err.message || err);
        outcome(form.getAttribute("id"), title, result);
      } finally {
        button.disabled = false;
      }
    });
    return form;
  }

  /**
   * The last action's answer, kept at the top of the page: an action inside a view (a row's
   * button) is redrawn with the view once done, and its answer must not go with it.
   */
  function outcome(formId, title, result) {
    const line = document.getElementById("outcome");
    if (!line) return;
    line.dataset.form = formId || "";
    line.className = result.className.replace("result", "").trim();
    line.textContent = `${title}: ${result.textContent}`;
  }

  /** A downloadable file as a button; says what it fetched. */
  function fileButton(label, path, filename) {
    const status = h("span", { class: "muted", role: "status" });
    const button = h("button", { type: "button", class: "secondary", onclick: async () => {
      status.textContent = "…";
      try {
        const got = typeof path === "function" ? path() : path;
        const file = await download(got, typeof filename === "function" ? filename() : filename);
        status.className = "ok";
        status.dataset.bytes = file.bytes;
        status.textContent = ` downloaded ${file.bytes} bytes (${file.type})`;
      } catch (err) {
        status.className = "error";
        status.textContent = ` ${err.message} (${err.code})`;
      }
    } }, label);
    return h("span", { class: "file" }, button, status);
  }

  /**
   * A live view: a titled box that `load(box)` fills from the API, again after each event that
   * may move its data (and after each action on the page). Sales publish no event (thousands a
   * second would flood every screen), so a view of them reloads every `everyMs` as well.
   */
  function view(title, load, id, everyMs) {
    const body = h("div", { class: "body" });
    const box = h("section", { class: "view", id: id || null, "aria-label": title }, h("h3", {}, title), body);
    const entry = { box, body, load, busy: false };
    views.push(entry);
    reload(entry);
    if (everyMs) clockTimers.push(setInterval(() => reload(entry), everyMs));
    return box;
  }

  async function reload(entry) {
    if (entry.busy) {
      entry.again = true;
      return;
    }
    entry.busy = true;
    try {
      const content = await entry.load();
      if (inUse(entry.body)) {
        // Someone is typing in (or about to press) an action of this view: redrawing it now
        // would take their input away. Look again shortly.
        setTimeout(() => reload(entry), 1000);
        return;
      }
      entry.body.replaceChildren(...[content].flat().filter((c) => c));
      entry.box.dataset.loaded = String(Date.now());
    } catch (err) {
      entry.body.replaceChildren(h("p", { class: "error", role: "alert" }, `${err.message} (${err.code || "error"})`));
    } finally {
      entry.busy = false;
      if (entry.again) {
        entry.again = false;
        reload(entry);
      }
    }
  }

  /** Whether a person is working in `body`: focus is in it, or one of its fields was typed in. */
  function inUse(body) {
    if (body.contains(document.activeElement) && document.activeElement !== body) return true;
    return [...body.querySelectorAll("input, textarea")].some((el) =>
      el.type === "checkbox" ? el.checked !== el.defaultChecked : el.value !== el.defaultValue);
  }

  function refreshSoon(delay) {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => views.forEach(reload), delay ?? 250);
  }

  /** Runs `tick` every second while its page is shown (a countdown). */
  function every(tick) {
    tick();
    clockTimers.push(setInterval(tick, 1000));
  }

  // ---- pages and navigation ---------------------------------------------------------------

  function page(spec) {
    pages.push(spec);
  }

  function allowed(spec) {
    return me && spec.roles.includes(me.role);
  }

  function route() {
    const [id, query] = (location.hash.replace(/^#\/?/, "") || "").split("?");
    return { id, args: new URLSearchParams(query || "") };
  }

  function go(id, args) {
    const q = args ? "?" + new URLSearchParams(args).toString() : "";
    location.hash = `#/${id}${q}`;
  }

  function show() {
    if (!me) return;
    const mine = pages.filter(allowed);
    let { id, args } = route();
    let spec = mine.find((p) => p.id === id);
    if (!spec) spec = mine[0];
    views = [];
    clockTimers.forEach(clearInterval);
    clockTimers = [];
    for (const a of document.querySelectorAll("#nav a")) {
      if (a.dataset.page === spec.id) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    const main = document.getElementById("main");
    main.replaceChildren(h("h2", {}, spec.title), h("p", { id: "outcome", role: "status", "aria-live": "polite" }));
    main.dataset.page = spec.id;
    spec.render(main, args, me);
    document.title = `${spec.title} · Keno console`;
  }

  function buildNav() {
    const nav = document.getElementById("nav");
    nav.replaceChildren(...pages.filter(allowed).map((p) =>
      h("a", { href: `#/${p.id}`, "data-page": p.id }, p.title)));
  }

  // ---- the session ------------------------------------------------------------------------

  function signedOut(message) {
    me = null;
    sessionStorage.removeItem(TOKEN);
    document.getElementById("frame").hidden = true;
    // Nothing of the last person's pages stays in the document for the next one.
    clockTimers.forEach(clearInterval);
    clockTimers = [];
    views = [];
    const main = document.getElementById("main");
    if (main) {
      main.replaceChildren();
      delete main.dataset.page;
    }
    document.getElementById("sign-off").hidden = true;
    document.getElementById("who").textContent = "";
    document.getElementById("sign-on").hidden = false;
    document.getElementById("sign-on-error").textContent = message || "";
    document.getElementById("staff-id").focus();
    paintSuspension();
    paintIncidents();
  }

  async function signedIn() {
    try {
      me = await api("GET", "/api/v1/principals/me");
    } catch (err) {
      signedOut(err.status === 401 ? err.message : `${err.message} (${err.code})`);
      return;
    }
    if (!["supervisor", "inspector", "auditor", "administrator"].includes(me.role)) {
      const role = me.role;
      await api("POST", "/api/v1/sessions/current/end").catch(() => null);
      me = null;
      signedOut(`The console is for supervisors, inspectors, auditors and administrators; you are signed on as a ${role}.`);
      return;
    }
    document.getElementById("sign-on").hidden = true;
    document.getElementById("frame").hidden = false;
    document.getElementById("sign-off").hidden = false;
    document.getElementById("who").textContent = `${me.name} (${me.role}, ${me.id})`;
    buildNav();
    show();
    paintSuspension();
    paintIncidents();
  }

  async function signOn(e) {
    e.preventDefault();
    const form = e.target;
    const error = document.getElementById("sign-on-error");
    error.textContent = "";
    const token = form.elements.token.value.trim();
    if (token) {
      sessionStorage.setItem(TOKEN, token);
    } else {
      try {
        const answer = await api("POST", "/api/v1/sessions", {
          staff_id: form.elements.staff_id.value.trim(),
          password: form.elements.password.value,
          totp: form.elements.totp.value.trim(),
        });
        sessionStorage.setItem(TOKEN, answer.token);
      } catch (err) {
        error.textContent = `${err.message} (${err.code})`;
        return;
      }
    }
    form.reset();
    await signedIn();
  }

  async function signOff() {
    await api("POST", "/api/v1/sessions/current/end").catch(() => null);
    signedOut("Signed off.");
  }

  // ---- live -------------------------------------------------------------------------------

  /** Every event the server publishes may move something a view shows. */
  const EVENTS = ["game_opened", "game_closed", "number_drawn", "game_drawn", "game_settled",
    "jackpot_changed", "game_invalidated", "draw_fault", "number_corrected", "device_returned",
    "schedules_changed", "set_bets_changed", "keno_closure", "draw_monitor_alarm",
    "suspension_changed", "resync"];

  /** One key of a suspension's two, as people read it. */
  function keyTurned(office, who, at, note) {
    return who ? `the ${office} ${who} turned their key at ${when(at)}: “${note}”`
      : `waiting for the ${office}'s key`;
  }

  /** The key `me` may turn on suspension `s`, with a note and a confirmation. */
  function resumeForm(s) {
    const mine = me && (me.role === "supervisor" ? s.supervisor : me.role === "inspector" ? s.inspector : "x");
    if (!me || mine) return null;
    const note = h("input", { "aria-label": "Why it is safe to resume", placeholder: "Why it is safe to resume (recorded)" });
    const go = h("button", { type: "button", onclick: async () => {
      const other = me.role === "supervisor" ? "an inspector" : "a supervisor";
      const restore = s.lost_checkpoints ? " This accepts the restore and everything it lost." : "";
      if (!window.confirm(`Turn your ${me.role}'s key to resume Keno (${s.cause_words})? It resumes once ${other} has turned theirs too.${restore}`)) return;
      try {
        await api("POST", `/api/v1/suspension/${s.id}/resume`, { note: note.value });
      } catch (err) {
        window.alert(`${err.message} (${err.code})`);
      }
      paintSuspension();
    } }, "Turn my key to resume");
    return h("div", {}, note, " ", go);
  }

  /** Issue 33: while the system is suspended, why and who has turned a key, above every page. */
  async function paintSuspension() {
    const box = document.getElementById("suspension");
    let standing;
    try {
      standing = await api("GET", "/api/v1/suspension");
    } catch (_) {
      return;
    }
    if (!standing.suspended) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const items = standing.in_force.map((s) => h("li", {},
      `${s.detail.charAt(0).toUpperCase()}${s.detail.slice(1)}. Resuming: `,
      keyTurned("supervisor", s.supervisor, s.supervisor_at, s.supervisor_note), "; ",
      keyTurned("inspector", s.inspector, s.inspector_at, s.inspector_note), ".",
      resumeForm(s)));
    box.replaceChildren(h("strong", {}, "KENO IS SUSPENDED. "), standing.message, h("ul", {}, items));
    box.hidden = false;
  }

  /** Issue 33: the server's own failures while they last (each ends a minute after its last),
   *  above every page, for those who run the room; looked at every ten seconds. */
  async function paintIncidents() {
    const box = document.getElementById("incidents");
    let found = null;
    if (me && ["supervisor", "inspector", "auditor"].includes(me.role)) {
      found = await api("GET", "/api/v1/incidents").catch(() => null);
    }
    if (!found || found.open.length === 0) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const times = (n) => (n === 1 ? "once" : `${n} times`);
    const items = found.open.map((i) => h("li", {},
      `${i.words.charAt(0).toUpperCase()}${i.words.slice(1)}: ${times(i.count)} since ${when(i.began_at)}, the last at ${when(i.last_at)} (“${i.detail}”).`));
    box.replaceChildren(h("strong", {}, `The server ${found.instance} is failing. `),
      "This is in the audit trail and the day's exceptions; it clears a minute after the last failure.",
      h("ul", {}, items));
    box.hidden = false;
  }

  /** A draw-monitoring test has begun to fail: said at the top of every page until dismissed. */
  function alarm(a) {
    const notice = document.getElementById("notice");
    notice.replaceChildren(
      `Draw monitoring: the ${a.test} test fails for ${a.source}${a.device ? " " + a.device : ""} over games ${a.first_game} to ${a.game} (p = ${Number(a.p_value).toPrecision(3)}). `,
      h("a", { href: "#/monitoring" }, "See the statistics"), " ",
      h("button", { type: "button", class: "secondary", onclick: () => { notice.hidden = true; } }, "Dismiss"));
    notice.hidden = false;
  }

  function listen() {
    const link = document.getElementById("link");
    const events = new EventSource("/api/v1/events");
    events.onopen = () => {
      link.textContent = "live";
      link.className = "link-state";
      refreshSoon(0);
      paintSuspension();
    };
    events.onerror = () => {
      link.textContent = "OFFLINE: reconnecting…";
      link.className = "link-state offline";
      if (events.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
    };
    for (const kind of EVENTS) {
      events.addEventListener(kind, (e) => {
        const data = JSON.parse(e.data || "null");
        if (kind === "draw_monitor_alarm") alarm(data);
        if (kind === "suspension_changed" || kind === "resync") paintSuspension();
        document.dispatchEvent(new CustomEvent("keno:" + kind, { detail: data }));
        refreshSoon(kind === "number_drawn" ? 50 : 250);
      });
    }
  }

  function start() {
    document.getElementById("sign-on-form").addEventListener("submit", signOn);
    document.getElementById("sign-off").addEventListener("click", signOff);
    window.addEventListener("hashchange", show);
    listen();
    setInterval(paintIncidents, 10000);
    if (sessionStorage.getItem(TOKEN)) signedIn();
    else signedOut("");
  }

  document.addEventListener("DOMContentLoaded", start);

  return { page, api, download, h, money, cents, when, say, table, figures, board, act, fileButton, view,
    every, go, refreshSoon, me: () => me, can: (...roles) => me && roles.includes(me.role) };
})();
