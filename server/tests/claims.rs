//! Unclaimed prizes (rules 13, 14; Diagram E) end to end on SQLite and PostgreSQL: a prize
//! older than 12 months is refused at the terminal and paid by a claim an inspector approved,
//! by cheque, once; a rejected claim; a claim racing a terminal payment; prizes unclaimed for
//! 12 months moved to a jackpot pool and still recoverable by claim.

use std::process::Command;

use keno_testkit::{on_both_backends, sale, world, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    rule_13_1_an_old_prize_is_paid_only_through_an_approved_claim,
    a_claim_is_rejected_with_a_reason_and_bad_forms_change_nothing,
    a_claim_payment_racing_a_terminal_payment_pays_once,
    rule_13_2_unclaimed_prizes_move_to_a_jackpot_and_stay_claimable,
    rule_13_2_prizes_move_by_keno_day_exactly_when_a_terminal_stops_paying_them,
    rule_13_2_moves_prizes_only_never_the_refund_of_an_invalidated_game,
    rule_13_2_moves_the_prizes_of_a_day_whose_last_game_was_invalidated,
    rule_13_2_the_bonus_fund_is_a_balance_that_funded_bonus_prizes_draw_on,
    a_claim_finds_its_ticket_from_what_the_player_can_tell,
);

struct Played {
    w: World,
    inspector: String,
    game: i64,
    keno_day: String,
    /// Winning tickets, unpaid, with what each is owed.
    winners: Vec<(String, i64)>,
}

/// Forty 1-spot tickets on 1..=40 in one settled game: a draw misses all forty about once in
/// 25 million, so some win.
fn played(db: &TestDb) -> Played {
    let w = world(db, MANUAL_CLOCK);
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let serials: Vec<String> = (1..=40)
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
            )["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let settled = w.server.close_and_settle(&w.supervisor);
    let winners: Vec<(String, i64)> = serials
        .into_iter()
        .filter_map(|s| {
            let owed = w
                .server
                .get_as(&w.writer, &format!("/api/v1/tickets/{s}"))
                .1["payable_cents"]
                .as_i64()
                .unwrap();
            (owed > 0).then_some((s, owed))
        })
        .collect();
    assert!(
        !winners.is_empty(),
        "a draw misses all of 1..=40 once in 25 million"
    );
    Played {
        w,
        inspector,
        game: settled["number"].as_i64().unwrap(),
        keno_day: settled["keno_day"].as_str().unwrap().to_string(),
        winners,
    }
}

fn claim_form(p: &Played, reason: &str, serial: Option<&str>) -> Value {
    let mut form = json!({
        "reason": reason,
        "claimant_name": "Mary Citizen",
        "postal_address": "1 Example St\nCanberra ACT 2601",
        "phone": "02 6200 0000",
        "purchase_place": "735624",
        "purchase_date": p.keno_day,
        "approx_game": p.game,
        "games": 1,
        "other_details": "1 spot, $1",
    });
    if let Some(s) = serial {
        form["serial"] = json!(s);
    }
    form
}

/// Moves the played game `months` back in time, as if it had been drawn then.
fn age(db: &TestDb, game: i64, keno_day: &str) {
    let micros_13_months: i64 = 400 * 86_400 * 1_000_000;
    db.execute(&format!(
        "UPDATE games SET keno_day = '{keno_day}', settled_at = settled_at - {micros_13_months} \
         WHERE number = {game}"
    ));
}

