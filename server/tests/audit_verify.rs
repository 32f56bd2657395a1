//! The tamper-evident audit trail (issue 7): a day's sales, cancellation, draw, settlement and
//! payment verify; then each kind of record is edited behind the server's back and
//! `keno-server audit verify` must find it (vouchers and their spends included), and the trail
//! itself refuses to be edited.

use std::process::Command;

use keno_testkit::{
    on_both_backends, rfc3339_in, sale, special3_rules, world, TestDb, MANUAL_CLOCK,
};
use serde_json::{json, Value};

on_both_backends!(
    verify_finds_every_record_changed_behind_the_servers_back,
    verify_finds_a_changed_set_bet_catalogue_or_special_3_approval,
    verify_reports_stored_json_that_cannot_be_read,
);

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
    tamper_all(db, edit, &[expected], undo);
}

/// As [`tamper`], expecting every line of `expected`.
fn tamper_all(db: &TestDb, edit: &str, expected: &[&str], undo: &str) {
    assert_eq!(db.execute(edit), 1, "{edit}");
    let (code, text) = verify(db);
    assert_eq!(code, 1, "{edit} went unnoticed:\n{text}");
    for expected in expected {
        assert!(
            text.contains(expected),
            "{edit}: expected {expected:?} in\n{text}"
        );
    }
    db.execute(undo);
    let (code, text) = verify(db);
    assert_eq!(code, 0, "after undoing {edit}:\n{text}");
}

fn verify_finds_every_record_changed_behind_the_servers_back(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    // Forty 1-spot tickets on 1..=40: a draw misses all forty about once in 25 million, so
    // there is a prize to pay.
    let tickets: Vec<Value> = (1..=40)
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
        keno_testkit::Backend::Sqlite => {
            db.execute("DROP TRIGGER audit_log_no_update");
        }
        keno_testkit::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log");
        }
    }
    db.execute("UPDATE audit_log SET payload = REPLACE(payload, '100', '500') WHERE kind = 'ticket_sold' AND subject = '{m}'".replace("{m}", m).as_str());
    let (code, text) = verify(&db);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("the audit chain breaks at entry"), "{text}");
}

