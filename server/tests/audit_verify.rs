//! The tamper-evident audit trail (issue 7): a day's sales, cancellation, draw, settlement and
//! payment verify; then each kind of record is edited behind the server's back and
//! `keno-server audit verify` must find it (vouchers and their spends included), and the trail
//! itself refuses to be edited.

use std::process::Command;

use keno_testkit::{
    on_both_backends, rfc3339_in, sale, special3_rules, world, TestDb, BALL_DEVICE, MANUAL_CLOCK,
};
use serde_json::{json, Value};

on_both_backends!(
    verify_finds_every_record_changed_behind_the_servers_back,
    verify_finds_a_changed_set_bet_catalogue_or_special_3_approval,
    verify_reports_stored_json_that_cannot_be_read,
    verify_catches_a_hostile_writer_mid_draw,
    signed_checkpoints_prove_the_trail_against_a_rewrite_and_a_cut_tail,
    verify_from_a_checkpoint_checks_what_is_new_and_says_what_it_takes_as_proved,
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
    tendered(&w, &voucher);

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
    assert!(text.contains("breaks at entry"), "{text}");
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

/// Issue 20: a hostile tester with write access to the database, mid-draw. Each forgery must be
/// found with no record exempt by a time stored beside it: a drawn number changed before the
/// game settles on it, a ball removed, a ticket inserted (and one backdated) before the trail's
/// start, a supervisor inserted with `created_at = 0`, and the trail's tail cut with its head
/// moved back over a game's invalidation.
fn verify_catches_a_hostile_writer_mid_draw(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let s = &w.server;
    let device = db.principal("device", "BALLMACHINE-1", None);
    let t = s.sell(
        &w.writer,
        sale(
            "ten",
            json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}),
            "standard",
            100,
            2,
        ),
    );
    let t = t["serial"].as_str().unwrap();
    let (status, game) = s.post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    let game = game["number"].as_i64().unwrap();
    let ball = |n: i64| {
        let (status, b) = s.post(
            &device,
            &format!("/api/v1/games/{game}/balls"),
            json!({"number": n}),
        );
        assert_eq!(status, 201, "{b}");
    };
    for n in 11..=20 {
        ball(n);
    }
    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");

    // A number changed mid-draw: the game would settle on it.
    tamper(
        &db,
        &format!("UPDATE drawn_numbers SET number = 77 WHERE game = {game} AND position = 3"),
        &format!("game {game}: ball 3 is 77 as stored, 13 in the trail"),
        &format!("UPDATE drawn_numbers SET number = 13 WHERE game = {game} AND position = 3"),
    );
    // A ball removed.
    let drawn_at = db.query_i64(&format!(
        "SELECT drawn_at AS n FROM drawn_numbers WHERE game = {game} AND position = 10"
    ));
    let device_id = db.query_text(&format!(
        "SELECT entered_by AS s FROM drawn_numbers WHERE game = {game} AND position = 10"
    ));
    tamper(
        &db,
        &format!("DELETE FROM drawn_numbers WHERE game = {game} AND position = 10"),
        &format!("game {game}: 9 balls stand in the record, 10 in the trail"),
        &format!("INSERT INTO drawn_numbers (game, position, number, drawn_at, entered_by) VALUES ({game}, 10, 20, {drawn_at}, '{device_id}')"),
    );
    // A ticket backdated to before the trail began is checked all the same.
    let issued = db.query_i64(&format!(
        "SELECT issued_at AS n FROM tickets WHERE serial = '{t}'"
    ));
    tamper(
        &db,
        &format!("UPDATE tickets SET issued_at = 0 WHERE serial = '{t}'"),
        &format!("ticket {t} differs from the ticket sold"),
        &format!("UPDATE tickets SET issued_at = {issued} WHERE serial = '{t}'"),
    );
    // A ticket inserted, stamped before the trail: a copy of the 10-spot under a new serial.
    let forged = "99999999999999999999";
    db.execute(&format!(
        "CREATE TABLE forged AS SELECT * FROM tickets WHERE serial = '{t}'"
    ));
    db.execute(&format!(
        "UPDATE forged SET serial = '{forged}', issued_at = 0, ticket_number = ticket_number + 1000, request_id = 'forged'"
    ));
    tamper(
        &db,
        "INSERT INTO tickets SELECT * FROM forged",
        &format!("ticket {forged} has no sale in the audit trail"),
        &format!("DELETE FROM tickets WHERE serial = '{forged}'"),
    );
    // A supervisor of nobody's making, stamped at the epoch.
    tamper(
        &db,
        "INSERT INTO principals (id, role, name, token_hash, created_at, disabled, kind) \
         VALUES ('rogue', 'supervisor', 'ROGUE', 'feedface', 0, FALSE, 'token')",
        "principal rogue (supervisor ROGUE) differs from the one added",
        "DELETE FROM principals WHERE id = 'rogue'",
    );

    // The draw finished and settled; the next game invalidated; then the trail's tail cut back
    // to before the invalidation and its head moved back to match.
    for n in 21..=30 {
        ball(n);
    }
    s.wait_settled(game);
    let (status, inv) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{}/invalidate", game + 1),
        json!({"reason": "the blower stopped"}),
    );
    assert_eq!(status, 200, "{inv}");
    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    let cut = db.query_i64("SELECT seq AS n FROM audit_log WHERE kind = 'game_invalidated'");
    match db.backend {
        keno_testkit::Backend::Sqlite => db.execute("DROP TRIGGER audit_log_no_delete"),
        keno_testkit::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log")
        }
    };
    db.execute(&format!("DELETE FROM audit_log WHERE seq >= {cut}"));
    heads_moved_back(&db);
    let (code, text) = verify(&db);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "game {} is invalidated: its invalidation is absent in the trail",
            game + 1
        )),
        "{text}"
    );
}

