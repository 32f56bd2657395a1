//! The draw over real HTTP and real processes, on SQLite and PostgreSQL (issue 4): a server
//! killed mid-draw continues from the last committed number (rule 10.3), and the event stream
//! shows the close and each number as committed (rules 9.3, 9.4, 10.1).

use std::time::Duration;

use keno_testkit::{on_both_backends, sale, world, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    rule_10_3_a_restarted_server_continues_the_draw_from_the_last_committed_number,
    events_announce_the_close_then_each_number_then_the_result,
);

const SLOW_REVEAL: &[&str] = &[
    "--game-interval",
    "3600",
    "--reveal-interval",
    "0.25",
    "--keno-day-start",
    "00:00",
    "--keno-day-end",
    "00:00",
];

fn rule_10_3_a_restarted_server_continues_the_draw_from_the_last_committed_number(db: TestDb) {
    let w = world(&db, SLOW_REVEAL);
    let t = w.server.sell(
        &w.writer,
        sale(
            "before",
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "standard",
            100,
            2,
        ),
    );
    let (status, game) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200);
    let number = game["number"].as_i64().unwrap();
    let mut shown = Vec::new();
    w.server.wait_for("a few numbers drawn", || {
        shown = w.server.get(&format!("/api/v1/games/{number}")).1["drawn"]
            .as_array()
            .unwrap()
            .clone();
        shown.len() >= 4
    });
    w.server.kill();
    let committed = db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM drawn_numbers WHERE game = {number}"
    ));
    assert!(
        (4..20).contains(&committed),
        "killed mid-draw with {committed} numbers"
    );

    let server = Server::start(&db, SLOW_REVEAL);
    let done = server.wait_settled(number);
    let drawn = done["drawn"].as_array().unwrap();
    assert_eq!(drawn.len(), 20);
    // The numbers shown before the malfunction stand, in their places.
    assert_eq!(drawn[..shown.len()], shown[..]);
    let mut distinct: Vec<u64> = drawn.iter().map(|n| n.as_u64().unwrap()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 20);
    // The ticket sold before the restart was settled in that game, and game numbers go on.
    let (_, d) = server.get_as(
        &w.writer,
        &format!("/api/v1/tickets/{}", t["serial"].as_str().unwrap()),
    );
    assert_eq!(d["results"][0]["state"], "settled");
    let current = server.get("/api/v1/games/current").1["number"]
        .as_i64()
        .unwrap();
    assert!(current > number);
    let next = server.sell(
        &w.writer,
        sale(
            "after",
            json!({"type": "standard", "spots": [5]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(
        next["ticket_number"], 2,
        "ticket numbers continue per terminal"
    );
}

fn events_announce_the_close_then_each_number_then_the_result(db: TestDb) {
    let w = world(&db, keno_testkit::MANUAL_CLOCK);
    let events = keno_testkit::subscribe(&w.server);
    w.server.sell(
        &w.writer,
        sale(
            "j",
            json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6]}),
            "jackpot",
            500,
            1,
        ),
    );
    // The sale of a jackpot ticket grows the pool on the displays within a second (rule 7.3).
    loop {
        let (kind, data) = events
            .recv_timeout(Duration::from_secs(10))
            .expect("jackpot_changed after a jackpot sale");
        if kind == "jackpot_changed" {
            assert_eq!(data[0]["pool_cents"], 200_100);
            break;
        }
    }
    let (status, game) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200);
    let number = game["number"].as_i64().unwrap();
    let mut seen = Vec::new();
    loop {
        let (kind, data) = events
            .recv_timeout(Duration::from_secs(30))
            .expect("events keep coming");
        let done = kind == "game_settled" && data["game"] == number;
        seen.push((kind, data));
        if done {
            break;
        }
    }
    let kinds: Vec<&str> = seen.iter().map(|(k, _)| k.as_str()).collect();
    let at = |k: &str| {
        kinds
            .iter()
            .position(|x| *x == k)
            .unwrap_or_else(|| panic!("no {k} in {kinds:?}"))
    };
    assert!(
        at("game_closed") < at("number_drawn"),
        "rule 9.4: closed before drawn: {kinds:?}"
    );
    assert!(at("game_opened") < at("number_drawn"));
    let numbers: Vec<&Value> = seen
        .iter()
        .filter(|(k, _)| k == "number_drawn")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(numbers.len(), 20);
    for (i, n) in numbers.iter().enumerate() {
        assert_eq!(
            (n["game"].as_i64(), n["position"].as_u64()),
            (Some(number), Some(i as u64 + 1))
        );
    }
    let (_, drawn) = seen.iter().find(|(k, _)| k == "game_drawn").unwrap();
    let announced: Vec<&Value> = numbers.iter().map(|n| &n["number"]).collect();
    assert_eq!(
        drawn["drawn"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        announced
    );
    assert!(at("game_drawn") < at("game_settled"));
    // What was announced is what is recorded.
    let recorded = w.server.get(&format!("/api/v1/games/{number}")).1;
    assert_eq!(&recorded["drawn"], &drawn["drawn"]);
}
