//! Vouchers (issue 8; rules 1(n), 6.1, 13.1, 12.2) over real HTTP against a real server, on
//! SQLite and PostgreSQL: issued for cash or in place of a winning ticket, spent by sales in part
//! and in whole, never overdrawn (two terminals at once included), never spent twice by a
//! retried sale, cashed out once, refused after twelve months; winning tickets tendered for a
//! sale with the change returned as a voucher. After each scenario `keno-server audit verify`
//! finds every voucher, spend and cash-out on the audit trail.

use std::process::Command;

use keno_core::rules::ACT_1992_TOML;
use keno_testkit::{on_both_backends, sale, world, Server, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_deposit_pays_sales_in_part_then_in_whole_and_is_cashed_out_once,
    overdraws_and_bad_input_are_refused_and_change_nothing,
    a_retried_sale_spends_once,
    concurrent_sales_never_overdraw_a_voucher,
    winning_tickets_are_paid_as_vouchers_and_tendered_for_sales,
    a_major_prize_is_not_paid_as_a_voucher_nor_tendered,
    a_voucher_is_usable_for_twelve_months_then_needs_a_claim,
    an_old_voucher_is_paid_by_an_approved_claim_by_cheque_once,
);

fn issue(s: &Server, token: &str, request_id: &str, amount_cents: i64) -> Value {
    let (status, v) = s.post(
        token,
        "/api/v1/vouchers",
        json!({"request_id": request_id, "amount_cents": amount_cents}),
    );
    assert_eq!(status, 201, "{v}");
    v
}

fn voucher(s: &Server, token: &str, code: &str) -> Value {
    let (status, v) = s.get_as(token, &format!("/api/v1/vouchers/{code}"));
    assert_eq!(status, 200, "{v}");
    v
}

/// A 1-spot ticket on `number` of `dollars`, paid with `tender` (or in cash when null).
fn sell(s: &Server, token: &str, request_id: &str, dollars: u64, tender: Value) -> (u16, Value) {
    let mut body = sale(
        request_id,
        json!({"type": "standard", "spots": [7]}),
        "standard",
        dollars * 100,
        1,
    );
    if !tender.is_null() {
        body["tender"] = tender;
    }
    s.post(token, "/api/v1/tickets", body)
}

fn count(db: &TestDb, table: &str) -> i64 {
    db.query_i64(&format!("SELECT COUNT(*) AS n FROM {table}"))
}

/// No voucher has given more than its amount, and every balance is its amount less its spends
/// and cash-out: checked in SQL, behind the server's back.
fn assert_never_overdrawn(db: &TestDb) {
    let spent = "(SELECT COALESCE(SUM(t.covered_cents), 0) FROM sale_tenders t \
                 WHERE t.kind = 'voucher' AND t.reference = v.code)";
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM vouchers v WHERE {spent} + v.cashed_cents > v.amount_cents"
        )),
        0,
        "a voucher gave more than its amount"
    );
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM vouchers v \
             WHERE v.balance_cents <> v.amount_cents - v.cashed_cents - {spent}"
        )),
        0,
        "a balance is not its amount less spends and cash-out"
    );
}

/// `keno-server audit verify` on the test's database: every voucher matches its trail.
fn assert_verified(db: &TestDb) {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", &db.url])
        .env("KENO_LOG", "warn")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("vouchers against their issue"), "{text}");
}