/// `audit verify` with the server's public key and its checkpoint file.
fn verify_signed(db: &TestDb, public_key: &str, checkpoints: &std::path::Path) -> (i32, String) {
    let out = keno_testkit::audit(
        db,
        &[
            "verify",
            "--public-key",
            public_key,
            "--checkpoints",
            checkpoints.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    eprintln!("{text}");
    (out.status.code().unwrap_or(-1), text)
}

/// `audit verify-export DIR --public-key KEY`.
fn verify_export(dir: &std::path::Path, key: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args([
            "audit",
            "verify-export",
            dir.to_str().unwrap(),
            "--public-key",
            key,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text)
}

/// The lines of the checkpoint file once one in it covers the game settled last (made for
/// the settlement, or for anything else since).
fn checkpoint_lines(db: &TestDb, s: &keno_testkit::Server) -> Vec<String> {
    let settled = db.query_i64("SELECT MAX(seq) AS n FROM audit_log WHERE kind = 'game_settled'");
    let read = || std::fs::read_to_string(db.checkpoints()).unwrap_or_default();
    s.wait_for("a checkpoint of the settlement in the file", || {
        read().lines().last().is_some_and(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seq"].as_i64() >= Some(settled)
        })
    });
    read().lines().map(str::to_string).collect()
}

/// Issue 20: the server signs checkpoints of the trail with a key outside the database and
/// appends them to a file outside it. Against them, verify finds a checkpoint file with one
/// removed, another server's file, a whole chain rewritten consistently (which the chain alone
/// cannot show), and the trail's tail cut with its head moved back.
fn signed_checkpoints_prove_the_trail_against_a_rewrite_and_a_cut_tail(db: TestDb) {
    let mut w = world(&db, MANUAL_CLOCK);
    // The leader's first checkpoint, then a settlement's after it.
    w.server.wait_for("the first checkpoint", || {
        std::fs::read_to_string(db.checkpoints()).is_ok_and(|t| !t.is_empty())
    });
    for n in 1..=3 {
        w.server.sell(
            &w.writer,
            sale(
                &format!("c{n}"),
                json!({"type": "standard", "spots": [n, n + 10]}),
                "standard",
                100,
                1,
            ),
        );
    }
    w.server.close_and_settle(&w.supervisor);
    checkpoint_lines(&db, &w.server);
    w.server.stop();
    // Read once the server is gone: it signs within a second of any write (issue 33).
    let lines: Vec<String> = std::fs::read_to_string(db.checkpoints())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // The key file is the server's secret: readable by its owner only.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(db.audit_key())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let key = keno_testkit::audit_public_key(&db.audit_key());
    let (code, text) = verify_signed(&db, &key, &db.checkpoints());
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "{} checkpoints from the checkpoint file, each signature checked",
            lines.len()
        )),
        "{text}"
    );
    let stored = db.query_i64("SELECT COUNT(*) AS n FROM audit_checkpoints");
    assert_eq!(stored as usize, lines.len());
    // The daily report prints the day's last checkpoint.
    let last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("day.pdf");
    let day = last["keno_day"].as_str().unwrap();
    let out = keno_testkit::audit(
        &db,
        &["report", "--day", day, "--out", pdf.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = keno_testkit::pdf_text(&pdf);
    assert!(text.contains("11. THE AUDIT TRAIL'S CHECKPOINT"), "{text}");
    assert!(
        text.contains(&format!("Checkpoint {} (", last["n"])) && text.contains(&key),
        "{text}"
    );
    // The checkpoints are append-only in the database too.
    assert!(db
        .try_execute("UPDATE audit_checkpoints SET seq = 0")
        .is_err());
    assert!(db.try_execute("DELETE FROM audit_checkpoints").is_err());

    // A signed export: checked offline against its manifest.
    let export = dir.path().join("export");
    let out = keno_testkit::audit(
        &db,
        &[
            "export",
            "--from-day",
            day,
            "--out",
            export.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("signed"));
    let (code, text) = verify_export(&export, &key);
    assert_eq!(code, 0, "{text}");
    let tickets = export.join("tickets.csv");
    let original = std::fs::read(&tickets).unwrap();
    std::fs::write(&tickets, [&original[..], b"forged\n"].concat()).unwrap();
    std::fs::write(export.join("extra.csv"), "a,b\n").unwrap();
    let (code, text) = verify_export(&export, &key);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("tickets.csv: changed since it was exported"),
        "{text}"
    );
    assert!(
        text.contains("extra.csv: in the export but not in the manifest"),
        "{text}"
    );
    std::fs::write(&tickets, &original).unwrap();
    std::fs::remove_file(export.join("extra.csv")).unwrap();
    let (code, _) = verify_export(&export, &key);
    assert_eq!(code, 0);

    // Two instances given one file may both have caught it up: an identical repeat is one
    // checkpoint; the same number with other content is not.
    let twice = dir.path().join("twice.jsonl");
    let mut repeated = lines.clone();
    repeated.insert(1, lines[0].clone());
    std::fs::write(&twice, repeated.join("\n") + "\n").unwrap();
    let (code, text) = verify_signed(&db, &key, &twice);
    assert_eq!(code, 0, "{text}");
    let mut other_first: Value = serde_json::from_str(&lines[0]).unwrap();
    other_first["made_at"] = json!(0);
    repeated[1] = other_first.to_string();
    std::fs::write(&twice, repeated.join("\n") + "\n").unwrap();
    let (code, text) = verify_signed(&db, &key, &twice);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("checkpoint 1 appears twice in the checkpoint file with different content"),
        "{text}"
    );

    // Issue 32: a checkpoint whose signed heads do not read is a difference, never skipped.
    let unreadable = dir.path().join("unreadable.jsonl");
    let mut garbled = lines.clone();
    let mut last: Value = serde_json::from_str(garbled.last().unwrap()).unwrap();
    last["heads"] = json!("not heads");
    *garbled.last_mut().unwrap() = last.to_string();
    std::fs::write(&unreadable, garbled.join("\n") + "\n").unwrap();
    let (code, text) = verify_signed(&db, &key, &unreadable);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "checkpoint {} names the chains' heads in a form no server writes",
            last["n"]
        )),
        "{text}"
    );

    // A file read just before the server appended its newest checkpoint: not yet a
    // difference, said as such (the server appends right after the commit).
    let behind = dir.path().join("behind.jsonl");
    std::fs::write(&behind, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let (code, text) = verify_signed(&db, &key, &behind);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("1 checkpoint(s) made as the file was read, not in it yet"),
        "{text}"
    );

    // A checkpoint removed from the file.
    let short = dir.path().join("short.jsonl");
    std::fs::write(&short, lines[1..].join("\n") + "\n").unwrap();
    let (code, text) = verify_signed(&db, &key, &short);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("checkpoint 2 does not follow checkpoint 0"),
        "{text}"
    );
    assert!(
        text.contains("checkpoint 1 is in the database but not in the checkpoint file"),
        "{text}"
    );

    // Another server's key and checkpoint file.
    let other = TestDb::new(keno_testkit::Backend::Sqlite).unwrap();
    let ow = world(&other, MANUAL_CLOCK);
    ow.server.close_and_settle(&ow.supervisor);
    checkpoint_lines(&other, &ow.server);
    drop(ow);
    let (code, text) = verify_signed(&db, &key, &other.checkpoints());
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("checkpoint 1 is not signed by the public key given"),
        "{text}"
    );
    // A server never starts on another database's checkpoint file.
    let out = db
        .serve_command(&[])
        .env("KENO_CHECKPOINTS", other.checkpoints())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("holds another trail's checkpoints"), "{said}");
    let theirs = keno_testkit::audit_public_key(&other.audit_key());
    let (code, text) = verify_export(&export, &theirs);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("the manifest is not signed by the public key given"),
        "{text}"
    );
    let (code, text) = verify_signed(&db, &theirs, &db.checkpoints());
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("is not signed by the public key given"),
        "{text}"
    );

    // The whole chain rewritten consistently: an entry's time moved, every hash after it
    // recomputed, the head moved to match, the stored checkpoints removed. The database alone
    // cannot tell; the file outside it can.
    drop_trail_triggers(&db);
    db.execute("UPDATE audit_log SET recorded_at = recorded_at - 3600000000 WHERE seq = 2");
    rechain(&db);
    db.execute("DELETE FROM audit_checkpoints");
    let (code, text) = verify(&db);
    assert_eq!(
        code, 0,
        "the chain alone vouches for a consistent rewrite:\n{text}"
    );
    let (code, text) = verify_signed(&db, &key, &db.checkpoints());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("the trail was rewritten"), "{text}");

    // The tail cut behind the last checkpoint, and the head moved back.
    let signed_to = last["seq"].as_i64().unwrap();
    db.execute(&format!("DELETE FROM audit_log WHERE seq >= {signed_to}"));
    rechain(&db);
    let (code, text) = verify_signed(&db, &key, &db.checkpoints());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("entries were removed from the end"), "{text}");
}