/// Issue 8's records: the set-bet catalogue, the tickets sold from it, the approvals of Special
/// 3; each edited behind the server's back must be found.
fn verify_finds_a_changed_set_bet_catalogue_or_special_3_approval(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = special3_rules(dir.path(), 15_000);
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let w = world(&db, &[MANUAL_CLOCK, &["--rules", rules.as_str()]].concat());
    let s = &w.server;
    let (status, set) = s.post(
        &w.supervisor,
        "/api/v1/set-bets",
        json!({"name": "Corners", "groups": [[1, 2], [9, 10], [71, 72]], "combine": [2], "amount_per_way_cents": 100}),
    );
    assert_eq!(status, 201, "{set}");
    let id = set["id"].as_i64().unwrap();
    let (status, other) = s.post(
        &w.supervisor,
        "/api/v1/set-bets",
        json!({"name": "Kings", "groups": [[5], [6], [7], [8]], "combine": [3], "amount_per_way_cents": 50}),
    );
    assert_eq!(status, 201, "{other}");
    let other = other["id"].as_i64().unwrap();
    assert_eq!(
        s.post(
            &w.supervisor,
            &format!("/api/v1/set-bets/{other}/retire"),
            Value::Null
        )
        .0,
        200
    );
    let fixed = s.sell(
        &w.writer,
        sale(
            "f",
            json!({"type": "set_bet", "set": id, "mode": "fixed"}),
            "standard",
            100,
            1,
        ),
    );
    let random = s.sell(
        &w.writer,
        sale(
            "r",
            json!({"type": "set_bet", "set": id, "mode": "random"}),
            "standard",
            100,
            1,
        ),
    );
    let (status, a) = s.post(
        &inspector,
        "/api/v1/special3/approvals",
        json!({"reference": "CSA 2026/17", "approved_by": "J. Citizen", "expires_at": rfc3339_in(86_400)}),
    );
    assert_eq!(status, 201, "{a}");
    let approval = a["id"].as_i64().unwrap();
    s.sell(
        &w.writer,
        sale(
            "s3",
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "special3",
            100,
            1,
        ),
    );
    let (status, a) = s.post(
        &inspector,
        "/api/v1/special3/approvals",
        json!({"reference": "CSA 2026/18", "approved_by": "J. Citizen"}),
    );
    assert_eq!(status, 201, "{a}");
    let withdrawn = a["id"].as_i64().unwrap();
    let (status, _) = s.post(
        &w.supervisor,
        &format!("/api/v1/special3/approvals/{withdrawn}/withdraw"),
        json!({"reason": "recorded twice"}),
    );
    assert_eq!(status, 200);
    s.close_and_settle(&w.supervisor);

    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("2 set bets, 2 tickets sold from them, 2 approvals of Special 3"),
        "{text}"
    );

    let (f, r) = (
        fixed["serial"].as_str().unwrap(),
        random["serial"].as_str().unwrap(),
    );
    // A set's numbers changed after it was sold from.
    tamper(
        &db,
        &format!("UPDATE set_bets SET groups_json = '[[1,2],[9,10],[71,73]]' WHERE id = {id}"),
        &format!("set bet {id} (Corners) differs from the set added to the catalogue"),
        &format!("UPDATE set_bets SET groups_json = '[[1,2],[9,10],[71,72]]' WHERE id = {id}"),
    );
    // A retired set put back on sale.
    let retired_at = db.query_i64(&format!(
        "SELECT retired_at AS n FROM set_bets WHERE id = {other}"
    ));
    tamper(
        &db,
        &format!("UPDATE set_bets SET retired_at = NULL WHERE id = {other}"),
        &format!("set bet {other} (Kings): retired at None"),
        &format!("UPDATE set_bets SET retired_at = {retired_at} WHERE id = {other}"),
    );
    // A random set bet passed off as the fixed one.
    tamper(
        &db,
        &format!("UPDATE set_bet_tickets SET mode = 'fixed' WHERE serial = '{r}'"),
        &format!("ticket {r} differs from the ticket sold"),
        &format!("UPDATE set_bet_tickets SET mode = 'random' WHERE serial = '{r}'"),
    );
    // A fixed set bet's numbers changed: no longer the set's.
    tamper(
        &db,
        &format!("UPDATE tickets SET groups_json = '[[1,2],[9,10],[71,80]]' WHERE serial = '{f}'"),
        &format!("ticket {f}: its numbers are not a fixed play of set bet {id}"),
        &format!("UPDATE tickets SET groups_json = '[[1,2],[9,10],[71,72]]' WHERE serial = '{f}'"),
    );
    // An approval's expiry removed, and a withdrawal undone.
    let expires = db.query_i64(&format!(
        "SELECT expires_at AS n FROM special3_approvals WHERE id = {approval}"
    ));
    tamper(
        &db,
        &format!("UPDATE special3_approvals SET expires_at = NULL WHERE id = {approval}"),
        &format!("Special 3 approval {approval} (CSA 2026/17) differs from the approval recorded"),
        &format!("UPDATE special3_approvals SET expires_at = {expires} WHERE id = {approval}"),
    );
    let at = db.query_i64(&format!(
        "SELECT withdrawn_at AS n FROM special3_approvals WHERE id = {withdrawn}"
    ));
    tamper(
        &db,
        &format!("UPDATE special3_approvals SET withdrawn_at = NULL WHERE id = {withdrawn}"),
        &format!("Special 3 approval {withdrawn} (CSA 2026/18): withdrawn at None"),
        &format!("UPDATE special3_approvals SET withdrawn_at = {at} WHERE id = {withdrawn}"),
    );
    // An approval recorded behind the server's back.
    let digest = db.query_text("SELECT schedule_digest AS s FROM special3_approvals WHERE id = 1");
    let rule_set = db.query_text("SELECT rule_set AS s FROM special3_approvals WHERE id = 1");
    let by = db.query_text("SELECT recorded_by AS s FROM special3_approvals WHERE id = 1");
    tamper(
        &db,
        &format!(
            "INSERT INTO special3_approvals (id, reference, approved_by, approved_at, schedule_digest, rule_set, recorded_by, recorded_at) \
             VALUES (99, 'forged', 'nobody', 0, '{digest}', '{rule_set}', '{by}', 0)"
        ),
        "Special 3 approval 99 (forged) is not in the audit trail",
        "DELETE FROM special3_approvals WHERE id = 99",
    );
}

