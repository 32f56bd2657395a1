//! Writers' shifts and their banks (issue 17) over real HTTP against a real server, on SQLite
//! and PostgreSQL: a shift opened with a float and balanced to the cent across sales (one paid
//! partly by a voucher, one by a winning ticket whose change is a voucher), a cancellation's
//! refund, prizes paid in cash (whole, and the cash part of a payment in parts, rule 12.2), a
//! prize paid as a voucher, a voucher deposit and voucher cash-outs; the report as JSON and
//! PDF; a short drawer waiting for a supervisor's sign-off; one shift per writer and terminal;
//! and the auditors' tools: the trail verified (and a changed expected cash found), the
//! exceptions, the daily report and the export.

use keno_testkit::{audit, on_both_backends, pdf_text, sale, Server, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_shift_balances_to_the_cent_across_every_movement,
    a_short_drawer_waits_for_a_supervisor_and_one_shift_is_open_per_writer_and_terminal,
);

/// The server of these tests: games closed by hand, a drawer may be $1.00 out without a
/// supervisor; JULIE opens her shifts herself.
fn shifts_world(db: &TestDb) -> World {
    let writer = db.principal_without_shift("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let server = Server::start(
        db,
        &[MANUAL_CLOCK, &["--over-short-tolerance", "100"]].concat(),
    );
    World {
        server,
        writer,
        supervisor,
    }
}

fn post(s: &Server, token: &str, path: &str, body: Value, status: u16) -> Value {
    let (got, v) = s.post(token, path, body);
    assert_eq!(got, status, "POST {path}: {v}");
    v
}

fn get(s: &Server, token: &str, path: &str, status: u16) -> Value {
    let (got, v) = s.get_as(token, path);
    assert_eq!(got, status, "GET {path}: {v}");
    v
}

/// A 1-spot ticket on `number` of `dollars` a game for `games` games, paid with `tender` (cash
/// when null).
fn sell(w: &World, id: &str, number: u8, dollars: u64, games: u32, tender: Value) -> Value {
    sell_as(w, &w.writer, id, (number, dollars, games), tender)
}

/// As [`sell`], by `writer`.
fn sell_as(
    w: &World,
    writer: &str,
    id: &str,
    (number, dollars, games): (u8, u64, u32),
    tender: Value,
) -> Value {
    let mut body = sale(
        id,
        json!({"type": "standard", "spots": [number]}),
        "standard",
        dollars * 100,
        games,
    );
    if !tender.is_null() {
        body["tender"] = tender;
    }
    w.server.sell(writer, body)
}

/// One 1-spot ticket on each number, sold by `writer`: 20 of them win in every game.
fn cover_the_board(w: &World, writer: &str, tag: &str, dollars: u64, games: u32) -> Vec<String> {
    (1..=80)
        .map(|n| {
            let t = sell_as(
                w,
                writer,
                &format!("{tag}-{n}"),
                (n, dollars, games),
                Value::Null,
            );
            t["serial"].as_str().unwrap().to_string()
        })
        .collect()
}