/// What a writer with the database in hand does first.
fn drop_trail_triggers(db: &TestDb) {
    match db.backend {
        keno_testkit::Backend::Sqlite => {
            for trigger in [
                "audit_log_no_update",
                "audit_log_no_delete",
                "audit_checkpoints_no_update",
                "audit_checkpoints_no_delete",
            ] {
                db.execute(&format!("DROP TRIGGER {trigger}"));
            }
        }
        keno_testkit::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log");
            db.execute("DROP TRIGGER audit_checkpoints_no_change ON audit_checkpoints");
        }
    }
}

/// Each chain's head moved back to its last entry left: what a writer who cut the trail's
/// tail does to hide it.
fn heads_moved_back(db: &TestDb) {
    db.execute(&format!(
        "UPDATE audit_chains SET \
         seq = COALESCE((SELECT MAX(l.seq) FROM audit_log l WHERE l.chain = audit_chains.chain), 0), \
         hash = COALESCE((SELECT l.hash FROM audit_log l WHERE l.chain = audit_chains.chain \
                          ORDER BY l.seq DESC LIMIT 1), '{}')",
        "0".repeat(64)
    ));
}

/// Recomputes every entry's hash from the first, as the server chains them, all in chain 0,
/// and moves the heads to match: a rewrite the chains themselves cannot reveal.
fn rechain(db: &TestDb) {
    use sha2::{Digest, Sha256};
    let session = db.session();
    let last = session.i64("SELECT COALESCE(MAX(seq), 0) AS n FROM audit_log");
    let mut prev = "0".repeat(64);
    for seq in 1..=last {
        // Numbers taken by a transaction that rolled back are not in the trail.
        if session
            .try_text(&format!(
                "SELECT kind AS s FROM audit_log WHERE seq = {seq}"
            ))
            .is_err()
        {
            continue;
        }
        let text = |col: &str| {
            session.text(&format!(
                "SELECT {col} AS s FROM audit_log WHERE seq = {seq}"
            ))
        };
        let at = session.i64(&format!(
            "SELECT recorded_at AS n FROM audit_log WHERE seq = {seq}"
        ));
        let principal = session
            .try_text(&format!("SELECT principal_id AS s FROM audit_log WHERE seq = {seq} AND principal_id IS NOT NULL"))
            .unwrap_or_default();
        let mut h = Sha256::new();
        for part in [
            prev.clone(),
            seq.to_string(),
            at.to_string(),
            text("kind"),
            text("subject"),
            principal,
            text("payload"),
        ] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part.as_bytes());
        }
        let hash = hex::encode(h.finalize());
        session
            .execute(&format!(
                "UPDATE audit_log SET chain = 0, prev_hash = '{prev}', hash = '{hash}' WHERE seq = {seq}"
            ))
            .unwrap();
        prev = hash;
    }
    session
        .execute(&format!(
            "UPDATE audit_chains SET seq = {last}, hash = '{prev}' WHERE chain = 0"
        ))
        .unwrap();
    session
        .execute(&format!(
            "UPDATE audit_chains SET seq = 0, hash = '{}' WHERE chain <> 0",
            "0".repeat(64)
        ))
        .unwrap();
}