fn a_deposit_pays_sales_in_part_then_in_whole_and_is_cashed_out_once(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let v = issue(s, &w.writer, "deposit-1", 2000);
    let code = v["code"].as_str().unwrap().to_string();
    assert!(keno_core::serial::is_voucher_code(&code), "{code}");
    let game = s.get("/api/v1/games/current").1;
    assert_eq!(
        (
            v["amount_cents"].as_i64(),
            v["balance_cents"].as_i64(),
            v["status"].as_str(),
            v["source"].as_str(),
            v["writer"].as_str(),
            v["terminal"].as_str(),
            v["expired"].as_bool(),
        ),
        (
            Some(2000),
            Some(2000),
            Some("active"),
            Some("deposit"),
            Some("JULIE"),
            Some("03"),
            Some(false)
        )
    );
    assert_eq!(v["keno_day"], game["keno_day"]);
    // A retried issue issues nothing.
    let (status, again) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "deposit-1", "amount_cents": 2000}),
    );
    assert_eq!((status, again["code"].as_str()), (200, Some(code.as_str())));
    assert_eq!(count(&db, "vouchers"), 1);
    // A second deposit has a code of its own, not the next number.
    let other = issue(s, &w.writer, "deposit-2", 500)["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(other, code);
    assert!(
        (code.parse::<u128>().unwrap() as i128 - other.parse::<u128>().unwrap() as i128).abs()
            > 1_000_000
    );

    // In part: $5 of $20.
    let (status, t) = sell(s, &w.writer, "s1", 5, json!({"voucher": code}));
    assert_eq!(status, 201, "{t}");
    assert_eq!(
        t["payment"],
        json!({"tenders": [{"voucher": code, "ticket": null, "covered_cents": 500, "remaining_cents": 1500, "change_cents": 0}],
               "tendered_cents": 500, "cash_cents": 0, "change_cents": 0, "change_voucher": null})
    );
    // A named amount: $2 of a $3 ticket, $1 in cash.
    let (status, t) = sell(
        s,
        &w.writer,
        "s2",
        3,
        json!([{"voucher": code, "amount_cents": 200}]),
    );
    assert_eq!(status, 201, "{t}");
    assert_eq!(
        (
            t["payment"]["tendered_cents"].as_i64(),
            t["payment"]["cash_cents"].as_i64(),
            t["payment"]["tenders"][0]["remaining_cents"].as_i64()
        ),
        (Some(200), Some(100), Some(1300))
    );
    // A quote says what the voucher would cover and spends nothing.
    let mut body = sale(
        "q",
        json!({"type": "standard", "spots": [7]}),
        "standard",
        2000,
        1,
    );
    body["tender"] = json!({"voucher": code});
    let (status, q) = s.post(&w.writer, "/api/v1/tickets/quote", body);
    assert_eq!(status, 200, "{q}");
    assert_eq!(
        (
            q["payment"]["tendered_cents"].as_i64(),
            q["payment"]["cash_cents"].as_i64()
        ),
        (Some(1300), Some(700))
    );
    assert_eq!(voucher(s, &w.writer, &code)["balance_cents"], 1300);
    // In whole: the $13 left pays most of a $20 ticket; $7 in cash.
    let (status, t) = sell(s, &w.writer, "s3", 20, json!({"voucher": code}));
    assert_eq!(status, 201, "{t}");
    assert_eq!(
        (
            t["payment"]["tendered_cents"].as_i64(),
            t["payment"]["cash_cents"].as_i64(),
            t["payment"]["tenders"][0]["remaining_cents"].as_i64()
        ),
        (Some(1300), Some(700), Some(0))
    );
    let v = voucher(s, &w.writer, &code);
    assert_eq!(
        (v["balance_cents"].as_i64(), v["status"].as_str()),
        (Some(0), Some("spent"))
    );
    let spends: Vec<i64> = v["spends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["amount_cents"].as_i64().unwrap())
        .collect();
    assert_eq!(spends, vec![500, 200, 1300]);
    // The ticket shows how it was paid.
    let serial = t["serial"].as_str().unwrap();
    let (_, detail) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(detail["payment"], t["payment"]);
    // Nothing left: a sale or a cash-out with it is refused; nothing is sold.
    let tickets = count(&db, "tickets");
    let (status, e) = sell(s, &w.writer, "s4", 1, json!({"voucher": code}));
    assert_eq!((status, e["error"].as_str()), (409, Some("voucher_empty")));
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{code}/cash"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("voucher_empty")));
    assert_eq!(count(&db, "tickets"), tickets);

    // Cash out what is left of the other voucher, once.
    let (status, c) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{other}/cash"),
        Value::Null,
    );
    assert_eq!(status, 200, "{c}");
    assert_eq!(
        (
            c["paid_cents"].as_i64(),
            c["method"].as_str(),
            c["voucher"]["balance_cents"].as_i64(),
            c["voucher"]["status"].as_str()
        ),
        (Some(500), Some("cash"), Some(0), Some("cashed"))
    );
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{other}/cash"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("already_cashed")));
    let (status, e) = sell(s, &w.writer, "s5", 1, json!({"voucher": other}));
    assert_eq!((status, e["error"].as_str()), (409, Some("voucher_empty")));
    // An auditor and a supervisor may look a voucher up; only a writer issues or cashes.
    let auditor = db.principal("auditor", "AUDIT", None);
    assert_eq!(voucher(s, &auditor, &other)["cashed_cents"], 500);
    assert_eq!(voucher(s, &w.supervisor, &other)["status"], "cashed");
    let (status, _) = s.post(
        &w.supervisor,
        "/api/v1/vouchers",
        json!({"request_id": "x", "amount_cents": 100}),
    );
    assert_eq!(status, 403);
    assert_never_overdrawn(&db);
    assert_verified(&db);
}