fn pdf(s: &Server, token: &str, path: &str) -> String {
    let bytes = ureq::get(format!("{}{path}", s.base))
        .header("Authorization", format!("Bearer {token}"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    assert!(bytes.starts_with(b"%PDF"), "{path}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.pdf");
    std::fs::write(&file, &bytes).unwrap();
    pdf_text(&file)
}

fn cash(shift: &Value) -> [i64; 6] {
    let c = &shift["cash"];
    [
        "sales_cash_cents",
        "voucher_deposits_cents",
        "tender_change_cents",
        "refunds_cents",
        "prizes_cash_cents",
        "voucher_cash_outs_cents",
    ]
    .map(|k| c[k].as_i64().unwrap())
}

fn verify(db: &TestDb) -> (bool, String) {
    let out = audit(db, &["verify"]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Before the shift, sold by another writer of the site at their own terminal and shift: 20
/// winning tickets of $3 (minor prizes) in game A; 20 of $210 (a major prize, rule 12.2) in
/// game B, each also refunded $70 for game B+1, invalidated (rule 17.3), so that paying one
/// pays the refund in cash and the major prize by cheque.
fn prizes_to_pay(w: &World, seller: &str) -> (Vec<String>, Vec<String>) {
    let s = &w.server;
    let minor = cover_the_board(w, seller, "minor", 1, 1);
    let a = s.close_and_settle(&w.supervisor);
    let major = cover_the_board(w, seller, "major", 70, 2);
    let b = s.close_and_settle(&w.supervisor);
    let next = b["number"].as_i64().unwrap() + 1;
    let reason = json!({"reason": "a fault in the draw equipment"});
    post(
        s,
        &w.supervisor,
        &format!("/api/v1/games/{next}/invalidate"),
        reason,
        200,
    );
    (
        keno_testkit::drawn_serials(&minor, &a),
        keno_testkit::drawn_serials(&major, &b),
    )
}

fn a_shift_balances_to_the_cent_across_every_movement(db: TestDb) {
    let seller = db.principal("writer", "SELLER", Some(("735624", "09")));
    let w = shifts_world(&db);
    let (minor, major) = prizes_to_pay(&w, &seller);
    let id = opened(&w);
    let (deposit, change) = vouchers_and_tenders(&w, &minor[0]);
    post(
        &w.server,
        &w.writer,
        &format!("/api/v1/vouchers/{change}/cash"),
        Value::Null,
        200,
    );
    prizes(&w, &minor[1..3], &major[..2]);
    cancel_sell_and_cash_out(&w, &deposit);

    // Expected: the float, plus $14.00 of sales in cash and $20.00 deposited, less $4.00
    // refunded, $353.00 of prizes in cash and $20.00 of vouchers cashed out.
    let expected = 50_000 + (1400 + 2000) - (400 + 300 + 7000 + 28_000 + 200 + 1800);
    assert_eq!(expected, 15_700);
    let s = &w.server;
    let now = get(s, &w.writer, "/api/v1/shifts/current", 200);
    assert_eq!(cash(&now), [1400, 2000, 0, 400, 35_300, 2000]);
    assert_eq!(now["expected_cents"], expected);

    // Counted to the cent: closed, over/short 0, no sign-off needed.
    let close = |counted: i64, status| {
        let body = json!({ "counted_cents": counted });
        post(s, &w.writer, "/api/v1/shifts/current/close", body, status)
    };
    assert_eq!(close(-1, 400)["error"], "invalid_amount");
    let closed = close(expected, 200);
    assert_eq!(
        (
            closed["state"].as_str(),
            closed["counted_cents"].as_i64(),
            closed["expected_cents"].as_i64(),
            closed["over_short_cents"].as_i64()
        ),
        (Some("closed"), Some(expected), Some(expected), Some(0))
    );
    assert_eq!(closed["cash"], now["cash"]);
    assert_eq!(close(0, 409)["error"], "no_shift");
    // After the close no cash moves at that counter (`--cash-needs-shift`): the closed shift
    // keeps its figures.
    let body = sale(
        "after",
        json!({"type": "standard", "spots": [9]}),
        "standard",
        200,
        1,
    );
    assert_eq!(
        post(s, &w.writer, "/api/v1/tickets", body, 409)["error"],
        "no_shift"
    );
    let again = get(s, &w.supervisor, &format!("/api/v1/shifts/{id}"), 200);
    assert_eq!(again, closed);

    report_matches(&w, id, &closed);
    the_trail_holds_the_shift(&db, id);
}

/// JULIE's shift opened with a $500.00 float: its id.
fn opened(w: &World) -> i64 {
    let s = &w.server;
    let day = s.get("/api/v1/games/current").1["keno_day"].clone();
    let e = get(s, &w.writer, "/api/v1/shifts/current", 409);
    assert_eq!(e["error"], "no_shift");
    let opened = post(
        s,
        &w.writer,
        "/api/v1/shifts",
        json!({"float_cents": 50_000}),
        201,
    );
    assert_eq!(
        (
            opened["state"].as_str(),
            opened["writer"].as_str(),
            opened["site"].as_str(),
            opened["terminal"].as_str(),
            &opened["keno_day"],
            opened["expected_cents"].as_i64(),
        ),
        (
            Some("open"),
            Some("JULIE"),
            Some("735624"),
            Some("03"),
            &day,
            Some(50_000)
        )
    );
    assert_eq!(cash(&opened), [0; 6]);
    opened["id"].as_i64().unwrap()
}

/// A $20.00 deposit (rule 1(n)(i)); a $5 sale, $2 of it by that voucher (rule 6.1); a $1 sale
/// paid by a $3 winning ticket, its $2 change a voucher: the deposit's code and the change's.
fn vouchers_and_tenders(w: &World, winner: &str) -> (String, String) {
    let s = &w.server;
    let body = json!({"request_id": "deposit", "amount_cents": 2000});
    let deposit = post(s, &w.writer, "/api/v1/vouchers", body, 201);
    let code = deposit["code"].as_str().unwrap().to_string();
    let tender = json!({"voucher": code, "amount_cents": 200});
    let t = sell(w, "part-voucher", 5, 5, 1, tender);
    assert_eq!(t["payment"]["cash_cents"], 300);
    let t = sell(w, "tendered", 6, 1, 1, json!({ "ticket": winner }));
    let paid = &t["payment"];
    assert_eq!(
        (paid["cash_cents"].as_i64(), paid["change_cents"].as_i64()),
        (Some(0), Some(200))
    );
    // The change takes no cash from the drawer until it is cashed.
    let mid = get(s, &w.writer, "/api/v1/shifts/current", 200);
    assert_eq!(cash(&mid), [300, 2000, 0, 0, 0, 0]);
    assert_eq!(mid["expected_cents"], 50_000 + 2300);
    let change = paid["change_voucher"].as_str().unwrap().to_string();
    (code, change)
}

/// $3 in cash; $3 as a voucher (no cash); a $210 major prize by cheque with its $70 refund in
/// cash (rule 12.2, in parts); another, its major prize in cash by choice.
fn prizes(w: &World, minor: &[String], major: &[String]) {
    let s = &w.server;
    // A major prize is a hand-pay (the claimant, the ID, the cheque's number); a minor one
    // needs none and ignores it.
    let pay = |serial: &str, query: &str| {
        let path = format!("/api/v1/tickets/{serial}/pay{query}");
        post(s, &w.writer, &path, keno_testkit::hand_pay(), 200)
    };
    assert_eq!(pay(&minor[0], "")["paid_cents"], 300);
    let body = json!({"request_id": "prize-voucher", "ticket": minor[1]});
    post(s, &w.writer, "/api/v1/vouchers", body, 201);
    assert_eq!(
        pay(&major[0], "")["parts"],
        json!([{"method": "cash", "cents": 7000}, {"method": "cheque", "cents": 21000}])
    );
    assert_eq!(pay(&major[1], "?major_prizes=cash")["paid_cents"], 28_000);
}

/// A $4 sale cancelled (rule 8): in, then refunded; a $7 sale; the deposit's $18 left cashed.
fn cancel_sell_and_cash_out(w: &World, deposit: &str) {
    let s = &w.server;
    let t = sell(w, "cancelled", 7, 4, 1, Value::Null);
    let path = format!("/api/v1/tickets/{}/cancel", t["serial"].as_str().unwrap());
    assert_eq!(
        post(s, &w.writer, &path, Value::Null, 200)["refund_cents"],
        400
    );
    sell(w, "kept", 8, 7, 1, Value::Null);
    let path = format!("/api/v1/vouchers/{deposit}/cash");
    assert_eq!(
        post(s, &w.writer, &path, Value::Null, 200)["paid_cents"],
        1800
    );
}

/// The report's sums are the shift's; the PDF shows them.
fn report_matches(w: &World, id: i64, shift: &Value) {
    let s = &w.server;
    let r = get(s, &w.writer, &format!("/api/v1/shifts/{id}/report"), 200);
    assert_eq!(r["shift"], *shift);
    assert_eq!(
        r["sales"],
        json!([{"kind": "standard", "count": 4, "cents": 1700}])
    );
    assert_eq!(r["sales_total"], json!({"count": 4, "cents": 1700}));
    assert_eq!(r["tendered_cents"], 300);
    assert_eq!(
        r["sales_total"]["cents"].as_i64().unwrap() - r["tendered_cents"].as_i64().unwrap(),
        shift["cash"]["sales_cash_cents"].as_i64().unwrap()
    );
    assert_eq!(r["cancellations"], json!({"count": 1, "cents": 400}));
    assert_eq!(
        r["payouts"],
        json!([
            {"method": "cash", "count": 2, "cents": 28_300, "cash_cents": 28_300},
            {"method": "cash_and_cheque", "count": 1, "cents": 28_000, "cash_cents": 7000},
            {"method": "tender", "count": 1, "cents": 300, "cash_cents": 0},
            {"method": "voucher", "count": 1, "cents": 300, "cash_cents": 0},
        ])
    );
    let paid_in_cash: i64 = r["payouts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["cash_cents"].as_i64().unwrap())
        .sum();
    assert_eq!(
        paid_in_cash,
        shift["cash"]["prizes_cash_cents"].as_i64().unwrap()
    );
    assert_eq!(
        r["vouchers_issued"],
        json!([
            {"kind": "change", "count": 1, "cents": 200},
            {"kind": "deposit", "count": 1, "cents": 2000},
            {"kind": "ticket", "count": 1, "cents": 300},
        ])
    );
    assert_eq!(r["vouchers_cashed"], json!({"count": 2, "cents": 2000}));

    let text = pdf(s, &w.supervisor, &format!("/api/v1/shifts/{id}/report.pdf"));
    for figure in [
        format!("KENO SHIFT REPORT - SHIFT {id}"),
        "Writer JULIE".to_string(),
        "$500.00".into(),
        "$14.00".into(),
        "$353.00".into(),
        "$157.00".into(),
        "cash_and_cheque".into(),
        "$70.00".into(),
    ] {
        assert!(text.contains(&figure), "{figure} not in:\n{text}");
    }
}

/// `audit verify` finds the shift on the trail and its drawer summed again; an expected cash
/// changed behind the server's back is found.
fn the_trail_holds_the_shift(db: &TestDb, id: i64) {
    let (ok, text) = verify(db);
    assert!(ok, "{text}");
    assert!(text.contains("checked: 2 shifts"), "{text}");
    db.execute(&format!(
        "UPDATE shifts SET expected_cents = expected_cents + 500, over_short_cents = -500 WHERE id = {id}"
    ));
    let (ok, text) = verify(db);
    assert!(!ok, "{text}");
    assert!(
        text.contains(&format!("the close of shift {id}"))
            && text.contains(&format!("shift {id}: the records of its drawer give 15700")),
        "{text}"
    );
}

fn a_short_drawer_waits_for_a_supervisor_and_one_shift_is_open_per_writer_and_terminal(db: TestDb) {
    let mark = db.principal_without_shift("writer", "MARK", Some(("735624", "04")));
    let anna = db.principal_without_shift("writer", "ANNA", Some(("735624", "03")));
    let paul = db.principal_without_shift("writer", "PAUL", Some(("735624", "05")));
    let auditor = db.principal("auditor", "AUDREY", None);
    let w = shifts_world(&db);
    let s = &w.server;
    let day = s.get("/api/v1/games/current").1["keno_day"]
        .as_str()
        .unwrap()
        .to_string();
    let julie = one_open_per_writer_and_terminal(&w, &anna);
    let mark_id = short_and_signed_off(&w, &mark);
    let open_path = format!("/api/v1/shifts/{julie}/sign-off");
    let e = post(
        s,
        &w.supervisor,
        &open_path,
        json!({"reason": "too soon"}),
        409,
    );
    assert_eq!(e["error"], "shift_not_awaiting_sign_off");

    // PAUL's drawer 50 cents over: within the tolerance, closed, but in the exceptions.
    post(
        s,
        &paul,
        "/api/v1/shifts",
        json!({"float_cents": 5000}),
        201,
    );
    let body = json!({"counted_cents": 5050});
    let over = post(s, &paul, "/api/v1/shifts/current/close", body, 200);
    assert_eq!(
        (over["state"].as_str(), over["over_short_cents"].as_i64()),
        (Some("closed"), Some(50))
    );

    // A writer reads their own shifts only; the oversight reads the day's.
    assert_eq!(
        get(s, &w.writer, &format!("/api/v1/shifts/{julie}"), 200)["id"],
        julie
    );
    let e = get(s, &mark, &format!("/api/v1/shifts/{julie}"), 403);
    assert_eq!(e["error"], "forbidden");
    assert_eq!(
        s.get_as(&mark, &format!("/api/v1/shifts/{julie}/report")).0,
        403
    );
    let e = get(s, &auditor, "/api/v1/shifts?keno_day=26-11-2026", 400);
    assert_eq!(e["error"], "invalid_keno_day");
    let list = get(s, &auditor, &format!("/api/v1/shifts?keno_day={day}"), 200);
    let states: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["writer"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [("JULIE", "open"), ("MARK", "closed"), ("PAUL", "closed")]
    );
    assert_eq!(get(s, &w.supervisor, "/api/v1/shifts", 200), list);

    exceptions_name_the_drawers(&db, &day, mark_id);
    the_daily_report_and_export_hold_the_drawers(&db, &day);
    let (ok, text) = verify(&db);
    assert!(ok, "{text}");
    assert!(text.contains("checked: 3 shifts"), "{text}");
}

/// Refusals before any shift; of two opens at once by JULIE, one; ANNA at JULIE's terminal is
/// refused. JULIE's shift's id.
fn one_open_per_writer_and_terminal(w: &World, anna: &str) -> i64 {
    let s = &w.server;
    let e = post(
        s,
        &w.writer,
        "/api/v1/shifts",
        json!({"float_cents": -1}),
        400,
    );
    assert_eq!(e["error"], "invalid_amount");
    let body = json!({"counted_cents": 0});
    let e = post(s, &w.writer, "/api/v1/shifts/current/close", body, 409);
    assert_eq!(e["error"], "no_shift");
    let open = || s.post(&w.writer, "/api/v1/shifts", json!({"float_cents": 10_000}));
    let both: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2).map(|_| scope.spawn(open)).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let opened: Vec<&Value> = both
        .iter()
        .filter(|(st, _)| *st == 201)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(opened.len(), 1, "{both:?}");
    assert!(
        both.iter()
            .any(|(st, e)| *st == 409 && e["error"] == "shift_open"),
        "{both:?}"
    );
    let e = post(s, anna, "/api/v1/shifts", json!({"float_cents": 0}), 409);
    assert_eq!(e["error"], "shift_open");
    assert!(
        e["message"].as_str().unwrap().contains("this terminal"),
        "{e}"
    );
    opened[0]["id"].as_i64().unwrap()
}

/// MARK's drawer: a $100.00 float and a $2 sale, counted $5.00 short: beyond the $1.00
/// tolerance, it waits for a supervisor, who alone signs it off, once, saying why.
fn short_and_signed_off(w: &World, mark: &str) -> i64 {
    let s = &w.server;
    let m = post(
        s,
        mark,
        "/api/v1/shifts",
        json!({"float_cents": 10_000}),
        201,
    );
    let id = m["id"].as_i64().unwrap();
    let body = sale(
        "m-1",
        json!({"type": "standard", "spots": [3]}),
        "standard",
        200,
        1,
    );
    s.sell(mark, body);
    let body = json!({"counted_cents": 9700});
    let short = post(s, mark, "/api/v1/shifts/current/close", body, 200);
    assert_eq!(
        (
            short["state"].as_str(),
            short["expected_cents"].as_i64(),
            short["over_short_cents"].as_i64()
        ),
        (Some("awaiting_sign_off"), Some(10_200), Some(-500))
    );
    let path = format!("/api/v1/shifts/{id}/sign-off");
    assert_eq!(s.post(mark, &path, json!({"reason": "mine"})).0, 403);
    let e = post(s, &w.supervisor, &path, json!({"reason": " "}), 400);
    assert_eq!(e["error"], "invalid_reason");
    let why = "a $5 note found under the till";
    let signed = post(s, &w.supervisor, &path, json!({ "reason": why }), 200);
    assert_eq!(
        (signed["state"].as_str(), signed["sign_off_reason"].as_str()),
        (Some("closed"), Some(why))
    );
    let e = post(s, &w.supervisor, &path, json!({"reason": "again"}), 409);
    assert_eq!(e["error"], "shift_not_awaiting_sign_off");
    id
}

const DAY_START: [&str; 2] = ["--keno-day-start", "00:00"];

/// The exceptions name each drawer over or short, and the sign-off with its reason.
fn exceptions_name_the_drawers(db: &TestDb, day: &str, mark_id: i64) {
    let out = audit(
        db,
        &[&["exceptions", "--day", day, "--json"][..], &DAY_START].concat(),
    );
    assert!(out.status.success());
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shifts: Vec<(&str, &str, &str)> = found["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"].as_str().unwrap().starts_with("shift"))
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap();
            (text("kind"), text("what"), text("why"))
        })
        .collect();
    assert_eq!(shifts.len(), 3, "{shifts:?}");
    let short = format!("shift {mark_id} at site 735624 terminal 04 closed short $5.00");
    assert!(shifts[0].1.contains(&short), "{shifts:?}");
    assert!(shifts[0].1.contains("beyond the tolerance"), "{shifts:?}");
    assert_eq!(shifts[1].0, "shift_sign_off");
    assert_eq!(shifts[1].2, "a $5 note found under the till");
    assert!(shifts[2].1.contains("closed over $0.50"), "{shifts:?}");
    assert!(shifts[2].1.contains("within the tolerance"), "{shifts:?}");
}

/// The daily report totals the drawers per writer and per terminal; the export holds each
/// shift.
fn the_daily_report_and_export_hold_the_drawers(db: &TestDb, day: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("daily.pdf");
    let args = ["report", "--day", day, "--out", file.to_str().unwrap()];
    let out = audit(db, &[&args[..], &DAY_START].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = pdf_text(&file);
    for figure in [
        "SHIFTS AND DRAWERS",
        "Totals per writer",
        "Totals per terminal",
        "735624/04",
        "MARK",
        "-$5.00",
        "$102.00",
    ] {
        assert!(text.contains(figure), "{figure} not in:\n{text}");
    }
    let args = [
        "export",
        "--from-day",
        day,
        "--out",
        dir.path().to_str().unwrap(),
    ];
    let out = audit(db, &[&args[..], &DAY_START].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.path().join("shifts.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[0].starts_with("shift,keno_day,staff_id,site,terminal,state,"),
        "{csv}"
    );
    let mark = lines[2];
    assert!(mark.contains(",10200,") && mark.contains(",-500,"), "{csv}");
    assert!(mark.contains("a $5 note found under the till"), "{csv}");
}