/// Stored JSON that cannot be read is a difference named with its record, never read as empty:
/// a ticket's numbers (its game then cannot be settled again), an entry's payload, the numbers
/// and totals in a settlement's entry.
fn verify_reports_stored_json_that_cannot_be_read(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let ticket = w.server.sell(
        &w.writer,
        sale(
            "t",
            json!({"type": "standard", "spots": [7, 21, 60]}),
            "standard",
            100,
            1,
        ),
    );
    let s = ticket["serial"].as_str().unwrap();
    let game = w.server.close_and_settle(&w.supervisor)["number"]
        .as_i64()
        .unwrap();
    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");

    let groups = db.query_text(&format!(
        "SELECT groups_json AS s FROM tickets WHERE serial = '{s}'"
    ));
    tamper_all(
        &db,
        &format!("UPDATE tickets SET groups_json = '[[7,21,' WHERE serial = '{s}'"),
        &[
            &format!("DIFFERENCE: ticket {s}: its stored groups_json cannot be read: "),
            &format!(
                "game {game}: not settled again: the stored numbers of ticket {s} cannot be read"
            ),
        ],
        &format!("UPDATE tickets SET groups_json = '{groups}' WHERE serial = '{s}'"),
    );
    // The ticket's ways: verify reports them, and the export stops at them, naming the ticket,
    // rather than write its ways as none.
    let ways = db.query_text(&format!(
        "SELECT way_counts_json AS s FROM tickets WHERE serial = '{s}'"
    ));
    let corrupt = format!("UPDATE tickets SET way_counts_json = '' WHERE serial = '{s}'");
    let restore = format!("UPDATE tickets SET way_counts_json = '{ways}' WHERE serial = '{s}'");
    tamper(
        &db,
        &corrupt,
        &format!("ticket {s}: its stored way_counts_json cannot be read: "),
        &restore,
    );
    db.execute(&corrupt);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "export", "--database-url", &db.url])
        .args(["--from-game", &game.to_string(), "--out"])
        .arg(dir.path())
        .env("KENO_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "ticket {s}: its stored way_counts_json cannot be read"
        )),
        "{stderr}"
    );
    db.execute(&restore);
    let combine = db.query_text(&format!(
        "SELECT combine_json AS s FROM tickets WHERE serial = '{s}'"
    ));
    tamper(
        &db,
        &format!("UPDATE tickets SET combine_json = 'none' WHERE serial = '{s}'"),
        &format!("ticket {s}: its stored combine_json cannot be read: "),
        &format!("UPDATE tickets SET combine_json = '{combine}' WHERE serial = '{s}'"),
    );

    // The trail's entries: its guard dropped, as a hand behind the server's back would.
    match db.backend {
        keno_testkit::Backend::Sqlite => db.execute("DROP TRIGGER audit_log_no_update"),
        keno_testkit::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log")
        }
    };
    let entry = |kind: &str, subject: &str| {
        let seq = db.query_i64(&format!(
            "SELECT seq AS n FROM audit_log WHERE kind = '{kind}' AND subject = '{subject}'"
        ));
        let payload = db.query_text(&format!(
            "SELECT payload AS s FROM audit_log WHERE seq = {seq}"
        ));
        (seq, payload.replace('\'', "''"))
    };
    let (seq, payload) = entry("ticket_sold", s);
    tamper_all(
        &db,
        &format!("UPDATE audit_log SET payload = '{{\"serial\": ' WHERE seq = {seq}"),
        &[
            &format!("audit entry {seq} (ticket_sold {s}): its payload cannot be read ("),
            &format!("ticket {s} has no sale in the audit trail"),
        ],
        &format!("UPDATE audit_log SET payload = '{payload}' WHERE seq = {seq}"),
    );
    let (seq, payload) = entry("game_settled", &game.to_string());
    tamper_all(
        &db,
        &format!("UPDATE audit_log SET payload = '{{\"drawn\": \"none\"}}' WHERE seq = {seq}"),
        &[
            &format!("game {game}: the trail's numbers drawn cannot be read ("),
            &format!("game {game}: the trail's totals of the settlement cannot be read ("),
        ],
        &format!("UPDATE audit_log SET payload = '{payload}' WHERE seq = {seq}"),
    );
}