fn overdraws_and_bad_input_are_refused_and_change_nothing(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let code = issue(s, &w.writer, "d", 500)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let before = || {
        (
            count(&db, "tickets"),
            count(&db, "vouchers"),
            count(&db, "sale_tenders"),
            count(&db, "audit_log"),
            db.query_i64("SELECT CAST(SUM(balance_cents) AS BIGINT) AS n FROM vouchers"),
        )
    };
    let start = before();
    // A wrong check digit, a code that does not exist, a serial where a code belongs.
    let mut wrong = code.clone().into_bytes();
    wrong[3] = if wrong[3] == b'9' { b'0' } else { wrong[3] + 1 };
    let wrong = String::from_utf8(wrong).unwrap();
    let unknown = keno_core::serial::new_voucher_code(&mut rand_core::UnwrapErr(getrandom::SysRng));
    let refusals: Vec<(Value, u16, &str)> = vec![
        // Overdrawn: $10 asked of a $5 voucher.
        (
            json!({"voucher": code, "amount_cents": 1000}),
            409,
            "insufficient_balance",
        ),
        // More than the $3 sale needs.
        (
            json!({"voucher": code, "amount_cents": 400}),
            422,
            "tender_exceeds_sale",
        ),
        (json!({"voucher": wrong}), 400, "invalid_voucher_code"),
        (json!({"voucher": unknown}), 404, "not_found"),
        (json!({"voucher": "12345"}), 400, "invalid_voucher_code"),
        (
            json!({"voucher": code, "amount_cents": -300}),
            400,
            "invalid_amount",
        ),
        (
            json!({"voucher": code, "amount_cents": 0}),
            400,
            "invalid_amount",
        ),
        (
            json!([{"voucher": code}, {"voucher": code}]),
            400,
            "duplicate_tender",
        ),
        (
            json!({"voucher": code, "ticket": "12345678901234567890"}),
            400,
            "invalid_tender",
        ),
        (
            json!({"ticket": "12345678901234567891"}),
            400,
            "invalid_serial",
        ),
        // A well-formed serial of no ticket.
        (json!({"ticket": "12345678901234567894"}), 404, "not_found"),
        (json!({"cash": 300}), 400, "invalid_request"),
    ];
    for (i, (tender, status, code_expected)) in refusals.into_iter().enumerate() {
        let (got, e) = sell(s, &w.writer, &format!("bad-{i}"), 3, tender.clone());
        assert_eq!(
            (got, e["error"].as_str()),
            (status, Some(code_expected)),
            "{tender}: {e}"
        );
    }
    // A second voucher not needed: the first covers the $3 sale.
    let second = issue(s, &w.writer, "d2", 500)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let start = (start.0, start.1 + 1, start.2, start.3 + 1, start.4 + 500);
    let (status, e) = sell(
        s,
        &w.writer,
        "not-needed",
        3,
        json!([{"voucher": code}, {"voucher": second}]),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("tender_not_needed")),
        "{e}"
    );
    // Bad issues and look-ups.
    for body in [
        json!({"request_id": "n", "amount_cents": -2000}),
        json!({"request_id": "z", "amount_cents": 0}),
        json!({"request_id": "big", "amount_cents": 10_000_001}),
        json!({"request_id": "both", "amount_cents": 100, "ticket": "12345678901234567890"}),
        json!({"request_id": "none"}),
        json!({"request_id": "", "amount_cents": 100}),
        json!({"request_id": "f", "amount_cents": 1.5}),
        json!({"request_id": "t", "ticket": "123"}),
    ] {
        let (status, e) = s.post(&w.writer, "/api/v1/vouchers", body.clone());
        assert_eq!(status, 400, "{body}: {e}");
        assert!(e["error"].is_string(), "{e}");
    }
    let (status, e) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "nt", "ticket": "12345678901234567894"}),
    );
    assert!(
        keno_core::serial::is_well_formed("12345678901234567894"),
        "the test's serial"
    );
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    let (status, e) = s.get_as(&w.writer, &format!("/api/v1/vouchers/{wrong}"));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_voucher_code"))
    );
    let (status, e) = s.get_as(&w.writer, &format!("/api/v1/vouchers/{unknown}"));
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{unknown}/cash"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    let (status, _) = s.get(&format!("/api/v1/vouchers/{code}"));
    assert_eq!(status, 401);
    assert_eq!(before(), start, "a refusal changed something");
    assert_eq!(voucher(s, &w.writer, &code)["balance_cents"], 500);
    assert_never_overdrawn(&db);
    assert_verified(&db);
}

