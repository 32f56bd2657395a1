//! Who may call what, for every endpoint: one row per method and path of
//! `schemas/openapi.json` (read here, so a new endpoint without a row fails this test) naming
//! the roles allowed, called over real HTTP by every role, without a token and with a bad one.
//!
//! A refused caller gets 401 (no token, or one that matches no principal) or 403 (another
//! role), whatever it sent: the check comes before the request's path, query and body are read,
//! so the requests here are minimal (`{}` as the body, placeholder ids). An allowed caller gets
//! anything but 401 and 403 (a 400 for the empty body, a 404 for the placeholder id are fine).
//! Public endpoints ignore tokens, good or bad. The people call with sessions (signed on as the
//! README shows), the device with its own credential; a writer of another site is refused the
//! ticket actions bound to the site where the ticket was sold (`other_site`), and is otherwise
//! a writer like any.

use std::collections::BTreeSet;
use std::time::Duration;

use keno_testkit::{on_both_backends, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(every_endpoint_admits_its_roles_and_refuses_the_rest);

/// Who may call an endpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    /// Anyone, with or without a token.
    Public,
    /// A principal with one of these roles.
    Roles(&'static [&'static str]),
}

use Who::{Public, Roles};

const ALL: &[&str] = &[
    "writer",
    "supervisor",
    "inspector",
    "auditor",
    "administrator",
    "device",
];
const SUPERVISOR: &[&str] = &["supervisor"];
/// Who manages people: each within the duty table (`server/tests/duties.rs`).
const STAFF_MANAGERS: &[&str] = &["supervisor", "administrator"];
const INSPECTOR: &[&str] = &["inspector"];
const WRITER: &[&str] = &["writer"];
const OVERSIGHT: &[&str] = &["supervisor", "inspector", "auditor"];
/// The auditors' tools: those who audit the record (a supervisor reviews the day's exceptions
/// and report, as `OVERSIGHT`).
const AUDIT: &[&str] = &["inspector", "auditor"];
const SUPERVISOR_INSPECTOR: &[&str] = &["supervisor", "inspector"];
const DRAWING: &[&str] = &["device", "supervisor"];
/// A ticket or a claim: the counter, and those who oversee it (`shared/API.md` names writer and
/// auditor for the ticket; supervisors and inspectors read tickets to decide claims and faults).
const CASE_READERS: &[&str] = &["writer", "supervisor", "inspector", "auditor"];