/// `audit verify` finds nothing but the games [`age`] moved back: that is a change behind the
/// server's back too, and verify must say so (issue 20), never anything else.
fn verified_but_for_aging(db: &TestDb, aged: &[i64]) {
    let out = keno_testkit::audit(db, &["verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let differences: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("DIFFERENCE: "))
        .collect();
    let expected: Vec<String> = aged
        .iter()
        .map(|g| format!("game {g} differs from the game opened"))
        .collect();
    assert_eq!(differences, expected, "{text}");
}

fn year_and_a_month_before(day: &str) -> String {
    let d = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
    (d - chrono::Months::new(13)).format("%Y-%m-%d").to_string()
}

/// The ticket's view and its public check show no prize payable at a terminal, and why.
fn assert_not_payable_at_a_terminal(s: &keno_testkit::Server, writer: &str, serial: &str) {
    let (_, d) = s.get_as(writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(
        (d["payable_cents"].as_u64(), d["not_payable"].as_str()),
        (Some(0), Some("claim_required")),
        "{d}"
    );
    assert_eq!(d["cheque"], false);
    let (_, c) = s.get(&format!("/api/v1/tickets/{serial}/check"));
    assert_eq!(
        (c["payable_cents"].as_u64(), c["not_payable"].as_str()),
        (Some(0), Some("claim_required")),
        "{c}"
    );
}

/// The Keno Day the server counts in today, as it stamps a voucher issued now.
fn server_today(p: &Played) -> keno_core::KenoDay {
    let (status, v) = p.w.server.post(
        &p.w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "what-day-is-it", "amount_cents": 100}),
    );
    assert!(status == 200 || status == 201, "{v}");
    v["keno_day"].as_str().unwrap().parse().unwrap()
}

fn rule_13_1_an_old_prize_is_paid_only_through_an_approved_claim(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    let (winner, owed) = p.winners[0].clone();
    // Within 12 months the terminal pays; 13 months on it directs the player to a claim.
    age(&db, p.game, &year_and_a_month_before(&p.keno_day));
    let (status, e) = s.post(
        &p.w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );
    // The ticket's view and the public check agree with the pay: nothing payable, and why.
    assert_not_payable_at_a_terminal(s, &p.w.writer, &winner);
    // Nor may it be tendered for new tickets or turned into a voucher.
    let mut tendered = sale(
        "tender-old",
        json!({"type": "standard", "spots": [5]}),
        "standard",
        100,
        1,
    );
    tendered["tender"] = json!({ "ticket": winner });
    let (status, e) = s.post(&p.w.writer, "/api/v1/tickets", tendered);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );
    let (status, e) = s.post(
        &p.w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "v-old", "ticket": winner}),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );

    // The claim is filed from what the player remembers; the ticket is among the candidates.
    let mut form = claim_form(&p, "old", None);
    form["purchase_date"] = json!(p.keno_day);
    let (status, claim) = s.post(&p.w.writer, "/api/v1/claims", form);
    assert_eq!(status, 201, "{claim}");
    assert_eq!(claim["state"], "submitted");
    let id = claim["id"].as_i64().unwrap();
    // The counter sees each matching ticket's serial masked but for its last four digits: a
    // serial is what a terminal pays, so the serials of unpaid tickets go to the inspector.
    let masked = format!(
        "{}{}",
        "*".repeat(winner.len() - 4),
        &winner[winner.len() - 4..]
    );
    let candidate = claim["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["serial"] == masked.as_str())
        .unwrap_or_else(|| panic!("{masked} among {claim}"));
    assert_eq!(candidate["owed_cents"], owed);
    assert!(
        !claim.to_string().contains(winner.as_str()),
        "no full serial to a writer: {claim}"
    );
    let (status, as_writer) = s.get_as(&p.w.writer, &format!("/api/v1/claims/{id}"));
    assert_eq!(status, 200, "{as_writer}");
    assert!(!as_writer.to_string().contains(winner.as_str()));
    let (_, as_inspector) = s.get_as(&p.inspector, &format!("/api/v1/claims/{id}"));
    assert!(
        as_inspector["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["serial"] == winner.as_str()),
        "{as_inspector}"
    );
    // A writer at another site sees neither the claim (the player's name, address and phone)
    // nor its form.
    let elsewhere = db.principal("writer", "OTHER", Some(("999999", "01")));
    let (status, e) = s.get_as(&elsewhere, &format!("/api/v1/claims/{id}"));
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("forbidden")),
        "{e}"
    );
    assert_eq!(
        s.get_as(&elsewhere, &format!("/api/v1/claims/{id}/form.pdf"))
            .0,
        403
    );

    // Only an inspector decides; only a supervisor pays; by cheque, once.
    let approve = json!({ "serial": winner, "reason": "details match the ticket's record" });
    let path = format!("/api/v1/claims/{id}/approve");
    assert_eq!(s.post(&p.w.writer, &path, approve.clone()).0, 403);
    assert_eq!(s.post(&p.w.supervisor, &path, approve.clone()).0, 403);
    let (status, approved) = s.post(&p.inspector, &path, approve.clone());
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["state"], "approved");
    assert_eq!(approved["ticket_serial"], winner.as_str());
    let (_, as_writer) = s.get_as(&p.w.writer, &format!("/api/v1/claims/{id}"));
    assert_eq!(as_writer["ticket_serial"], masked.as_str());
    let (status, e) = s.post(&p.inspector, &path, approve);
    assert_eq!((status, e["error"].as_str()), (409, Some("claim_decided")));
    let pay = format!("/api/v1/claims/{id}/pay");
    let cheque = json!({ "cheque_reference": "CHQ-000123" });
    assert_eq!(s.post(&p.w.writer, &pay, cheque.clone()).0, 403);
    let (status, paid) = s.post(&p.w.supervisor, &pay, cheque.clone());
    assert_eq!(status, 200, "{paid}");
    assert_eq!(
        (paid["state"].as_str(), paid["paid_cents"].as_i64()),
        (Some("paid"), Some(owed))
    );
    let (status, e) = s.post(&p.w.supervisor, &pay, cheque);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_not_approved"))
    );
    // The claim is looked at before the ticket: a paid claim is decided (not "already paid"),
    // and a claim that does not exist is not found (found by scripts/hostile-input).
    let approve = json!({ "serial": winner, "reason": "details match the ticket's record" });
    let (status, e) = s.post(&p.inspector, &path, approve.clone());
    assert_eq!((status, e["error"].as_str()), (409, Some("claim_decided")));
    let (status, e) = s.post(&p.inspector, "/api/v1/claims/999999/approve", approve);
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    let (_, t) = s.get_as(&p.w.writer, &format!("/api/v1/tickets/{winner}"));
    assert_eq!(
        (t["status"].as_str(), t["paid_cents"].as_i64()),
        (Some("paid"), Some(owed))
    );
    assert_eq!(
        db.query_text(&format!(
            "SELECT pay_method AS s FROM tickets WHERE serial = '{winner}'"
        )),
        "claim_cheque"
    );
    let (status, e) = s.post(
        &p.w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));

    // The printable form (Diagram E), read back from the PDF.
    let pdf = ureq::get(format!("{}/api/v1/claims/{id}/form.pdf", s.base))
        .header("Authorization", format!("Bearer {}", p.inspector))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    assert!(pdf.starts_with(b"%PDF"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("claim.pdf");
    std::fs::write(&file, &pdf).unwrap();
    let text = Command::new("pdftotext")
        .args([file.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils, installed by .ci/run)");
    let text = String::from_utf8_lossy(&text.stdout);
    for expected in [
        "UNCLAIMED PRIZE CLAIM FORM",
        "Mary Citizen",
        "Canberra ACT 2601",
        &winner,
        "CHQ-000123",
    ] {
        assert!(text.contains(expected), "{expected:?} in\n{text}");
    }
    // The day's exceptions show the inspector's decision and the cheque, with who and why.
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "exceptions", "--json", "--day", &p.keno_day])
        .args(["--database-url", &db.url, "--keno-day-start", "00:00"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<(&str, &str)> = found["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["what"].as_str().unwrap()))
        .collect();
    assert!(
        kinds
            .iter()
            .any(|(k, w)| *k == "claim_decision" && w.contains("approved")),
        "{found:#}"
    );
    assert!(
        kinds
            .iter()
            .any(|(k, w)| *k == "claim_payment" && w.contains("CHQ-000123")),
        "{found:#}"
    );
    // The audit trail holds the claim's steps and verifies.
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind LIKE 'claim_%' AND subject = '{id}'"
        )),
        3
    );
    verified_but_for_aging(&db, &[p.game]);
}