fn a_retried_sale_spends_once(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let code = issue(s, &w.writer, "d", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, first) = sell(s, &w.writer, "retry-me", 3, json!({"voucher": code}));
    assert_eq!(status, 201, "{first}");
    let (status, again) = sell(s, &w.writer, "retry-me", 3, json!({"voucher": code}));
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["serial"], first["serial"]);
    assert_eq!(again["payment"], first["payment"]);
    assert_eq!(voucher(s, &w.writer, &code)["balance_cents"], 700);
    // Four copies of one sale at once (a terminal retrying while its first try is still on its
    // way): one ticket, one spend.
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| sell(s, &w.writer, "at-once", 3, json!({"voucher": code}))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created = answers.iter().filter(|(st, _)| *st == 201).count();
    assert_eq!(created, 1, "{answers:?}");
    assert!(answers.iter().all(|(st, t)| (*st == 201 || *st == 200)
        && t["serial"] == answers[0].1["serial"]
        && t["payment"]["tendered_cents"] == 300));
    assert_eq!(voucher(s, &w.writer, &code)["balance_cents"], 400);
    assert_eq!(count(&db, "sale_tenders"), 2);
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'voucher_spent'"),
        2
    );
    assert_never_overdrawn(&db);
    assert_verified(&db);
}

/// Sales from `terminals` terminals at once, each paying with `tender`: their answers.
fn at_once(w: &World, terminals: &[String], tag: &str, tender: Value) -> Vec<(u16, Value)> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = terminals
            .iter()
            .enumerate()
            .map(|(i, token)| {
                let tender = tender.clone();
                scope.spawn(move || sell(&w.server, token, &format!("{tag}-{i}"), 3, tender))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn concurrent_sales_never_overdraw_a_voucher(db: TestDb) {
    let mut terminals: Vec<String> = (1..=8)
        .map(|t| {
            db.principal(
                "writer",
                &format!("W{t}"),
                Some(("735624", &format!("1{t}"))),
            )
        })
        .collect();
    let w = world(&db, MANUAL_CLOCK);
    terminals.push(w.writer.clone());
    // $3 of a $10 voucher asked by nine terminals at once: three are sold, the others refused.
    let code = issue(&w.server, &w.writer, "d1", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let answers = at_once(
        &w,
        &terminals,
        "exact",
        json!({"voucher": code, "amount_cents": 300}),
    );
    let sold = answers.iter().filter(|(st, _)| *st == 201).count();
    assert_eq!(sold, 3, "{answers:?}");
    assert!(
        answers
            .iter()
            .all(|(st, e)| *st == 201 || e["error"] == "insufficient_balance"),
        "{answers:?}"
    );
    assert_eq!(voucher(&w.server, &w.writer, &code)["balance_cents"], 100);
    // What the sale needs, up to the balance: $10 pays three $3 tickets and $1 of a fourth.
    let code = issue(&w.server, &w.writer, "d2", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let answers = at_once(&w, &terminals, "upto", json!({"voucher": code}));
    let sold: Vec<&Value> = answers
        .iter()
        .filter(|(st, _)| *st == 201)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(sold.len(), 4, "{answers:?}");
    let mut covered: Vec<i64> = sold
        .iter()
        .map(|t| t["payment"]["tendered_cents"].as_i64().unwrap())
        .collect();
    covered.sort_unstable();
    assert_eq!(covered, vec![100, 300, 300, 300]);
    assert!(sold
        .iter()
        .all(|t| t["payment"]["tendered_cents"].as_i64().unwrap()
            + t["payment"]["cash_cents"].as_i64().unwrap()
            == 300));
    assert!(
        answers
            .iter()
            .all(|(st, e)| *st == 201 || e["error"] == "voucher_empty"),
        "{answers:?}"
    );
    // A cash-out racing sales: whatever order, nothing is paid twice.
    let code = issue(&w.server, &w.writer, "d3", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let (cashed, answers) = std::thread::scope(|scope| {
        let cash = scope.spawn(|| {
            w.server.post(
                &w.writer,
                &format!("/api/v1/vouchers/{code}/cash"),
                Value::Null,
            )
        });
        // $9 of sales: the cash-out always finds something left, whenever it comes.
        let sales = at_once(&w, &terminals[..3], "race", json!({"voucher": code}));
        (cash.join().unwrap(), sales)
    });
    assert_eq!(cashed.0, 200, "{cashed:?}");
    let spent: i64 = answers
        .iter()
        .filter(|(st, _)| *st == 201)
        .map(|(_, t)| t["payment"]["tendered_cents"].as_i64().unwrap())
        .sum();
    assert!(
        answers
            .iter()
            .all(|(st, e)| *st == 201 || e["error"] == "voucher_empty"),
        "{answers:?}"
    );
    assert_eq!(cashed.1["paid_cents"].as_i64().unwrap() + spent, 1000);
    assert_eq!(
        db.query_i64(&format!(
            "SELECT balance_cents AS n FROM vouchers WHERE code = '{code}'"
        )),
        0
    );
    assert_never_overdrawn(&db);
    assert_verified(&db);
}

fn ticket(s: &Server, token: &str, serial: &str) -> Value {
    let (status, t) = s.get_as(token, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(status, 200, "{t}");
    t
}

fn winners_and_a_loser(serials: &[String], game: &Value) -> (Vec<String>, String) {
    let drawn: Vec<usize> = game["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap() as usize)
        .collect();
    let winners = drawn.iter().map(|&n| serials[n - 1].clone()).collect();
    let loser = (1..=80)
        .find(|n| !drawn.contains(n))
        .map(|n| serials[n - 1].clone())
        .unwrap();
    (winners, loser)
}

fn winning_tickets_are_paid_as_vouchers_and_tendered_for_sales(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let serials = keno_testkit::cover_the_board(&w, "cover", (100, 1, "standard"));
    let game = s.close_and_settle(&w.supervisor);
    let (winners, loser) = winners_and_a_loser(&serials, &game);
    // Not yet settled: a ticket of the game now open.
    let (_, open) = sell(s, &w.writer, "open", 1, Value::Null);
    let open = open["serial"].as_str().unwrap().to_string();

    // Paid as a voucher, once.
    let body = json!({"request_id": "pay-1", "ticket": winners[0]});
    let (status, v) = s.post(&w.writer, "/api/v1/vouchers", body.clone());
    assert_eq!(status, 201, "{v}");
    let code = v["code"].as_str().unwrap().to_string();
    assert_eq!(
        (
            v["amount_cents"].as_i64(),
            v["source"].as_str(),
            v["ticket"].as_str()
        ),
        (Some(300), Some("ticket"), Some(winners[0].as_str()))
    );
    let t = ticket(s, &w.writer, &winners[0]);
    assert_eq!(
        (
            t["status"].as_str(),
            t["pay_method"].as_str(),
            t["paid_cents"].as_i64(),
            t["paid_as_voucher"].as_str()
        ),
        (
            Some("paid"),
            Some("voucher"),
            Some(300),
            Some(code.as_str())
        )
    );
    let (status, again) = s.post(&w.writer, "/api/v1/vouchers", body);
    assert_eq!((status, again["code"].as_str()), (200, Some(code.as_str())));
    for (path, body) in [
        (
            "/api/v1/vouchers".to_string(),
            json!({"request_id": "pay-2", "ticket": winners[0]}),
        ),
        (format!("/api/v1/tickets/{}/pay", winners[0]), Value::Null),
    ] {
        let (status, e) = s.post(&w.writer, &path, body);
        assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));
    }
    for (serial, error) in [(&loser, "no_prize"), (&open, "not_settled")] {
        let (status, e) = s.post(
            &w.writer,
            "/api/v1/vouchers",
            json!({"request_id": format!("v-{serial}"), "ticket": serial}),
        );
        assert_eq!((status, e["error"].as_str()), (409, Some(error)), "{e}");
    }
    assert_eq!(count(&db, "vouchers"), 1);
    // At once: four tries of one request are one voucher; four requests pay the ticket once.
    let writer = w.writer.as_str();
    let together = |body: &dyn Fn(usize) -> Value| -> Vec<(u16, Value)> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    let body = body(i);
                    scope.spawn(move || s.post(writer, "/api/v1/vouchers", body))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    let same = together(&|_| json!({"request_id": "same", "ticket": winners[3]}));
    assert_eq!(
        same.iter().filter(|(st, _)| *st == 201).count(),
        1,
        "{same:?}"
    );
    assert!(
        same.iter()
            .all(|(st, v)| (*st == 201 || *st == 200) && v["code"] == same[0].1["code"]),
        "{same:?}"
    );
    let many = together(&|i| json!({"request_id": format!("many-{i}"), "ticket": winners[4]}));
    assert_eq!(
        many.iter().filter(|(st, _)| *st == 201).count(),
        1,
        "{many:?}"
    );
    assert!(many
        .iter()
        .all(|(st, e)| *st == 201 || e["error"] == "already_paid"));
    assert_eq!(count(&db, "vouchers"), 3);
    // ... and spent.
    let (status, t) = sell(s, &w.writer, "spend", 2, json!({"voucher": code}));
    assert_eq!(status, 201, "{t}");
    assert_eq!(t["payment"]["tenders"][0]["remaining_cents"], 100);

    // A winning ticket ($3) tendered for a $1 ticket: paid whole, $2 back as a voucher.
    let (status, t) = sell(s, &w.writer, "tender-1", 1, json!({"ticket": winners[1]}));
    assert_eq!(status, 201, "{t}");
    let p = &t["payment"];
    assert_eq!(
        (
            p["tenders"][0]["ticket"].as_str(),
            p["tenders"][0]["covered_cents"].as_i64(),
            p["tenders"][0]["change_cents"].as_i64(),
            p["cash_cents"].as_i64(),
            p["change_cents"].as_i64()
        ),
        (
            Some(winners[1].as_str()),
            Some(100),
            Some(200),
            Some(0),
            Some(200)
        )
    );
    let change = p["change_voucher"].as_str().unwrap().to_string();
    let cv = voucher(s, &w.writer, &change);
    assert_eq!(
        (
            cv["amount_cents"].as_i64(),
            cv["source"].as_str(),
            cv["ticket"].as_str()
        ),
        (Some(200), Some("change"), t["serial"].as_str())
    );
    let tendered = ticket(s, &w.writer, &winners[1]);
    assert_eq!(
        (
            tendered["status"].as_str(),
            tendered["pay_method"].as_str(),
            tendered["paid_cents"].as_i64(),
            tendered["tendered_for"].as_str()
        ),
        (
            Some("paid"),
            Some("tender"),
            Some(300),
            t["serial"].as_str()
        )
    );
    // A retry: the same ticket, no second change voucher.
    let (status, again) = sell(s, &w.writer, "tender-1", 1, json!({"ticket": winners[1]}));
    assert_eq!((status, &again["payment"]), (200, p));
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM vouchers WHERE source = 'change'"),
        1
    );
    // Tendered once; then neither tendered nor paid again.
    let (status, e) = sell(s, &w.writer, "tender-2", 1, json!({"ticket": winners[1]}));
    assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{}/pay", winners[1]),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));
    let (status, e) = sell(s, &w.writer, "tender-3", 1, json!({"ticket": loser}));
    assert_eq!((status, e["error"].as_str()), (409, Some("no_prize")));
    // A ticket and a voucher together for a $5 ticket: $3 and $2, no change, no cash.
    let (status, t) = sell(
        s,
        &w.writer,
        "mixed",
        5,
        json!([{"ticket": winners[2]}, {"voucher": change}]),
    );
    assert_eq!(status, 201, "{t}");
    let covered: Vec<i64> = t["payment"]["tenders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["covered_cents"].as_i64().unwrap())
        .collect();
    assert_eq!(covered, vec![300, 200]);
    assert_eq!(
        (
            t["payment"]["cash_cents"].as_i64(),
            t["payment"]["change_voucher"].as_str()
        ),
        (Some(0), None)
    );
    assert_eq!(voucher(s, &w.writer, &change)["status"], "spent");
    assert_never_overdrawn(&db);
    assert_verified(&db);
}

fn a_major_prize_is_not_paid_as_a_voucher_nor_tendered(db: TestDb) {
    // A promotion: 1 spot pays $5,000, a major prize (rule 1(h)).
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        ACT_1992_TOML.replace(
            "{ spots = 1, pays = { 1 = 300 } }",
            "{ spots = 1, pays = { 1 = 500000 } }",
        ),
    )
    .unwrap();
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(keno_testkit::ANY_PAYOUT);
    args.extend(["--rules", rules.to_str().unwrap()]);
    let w = world(&db, &args);
    let s = &w.server;
    let serials = keno_testkit::cover_the_board(&w, "cover", (100, 1, "standard"));
    let game = s.close_and_settle(&w.supervisor);
    let (winners, _) = winners_and_a_loser(&serials, &game);
    let (status, e) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "major", "ticket": winners[0]}),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cheque_only")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("12.2"), "{e}");
    let (status, e) = sell(s, &w.writer, "major", 1, json!({"ticket": winners[0]}));
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cheque_only")),
        "{e}"
    );
    assert_eq!(count(&db, "vouchers"), 0);
    assert_eq!(ticket(s, &w.writer, &winners[0])["status"], "active");
    let (status, p) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{}/pay", winners[0]),
        keno_testkit::hand_pay(),
    );
    assert_eq!((status, p["method"].as_str()), (200, Some("cheque")), "{p}");
    assert_verified(&db);
}

