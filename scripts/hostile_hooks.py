"""Schemathesis hooks for scripts/hostile-input: "a rejected request changes nothing".

Loaded by `st run` through SCHEMATHESIS_HOOKS. Reads the server's SQLite file (read-only) named
by KENO_ST_DB before every call and again right after it; the check
`rejected_requests_change_nothing` fails a response of status >= 400 whose call changed the
database.

What "the database" means here: the server writes every change into the hash-chained
`audit_log` in the same transaction (server/src/audit/log.rs), so the audit trail's entries are
the main measure, plus the row counts and the contents of the tables that only requests write.
The game clock and the drawer change state on their own (opening, closing, drawing and settling
games); their audit entries carry no principal and are ignored by kind, and the tables only they
write are left out. Everything a person or a device does is logged with its principal, so those
entries always count, whatever their kind.

Run with one worker (`st run -w 1`): the before/after pair must not see another call's writes.

KENO_ST_STATS, when set, names a JSON file that receives counts at exit: calls, rejected calls
compared, status codes and operations.

KENO_ST_SEEDS, when set, names a JSON file of real ticket serials, voucher codes and device ids
(written by `python hostile_hooks.py seed URL SEEDS.json` before the runs): about half of the generated
values of those path parameters are replaced by one of them, chosen from the generated value so
that a replay picks the same, and the fuzzer reaches the handlers past "no such ticket".
`python hostile_hooks.py directed URL SEEDS.json` sends hand-made hostile requests on them
(tenders that fail half way, wrong roles, repeated request ids) with the same before/after
comparison, and exits 1 when one was not refused, was a 5xx or changed anything.
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import json
import os
import sqlite3
import threading

import schemathesis

DB_PATH = os.environ["KENO_ST_DB"]

# Audit kinds the clock, the drawer and settlement write without a principal (server/src/clock.rs,
# games.rs, settlement.rs, serve.rs; draw monitoring's alarms with a settlement). A request's entries carry its principal and always count.
BACKGROUND_KINDS = {
    "game_opened",
    "game_closed",
    "number_drawn",
    "game_drawn",
    "game_settled",
    "rule_set_recorded",
    "correction_closed",
    "leader_elected",
    "draw_monitor_alarm",
    "sign_on_unknown_failures",  # the tally of unknown staff IDs' failures, once a minute
}

# Audit kinds a refusal itself must record (issue 17): a failed sign-on (counted against the
# person, in the trail and the exceptions), and a session a request found ended (idle, the end
# of the Keno Day). They are the record of the rejection, not a change the request made.
REFUSAL_KINDS = {"sign_on_failed", "session_ended"}

# Columns a refusal may change for the same reason: a session's last use and end. The rest of
# those rows is compared.
REFUSAL_COLUMNS = {
    "staff_sessions": {"last_seen_at", "ended_at", "end_reason"},
}

# Tables a refusal writes for the same reason: a person's failed sign-ons and lock at a place
# (issue 31), counted before the secret is checked.
REFUSAL_TABLES = {"sign_on_failures"}

# Tables the game clock, the drawer and settlement write on their own: not compared.
BACKGROUND_TABLES = {
    "games",
    "drawn_numbers",
    "game_settlements",
    "jackpot_pools",
    "ticket_results",
    "way_results",
    "bonus_results",
    "game_bonus_offers",
    "audit_log",  # compared through its non-background entries below
    "audit_chains",  # each chain's head moves with the trail
    "leadership",  # the leader renews its lease every few seconds
    "audit_checkpoints",  # the leader signs the trail's head every minute and at settlements
    "rule_sets",
    "__diesel_schema_migrations",
}

# Tables settlement updates in place (jackpot additions get their applied game): counted only.
COUNT_ONLY_TABLES = {"jackpot_additions"}

_lock = threading.Lock()
_before: dict[int, dict] = {}
_diffs: dict[int, list[str]] = {}
_stats = {
    "calls": 0,
    "rejected_compared": 0,
    "state_changes": 0,
    "statuses": collections.Counter(),
    "operations": set(),
}


def _connect() -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{DB_PATH}?mode=ro", uri=True, timeout=30)
    conn.isolation_level = None
    return conn


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    return sorted(r[0] for r in rows)


def snapshot() -> dict:
    """The state a rejected request must leave alone, read in one read transaction."""
    conn = _connect()
    try:
        conn.execute("BEGIN")
        placeholders = ",".join("?" for _ in BACKGROUND_KINDS)
        refusals = ",".join("?" for _ in REFUSAL_KINDS)
        count, last_seq = conn.execute(
            "SELECT count(*), max(seq) FROM audit_log "
            f"WHERE (principal_id IS NOT NULL OR kind NOT IN ({placeholders})) "
            f"AND kind NOT IN ({refusals})",
            sorted(BACKGROUND_KINDS) + sorted(REFUSAL_KINDS),
        ).fetchone()
        state: dict = {"audit": (count, last_seq), "tables": {}}
        for table in _tables(conn):
            if table in BACKGROUND_TABLES or table in REFUSAL_TABLES:
                continue
            if table in COUNT_ONLY_TABLES:
                (n,) = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()
                state["tables"][table] = (n, None)
                continue
            rows = sorted(repr(r) for r in conn.execute(_select(conn, table)))
            digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()
            state["tables"][table] = (len(rows), digest)
        conn.execute("COMMIT")
        return state
    finally:
        conn.close()


def _select(conn: sqlite3.Connection, table: str) -> str:
    """Every column of `table` but those a refusal may change (REFUSAL_COLUMNS)."""
    skip = REFUSAL_COLUMNS.get(table)
    if not skip:
        return f'SELECT * FROM "{table}"'
    names = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")') if r[1] not in skip]
    return "SELECT " + ", ".join(f'"{n}"' for n in names) + f' FROM "{table}"'


def _new_audit_entries(after_seq) -> list[str]:
    conn = _connect()
    try:
        rows = conn.execute(
            "SELECT seq, kind, subject, principal_id FROM audit_log WHERE seq > ? ORDER BY seq",
            (after_seq or 0,),
        ).fetchall()
    finally:
        conn.close()
    return [
        f"#{seq} {kind} {subject} by {principal}"
        for seq, kind, subject, principal in rows
        if (principal is not None or kind not in BACKGROUND_KINDS) and kind not in REFUSAL_KINDS
    ]


def compare(before: dict, after: dict) -> list[str]:
    diffs = []
    if before["audit"] != after["audit"]:
        new = _new_audit_entries(before["audit"][1])
        diffs.append(
            f"audit trail: {before['audit'][0]} -> {after['audit'][0]} request entries"
            + (f" (new: {'; '.join(new[:5])})" if new else "")
        )
    for table in sorted(set(before["tables"]) | set(after["tables"])):
        b, a = before["tables"].get(table), after["tables"].get(table)
        if b != a:
            bn = b[0] if b else "absent"
            an = a[0] if a else "absent"
            what = "rows changed" if bn == an else f"{bn} -> {an} rows"
            diffs.append(f"table {table}: {what}")
    return diffs


def _load_seeds() -> dict[str, list[str]]:
    path = os.environ.get("KENO_ST_SEEDS")
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


SEEDS = _load_seeds()


def _seed_key(path: str, name: str) -> str | None:
    if name == "serial":
        return "serial"
    if name == "code":
        return "code"
    if name == "id" and path.startswith("/api/v1/devices/"):
        return "device"
    return None


def _use_seeds(case) -> None:
    params = case.path_parameters
    if not params or not SEEDS:
        return
    for name, value in list(params.items()):
        key = _seed_key(case.operation.path, name)
        values = SEEDS.get(key or "", [])
        if not values:
            continue
        h = hashlib.sha256(repr(value).encode()).digest()
        if h[0] % 2 == 0:
            params[name] = values[h[1] % len(values)]


@schemathesis.hook
def before_call(context, case, **kwargs):
    _use_seeds(case)
    state = snapshot()
    with _lock:
        _before[id(case)] = state


@schemathesis.hook
def after_call(context, case, response):
    with _lock:
        before = _before.pop(id(case), None)
        _stats["calls"] += 1
        _stats["statuses"][response.status_code] += 1
        _stats["operations"].add(case.operation.label)
    if before is None or response.status_code < 400:
        with _lock:
            _diffs.pop(id(case), None)
        return
    diffs = compare(before, snapshot())
    with _lock:
        _stats["rejected_compared"] += 1
        if diffs:
            _stats["state_changes"] += 1
            _diffs[id(case)] = diffs
        else:
            _diffs.pop(id(case), None)


@schemathesis.check
def rejected_requests_change_nothing(ctx, response, case):
    """A response with status >= 400 left the database as it was before the call."""
    if response.status_code < 400:
        return None
    with _lock:
        diffs = _diffs.get(id(case))
    if diffs:
        raise AssertionError(
            f"Rejected request changed state (status {response.status_code}): " + "; ".join(diffs)
        )
    return None


def _write_stats():
    path = os.environ.get("KENO_ST_STATS")
    if not path:
        return
    with _lock:
        data = {
            "calls": _stats["calls"],
            "rejected_compared": _stats["rejected_compared"],
            "state_changes": _stats["state_changes"],
            "statuses": {str(k): v for k, v in sorted(_stats["statuses"].items())},
            "operations": len(_stats["operations"]),
        }
    with open(path, "w") as f:
        json.dump(data, f)


atexit.register(_write_stats)


def _call(url: str, method: str, path: str, role: str, body=None) -> tuple[int, object]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url + path, method=method)
    token = os.environ.get(f"KENO_ST_TOKEN_{role.upper()}")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, data, timeout=20) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw


def seed(url: str, out: str) -> None:
    """Makes a few real resources through the API and writes what the fuzzer may refer to."""

    def call(method, path, role, body=None):
        status, answer = _call(url, method, path, role, body)
        if status >= 300:
            raise SystemExit(f"seeding: {method} {path} as {role}: {status} {answer!r}")
        return answer

    before = snapshot()
    seeds: dict[str, list[str]] = {"serial": [], "code": [], "device": []}
    bets = [
        {"type": "standard", "spots": [6, 45, 36, 80]},
        {"type": "quick_pick", "count": 7},
        {"type": "way", "groups": [[1, 2], [3, 4], [5]], "combine": [2]},
    ]
    for i, bet in enumerate(bets):
        sale = {"request_id": f"hostile-seed-{i}", "bet": bet, "amount_per_way_cents": 300}
        seeds["serial"].append(call("POST", "/api/v1/tickets", "writer", sale)["serial"])
    voucher = call(
        "POST", "/api/v1/vouchers", "writer", {"request_id": "hostile-v", "amount_cents": 2000}
    )
    seeds["code"].append(voucher["code"])
    seeds["device"].append(call("GET", "/api/v1/principals/me", "device")["id"])
    # The measure itself: these sales and the voucher must show as a change.
    seen = compare(before, snapshot())
    if not any(d.startswith("audit trail") for d in seen) or not any("tickets" in d for d in seen):
        raise SystemExit(f"seeding: the state measure missed the seeding sales: {seen}")
    with open(out, "w") as f:
        json.dump(seeds, f)
    print(json.dumps(seeds))


def directed(url: str, seeds_path: str) -> int:
    """Hand-made hostile requests on the seeded resources, each refused or a harmless repeat,
    none of which may change anything. Prints one line each; returns the number that failed."""
    with open(seeds_path) as f:
        seeds = json.load(f)
    serial, code = seeds["serial"][0], seeds["code"][0]
    bet = {"type": "standard", "spots": [1, 2, 3, 4]}

    def sale(request_id, tender=None, **more):
        body = {"request_id": request_id, "bet": bet, "amount_per_way_cents": 300, **more}
        if tender is not None:
            body["tender"] = tender
        return body

    # (what, role, method, path, body, refused): refused=False means a repeat answered with
    # what was already done, so any status below 500 but 201.
    cases = [
        ("sale: voucher then an unsettled ticket as tender", "writer", "POST", "/api/v1/tickets",
         sale("hostile-d1", [{"voucher": code, "amount_cents": 100}, {"ticket": serial}]), True),
        ("sale: one voucher tendered twice", "writer", "POST", "/api/v1/tickets",
         sale("hostile-d2", [{"voucher": code}, {"voucher": code}]), True),
        ("sale: more of a voucher than it holds", "writer", "POST", "/api/v1/tickets",
         sale("hostile-d3", {"voucher": code, "amount_cents": 1_000_000}), True),
        ("sale: tender beyond the sale", "writer", "POST", "/api/v1/tickets",
         sale("hostile-d4", {"voucher": code, "amount_cents": 1000}), True),
        ("sale: an unknown voucher after a good one", "writer", "POST", "/api/v1/tickets",
         sale("hostile-d5", [{"voucher": code, "amount_cents": 100}, {"voucher": "0" * 16}]),
         True),
        ("sale: zero games", "writer", "POST", "/api/v1/tickets", sale("hostile-d6", games=0),
         True),
        ("sale: a number out of range", "writer", "POST", "/api/v1/tickets",
         {**sale("hostile-d7"), "bet": {"type": "standard", "spots": [0, 81]}}, True),
        ("sale: by a supervisor", "supervisor", "POST", "/api/v1/tickets", sale("hostile-d8"),
         True),
        ("sale: a sold request id with another bet", "writer", "POST", "/api/v1/tickets",
         {**sale("hostile-seed-0"), "bet": {"type": "quick_pick", "count": 3}}, False),
        ("voucher: an issued request id with another amount", "writer", "POST",
         "/api/v1/vouchers", {"request_id": "hostile-v", "amount_cents": 5}, False),
        ("pay: an unsettled ticket", "writer", "POST", f"/api/v1/tickets/{serial}/pay", None,
         True),
        ("cancel: by a supervisor", "supervisor", "POST", f"/api/v1/tickets/{serial}/cancel",
         None, True),
        ("cancel: an unknown serial", "writer", "POST", "/api/v1/tickets/00000000000000/cancel",
         None, True),
        ("cash: a voucher by an auditor", "auditor", "POST", f"/api/v1/vouchers/{code}/cash",
         None, True),
        ("close: the game by a writer", "writer", "POST", "/api/v1/games/current/close", None,
         True),
        ("invalidate: by a writer", "writer", "POST", "/api/v1/games/1/invalidate",
         {"reason": "hostile"}, True),
        ("claim: approve an unknown claim", "inspector", "POST", "/api/v1/claims/999999/approve",
         {"serial": serial, "reason": "hostile"}, True),
    ]
    failed = 0
    for what, role, method, path, body, refused in cases:
        before = snapshot()
        status, answer = _call(url, method, path, role, body)
        diffs = compare(before, snapshot())
        problems = []
        if status >= 500:
            problems.append("a server error")
        if refused and status < 400:
            problems.append("not refused")
        if not refused and status == 201:
            problems.append("made anew")
        if diffs:
            problems.append("changed " + "; ".join(diffs))
        code_ = answer.get("error", "") if isinstance(answer, dict) else ""
        verdict = "ok" if not problems else "FAILED: " + ", ".join(problems)
        print(f"  {what}: {status} {code_} {verdict}")
        failed += bool(problems)
    return failed


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 4 and sys.argv[1] == "seed":
        seed(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "directed":
        sys.exit(1 if directed(sys.argv[2], sys.argv[3]) else 0)
    else:
        raise SystemExit("usage: hostile_hooks.py seed|directed URL SEEDS.json")