fn a_claim_is_rejected_with_a_reason_and_bad_forms_change_nothing(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    let bad = [
        json!({"reason": "old"}),
        {
            let mut f = claim_form(&p, "lost", None);
            f["claimant_name"] = json!("  ");
            f
        },
        {
            let mut f = claim_form(&p, "lost", None);
            f["purchase_date"] = json!("last Tuesday");
            f
        },
        {
            let mut f = claim_form(&p, "stolen", None);
            f["games"] = json!(1);
            f
        },
        {
            let mut f = claim_form(&p, "lost", None);
            f["games"] = json!(0);
            f
        },
    ];
    for form in bad {
        let (status, e) = s.post(&p.w.writer, "/api/v1/claims", form.clone());
        assert_eq!(status, 400, "{form}: {e}");
    }
    assert_eq!(
        s.post(&p.inspector, "/api/v1/claims", claim_form(&p, "lost", None))
            .0,
        403
    );
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM claims"), 0);

    let (winner, _) = p.winners[0].clone();
    let (status, claim) = s.post(
        &p.w.supervisor,
        "/api/v1/claims",
        claim_form(&p, "mutilated", Some(&winner)),
    );
    assert_eq!(status, 201, "{claim}");
    assert_eq!(
        claim["candidates"].as_array().unwrap().len(),
        1,
        "the serial given"
    );
    let id = claim["id"].as_i64().unwrap();
    let (status, e) = s.post(
        &p.inspector,
        &format!("/api/v1/claims/{id}/reject"),
        json!({"reason": " "}),
    );
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_reason")));
    let (status, rejected) = s.post(
        &p.inspector,
        &format!("/api/v1/claims/{id}/reject"),
        json!({"reason": "the ticket is in the player's hand and readable: pay it at a terminal"}),
    );
    assert_eq!(status, 200, "{rejected}");
    assert_eq!(rejected["state"], "rejected");
    assert!(rejected["decision_reason"]
        .as_str()
        .unwrap()
        .contains("readable"));
    let (status, e) = s.post(
        &p.inspector,
        &format!("/api/v1/claims/{id}/approve"),
        json!({"serial": winner, "reason": "changed my mind"}),
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("claim_decided")));
    let (_, listed) = s.get_as(&p.inspector, "/api/v1/claims?state=rejected");
    assert_eq!(listed.as_array().unwrap().len(), 1);
    // The ticket itself is still payable at a terminal.
    let (status, paid) = s.post(
        &p.w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(status, 200, "{paid}");
}

