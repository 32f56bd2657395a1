//! The auditors' tools over HTTP (issue 18) against a real day of play, on SQLite and
//! PostgreSQL: a real server sells, cancels, draws, settles and pays; then `/api/v1/audit/...`
//! must answer what `keno-server audit ...` answers on the same database (the same exceptions,
//! byte for byte the same export files, the same differences once a row is changed behind the
//! server's back), with the server's own Keno Day start, to the roles that may ask.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use keno_testkit::{on_both_backends, sale, world, Server, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(the_endpoints_answer_what_the_command_line_does);

/// `keno-server audit ARGS` on the test's database; the tools that count Keno Days are told
/// the server's start (`MANUAL_CLOCK`: midnight) unless `args` gives another.
fn audit(db: &TestDb, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keno-server"));
    command
        .arg("audit")
        .args(args)
        .args(["--database-url", &db.url]);
    if args[0] != "verify" && !args.contains(&"--keno-day-start") {
        command.args(["--keno-day-start", "00:00"]);
    }
    command.env("KENO_LOG", "warn").output().unwrap()
}

/// A GET with a bearer token, answered whole: status, content type, content disposition, body.
fn download(server: &Server, token: &str, path: &str) -> (u16, String, String, Vec<u8>) {
    let auth = format!("Bearer {token}");
    let mut resp = server.get_with(path, &[("Authorization", &auth)]);
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (content_type, disposition) = (header("content-type"), header("content-disposition"));
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_to_vec().unwrap();
    (status, content_type, disposition, body)
}

/// A day of play: forty 1-spot tickets on 1..=40 (a draw misses them all about once in 25
/// million, so there is a prize to pay), a three-game ticket, one cancelled; the game closed,
/// settled and a winner paid. The settled game, the three-game ticket and the cancelled one.
fn play(w: &World) -> (Value, String, String) {
    let singles: Vec<String> = (1..=40)
        .map(|n| {
            let body = sale(
                &format!("t{n}"),
                json!({"type": "standard", "spots": [n]}),
                "standard",
                100,
                1,
            );
            w.server.sell(&w.writer, body)["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let body = sale(
        "multi",
        json!({"type": "quick_pick", "count": 5}),
        "standard",
        100,
        3,
    );
    let multi = w.server.sell(&w.writer, body)["serial"]
        .as_str()
        .unwrap()
        .to_string();
    let body = sale(
        "cancel-me",
        json!({"type": "quick_pick", "count": 4}),
        "standard",
        200,
        1,
    );
    let cancelled = w.server.sell(&w.writer, body)["serial"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, e) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{cancelled}/cancel"),
        Value::Null,
    );
    assert_eq!(status, 200, "{e}");
    let game = w.server.close_and_settle(&w.supervisor);
    let winner = singles
        .iter()
        .find(|s| {
            w.server
                .get_as(&w.writer, &format!("/api/v1/tickets/{s}"))
                .1["payable_cents"]
                .as_i64()
                > Some(0)
        })
        .expect("a winning 1-spot ticket");
    let (status, paid) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(status, 200, "{paid}");
    (game, multi, cancelled)
}

fn the_endpoints_answer_what_the_command_line_does(db: TestDb) {
    let auditor = db.staff("auditor", "AUDREY");
    let inspector = db.staff("inspector", "IAN");
    let supervisor = db.staff("supervisor", "SUE");
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let auditor = s.session(None, &auditor);
    let inspector = s.session(None, &inspector);
    let supervisor = s.session(None, &supervisor);
    let (game, multi, cancelled) = play(&w);
    let day = game["keno_day"].as_str().unwrap().to_string();

    // The record as sold verifies, over HTTP as at the command line.
    let (status, verified) = s.get_as(&auditor, "/api/v1/audit/verify");
    assert_eq!(status, 200, "{verified}");
    assert_eq!(verified["verified"], true, "{verified}");
    assert_eq!(verified["differences"], json!([]), "{verified}");
    let checked = verified["checked"].as_array().unwrap();
    assert!(
        checked.contains(&json!("1 settled games, each settled again")),
        "{verified}"
    );
    assert!(
        chrono::DateTime::parse_from_rfc3339(verified["checked_at"].as_str().unwrap()).is_ok(),
        "{verified}"
    );
    assert!(audit(&db, &["verify"]).status.success());

    exceptions_as_the_command_prints_them(&db, s, &supervisor, &day, &cancelled);
    report_as_a_pdf(s, &auditor, &game, &day);
    exports_byte_for_byte(&db, s, &inspector, &day, game["number"].as_i64().unwrap());
    refused(s, &w.writer, &supervisor, &auditor);

    // A wager raised behind the server's back: both find the same differences.
    let edit = format!("UPDATE tickets SET amount_per_way_cents = 500 WHERE serial = '{multi}'");
    assert_eq!(db.execute(&edit), 1);
    let (status, found) = s.get_as(&inspector, "/api/v1/audit/verify");
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["verified"], false, "{found}");
    let differences: Vec<String> = found["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    assert!(
        differences
            .iter()
            .any(|d| d.contains(&format!("ticket {multi} differs from the ticket sold"))),
        "{found}"
    );
    let out = audit(&db, &["verify"]);
    assert_eq!(out.status.code(), Some(1));
    let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("DIFFERENCE: "))
        .map(str::to_string)
        .collect();
    assert_eq!(printed, differences);
    db.execute(&format!(
        "UPDATE tickets SET amount_per_way_cents = 100 WHERE serial = '{multi}'"
    ));
    assert_eq!(
        s.get_as(&auditor, "/api/v1/audit/verify").1["verified"],
        true
    );
}