/// `audit verify --from-checkpoint N` with the server's key and checkpoint file.
fn verify_from(db: &TestDb, n: i64) -> (i32, String) {
    let key = keno_testkit::audit_public_key(&db.audit_key());
    let out = keno_testkit::audit(
        db,
        &[
            "verify",
            "--public-key",
            &key,
            "--checkpoints",
            db.checkpoints().to_str().unwrap(),
            "--from-checkpoint",
            &n.to_string(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

fn sell_ones(
    w: &keno_testkit::World,
    prefix: &str,
    spots: std::ops::RangeInclusive<u8>,
) -> Vec<String> {
    spots
        .map(|n| {
            let t = w.server.sell(
                &w.writer,
                sale(
                    &format!("{prefix}{n}"),
                    json!({"type": "standard", "spots": [n]}),
                    "standard",
                    100,
                    1,
                ),
            );
            t["serial"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Issue 33: a day's verify costs what the day added. From a checkpoint a full verify covered,
/// verify checks the entries after it, linked from the heads it signs, and the records they
/// name; it says what it takes as proved. A record changed since among the new ones is found;
/// one among the old is the full verify's to find, but a row added or removed anywhere shows in
/// the counts.
fn verify_from_a_checkpoint_checks_what_is_new_and_says_what_it_takes_as_proved(db: TestDb) {
    let mut w = world(&db, MANUAL_CLOCK);
    let old = sell_ones(&w, "old", 1..=30);
    w.server.close_and_settle(&w.supervisor);
    let (status, v) = w.server.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "deposit", "amount_cents": 2000}),
    );
    assert_eq!(status, 201, "{v}");
    let voucher = v["code"].as_str().unwrap().to_string();
    // Stopped, the server signs a last checkpoint: the one the full verify covers.
    assert!(w.server.terminate());
    let n = db.query_i64("SELECT MAX(n) AS n FROM audit_checkpoints");
    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");

    w.server = keno_testkit::Server::start(&db, MANUAL_CLOCK);
    let new = sell_ones(&w, "new", 41..=45);
    // The voucher issued before the checkpoint, spent after it: summed from its issue.
    tendered(&w, &voucher);
    w.server.close_and_settle(&w.supervisor);
    assert!(w.server.terminate());

    let (code, text) = verify_from(&db, n);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("entries after checkpoint {n} in")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "taken as proved by the full verify that covered checkpoint {n}"
        )),
        "{text}"
    );
    // The six tickets sold since, not the thirty before; the voucher spent since.
    assert!(
        text.contains("checked: 6 tickets against their sale"),
        "{text}"
    );
    assert!(text.contains("checked: 1 vouchers against"), "{text}");
    assert!(
        text.contains("1 settled games, each settled again"),
        "{text}"
    );

    // A new ticket changed: found from the checkpoint.
    change_total(&db, &new[0], 100);
    let (code, text) = verify_from(&db, n);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("ticket {} differs from the ticket sold", new[0])),
        "{text}"
    );
    change_total(&db, &new[0], -100);

    // An old ticket changed: taken as proved from the checkpoint, found by the full verify.
    change_total(&db, &old[0], 100);
    assert_eq!(verify_from(&db, n).0, 0);
    let (code, text) = verify(&db);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("ticket {} differs from the ticket sold", old[0])),
        "{text}"
    );
    change_total(&db, &old[0], -100);

    // A checkpoint the database does not hold is refused.
    let (code, text) = verify_from(&db, n + 1000);
    assert_ne!(code, 0, "{text}");

    // An entry after the checkpoint changed: the chain breaks from its signed heads.
    drop_trail_triggers(&db);
    let after = db.query_i64(&format!(
        "SELECT MIN(seq) AS n FROM audit_log WHERE kind = 'ticket_sold' AND subject = '{}'",
        new[1]
    ));
    db.execute(&format!(
        "UPDATE audit_log SET principal_id = 'someone else' WHERE seq = {after}"
    ));
    let (code, text) = verify_from(&db, n);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains(&format!("breaks at entry {after}")), "{text}");

    // An old ticket removed: the counts show it, and the sale that names it.
    db.execute(&format!("DELETE FROM tickets WHERE serial = '{}'", old[1]));
    let (code, text) = verify_from(&db, n);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("a ticket was added or removed"), "{text}");
    assert!(
        text.contains(&format!("ticket {}, which is not in the", old[1])),
        "{text}"
    );
}

/// A $3 ticket on 9, paid with `voucher`.
fn tendered(w: &keno_testkit::World, voucher: &str) {
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
}

/// Ticket `serial`'s stored total moved by `cents`, behind the server's back.
fn change_total(db: &TestDb, serial: &str, cents: i64) {
    let sql = format!(
        "UPDATE tickets SET total_cents = total_cents + ({cents}) WHERE serial = '{serial}'"
    );
    assert_eq!(db.execute(&sql), 1);
}