fn a_claim_payment_racing_a_terminal_payment_pays_once(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    for (winner, owed) in &p.winners {
        let (status, claim) = s.post(
            &p.w.writer,
            "/api/v1/claims",
            claim_form(&p, "lost", Some(winner)),
        );
        assert_eq!(status, 201, "{claim}");
        let id = claim["id"].as_i64().unwrap();
        let (status, _) = s.post(
            &p.inspector,
            &format!("/api/v1/claims/{id}/approve"),
            json!({"serial": winner, "reason": "matches"}),
        );
        assert_eq!(status, 200);
        // The lost ticket turns up at a terminal while the cheque is being written.
        let (by_claim, at_terminal) = std::thread::scope(|scope| {
            let c = scope.spawn(|| {
                s.post(
                    &p.w.supervisor,
                    &format!("/api/v1/claims/{id}/pay"),
                    json!({"cheque_reference": format!("CHQ-{id}")}),
                )
            });
            let t = scope.spawn(|| {
                s.post(
                    &p.w.writer,
                    &format!("/api/v1/tickets/{winner}/pay"),
                    Value::Null,
                )
            });
            (c.join().unwrap(), t.join().unwrap())
        });
        let wins = [by_claim.0, at_terminal.0]
            .iter()
            .filter(|s| **s == 200)
            .count();
        assert_eq!(wins, 1, "claim {by_claim:?}, terminal {at_terminal:?}");
        let loser = if by_claim.0 == 200 {
            &at_terminal
        } else {
            &by_claim
        };
        assert_eq!(
            (loser.0, loser.1["error"].as_str()),
            (409, Some("already_paid")),
            "{loser:?}"
        );
        assert_eq!(
            db.query_i64(&format!(
                "SELECT paid_cents AS n FROM tickets WHERE serial = '{winner}'"
            )),
            *owed
        );
        assert_eq!(
            db.query_i64(&format!(
                "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'ticket_paid' AND subject = '{winner}'"
            )),
            1,
            "one payment recorded"
        );
        let claim_state = db.query_text(&format!("SELECT state AS s FROM claims WHERE id = {id}"));
        assert_eq!(claim_state == "paid", by_claim.0 == 200);
    }
}

fn rule_13_2_unclaimed_prizes_move_to_a_jackpot_and_stay_claimable(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    let owed_total: i64 = p.winners.iter().map(|(_, o)| o).sum();
    // Not yet 12 months: nothing to move.
    let body = json!({"destination": "jackpot_6", "reason": "CSA approval 2027/14"});
    let (status, e) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body.clone());
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("nothing_to_move")),
        "{e}"
    );
    let (status, _) = s.post(
        &p.w.supervisor,
        "/api/v1/unclaimed/movements",
        json!({"destination": "jackpot_7", "reason": "x"}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        s.post(&p.w.writer, "/api/v1/unclaimed/movements", body.clone())
            .0,
        403
    );

    age(&db, p.game, &year_and_a_month_before(&p.keno_day));
    let pool_before = pool(s, 6);
    let (status, moved) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body.clone());
    assert_eq!(status, 201, "{moved}");
    assert_eq!(moved["tickets"].as_u64(), Some(p.winners.len() as u64));
    assert_eq!(moved["total_cents"], owed_total);
    assert_eq!(
        pool(s, 6),
        pool_before + owed_total,
        "the displayed pool includes it"
    );
    // A prize moves once.
    let (status, e) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("nothing_to_move"))
    );

    // Still recoverable by claim (13.4).
    let (winner, owed) = p.winners[0].clone();
    let (_, claim) = s.post(
        &p.w.writer,
        "/api/v1/claims",
        claim_form(&p, "old", Some(&winner)),
    );
    let id = claim["id"].as_i64().unwrap();
    assert_eq!(
        s.post(
            &p.inspector,
            &format!("/api/v1/claims/{id}/approve"),
            json!({"serial": winner, "reason": "ok"})
        )
        .0,
        200
    );
    assert_eq!(
        s.post(
            &p.w.supervisor,
            &format!("/api/v1/claims/{id}/pay"),
            json!({"cheque_reference": "CHQ-9"})
        )
        .0,
        200
    );
    let (_, all) = s.get_as(&p.inspector, "/api/v1/unclaimed/movements");
    assert_eq!(all[0]["recovered_by_claim_cents"], owed);

    // The next game settled carries the addition into the 6-spot pool.
    let next = s.close_and_settle(&p.w.supervisor)["number"]
        .as_i64()
        .unwrap();
    let carried_in = db.query_i64(&format!(
        "SELECT carried_in_cents AS n FROM jackpot_pools WHERE game = {next} AND spots = 6"
    ));
    assert_eq!(carried_in, pool_before + owed_total);
    verified_but_for_aging(&db, &[p.game]);
}

