//! Cancelling tickets under rule 8, over real HTTP on SQLite and PostgreSQL (issue 4).

use keno_testkit::{on_both_backends, sale, world, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    rule_8_1_a_game_can_be_cancelled_until_its_first_number,
    rule_8_2_unplayed_games_of_a_multi_game_ticket,
    rule_8_2_keno_to_go_only_whole_before_its_first_game,
    rule_8_3_not_on_a_later_keno_day,
);

fn cancel(w: &keno_testkit::World, serial: &str) -> (u16, Value) {
    w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/cancel"),
        Value::Null,
    )
}

fn rule_8_1_a_game_can_be_cancelled_until_its_first_number(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let t = s.sell(
        &w.writer,
        sale(
            "a",
            json!({"type": "standard", "spots": [1, 2, 3]}),
            "standard",
            500,
            1,
        ),
    );
    let serial = t["serial"].as_str().unwrap();
    let (status, c) = cancel(&w, serial);
    assert_eq!(status, 200, "{c}");
    assert_eq!(
        c,
        json!({"refund_cents": 500, "games_cancelled": [t["first_game"]]})
    );
    let (status, e) = cancel(&w, serial);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_cancelled"))
    );
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/pay"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("cancelled")));

    // Once the game has drawn its first number, no more.
    let t = s.sell(
        &w.writer,
        sale(
            "b",
            json!({"type": "standard", "spots": [1, 2, 3]}),
            "standard",
            500,
            1,
        ),
    );
    let game = s.close_and_settle(&w.supervisor);
    let (status, e) = cancel(&w, t["serial"].as_str().unwrap());
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cancel_not_allowed"))
    );
    assert!(e["message"].as_str().unwrap().contains("rule 8.1"), "{e}");
    // The cancelled ticket was not in the game; the other one was.
    let ways = db.query_i64(&format!(
        "SELECT ways AS n FROM game_settlements WHERE game = {}",
        game["number"]
    ));
    assert_eq!(ways, 1);
}

fn rule_8_2_unplayed_games_of_a_multi_game_ticket(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let t = s.sell(
        &w.writer,
        sale(
            "m",
            json!({"type": "way", "groups": [[1, 2], [3, 4], [5, 6]], "combine": [2]}),
            "standard",
            100,
            4,
        ),
    );
    assert_eq!(t["game_cost_cents"], 300);
    let first = t["first_game"].as_i64().unwrap();
    s.close_and_settle(&w.supervisor);
    // The ticket's view says what a cancellation would do, as the cancellation then does it.
    let (_, d) = s.get_as(
        &w.writer,
        &format!("/api/v1/tickets/{}", t["serial"].as_str().unwrap()),
    );
    assert_eq!(
        d["cancel"],
        json!({"from_game": first + 1, "to_game": first + 3, "whole": false, "refund_cents": 900}),
        "{d}"
    );
    let (status, c) = cancel(&w, t["serial"].as_str().unwrap());
    assert_eq!(status, 200, "{c}");
    assert_eq!(
        c,
        json!({"refund_cents": 900, "games_cancelled": [first + 1, first + 2, first + 3]})
    );
    let serial = t["serial"].as_str().unwrap();
    let (_, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(d["status"], "active");
    assert_eq!(
        d["cancelled_games"],
        json!([first + 1, first + 2, first + 3])
    );
    assert_eq!(
        d["results"].as_array().unwrap().len(),
        1,
        "only the game played is shown"
    );
    // The cancelled games are not settled with it.
    let next = s.close_and_settle(&w.supervisor);
    assert_eq!(next["number"].as_i64(), Some(first + 1));
    assert_eq!(
        db.query_i64(&format!(
            "SELECT ways AS n FROM game_settlements WHERE game = {}",
            first + 1
        )),
        0
    );
    // Nothing is left to cancel, and the view says so.
    let (_, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(d["cancel"], Value::Null, "{d}");
    let (status, e) = cancel(&w, serial);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cancel_not_allowed"))
    );
}

fn rule_8_2_keno_to_go_only_whole_before_its_first_game(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    // Keno To Go (50 games) charged for 49 (6.2(a)): cancelled whole, all of it back.
    let t = s.sell(
        &w.writer,
        sale(
            "k1",
            json!({"type": "standard", "spots": [9]}),
            "standard",
            200,
            50,
        ),
    );
    assert_eq!(t["total_cents"], 9_800);
    let (status, c) = cancel(&w, t["serial"].as_str().unwrap());
    assert_eq!((status, c["refund_cents"].as_i64()), (200, Some(9_800)));
    assert_eq!(c["games_cancelled"].as_array().unwrap().len(), 50);

    let t = s.sell(
        &w.writer,
        sale(
            "k2",
            json!({"type": "standard", "spots": [9]}),
            "standard",
            200,
            50,
        ),
    );
    s.close_and_settle(&w.supervisor);
    let (status, e) = cancel(&w, t["serial"].as_str().unwrap());
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cancel_not_allowed"))
    );
    assert!(e["message"].as_str().unwrap().contains("rule 8.2"), "{e}");
}

fn rule_8_3_not_on_a_later_keno_day(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let t = s.sell(
        &w.writer,
        sale(
            "d",
            json!({"type": "standard", "spots": [9]}),
            "standard",
            100,
            5,
        ),
    );
    // As if sold on an earlier Keno Day.
    let serial = t["serial"].as_str().unwrap();
    assert_eq!(
        db.execute(&format!(
            "UPDATE tickets SET keno_day = '2000-01-01' WHERE serial = '{serial}'"
        )),
        1
    );
    let (status, e) = cancel(&w, serial);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cancel_not_allowed"))
    );
    assert!(e["message"].as_str().unwrap().contains("rule 8.3"), "{e}");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets WHERE cancelled_from_game IS NOT NULL"),
        0
    );
}