fn a_voucher_is_usable_for_twelve_months_then_needs_a_claim(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let old = issue(s, &w.writer, "old", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let year = issue(s, &w.writer, "year", 1000)["code"]
        .as_str()
        .unwrap()
        .to_string();
    // The server's Keno Day starts at midnight here: today's date.
    let today = chrono::Local::now().date_naive();
    let back = |months: u32| {
        today
            .checked_sub_months(chrono::Months::new(months))
            .unwrap()
            .format("%Y-%m-%d")
            .to_string()
    };
    db.execute(&format!(
        "UPDATE vouchers SET keno_day = '{}' WHERE code = '{old}'",
        back(13)
    ));
    db.execute(&format!(
        "UPDATE vouchers SET keno_day = '{}' WHERE code = '{year}'",
        back(12)
    ));
    // Twelve months on, still usable at the terminal (rule 13.1).
    let (status, t) = sell(s, &w.writer, "year", 1, json!({"voucher": year}));
    assert_eq!(status, 201, "{t}");
    let v = voucher(s, &w.writer, &year);
    assert_eq!(
        (v["expired"].as_bool(), v["valid_until"].as_str()),
        (
            Some(false),
            Some(today.format("%Y-%m-%d").to_string().as_str())
        )
    );
    // Thirteen: only the Unclaimed Prize Claim Form pays it.
    let v = voucher(s, &w.writer, &old);
    assert_eq!(v["expired"], true);
    let (status, e) = sell(s, &w.writer, "old", 1, json!({"voucher": old}));
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("Unclaimed Prize Claim Form"),
        "{e}"
    );
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{old}/cash"),
        Value::Null,
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );
    assert_eq!(voucher(s, &w.writer, &old)["balance_cents"], 1000);
}

