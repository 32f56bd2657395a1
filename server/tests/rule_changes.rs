//! What a restart changes and what it must not, on SQLite and PostgreSQL (issue 4).

use chrono::{Duration, Local};
use keno_core::rules::ACT_1992_TOML;
use keno_testkit::{on_both_backends, sale, world, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_retry_after_the_last_close_of_the_day_gets_its_ticket,
    a_rule_set_that_cannot_settle_sold_tickets_is_refused_at_start,
);

fn a_retry_after_the_last_close_of_the_day_gets_its_ticket(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let body = sale(
        "last",
        json!({"type": "standard", "spots": [3, 4]}),
        "standard",
        100,
        1,
    );
    let sold = w.server.sell(&w.writer, body.clone());
    w.server.kill();
    // Restart with Keno hours that have just ended: the open game stays open until closed, and
    // closing it opens no next game.
    let now = Local::now();
    let start = (now + Duration::hours(2)).format("%H:%M").to_string();
    let end = (now + Duration::hours(3)).format("%H:%M").to_string();
    let args = [
        "--game-interval",
        "3600",
        "--reveal-interval",
        "0",
        "--keno-day-start",
        &start,
        "--keno-day-end",
        &end,
    ];
    let server = Server::start(&db, &args);
    let (status, _) = server.post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200);
    server.wait_for("no game open", || {
        server.get("/api/v1/games/current").0 == 404
    });
    // The terminal never heard back and asks again: it is told the ticket was sold.
    let (status, again) = server.post(&w.writer, "/api/v1/tickets", body);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["serial"], sold["serial"]);
    // A new sale now is refused in plain words.
    let (status, e) = server.post(
        &w.writer,
        "/api/v1/tickets",
        sale(
            "new",
            json!({"type": "standard", "spots": [5]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("game_closed")));
}

fn a_rule_set_that_cannot_settle_sold_tickets_is_refused_at_start(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let t = w.server.sell(
        &w.writer,
        sale(
            "s2",
            json!({"type": "standard", "spots": [1, 2, 3]}),
            "special2",
            100,
            5,
        ),
    );
    w.server.kill();
    // The operator drops Special 2's 3-spot column while 4 games of that ticket are still to come.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rules.toml");
    std::fs::write(
        &path,
        ACT_1992_TOML.replace("  { spots = 3, pays = { 3 = 5300 } },\n", ""),
    )
    .unwrap();
    let mut args = vec!["--rules", path.to_str().unwrap()];
    args.extend(MANUAL_CLOCK);
    let out = db.serve_command(&args).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(t["serial"].as_str().unwrap()), "{err}");
    assert!(err.contains("cannot settle 1 ticket"), "{err}");
    // The rule set in force still starts.
    let server = Server::start(&db, MANUAL_CLOCK);
    assert_eq!(server.get("/api/v1/games/current").0, 200);
}
