//! The tamper-evident audit trail (issue 7): a day's sales, cancellation, draw, settlement and
//! payment verify; then each kind of record is edited behind the server's back and
//! `keno-server audit verify` must find it (vouchers and their spends included), and the trail
//! itself refuses to be edited.

mod common;

use std::process::Command;

use common::{sale, world, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(verify_finds_every_record_changed_behind_the_servers_back);

fn verify(db: &TestDb) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", &db.url])
        .env("KENO_LOG", "warn")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    eprintln!("{text}");
    (out.status.code().unwrap_or(-1), text)
}

/// Runs `edit`, expects verify to report `expected`, runs `undo`, expects verify to pass.
fn tamper(db: &TestDb, edit: &str, expected: &str, undo: &str) {
    assert_eq!(db.execute(edit), 1, "{edit}");
    let (code, text) = verify(db);
    assert_eq!(code, 1, "{edit} went unnoticed:\n{text}");
    assert!(
        text.contains(expected),
        "{edit}: expected {expected:?} in\n{text}"
    );
    db.execute(undo);
    let (code, text) = verify(db);
    assert_eq!(code, 0, "after undoing {edit}:\n{text}");
}

fn verify_finds_every_record_changed_behind_the_servers_back(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    // Twenty 1-spot tickets on 1..=20: some are certain to win (a draw misses all twenty with
    // probability 0.03%), so there is a prize to pay.
    let tickets: Vec<Value> = (1..=20)
        .map(|n| {
            w.server.sell(
                &w.writer,
                sale(
                    &format!("t{n}"),
                    json!({"type": "standard", "spots": [n]}),
                    "standard",
                    100,
                    1,
                ),
            )
        })
        .collect();
    let later = w.server.sell(
        &w.writer,
        sale(
            "multi",
            json!({"type": "quick_pick", "count": 5}),
            "standard",
            100,
            3,
        ),
    );
    let cancelled = w.server.sell(
        &w.writer,
        sale(
            "cancel-me",
            json!({"type": "quick_pick", "count": 4}),
            "standard",
            200,
            1,
        ),
    );
    let c = cancelled["serial"].as_str().unwrap();
    let (status, e) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{c}/cancel"),
        Value::Null,
    );
    assert_eq!(status, 200, "{e}");
    let game = w.server.close_and_settle(&w.supervisor)["number"]
        .as_i64()
        .unwrap();
    let winner = tickets
        .iter()
        .map(|t| t["serial"].as_str().unwrap().to_string())
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

    // A voucher: a $20 deposit, $3 of it spent on a ticket.
    let (status, v) = w.server.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "deposit", "amount_cents": 2000}),
    );
    assert_eq!(status, 201, "{v}");
    let voucher = v["code"].as_str().unwrap().to_string();
    let mut body = sale(
        "tendered",
        json!({"type": "standard", "spots": [9]}),
        "standard",
        300,
        1,
    );
    body["tender"] = json!({"voucher": voucher});
    let (status, t) = w.server.post(&w.writer, "/api/v1/tickets", body);
    assert_eq!(status, 201, "{t}");

    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("verified"), "{text}");
    assert!(text.contains("checked: 1 vouchers"), "{text}");
    assert!(text.contains("1 settled games"), "{text}");

    let loser = tickets
        .iter()
        .map(|t| t["serial"].as_str().unwrap().to_string())
        .find(|s| *s != winner)
        .unwrap();
    let m = later["serial"].as_str().unwrap();
    // A wager raised after the draw.
    tamper(
        &db,
        &format!("UPDATE tickets SET amount_per_way_cents = 500 WHERE serial = '{m}'"),
        &format!("ticket {m} differs from the ticket sold"),
        &format!("UPDATE tickets SET amount_per_way_cents = 100 WHERE serial = '{m}'"),
    );
    // A drawn number changed: the trail and a new settlement both disagree.
    let first: i64 = db.query_i64(&format!(
        "SELECT CAST(number AS BIGINT) AS n FROM drawn_numbers WHERE game = {game} AND position = 1"
    ));
    let unused: i64 = (1..=80)
        .find(|n| {
            db.query_i64(&format!(
                "SELECT COUNT(*) AS n FROM drawn_numbers WHERE game = {game} AND number = {n}"
            )) == 0
        })
        .unwrap();
    tamper(
        &db,
        &format!("UPDATE drawn_numbers SET number = {unused} WHERE game = {game} AND position = 1"),
        &format!("game {game}: the numbers drawn are"),
        &format!("UPDATE drawn_numbers SET number = {first} WHERE game = {game} AND position = 1"),
    );
    // A prize inflated in the results.
    tamper(
        &db,
        &format!("UPDATE ticket_results SET prize_cents = prize_cents + 100000 WHERE serial = '{winner}'"),
        "the stored prizes differ",
        &format!("UPDATE ticket_results SET prize_cents = prize_cents - 100000 WHERE serial = '{winner}'"),
    );
    // A losing ticket marked paid.
    tamper(
        &db,
        &format!("UPDATE tickets SET status = 'paid', paid_cents = 5000, pay_method = 'cash' WHERE serial = '{loser}'"),
        &format!("ticket {loser}: paid with 5000 paid"),
        &format!("UPDATE tickets SET status = 'active', paid_cents = 0, pay_method = NULL WHERE serial = '{loser}'"),
    );
    // A cancellation undone.
    tamper(
        &db,
        &format!("UPDATE tickets SET status = 'active', cancelled_from_game = NULL, refund_cents = 0 WHERE serial = '{c}'"),
        &format!("ticket {c}: cancelled from game None"),
        &format!("UPDATE tickets SET status = 'cancelled', cancelled_from_game = {game}, refund_cents = 200 WHERE serial = '{c}'"),
    );
    // A principal's role raised.
    let writer_id = db.query_text("SELECT id AS s FROM principals WHERE name = 'JULIE'");
    tamper(
        &db,
        &format!("UPDATE principals SET role = 'supervisor' WHERE id = '{writer_id}'"),
        &format!("principal {writer_id} (supervisor JULIE) differs"),
        &format!("UPDATE principals SET role = 'writer' WHERE id = '{writer_id}'"),
    );

    // A voucher raised after it was issued.
    tamper(
        &db,
        &format!("UPDATE vouchers SET amount_cents = amount_cents + 1000, balance_cents = balance_cents + 1000 WHERE code = '{voucher}'"),
        &format!("voucher {voucher} differs from the voucher issued"),
        &format!("UPDATE vouchers SET amount_cents = amount_cents - 1000, balance_cents = balance_cents - 1000 WHERE code = '{voucher}'"),
    );
    // Its spend forgotten: the balance back to the full amount.
    tamper(
        &db,
        &format!("UPDATE vouchers SET balance_cents = amount_cents WHERE code = '{voucher}'"),
        &format!("voucher {voucher}: balance 2000 (active), but 2000 issued less 300 spent"),
        &format!("UPDATE vouchers SET balance_cents = 1700 WHERE code = '{voucher}'"),
    );
    // The spend made smaller.
    tamper(
        &db,
        &format!("UPDATE sale_tenders SET covered_cents = 100 WHERE reference = '{voucher}'"),
        &format!("voucher {voucher}: spent"),
        &format!("UPDATE sale_tenders SET covered_cents = 300 WHERE reference = '{voucher}'"),
    );

    // The trail refuses edits; dropping its guard and editing it breaks the chain.
    assert!(db
        .try_execute("UPDATE audit_log SET payload = '{}' WHERE seq = 3")
        .is_err());
    assert!(db
        .try_execute("DELETE FROM audit_log WHERE seq = 3")
        .is_err());
    match db.backend {
        common::Backend::Sqlite => {
            db.execute("DROP TRIGGER audit_log_no_update");
        }
        common::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log");
        }
    }
    db.execute("UPDATE audit_log SET payload = REPLACE(payload, '100', '500') WHERE kind = 'ticket_sold' AND subject = '{m}'".replace("{m}", m).as_str());
    let (code, text) = verify(&db);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("the audit chain breaks at entry"), "{text}");
}
