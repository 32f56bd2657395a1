//! Bonus prizes (rule 6.3(e)) end to end on SQLite and PostgreSQL: proposed by a supervisor,
//! offered only once an inspector has recorded the regulator's approval, fixed for a game when
//! it opens, paid on top of the schedule at settlement, and no longer offered once withdrawn.

use std::process::Command;

use keno_testkit::{on_both_backends, sale, world, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(a_bonus_is_offered_once_approved_and_paid_on_top_of_the_schedule);
on_both_backends!(a_bonus_is_part_of_the_prize_inside_the_caps_and_pro_rating);

fn a_bonus_is_offered_once_approved_and_paid_on_top_of_the_schedule(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let inspector = db.principal("inspector", "INSPECTOR", None);
    // $5 on top for a 1-spot standard ticket of $1 or more that catches its number, every game.
    let bonus = json!({
        "name": "Lucky One", "bet_type": "standard", "spots": 1, "catch": 1,
        "prize_cents": 500, "min_amount_per_way_cents": 100, "every_nth_game": 1,
    });
    for bad in [
        json!({"name": "x", "catch": 1, "prize_cents": 500}),
        json!({"name": "x", "catch": 3, "spots": 2, "prize_cents": 500, "every_nth_game": 1}),
        json!({"name": "x", "catch": 1, "prize_cents": 0, "every_nth_game": 1}),
        json!({"name": "x", "catch": 1, "prize_cents": 5, "window_from": "2026-01-02T00:00:00Z", "window_to": "2026-01-01T00:00:00Z"}),
    ] {
        let (status, e) = s.post(&w.supervisor, "/api/v1/bonus-prizes", bad.clone());
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some("invalid_bonus")),
            "{bad}"
        );
    }
    assert_eq!(
        s.post(&w.writer, "/api/v1/bonus-prizes", bonus.clone()).0,
        403
    );
    let (status, created) = s.post(&w.supervisor, "/api/v1/bonus-prizes", bonus);
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["state"], "proposed");
    let id = created["id"].as_i64().unwrap();

    // Not approved: the next game opens without it.
    let first = s.close_and_settle(&w.supervisor)["number"]
        .as_i64()
        .unwrap();
    let (_, board) = s.get("/api/v1/bonus-prizes");
    assert_eq!(board["open_game"], first + 1);
    assert_eq!(board["offered_now"], json!([]));
    assert_eq!(
        s.post(
            &w.supervisor,
            &format!("/api/v1/bonus-prizes/{id}/approve"),
            json!({"reference": "x"})
        )
        .0,
        403
    );
    let (status, approved) = s.post(
        &inspector,
        &format!("/api/v1/bonus-prizes/{id}/approve"),
        json!({"reference": "CSA approval 2026/88"}),
    );
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["state"], "approved");
    // The open game keeps what it opened with; the next one offers the bonus.
    let plain = s.close_and_settle(&w.supervisor)["number"]
        .as_i64()
        .unwrap();
    assert_eq!(plain, first + 1);
    let (_, board) = s.get("/api/v1/bonus-prizes");
    assert_eq!(board["offered_now"], json!([id]));
    let bonus_game = board["open_game"].as_i64().unwrap();

    // Forty 1-spot tickets on 1..=40 (a draw misses them all about once in 25 million) and one
    // 2-spot ticket, which the bonus does not cover.
    let serials: Vec<String> = (1..=40)
        .map(|n| {
            s.sell(
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
    let two = s.sell(
        &w.writer,
        sale(
            "two",
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        ),
    );
    let settled = s.close_and_settle(&w.supervisor);
    assert_eq!(settled["number"], bonus_game);
    let drawn: Vec<i64> = settled["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect();
    let mut bonus_total = 0;
    for (n, serial) in (1..=40).zip(&serials) {
        let (_, t) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
        let way = &t["results"][0]["ways"][0];
        let caught = drawn.contains(&n);
        // The schedule pays $3 for 1 of 1 (rule 18.1); the bonus adds $5.
        let expected = if caught { 300 + 500 } else { 0 };
        assert_eq!(way["prize_cents"], expected, "{t}");
        assert_eq!(way["bonus_cents"], if caught { 500 } else { 0 });
        assert_eq!(t["payable_cents"], expected);
        if caught {
            bonus_total += 500;
            let (status, paid) = s.post(
                &w.writer,
                &format!("/api/v1/tickets/{serial}/pay"),
                Value::Null,
            );
            assert_eq!(
                (status, paid["paid_cents"].as_i64()),
                (200, Some(expected)),
                "{paid}"
            );
        }
    }
    assert!(bonus_total > 0, "some of 1..=40 are drawn");
    let (_, t) = s.get_as(
        &w.writer,
        &format!("/api/v1/tickets/{}", two["serial"].as_str().unwrap()),
    );
    assert_eq!(t["results"][0]["ways"][0]["bonus_cents"], 0);
    assert_eq!(
        db.query_i64(&format!(
            "SELECT bonus_cents AS n FROM game_settlements WHERE game = {bonus_game}"
        )),
        bonus_total
    );

    // Withdrawn: games opened afterwards do not offer it.
    assert_eq!(
        s.post(
            &w.writer,
            &format!("/api/v1/bonus-prizes/{id}/withdraw"),
            Value::Null
        )
        .0,
        403
    );
    let (status, withdrawn) = s.post(
        &w.supervisor,
        &format!("/api/v1/bonus-prizes/{id}/withdraw"),
        json!({"reason": "the promotion ended early"}),
    );
    assert_eq!(
        (status, withdrawn["state"].as_str()),
        (200, Some("withdrawn"))
    );
    // Why is kept with the act (issue 34, 6), and the trail has it.
    assert_eq!(withdrawn["withdrawal_reason"], "the promotion ended early");
    assert!(db
        .query_text("SELECT payload AS s FROM audit_log WHERE kind = 'bonus_withdrawn'")
        .contains("the promotion ended early"));
    s.close_and_settle(&w.supervisor);
    let (_, board) = s.get("/api/v1/bonus-prizes");
    assert_eq!(board["offered_now"], json!([]));

    // Settled again by the auditor's verify, bonuses included.
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", &db.url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    db.execute(&format!(
        "UPDATE bonus_results SET prize_cents = 5000 WHERE game = {bonus_game}"
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", &db.url])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
}

/// Rule 6.3(e) as decided (bonus prizes are prizes): a $30,000 bonus on 1-spot ways makes each
/// way that catches a major prize of $30,003 or $30,006, so the game's majors go over the
/// $50,000 limit and are pro-rated (12.3-12.5) as if the bonus were part of the schedule prize.
/// The first build paid the bonus on top, after pro-rating: $30,003 a way, however many won. A
/// bonus over the per-way cap (12.1) on its own is refused when proposed.
fn a_bonus_is_part_of_the_prize_inside_the_caps_and_pro_rating(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let terms = |cents: i64| {
        json!({
            "name": "Big One", "bet_type": "standard", "spots": 1, "catch": 1,
            "prize_cents": cents, "min_amount_per_way_cents": 100, "every_nth_game": 1,
        })
    };
    let (status, e) = s.post(&w.supervisor, "/api/v1/bonus-prizes", terms(5_000_001));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_bonus")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("12.1"), "{e}");
    let (status, created) = s.post(&w.supervisor, "/api/v1/bonus-prizes", terms(3_000_000));
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (status, _) = s.post(
        &inspector,
        &format!("/api/v1/bonus-prizes/{id}/approve"),
        json!({"reference": "CSA 2026/91"}),
    );
    assert_eq!(status, 200);
    // The game open at the approval keeps what it opened with; the next offers the bonus.
    s.close_and_settle(&w.supervisor);
    let (_, board) = s.get("/api/v1/bonus-prizes");
    assert_eq!(board["offered_now"], json!([id]));

    // Every number on a 1-spot ticket: 1..=40 at $1, 41..=80 at $2. Exactly 20 catch.
    let serials: Vec<(u8, String)> = (1..=80u8)
        .map(|n| {
            let amount = if n <= 40 { 100 } else { 200 };
            let bet = json!({"type": "standard", "spots": [n]});
            let t = s.sell(
                &w.writer,
                sale(&format!("n{n}"), bet, "standard", amount, 1),
            );
            (n, t["serial"].as_str().unwrap().to_string())
        })
        .collect();
    let settled = s.close_and_settle(&w.supervisor);
    let drawn: Vec<u8> = settled["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(drawn.len(), 20);

    // The oracle: each catching way's schedule prize ($3 a dollar) plus the bonus, shared of
    // the $50,000 limit in proportion, rounded down to the cent (rule 12.5).
    let before = |n: u8| if n <= 40 { 300 } else { 600 } + 3_000_000u64;
    let total: u64 = drawn.iter().map(|&n| before(n)).sum();
    let mut paid_total = 0;
    for (n, serial) in &serials {
        let (_, t) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
        let way = &t["results"][0]["ways"][0];
        if drawn.contains(n) {
            let expected = before(*n) * 5_000_000 / total;
            assert_eq!(way["prize_cents"].as_u64(), Some(expected), "{n}: {t}");
            assert_eq!(way["prorated"], true, "{t}");
            assert_eq!(way["bonus_cents"], 3_000_000);
            assert_eq!(t["payable_cents"].as_u64(), Some(expected), "{t}");
            paid_total += expected;
        } else {
            assert_eq!(way["prize_cents"], 0, "{t}");
            assert_eq!(way["bonus_cents"], 0, "{t}");
        }
    }
    assert!(paid_total <= 5_000_000, "{paid_total}");
    let (_, record) = s.get_as(
        &w.supervisor,
        &format!("/api/v1/games/{}", settled["number"]),
    );
    assert_eq!(record["state"], "settled", "{record}");
    // The auditor's settling again agrees, bonus and pro-rating included.
    let out = keno_testkit::audit(&db, &["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