/// The day's exceptions over HTTP are the command's `--json`, counted from the server's own
/// Keno Day start (midnight here, not the command's default of 10:00).
fn exceptions_as_the_command_prints_them(
    db: &TestDb,
    s: &Server,
    supervisor: &str,
    day: &str,
    cancelled: &str,
) {
    let (status, over_http) = s.get_as(supervisor, &format!("/api/v1/audit/exceptions?day={day}"));
    assert_eq!(status, 200, "{over_http}");
    let out = audit(db, &["exceptions", "--day", day, "--json"]);
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(over_http, printed);
    let list = over_http["exceptions"].as_array().unwrap();
    assert!(
        list.iter()
            .any(|e| e["kind"] == "cancellation" && e["serial"] == cancelled),
        "{over_http}"
    );
    assert!(list.iter().any(|e| e["kind"] == "staff"), "{over_http}");
    let at_ten = audit(
        db,
        &[
            "exceptions",
            "--day",
            day,
            "--json",
            "--keno-day-start",
            "10:00",
        ],
    );
    let at_ten: Value = serde_json::from_slice(&at_ten.stdout).unwrap();
    assert_ne!(over_http["from"], at_ten["from"]);
}

/// The daily report is a real PDF of the day: its games and the numbers drawn.
fn report_as_a_pdf(s: &Server, auditor: &str, game: &Value, day: &str) {
    let (status, content_type, disposition, pdf) =
        download(s, auditor, &format!("/api/v1/audit/report.pdf?day={day}"));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&pdf));
    assert_eq!(content_type, "application/pdf");
    assert_eq!(
        disposition,
        format!("attachment; filename=\"keno-report-{day}.pdf\"")
    );
    assert!(pdf.starts_with(b"%PDF"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = pdf_text(&path);
    assert!(text.contains(&format!("KENO DAY {day}")), "{text}");
    let number = game["number"].as_i64().unwrap();
    let open = s.get("/api/v1/games/current").1["number"].as_i64().unwrap();
    assert!(
        text.contains(&format!("Games: 2, numbers {number} to {open}.")),
        "{text}"
    );
    let drawn: Vec<String> = game["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| format!("{:02}", n.as_i64().unwrap()))
        .collect();
    assert!(text.contains(&drawn.join(" ")), "{text}");
}

fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .arg("-layout")
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs (apt-get install poppler-utils)");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every kind of export, as CSV by Keno Day and as JSON by game, is the command's file byte
/// for byte.
fn exports_byte_for_byte(db: &TestDb, s: &Server, inspector: &str, day: &str, game: i64) {
    let (status, kinds) = s.get_as(inspector, "/api/v1/audit/exports");
    assert_eq!(status, 200, "{kinds}");
    assert_eq!(
        kinds,
        json!([
            "games",
            "tickets",
            "settlements",
            "payments",
            "results",
            "bonus_fund",
            "shifts"
        ])
    );
    let dir = tempfile::tempdir().unwrap();
    let (by_day, by_game) = (dir.path().join("day"), dir.path().join("game"));
    let out = audit(
        db,
        &[
            "export",
            "--from-day",
            day,
            "--out",
            by_day.to_str().unwrap(),
        ],
    );
    assert!(out.status.success());
    let game_text = game.to_string();
    let out = audit(
        db,
        &[
            "export",
            "--from-game",
            &game_text,
            "--format",
            "json",
            "--out",
            by_game.to_str().unwrap(),
        ],
    );
    assert!(out.status.success());
    for kind in kinds.as_array().unwrap() {
        let kind = kind.as_str().unwrap();
        let path = format!("/api/v1/audit/exports/{kind}?from={day}&to={day}");
        let (status, content_type, disposition, csv) = download(s, inspector, &path);
        assert_eq!(status, 200, "{kind}: {}", String::from_utf8_lossy(&csv));
        assert_eq!(content_type, "text/csv; charset=utf-8");
        assert_eq!(
            disposition,
            format!("attachment; filename=\"keno-{kind}-{day}.csv\"")
        );
        let file = std::fs::read(by_day.join(format!("{kind}.csv"))).unwrap();
        assert_eq!(csv, file, "{kind}.csv");
        let path = format!("/api/v1/audit/exports/{kind}?from_game={game}&format=json");
        let (status, content_type, disposition, body) = download(s, inspector, &path);
        assert_eq!(status, 200, "{kind}: {}", String::from_utf8_lossy(&body));
        assert_eq!(content_type, "application/json");
        assert_eq!(
            disposition,
            format!("attachment; filename=\"keno-{kind}-games-{game}-{game}.json\"")
        );
        let file = std::fs::read(by_game.join(format!("{kind}.json"))).unwrap();
        assert_eq!(body, file, "{kind}.json");
    }
    // Not an empty agreement: the day's tickets are all there.
    let tickets = std::fs::read_to_string(by_day.join("tickets.csv")).unwrap();
    assert_eq!(tickets.lines().count(), 1 + 42, "{tickets}");
}

/// A writer is refused every tool; a supervisor the auditors' own; a bad request changes
/// nothing and says why.
fn refused(s: &Server, writer: &str, supervisor: &str, auditor: &str) {
    for path in [
        "/api/v1/audit/verify",
        "/api/v1/audit/exceptions?day=2026-01-01",
        "/api/v1/audit/report.pdf?day=2026-01-01",
        "/api/v1/audit/exports",
        "/api/v1/audit/exports/games?from=2026-01-01",
    ] {
        let (status, body) = s.get_as(writer, path);
        assert_eq!(
            (status, &body["error"]),
            (403, &json!("forbidden")),
            "{path}"
        );
    }
    let (status, body) = s.get_as(supervisor, "/api/v1/audit/verify");
    assert_eq!((status, &body["error"]), (403, &json!("forbidden")));
    for (path, code) in [
        (
            "/api/v1/audit/exceptions?day=2026-02-30",
            "invalid_keno_day",
        ),
        ("/api/v1/audit/exceptions", "invalid_keno_day"),
        ("/api/v1/audit/report.pdf?day=yesterday", "invalid_keno_day"),
        ("/api/v1/audit/report.pdf", "invalid_keno_day"),
        (
            "/api/v1/audit/exports/games?from=22/11/2026",
            "invalid_keno_day",
        ),
        ("/api/v1/audit/exports/games", "invalid_range"),
        (
            "/api/v1/audit/exports/games?from=2026-01-02&to=2026-01-01",
            "invalid_range",
        ),
        (
            "/api/v1/audit/exports/games?from=2026-01-01&from_game=3",
            "invalid_range",
        ),
        (
            "/api/v1/audit/exports/games?from=2026-01-01&format=xml",
            "invalid_request",
        ),
    ] {
        let (status, body) = s.get_as(auditor, path);
        assert_eq!(
            (status, &body["error"]),
            (400, &json!(code)),
            "{path}: {body}"
        );
        assert!(!body["message"].as_str().unwrap().is_empty(), "{body}");
    }
    let (status, body) = s.get_as(auditor, "/api/v1/audit/exports/bonus-fund?from=2026-01-01");
    assert_eq!(
        (status, &body["error"]),
        (404, &json!("not_found")),
        "{body}"
    );
    assert!(
        body["message"].as_str().unwrap().contains("bonus_fund"),
        "{body}"
    );
}

/// One verification at a time: a second asked while the first runs is refused
/// `verify_running`, and the next after it has finished runs. (The gate is the server's, not
/// the database's: SQLite alone.)
#[test]
fn a_second_verification_waits_for_the_first() {
    let db = TestDb::new(keno_testkit::Backend::Sqlite).unwrap();
    let auditor = db.staff("auditor", "AUDREY");
    let server = Server::start_with(
        &db,
        "127.0.0.1:0",
        MANUAL_CLOCK,
        &[("KENO_FAULT_DELAYS", "audit_verify=3000")],
    );
    let token = server.session(None, &auditor);
    let url = format!("{}/api/v1/audit/verify", server.base);
    let first = {
        let (url, token) = (url.clone(), token.clone());
        std::thread::spawn(move || {
            let mut resp = keno_testkit::agent(Some(Duration::from_secs(30)))
                .get(url)
                .header("Authorization", format!("Bearer {token}"))
                .call()
                .unwrap();
            let status = resp.status().as_u16();
            let body: Value =
                serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap();
            (status, body)
        })
    };
    // The first is held for three seconds once it has verified; ask while it is.
    std::thread::sleep(Duration::from_millis(1000));
    let (status, body) = server.get_as(&token, "/api/v1/audit/verify");
    assert_eq!(
        (status, &body["error"]),
        (409, &json!("verify_running")),
        "{body}"
    );
    assert!(body["message"]
        .as_str()
        .unwrap()
        .contains("already running"));
    let (status, body) = first.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verified"], true, "{body}");
    let (status, body) = server.get_as(&token, "/api/v1/audit/verify");
    assert_eq!(status, 200, "{body}");
}