/// Rules 13.1, 13.3, 13.5 as decided (old vouchers): thirteen months on, a voucher is paid only
/// through an Unclaimed Prize Claim Form, which may name it by code or, lost, by its date and
/// amount; an inspector approves the claim against it and a supervisor pays its balance by
/// cheque, once. The first build's form took ticket serials only (`voucher_code` was refused
/// as an unknown field), so the deposit was stranded for good.
fn an_old_voucher_is_paid_by_an_approved_claim_by_cheque_once(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let code = issue(s, &w.writer, "old", 1_234)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let day = (chrono::Local::now().date_naive() - chrono::Months::new(13))
        .format("%Y-%m-%d")
        .to_string();
    db.execute(&format!(
        "UPDATE vouchers SET keno_day = '{day}' WHERE code = '{code}'"
    ));
    let form = |extra: Value| {
        let mut f = json!({
            "reason": "old", "claimant_name": "Ann Player", "postal_address": "2 Example St",
            "phone": "02 6200 0001", "purchase_place": "735624", "purchase_date": day,
        });
        f.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        f
    };
    // Bad forms change nothing.
    for (bad, code_expected) in [
        (
            json!({"voucher_code": code, "serial": "1234"}),
            "invalid_claim",
        ),
        (json!({"voucher_code": "12345"}), "invalid_voucher_code"),
        (json!({"voucher_amount_cents": 0}), "invalid_claim"),
    ] {
        let (status, e) = s.post(&w.writer, "/api/v1/claims", form(bad.clone()));
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some(code_expected)),
            "{bad}: {e}"
        );
    }
    assert_eq!(count(&db, "claims"), 0);

    // By code: the writer sees the voucher's last four digits only.
    let (status, named) = s.post(
        &w.writer,
        "/api/v1/claims",
        form(json!({"voucher_code": code})),
    );
    assert_eq!(status, 201, "{named}");
    let candidates = named["voucher_candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 1, "{named}");
    assert!(candidates[0]["code"]
        .as_str()
        .unwrap()
        .ends_with(&code[18..]));
    assert!(candidates[0]["code"].as_str().unwrap().starts_with("****"));
    assert_eq!(candidates[0]["balance_cents"], 1_234);
    // Lost: by the date and amount; an inspector sees the whole code.
    let (status, lost) = s.post(
        &w.writer,
        "/api/v1/claims",
        form(json!({"reason": "lost", "voucher_amount_cents": 1_234})),
    );
    assert_eq!(status, 201, "{lost}");
    let lost_id = lost["id"].as_i64().unwrap();
    let (_, seen) = s.get_as(&inspector, &format!("/api/v1/claims/{lost_id}"));
    assert_eq!(
        seen["voucher_candidates"][0]["code"],
        code.as_str(),
        "{seen}"
    );

    let id = named["id"].as_i64().unwrap();
    let approve = |claim: i64, body: Value| {
        s.post(&inspector, &format!("/api/v1/claims/{claim}/approve"), body)
    };
    let (status, e) = approve(id, json!({"reason": "ok"}));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_claim")),
        "{e}"
    );
    let (status, approved) = approve(id, json!({"voucher": code, "reason": "issued to her"}));
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["approved_voucher"], code.as_str());
    // One voucher, one claim.
    let (status, e) = approve(lost_id, json!({"voucher": code, "reason": "same one"}));
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("voucher_claimed")),
        "{e}"
    );

    let pay = |claim: i64, cheque: &str| {
        s.post(
            &w.supervisor,
            &format!("/api/v1/claims/{claim}/pay"),
            json!({"cheque_reference": cheque}),
        )
    };
    let (status, paid) = pay(id, "CHQ-77");
    assert_eq!(
        (status, paid["paid_cents"].as_i64()),
        (200, Some(1_234)),
        "{paid}"
    );
    assert_eq!(paid["state"], "paid");
    let (status, e) = pay(id, "CHQ-78");
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_not_approved")),
        "{e}"
    );
    let v = voucher(s, &w.supervisor, &code);
    assert_eq!(
        (v["balance_cents"].as_i64(), v["status"].as_str()),
        (Some(0), Some("cashed")),
        "{v}"
    );
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/vouchers/{code}/cash"),
        Value::Null,
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_cashed")),
        "{e}"
    );
    // (No `audit verify` here: the voucher was aged by editing its row, which it would catch.)
}