fn rule_13_2_prizes_move_by_keno_day_exactly_when_a_terminal_stops_paying_them(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    let (winner, owed) = p.winners[0].clone();
    let today = server_today(&p);
    // The latest Keno Day whose prizes are unclaimed for twelve months today (rule 13.2): its
    // terminal deadline (rule 13.1) was yesterday. The game is moved back by its Keno Day
    // alone; when it settled stays as it was (minutes ago).
    let old = keno_core::unclaimed_before(today).unwrap();
    let just_in_time = old.next_day().unwrap();
    assert_eq!(keno_core::terminal_deadline(just_in_time), today);
    let set_day = |day: keno_core::KenoDay| {
        db.execute(&format!(
            "UPDATE games SET keno_day = '{day}' WHERE number = {}",
            p.game
        ))
    };
    let body = json!({"destination": "bonus_fund", "reason": "CSA approval 2027/15"});

    // Its last day at a terminal: payable there, so not unclaimed.
    set_day(just_in_time);
    let (_, d) = s.get_as(&p.w.writer, &format!("/api/v1/tickets/{winner}"));
    assert_eq!(
        (d["payable_cents"].as_i64(), d["not_payable"].as_str()),
        (Some(owed), None),
        "{d}"
    );
    let (status, e) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body.clone());
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("nothing_to_move")),
        "{e}"
    );

    // A Keno Day earlier: the terminal refuses it, the view says so, and it moves.
    set_day(old);
    let (status, e) = s.post(
        &p.w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("claim_required")),
        "{e}"
    );
    assert_not_payable_at_a_terminal(s, &p.w.writer, &winner);
    let (status, moved) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body);
    assert_eq!(status, 201, "{moved}");
    assert_eq!(moved["tickets"].as_u64(), Some(p.winners.len() as u64));
    let owed_total: i64 = p.winners.iter().map(|(_, o)| o).sum();
    assert_eq!(moved["total_cents"], owed_total);
}

fn pool(s: &keno_testkit::Server, spots: u64) -> i64 {
    s.get("/api/v1/jackpots")
        .1
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["spots"].as_u64() == Some(spots))
        .unwrap()["pool_cents"]
        .as_i64()
        .unwrap()
}