/// Every endpoint of `schemas/openapi.json`, and who may call it.
const TABLE: &[(&str, &str, Who)] = &[
    // Games and the draw (shared/API.md, "Games").
    ("GET", "/api/v1/games/current", Public),
    ("GET", "/api/v1/games/{number}", Public),
    ("GET", "/api/v1/games", Public),
    ("GET", "/api/v1/events", Public),
    ("POST", "/api/v1/games/current/close", Roles(SUPERVISOR)),
    ("GET", "/api/v1/games/current/liability", Roles(OVERSIGHT)),
    ("GET", "/api/v1/games/{number}/summary", Roles(OVERSIGHT)),
    (
        "GET",
        "/api/v1/games/{number}/invalidation",
        Roles(SUPERVISOR),
    ),
    // A device posts balls; a supervisor draws by hand at the console (rule 10).
    ("POST", "/api/v1/games/{number}/balls", Roles(DRAWING)),
    ("POST", "/api/v1/games/{number}/faults", Roles(DRAWING)),
    (
        "POST",
        "/api/v1/games/{number}/invalidate",
        Roles(SUPERVISOR),
    ),
    (
        "POST",
        "/api/v1/games/{number}/corrections",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    (
        "POST",
        "/api/v1/corrections/{id}/approve",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    (
        "POST",
        "/api/v1/corrections/{id}/reject",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    (
        "GET",
        "/api/v1/games/{number}/draw-record",
        Roles(OVERSIGHT),
    ),
    ("GET", "/api/v1/draw-monitoring", Roles(OVERSIGHT)),
    ("GET", "/api/v1/devices", Roles(OVERSIGHT)),
    // A device reads its own state (the row's {id} is the device's).
    (
        "GET",
        "/api/v1/devices/{id}",
        Roles(&["supervisor", "inspector", "auditor", "device"]),
    ),
    (
        "POST",
        "/api/v1/devices/{id}/return",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    // Tickets (shared/API.md, "Tickets").
    ("POST", "/api/v1/tickets", Roles(WRITER)),
    ("GET", "/api/v1/tickets", Roles(CASE_READERS)),
    ("POST", "/api/v1/tickets/quote", Roles(WRITER)),
    ("GET", "/api/v1/tickets/{serial}", Roles(CASE_READERS)),
    ("GET", "/api/v1/tickets/{serial}/check", Public),
    ("GET", "/api/v1/tickets/{serial}/story", Roles(OVERSIGHT)),
    ("POST", "/api/v1/tickets/{serial}/cancel", Roles(WRITER)),
    ("POST", "/api/v1/tickets/{serial}/pay", Roles(WRITER)),
    // Vouchers.
    ("POST", "/api/v1/vouchers", Roles(WRITER)),
    (
        "GET",
        "/api/v1/vouchers/{code}",
        Roles(&["writer", "supervisor", "auditor"]),
    ),
    ("POST", "/api/v1/vouchers/{code}/cash", Roles(WRITER)),
    // Jackpots, schedules, bonus prizes, set bets, Special 3.
    ("GET", "/api/v1/jackpots", Public),
    ("GET", "/api/v1/schedules", Public),
    ("GET", "/api/v1/bonus-prizes", Public),
    ("POST", "/api/v1/bonus-prizes", Roles(SUPERVISOR)),
    (
        "POST",
        "/api/v1/bonus-prizes/{id}/approve",
        Roles(INSPECTOR),
    ),
    (
        "POST",
        "/api/v1/bonus-prizes/{id}/withdraw",
        Roles(SUPERVISOR),
    ),
    ("GET", "/api/v1/set-bets", Public),
    ("GET", "/api/v1/set-bets/{id}", Public),
    ("POST", "/api/v1/set-bets", Roles(SUPERVISOR)),
    ("POST", "/api/v1/set-bets/{id}/retire", Roles(SUPERVISOR)),
    ("GET", "/api/v1/special3/approvals", Roles(OVERSIGHT)),
    ("POST", "/api/v1/special3/approvals", Roles(INSPECTOR)),
    (
        "POST",
        "/api/v1/special3/approvals/{id}/withdraw",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    // Early closure of Keno (rule 16.2).
    ("POST", "/api/v1/keno/closures", Roles(SUPERVISOR)),
    ("GET", "/api/v1/keno/closure", Public),
    // Issue 33: whether the system is suspended is for all to see; two keys resume it.
    ("GET", "/api/v1/suspension", Public),
    ("GET", "/api/v1/integrity", Roles(AUDIT)),
    ("GET", "/api/v1/incidents", Roles(OVERSIGHT)),
    (
        "POST",
        "/api/v1/suspension/{id}/resume",
        Roles(SUPERVISOR_INSPECTOR),
    ),
    (
        "POST",
        "/api/v1/keno/closures/{id}/withdraw",
        Roles(SUPERVISOR),
    ),
    // Claims and unclaimed prizes.
    ("POST", "/api/v1/claims", Roles(&["writer", "supervisor"])),
    ("GET", "/api/v1/claims", Roles(OVERSIGHT)),
    ("GET", "/api/v1/claims/{id}", Roles(CASE_READERS)),
    ("GET", "/api/v1/claims/{id}/form.pdf", Roles(CASE_READERS)),
    ("POST", "/api/v1/claims/{id}/approve", Roles(INSPECTOR)),
    ("POST", "/api/v1/claims/{id}/reject", Roles(INSPECTOR)),
    ("POST", "/api/v1/claims/{id}/pay", Roles(SUPERVISOR)),
    ("GET", "/api/v1/unclaimed/movements", Roles(OVERSIGHT)),
    ("GET", "/api/v1/bonus-fund", Roles(OVERSIGHT)),
    ("POST", "/api/v1/tickets/{serial}/void", Roles(SUPERVISOR)),
    ("POST", "/api/v1/unclaimed/movements", Roles(SUPERVISOR)),
    // Running the room: sign-on (the body read first: `{}` is refused as malformed by all),
    // people, terminals, a supervisor's approval at a writer's counter.
    ("POST", "/api/v1/sessions", Public),
    ("GET", "/api/v1/sessions/current", Roles(ALL)),
    ("GET", "/api/v1/staff", Roles(STAFF_MANAGERS)),
    ("POST", "/api/v1/staff", Roles(STAFF_MANAGERS)),
    ("POST", "/api/v1/staff/{id}/disable", Roles(STAFF_MANAGERS)),
    ("POST", "/api/v1/staff/{id}/enable", Roles(STAFF_MANAGERS)),
    ("POST", "/api/v1/staff/{id}/reset", Roles(STAFF_MANAGERS)),
    ("GET", "/api/v1/terminals", Roles(SUPERVISOR)),
    ("POST", "/api/v1/terminals", Roles(SUPERVISOR)),
    (
        "POST",
        "/api/v1/terminals/{site}/{terminal}/rotate",
        Roles(SUPERVISOR),
    ),
    ("POST", "/api/v1/overrides", Roles(WRITER)),
    // Registered displays (issue 31), as terminals.
    ("GET", "/api/v1/displays", Roles(SUPERVISOR)),
    ("POST", "/api/v1/displays", Roles(SUPERVISOR)),
    (
        "POST",
        "/api/v1/displays/{site}/{display}/rotate",
        Roles(SUPERVISOR),
    ),
    (
        "POST",
        "/api/v1/displays/{site}/{display}/disable",
        Roles(SUPERVISOR),
    ),
    // Shifts and banks: a writer's own drawer; a supervisor signs off over/short; the
    // oversight reads every shift, a writer their own (refused another's by the handler).
    ("POST", "/api/v1/shifts", Roles(WRITER)),
    ("GET", "/api/v1/shifts/current", Roles(WRITER)),
    ("POST", "/api/v1/shifts/current/close", Roles(WRITER)),
    ("POST", "/api/v1/shifts/{id}/sign-off", Roles(SUPERVISOR)),
    ("GET", "/api/v1/shifts", Roles(OVERSIGHT)),
    ("GET", "/api/v1/shifts/{id}", Roles(CASE_READERS)),
    ("GET", "/api/v1/shifts/{id}/report", Roles(CASE_READERS)),
    ("GET", "/api/v1/shifts/{id}/report.pdf", Roles(CASE_READERS)),
    // The auditors' tools over HTTP (issue 18).
    ("GET", "/api/v1/audit/verify", Roles(AUDIT)),
    ("GET", "/api/v1/audit/exceptions", Roles(OVERSIGHT)),
    ("GET", "/api/v1/audit/report.pdf", Roles(OVERSIGHT)),
    ("GET", "/api/v1/audit/exports", Roles(AUDIT)),
    ("GET", "/api/v1/audit/exports/{kind}", Roles(AUDIT)),
    // Whoever holds a token.
    ("GET", "/api/v1/principals/me", Roles(ALL)),
    // Last: it signs each caller off.
    ("POST", "/api/v1/sessions/current/end", Roles(ALL)),
];

/// What a writer does only to tickets of the writer's own site (INTERPRETATION.md, "Where a
/// ticket may be handled"): a writer of another site is refused `other_site`.
const SITE_BOUND: &[(&str, &str)] = &[
    ("GET", "/api/v1/tickets/{serial}"),
    ("POST", "/api/v1/tickets/{serial}/cancel"),
    ("POST", "/api/v1/tickets/{serial}/pay"),
];

/// Served but not API operations (the document itself, the display pages): public.
const NOT_IN_THE_DOCUMENT: &[&str] = &[
    "/api/v1/openapi.json",
    "/",
    "/display",
    "/check",
    "/display/board.js",
    "/display/check.js",
    "/display/display.css",
    // The console's page and assets are public: everything they show comes from the API.
    "/console",
    "/console/console.js",
    "/console/console.css",
    "/console/room.js",
    "/console/office.js",
    "/console/records.js",
];

fn openapi_operations() -> Vec<(String, String, bool)> {
    // As openapi.rs: the manifest dir cargo gives at run time, so a binary built in another
    // checkout reads this one's file.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let text = std::fs::read_to_string(dir.join("../schemas/openapi.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            // `{}` among the alternatives: no credential needed (sign-on takes a terminal's,
            // optionally).
            let secured = op["security"].as_array().is_some_and(|s| {
                !s.is_empty()
                    && !s
                        .iter()
                        .any(|alt| alt.as_object().is_some_and(|o| o.is_empty()))
            });
            ops.push((method.to_uppercase(), path.clone(), secured));
        }
    }
    ops
}

#[test]
fn the_table_names_every_endpoint_of_the_document_once() {
    let ops = openapi_operations();
    let documented: BTreeSet<(String, String)> =
        ops.iter().map(|(m, p, _)| (m.clone(), p.clone())).collect();
    let rows: Vec<(String, String)> = TABLE
        .iter()
        .map(|(m, p, _)| (m.to_string(), p.to_string()))
        .collect();
    let tabled: BTreeSet<(String, String)> = rows.iter().cloned().collect();
    assert_eq!(rows.len(), tabled.len(), "a row is repeated");
    let missing: Vec<_> = documented.difference(&tabled).collect();
    assert!(
        missing.is_empty(),
        "endpoints without a row in roles.rs (say who may call them): {missing:?}"
    );
    let stale: Vec<_> = tabled.difference(&documented).collect();
    assert!(
        stale.is_empty(),
        "rows for endpoints not in the document: {stale:?}"
    );
    // The document says which endpoints need a token; the table agrees.
    for (method, path, secured) in &ops {
        let (_, _, who) = TABLE
            .iter()
            .find(|(m, p, _)| m == method && p == path)
            .unwrap();
        assert_eq!(
            *secured,
            *who != Public,
            "{method} {path}: the document and the table disagree on whether it is public"
        );
    }
}

/// A caller: a role's token, no token, or a token that matches no principal.
struct Caller {
    name: &'static str,
    token: Option<String>,
}

/// Every person signed on (a writer at site 735624, another at site 111111, a supervisor, an
/// inspector, an auditor), the device with its own credential, no token and a bad one.
fn callers(db: &TestDb, server: &keno_testkit::Server) -> Vec<Caller> {
    let here = db.terminal("735624", "03");
    let there = db.terminal("111111", "01");
    let mut callers = vec![
        Caller {
            name: "writer",
            token: Some(server.session(Some(&here), &db.staff("writer", "JULIE"))),
        },
        Caller {
            name: "writer of another site",
            token: Some(server.session(Some(&there), &db.staff("writer", "OMAR"))),
        },
    ];
    for role in ["supervisor", "inspector", "auditor", "administrator"] {
        let person = db.staff(role, &role.to_uppercase());
        callers.push(Caller {
            name: role,
            token: Some(server.session(None, &person)),
        });
    }
    callers.push(Caller {
        name: "device",
        token: Some(db.principal("device", "DEVICE", None)),
    });
    callers.push(Caller {
        name: "no token",
        token: None,
    });
    callers.push(Caller {
        name: "bad token",
        token: Some(keno_testkit::random_hex(32)),
    });
    callers
}

fn every_endpoint_admits_its_roles_and_refuses_the_rest(db: TestDb) {
    // Every protected row is also called with a bad token: more than the default burst of
    // failures from one address.
    let server = keno_testkit::Server::start(
        &db,
        &[MANUAL_CLOCK, &["--auth-failure-burst", "1000"]].concat(),
    );
    let callers = callers(&db, &server);
    // A ticket sold at site 735624: the ticket paths name it, so a writer of another site is
    // refused for the site, not for a ticket that does not exist.
    let writer = callers[0].token.as_deref().unwrap();
    let body = keno_testkit::sale(
        "roles",
        json!({"type": "standard", "spots": [1]}),
        "standard",
        100,
        1,
    );
    let serial = server.sell(writer, body)["serial"]
        .as_str()
        .unwrap()
        .to_string();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let device = callers.iter().find(|c| c.name == "device").unwrap();
    let device_id = call(&agent, &server.base, "GET", "/api/v1/principals/me", device).1["id"]
        .as_str()
        .unwrap()
        .to_string();

    let mut wrong = Vec::new();
    let mut calls = 0;
    for (method, pattern, who) in TABLE {
        let path = pattern
            .replace("{number}", "1")
            .replace(
                "{id}",
                if pattern.starts_with("/api/v1/devices/") {
                    &device_id
                } else if pattern.starts_with("/api/v1/shifts/") {
                    // No one's shift: the writers' shifts are open, and another writer's is
                    // refused by its handler, not by the role.
                    "999999"
                } else {
                    "1"
                },
            )
            .replace("{serial}", &serial)
            .replace("{site}", "735624")
            .replace("{terminal}", "03")
            .replace("{kind}", "games")
            .replace("{code}", &"0".repeat(22));
        for caller in &callers {
            calls += 1;
            let (status, body) = call(&agent, &server.base, method, &path, caller);
            let site_bound = SITE_BOUND.contains(&(*method, *pattern));
            let expected = match (who, caller.name) {
                (Public, _) => None,
                (Roles(_), "no token" | "bad token") => Some((401, "unauthorized")),
                (Roles(roles), "writer of another site") if roles.contains(&"writer") => {
                    site_bound.then_some((403, "other_site"))
                }
                (Roles(roles), role) if roles.contains(&role) => None,
                (Roles(_), _) => Some((403, "forbidden")),
            };
            let ok = match expected {
                None => status != 401 && status != 403 && status < 500,
                Some((code, error)) => status == code && body["error"] == error,
            };
            if !ok {
                wrong.push(format!(
                    "{method} {pattern} as {}: {status} {body} (expected {})",
                    caller.name,
                    expected.map_or("neither 401 nor 403".to_string(), |(c, e)| format!(
                        "{c} {e}"
                    ))
                ));
            }
        }
    }
    for path in NOT_IN_THE_DOCUMENT {
        for caller in &callers {
            calls += 1;
            let (status, _) = call(&agent, &server.base, "GET", path, caller);
            if status != 200 {
                wrong.push(format!("GET {path} as {}: {status}", caller.name));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {calls} calls answered wrongly:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(calls, (TABLE.len() + NOT_IN_THE_DOCUMENT.len()) * 9);
}

/// One minimal request; the status and the body as JSON (or text). The event stream's body,
/// which never ends, is not read.
fn call(
    agent: &ureq::Agent,
    base: &str,
    method: &str,
    path: &str,
    caller: &Caller,
) -> (u16, Value) {
    let url = format!("{base}{path}");
    let auth = caller.token.as_ref().map(|t| format!("Bearer {t}"));
    let response = match method {
        "GET" => {
            let mut r = agent.get(&url);
            if let Some(auth) = &auth {
                r = r.header("Authorization", auth);
            }
            r.call()
        }
        "POST" => {
            let mut r = agent.post(&url);
            if let Some(auth) = &auth {
                r = r.header("Authorization", auth);
            }
            r.send_json(json!({}))
        }
        other => panic!("no such method in the table: {other}"),
    };
    let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status().as_u16();
    let streaming = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if streaming {
        return (status, Value::Null);
    }
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}
