//! A wall clock that jumps (issue 22), on both backends, with the server's wall clock moved by
//! the test (`KENO_FAKE_CLOCK_FILE`: seconds added to it) and the machine's left alone: a step
//! neither freezes, stretches nor back-dates a game, and is recorded among the day's
//! exceptions; a game opened under a clock a year ahead is repaired at the restart by the
//! written rule (invalidated, every wager refunded).

use keno_testkit::{on_both_backends, sale, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    a_step_of_the_wall_clock_neither_freezes_nor_stretches_a_game,
    a_game_opened_under_a_clock_a_year_ahead_is_invalidated_at_the_restart,
);

const DAYS_400: i64 = 400 * 86_400;

/// Keno all day from an hour ago (so no Keno Day ends during the test), 4-second games,
/// drawn at once.
fn fast_games(start: &str) -> [&str; 8] {
    [
        "--game-interval",
        "4",
        "--reveal-interval",
        "0",
        "--keno-day-start",
        start,
        "--keno-day-end",
        start,
    ]
}

fn micros(t: &Value) -> i64 {
    let text = t.as_str().unwrap_or_else(|| panic!("a time: {t}"));
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_micros()
}

fn game(s: &Server, number: i64) -> Value {
    let (status, g) = s.get(&format!("/api/v1/games/{number}"));
    assert_eq!(status, 200, "{g}");
    g
}

/// Waits until game `number` is closed (or past), and returns it.
fn closed(s: &Server, number: i64) -> Value {
    let mut g = Value::Null;
    s.wait_for(&format!("game {number} closed"), || {
        g = game(s, number);
        g["closed_at"].is_string()
    });
    g
}

/// A game's close as recorded: after its opening (not back-dated) by its 4 seconds, give or
/// take the clock's look each second, and neither a year nor an hour (not frozen or stretched).
fn assert_lasted_its_length(g: &Value) {
    let length = micros(&g["closed_at"]) - micros(&g["opened_at"]);
    assert!(
        (3_000_000..60_000_000).contains(&length),
        "game {} lasted its 4 seconds as recorded: {length} µs",
        g["number"]
    );
}