/// Rule 13.2 as decided (only prizes are unclaimed prizes): two-game tickets whose first game is
/// invalidated (rule 17.3) owe their holders that game's refund and whatever the second game
/// won. Twelve months on, the movement takes the prizes only; a ticket that won nothing keeps its
/// refund, paid by claim (13.5). The first build moved the refunds with the prizes.
fn rule_13_2_moves_prizes_only_never_the_refund_of_an_invalidated_game(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let serials: Vec<String> = (1..=40)
        .map(|n| {
            let bet = json!({"type": "standard", "spots": [n]});
            s.sell(&w.writer, sale(&format!("t{n}"), bet, "standard", 100, 2))["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let first = s.get("/api/v1/games/current").1["number"].as_i64().unwrap();
    let (status, inv) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{first}/invalidate"),
        json!({"reason": "fire alarm, room cleared"}),
    );
    assert_eq!(status, 200, "{inv}");
    let settled = s.close_and_settle(&w.supervisor);
    assert_eq!(settled["number"], first + 1);
    // Each ticket is owed its first game's share of the $2 it paid back, and its prize.
    let owed: Vec<(String, i64)> = serials
        .iter()
        .map(|serial| {
            let (_, t) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
            (serial.clone(), t["payable_cents"].as_i64().unwrap() - 100)
        })
        .collect();
    assert!(owed.iter().all(|(_, prize)| *prize >= 0));
    let prizes: i64 = owed.iter().map(|(_, p)| p).sum();
    let winners = owed.iter().filter(|(_, p)| *p > 0).count();
    assert!(winners > 0 && winners < 40, "{winners} of 40 won");

    let day = year_and_a_month_before(settled["keno_day"].as_str().unwrap());
    age(&db, first, &day);
    age(&db, first + 1, &day);
    let body = json!({"destination": "jackpot_6", "reason": "CSA approval 2027/15"});
    let (status, moved) = s.post(&w.supervisor, "/api/v1/unclaimed/movements", body);
    assert_eq!(status, 201, "{moved}");
    assert_eq!(moved["total_cents"].as_i64(), Some(prizes), "{moved}");
    assert_eq!(moved["tickets"].as_u64(), Some(winners as u64), "{moved}");

    // A ticket that won nothing still holds its refund: by claim now, by cheque, once.
    let (loser, _) = owed.iter().find(|(_, p)| *p == 0).unwrap();
    assert_not_payable_at_a_terminal(s, &w.writer, loser);
    let form = json!({
        "reason": "old", "claimant_name": "Mary Citizen",
        "postal_address": "1 Example St", "phone": "02 6200 0000",
        "purchase_place": "735624", "purchase_date": day, "games": 2,
        "other_details": "1 spot, $1, two games", "serial": loser,
    });
    let (status, claim) = s.post(&w.writer, "/api/v1/claims", form);
    assert_eq!(status, 201, "{claim}");
    let id = claim["id"].as_i64().unwrap();
    let (status, _) = s.post(
        &inspector,
        &format!("/api/v1/claims/{id}/approve"),
        json!({"serial": loser, "reason": "refund of game {first}"}),
    );
    assert_eq!(status, 200);
    let (status, paid) = s.post(
        &w.supervisor,
        &format!("/api/v1/claims/{id}/pay"),
        json!({"cheque_reference": "CHQ-10"}),
    );
    assert_eq!(
        (status, paid["paid_cents"].as_i64()),
        (200, Some(100)),
        "{paid}"
    );
    verified_but_for_aging(&db, &[first, first + 1]);
}

/// Rule 13.2 as decided (the bonus fund): prizes moved "to fund bonus prizes" become a balance;
/// a bonus prize marked as funded by it draws on it when a game paying it settles, never below
/// 0; each movement is in the audit trail, which `audit verify` compares. The first build only
/// labelled the movement: there was no fund to show (`GET /api/v1/bonus-fund` was a 404).
fn rule_13_2_the_bonus_fund_is_a_balance_that_funded_bonus_prizes_draw_on(db: TestDb) {
    let p = played(&db);
    let s = &p.w.server;
    let owed_total: i64 = p.winners.iter().map(|(_, o)| o).sum();
    age(&db, p.game, &year_and_a_month_before(&p.keno_day));
    let body = json!({"destination": "bonus_fund", "reason": "CSA approval 2027/16"});
    let (status, moved) = s.post(&p.w.supervisor, "/api/v1/unclaimed/movements", body);
    assert_eq!(status, 201, "{moved}");
    assert_eq!(s.get_as(&p.w.writer, "/api/v1/bonus-fund").0, 403);
    let (status, fund) = s.get_as(&p.inspector, "/api/v1/bonus-fund");
    assert_eq!(status, 200, "{fund}");
    assert_eq!(fund["balance_cents"], owed_total, "{fund}");
    assert_eq!(fund["movements"][0]["unclaimed_movement"], moved["id"]);

    // A bonus the fund pays: $5 for a 1-spot catching its number, every game.
    let bonus = json!({
        "name": "Fund One", "bet_type": "standard", "spots": 1, "catch": 1,
        "prize_cents": 500, "min_amount_per_way_cents": 100, "every_nth_game": 1,
        "funded_by_bonus_fund": true,
    });
    let (status, created) = s.post(&p.w.supervisor, "/api/v1/bonus-prizes", bonus);
    assert_eq!(
        (status, created["funded_by_bonus_fund"].as_bool()),
        (201, Some(true)),
        "{created}"
    );
    let id = created["id"].as_i64().unwrap();
    let (status, _) = s.post(
        &p.inspector,
        &format!("/api/v1/bonus-prizes/{id}/approve"),
        json!({"reference": "CSA 2027/17"}),
    );
    assert_eq!(status, 200);
    s.close_and_settle(&p.w.supervisor);
    for n in 1..=40 {
        let bet = json!({"type": "standard", "spots": [n]});
        s.sell(&p.w.writer, sale(&format!("f{n}"), bet, "standard", 100, 1));
    }
    let settled = s.close_and_settle(&p.w.supervisor);
    let caught = settled["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.as_i64().unwrap() <= 40)
        .count() as i64;
    let drawn_out = (caught * 500).min(owed_total);
    let (_, fund) = s.get_as(&p.inspector, "/api/v1/bonus-fund");
    assert_eq!(fund["balance_cents"], owed_total - drawn_out, "{fund}");
    if drawn_out > 0 {
        let last = fund["movements"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(
            (last["cents"].as_i64(), &last["game"]),
            (Some(-drawn_out), &settled["number"]),
            "{fund}"
        );
    }
    // The fund's movements in the auditors' export and the daily report.
    let day = chrono::Local::now().format("%Y-%m-%d").to_string();
    let dir = tempfile::tempdir().unwrap();
    let audit = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--keno-day-start", "00:00"]);
        let out = keno_testkit::audit(&db, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let csv_dir = dir.path().join("csv");
    audit(&[
        "export",
        "--from-day",
        &day,
        "--to-day",
        &day,
        "--out",
        csv_dir.to_str().unwrap(),
    ]);
    let exported = std::fs::read_to_string(csv_dir.join("bonus_fund.csv")).unwrap();
    assert!(
        exported.contains(&format!(",{owed_total},{owed_total},")),
        "{exported}"
    );
    let pdf = dir.path().join("daily.pdf");
    audit(&["report", "--day", &day, "--out", pdf.to_str().unwrap()]);
    let text = keno_testkit::pdf_text(&pdf);
    assert!(text.contains("BONUS FUND"), "{text}");
    let verify = || keno_testkit::audit(&db, &["verify"]);
    verified_but_for_aging(&db, &[p.game]);
    // A movement changed behind the server's back is found.
    db.execute("UPDATE bonus_fund_movements SET cents = cents + 100 WHERE id = 1");
    let out = verify();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && text.contains("bonus fund movement 1"),
        "{text}"
    );
}

/// Rule 13.2 with rule 17.3: two-game tickets won in the first game of a Keno Day whose last
/// game (their second) was invalidated. Twelve months on, the terminal refuses them
/// (`claim_required`) and the movement takes their prizes: never both payable and moved, never
/// neither. The first build skipped them, as the day's last game was not a settled one.
fn rule_13_2_moves_the_prizes_of_a_day_whose_last_game_was_invalidated(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let serials: Vec<String> = (1..=40)
        .map(|n| {
            let bet = json!({"type": "standard", "spots": [n]});
            s.sell(&w.writer, sale(&format!("t{n}"), bet, "standard", 100, 2))["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let settled = s.close_and_settle(&w.supervisor);
    let first = settled["number"].as_i64().unwrap();
    let (status, inv) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{}/invalidate", first + 1),
        json!({"reason": "fire alarm, room cleared"}),
    );
    assert_eq!(status, 200, "{inv}");
    // Each ticket is owed its second game's share of the $2 back, and its first game's prize.
    let prizes: Vec<(String, i64)> = serials
        .iter()
        .map(|serial| {
            let (_, t) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
            (serial.clone(), t["payable_cents"].as_i64().unwrap() - 100)
        })
        .filter(|(_, prize)| *prize > 0)
        .collect();
    assert!(!prizes.is_empty());
    let day = year_and_a_month_before(settled["keno_day"].as_str().unwrap());
    age(&db, first, &day);
    age(&db, first + 1, &day);
    let (winner, _) = &prizes[0];
    assert_not_payable_at_a_terminal(s, &w.writer, winner);
    let body = json!({"destination": "jackpot_6", "reason": "CSA approval 2027/15"});
    let (status, moved) = s.post(&w.supervisor, "/api/v1/unclaimed/movements", body);
    assert_eq!(status, 201, "{moved}");
    let total: i64 = prizes.iter().map(|(_, p)| p).sum();
    assert_eq!(moved["total_cents"].as_i64(), Some(total), "{moved}");
    assert_eq!(
        moved["tickets"].as_u64(),
        Some(prizes.len() as u64),
        "{moved}"
    );
}

/// Issue 34 (8): a player who lost a ticket knows the venue by its name, not its site number,
/// and may remember some of the numbers and what it cost. The claim finds the ticket from
/// those, best matched first, and says how each candidate matched; a place that names nothing
/// here is said to, and the ticket is still found from the rest.
fn a_claim_finds_its_ticket_from_what_the_player_can_tell(db: TestDb) {
    let db = &db;
    let w = world(db, MANUAL_CLOCK);
    let s = &w.server;
    // The site's venue, by the name players know (another terminal of the same site).
    let (status, registered) = s.post(
        &w.supervisor,
        "/api/v1/terminals",
        json!({"site": "735624", "terminal": "09", "venue": "Civic Club", "reason": "the bar's counter"}),
    );
    assert_eq!(status, 201, "{registered}");
    let sell = |id: &str, spots: &[u8], cents: u64| {
        s.sell(
            &w.writer,
            sale(
                id,
                json!({"type": "standard", "spots": spots}),
                "standard",
                cents,
                1,
            ),
        )
    };
    let lost = sell("lost", &[3, 17, 42, 55, 60, 71], 1000);
    let half = sell("half", &[3, 17, 42], 500);
    let other = sell("other", &[1, 2, 3, 4], 200);
    let day = lost["keno_day"].as_str().unwrap().to_string();
    let form = |place: &str| {
        json!({
            "reason": "lost", "claimant_name": "Mary Citizen", "postal_address": "1 Example St",
            "phone": "02 6200 0000", "purchase_place": place, "purchase_date": day,
            "numbers": [3, 17, 42, 55, 60, 9], "amount_cents": 1000,
        })
    };
    let (status, claim) = s.post(&w.supervisor, "/api/v1/claims", form("civic club"));
    assert_eq!(status, 201, "{claim}");
    assert_eq!(claim["numbers"], json!([3, 9, 17, 42, 55, 60]));
    let found: Vec<(&str, Vec<&str>)> = claim["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let said = c["matched"].as_array().unwrap();
            (
                c["serial"].as_str().unwrap(),
                said.iter().map(|m| m.as_str().unwrap()).collect(),
            )
        })
        .collect();
    let shown_day = chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d")
        .unwrap()
        .format("%-d %b %Y")
        .to_string();
    assert_eq!(
        found[0],
        (
            lost["serial"].as_str().unwrap(),
            vec![
                format!("bought on {shown_day}, the day remembered").as_str(),
                "bought at Civic Club (site 735624)",
                "plays 5 of the 6 numbers remembered",
                "cost $10.00, as remembered",
            ]
        ),
        "{claim}"
    );
    assert_eq!(found[1].0, half["serial"].as_str().unwrap());
    assert_eq!(found[1].1[2], "plays 3 of the 6 numbers remembered");
    assert_eq!(
        found[1].1[3],
        "cost $5.00 and is owed $0.00, not the $10.00 remembered"
    );
    // One of six numbers is not enough to offer a ticket.
    assert!(
        found
            .iter()
            .all(|(s, _)| *s != other["serial"].as_str().unwrap()),
        "{claim}"
    );
    assert_eq!(found.len(), 2, "{claim}");

    // A place the room does not know: found from the rest, and it says so.
    let (status, claim) = s.post(&w.supervisor, "/api/v1/claims", form("Blue Moon Tavern"));
    assert_eq!(status, 201, "{claim}");
    assert_eq!(claim["candidates"][0]["serial"], lost["serial"]);
    assert_eq!(
        claim["candidates"][0]["matched"][1],
        "the place \u{201c}Blue Moon Tavern\u{201d} names no venue, site, terminal or writer here: found without it"
    );

    // What the claimant remembers is checked like the rest of the form; a refusal files nothing.
    let filed = db.query_i64("SELECT COUNT(*) AS n FROM claims");
    for (numbers, amount) in [
        (json!([0, 5]), json!(null)),
        (json!([5, 5]), json!(null)),
        (json!([81]), json!(null)),
        (json!([5]), json!(-100)),
    ] {
        let mut f = form("Civic Club");
        f["numbers"] = numbers;
        f["amount_cents"] = amount;
        let (status, e) = s.post(&w.supervisor, "/api/v1/claims", f.clone());
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some("invalid_claim")),
            "{f}: {e}"
        );
    }
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM claims"), filed);
    // The venue's name is on the terminal as registered, and in the trail: verify agrees.
    let out = keno_testkit::audit(db, &["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    db.execute("UPDATE terminals SET venue = 'Elsewhere' WHERE terminal = '09'");
    let out = keno_testkit::audit(db, &["verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("terminal 735624/09: its venue's name differs from the audit trail"),
        "{text}"
    );
}