/// The clock's exceptions of Keno Day `day`, its hours starting at `start` as the server's did.
fn clock_exceptions(db: &TestDb, day: &str, start: &str) -> Vec<Value> {
    let args = [
        "exceptions",
        "--day",
        day,
        "--keno-day-start",
        start,
        "--json",
    ];
    let out = keno_testkit::audit(db, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let review: Value = serde_json::from_slice(&out.stdout).unwrap();
    review["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "clock")
        .cloned()
        .collect()
}

fn a_step_of_the_wall_clock_neither_freezes_nor_stretches_a_game(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let fake = db_dir_file(&db, "wall-offset");
    set_clock(&fake, 0);
    let env = [("KENO_FAKE_CLOCK_FILE", fake.to_str().unwrap())];
    let start = keno_testkit::keno_day_from_an_hour_ago();
    let s = Server::start_with(&db, "127.0.0.1:0", &fast_games(&start), &env);
    let (_, first) = s.get("/api/v1/games/current");
    let n = first["number"].as_i64().unwrap();
    let day = first["keno_day"].as_str().unwrap().to_string();
    // The wall clock jumps 400 days ahead in the middle of game n.
    set_clock(&fake, DAYS_400);
    // Not frozen: it closes (`closed` waits a minute at most), as recorded after its length.
    let g = closed(&s, n);
    assert_lasted_its_length(&g);
    // The next game is of the same Keno Day, and a sale in it is dated in it.
    let next = game(&s, n + 1);
    assert_eq!(next["keno_day"], day.as_str(), "{next}");
    let t = s.sell(
        &writer,
        sale(
            "c-1",
            json!({"type": "standard", "spots": [5]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(t["keno_day"], day.as_str());
    let (_, open) = s.get("/api/v1/games/current");
    assert!(
        micros(&t["issued_at"]) >= micros(&open["opened_at"]),
        "{t} {open}"
    );
    // Then an hour back: the open game still closes in its 4 seconds, not in an hour.
    set_clock(&fake, -3600);
    let m = open["number"].as_i64().unwrap();
    let g = closed(&s, m);
    assert_lasted_its_length(&g);
    // Both steps are among the day's exceptions, said as such.
    s.wait_for("both steps recorded", || {
        clock_exceptions(&db, &day, &start).len() >= 2
    });
    let steps = clock_exceptions(&db, &day, &start);
    let what: Vec<&str> = steps.iter().map(|e| e["what"].as_str().unwrap()).collect();
    assert!(
        what[0].contains("stepped +400d") && what[0].contains("kept its course"),
        "{what:?}"
    );
    assert!(what[1].contains("stepped -400d 1h"), "{what:?}");
    let verify = keno_testkit::audit(&db, &["verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

fn a_game_opened_under_a_clock_a_year_ahead_is_invalidated_at_the_restart(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let fake = db_dir_file(&db, "wall-offset");
    // The machine boots with its clock 400 days ahead: the server opens a game on a Keno Day
    // a year away, and sells in it.
    set_clock(&fake, DAYS_400);
    let env = [("KENO_FAKE_CLOCK_FILE", fake.to_str().unwrap())];
    let mut s = Server::start_with(&db, "127.0.0.1:0", keno_testkit::MANUAL_CLOCK, &env);
    let (_, wrong) = s.get("/api/v1/games/current");
    let n = wrong["number"].as_i64().unwrap();
    let t = s.sell(
        &writer,
        sale(
            "y-1",
            json!({"type": "standard", "spots": [5]}),
            "standard",
            300,
            1,
        ),
    );
    let serial = t["serial"].as_str().unwrap().to_string();
    s.stop();
    // Set right, the server restarts: the game's Keno Day has not begun, so it is invalidated
    // and its wager refunded, by the server; a game of today opens.
    set_clock(&fake, 0);
    let s = Server::start_with(&db, "127.0.0.1:0", keno_testkit::MANUAL_CLOCK, &env);
    // At the leader's first look at the open game.
    s.wait_for("the game repaired", || game(&s, n)["state"] != "open");
    let g = game(&s, n);
    assert_eq!(g["state"], "invalidated", "{g}");
    s.wait_for("a game of today open", || {
        s.get("/api/v1/games/current").1["number"].as_i64() > Some(n)
    });
    let (_, now_open) = s.get("/api/v1/games/current");
    assert!(now_open["number"].as_i64().unwrap() > n);
    assert_ne!(now_open["keno_day"], wrong["keno_day"]);
    let refunded = db.query_i64(&format!(
        "SELECT CAST(COALESCE(SUM(refund_cents), 0) AS BIGINT) AS n FROM ticket_refunds WHERE serial = '{serial}'"
    ));
    assert_eq!(refunded, 300, "the wager refunded (rule 17.3)");
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM game_invalidations WHERE game = {n} AND principal_id IS NULL"
        )),
        1,
        "invalidated by the server, no person named"
    );
    let day = now_open["keno_day"].as_str().unwrap();
    let repaired = clock_exceptions(&db, day, "00:00");
    assert!(
        repaired
            .iter()
            .any(|e| e["game"] == n && e["what"].as_str().unwrap().contains("invalidated")),
        "{repaired:?}"
    );
    let verify = keno_testkit::audit(&db, &["verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

/// A file in the test's own folder (beside its SQLite file and audit key).
fn db_dir_file(db: &TestDb, name: &str) -> std::path::PathBuf {
    db.audit_key().with_file_name(name)
}

/// Sets the fake wall clock's offset at once: written beside and renamed, so the server never
/// reads the file half written (an empty file read as offset 0 made a step of its own).
fn set_clock(fake: &std::path::Path, offset_seconds: i64) {
    let next = fake.with_extension("next");
    std::fs::write(&next, offset_seconds.to_string()).unwrap();
    std::fs::rename(&next, fake).unwrap();
}
