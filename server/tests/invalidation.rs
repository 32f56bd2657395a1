//! Invalidating a game (rule 17.3, general rule 18) over real HTTP, on SQLite and PostgreSQL
//! (issue 6): every wager refunded, the game pays nothing, who and why recorded.

use keno_testkit::{on_both_backends, sale, world, TestDb, BALL_DEVICE, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    an_invalidated_game_refunds_every_wager_and_pays_nothing,
    an_open_game_can_be_invalidated_and_sales_go_on,
    invalidation_is_for_supervisors_with_a_reason_before_settlement,
    rule_17_3_a_ticket_whose_every_game_is_invalidated_gets_back_exactly_its_total,
    general_rule_18_2_a_cheating_players_wager_is_forfeited_not_refunded,
);

fn invalidate(w: &keno_testkit::World, game: i64, reason: &str) -> (u16, Value) {
    w.server.post(
        &w.supervisor,
        &format!("/api/v1/games/{game}/invalidate"),
        json!({ "reason": reason }),
    )
}

fn an_invalidated_game_refunds_every_wager_and_pays_nothing(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let single = w.server.sell(
        &w.writer,
        sale(
            "one",
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "standard",
            300,
            1,
        ),
    );
    let multi = w.server.sell(
        &w.writer,
        sale(
            "three",
            json!({"type": "standard", "spots": [1]}),
            "standard",
            200,
            3,
        ),
    );
    // Keno To Go: 50 games charged as 49 ($49): each game's share is 98 cents.
    let ktg = w.server.sell(
        &w.writer,
        sale(
            "ktg",
            json!({"type": "standard", "spots": [80]}),
            "standard",
            100,
            50,
        ),
    );
    let (_, game) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    let game = game["number"].as_i64().unwrap();
    for n in 1..=5 {
        assert_eq!(
            w.server
                .post(
                    &device,
                    &format!("/api/v1/games/{game}/balls"),
                    json!({ "number": n })
                )
                .0,
            201
        );
    }
    let (status, inv) = invalidate(&w, game, "fire alarm: building evacuated");
    assert_eq!(status, 200, "{inv}");
    assert_eq!(
        (
            inv["tickets_refunded"].as_u64(),
            inv["refunded_cents"].as_i64()
        ),
        (Some(3), Some(300 + 200 + 98))
    );
    assert_eq!(
        w.server.get(&format!("/api/v1/games/{game}")).1["state"],
        "invalidated"
    );
    // No more balls, no settlement, no prizes: the 1-2-3-4 ticket caught 4 of 4 but wins nothing.
    let (status, e) = w.server.post(
        &device,
        &format!("/api/v1/games/{game}/balls"),
        json!({ "number": 6 }),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("game_not_drawing"))
    );
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM ticket_results WHERE game = {game}"
        )),
        0
    );
    assert_eq!(db.query_i64(&format!("SELECT COUNT(*) AS n FROM game_invalidations WHERE game = {game} AND reason = 'fire alarm: building evacuated'")), 1);

    // The single-game ticket: its wager back, paid in cash.
    let serial = single["serial"].as_str().unwrap();
    let (_, d) = w
        .server
        .get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(
        (
            d["results"][0]["state"].as_str(),
            d["results"][0]["refund_cents"].as_u64()
        ),
        (Some("invalidated"), Some(300))
    );
    assert_eq!(
        (d["won_cents"].as_u64(), d["payable_cents"].as_u64()),
        (Some(0), Some(300))
    );
    let (status, p) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/pay"),
        Value::Null,
    );
    assert_eq!(
        (status, p["paid_cents"].as_i64(), p["method"].as_str()),
        (200, Some(300), Some("cash"))
    );

    // The three-game ticket: that game's share back once its other games are played.
    for g in [game + 1, game + 2] {
        let (_, closed) = w
            .server
            .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
        assert_eq!(closed["number"].as_i64(), Some(g));
        for n in 11..=30 {
            assert_eq!(
                w.server
                    .post(
                        &device,
                        &format!("/api/v1/games/{g}/balls"),
                        json!({ "number": n })
                    )
                    .0,
                201
            );
        }
        w.server.wait_settled(g);
    }
    let serial = multi["serial"].as_str().unwrap();
    let (_, d) = w
        .server
        .get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(
        (
            d["invalidated_refund_cents"].as_u64(),
            d["won_cents"].as_u64(),
            d["payable_cents"].as_u64()
        ),
        (Some(200), Some(0), Some(200))
    );
    let (status, p) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/pay"),
        Value::Null,
    );
    assert_eq!((status, p["paid_cents"].as_i64()), (200, Some(200)));
    let (_, d) = w.server.get_as(
        &w.writer,
        &format!("/api/v1/tickets/{}", ktg["serial"].as_str().unwrap()),
    );
    assert_eq!(d["invalidated_refund_cents"], 98);
}

fn an_open_game_can_be_invalidated_and_sales_go_on(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let t = w.server.sell(
        &w.writer,
        sale(
            "a",
            json!({"type": "standard", "spots": [9, 10]}),
            "standard",
            500,
            1,
        ),
    );
    let game = t["first_game"].as_i64().unwrap();
    let jackpot = w.server.sell(
        &w.writer,
        sale(
            "j",
            json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6]}),
            "jackpot",
            500,
            1,
        ),
    );
    assert_eq!(jackpot["first_game"].as_i64(), Some(game));
    let (status, inv) = invalidate(&w, game, "robbery at the counter");
    assert_eq!(status, 200, "{inv}");
    assert_eq!(inv["refunded_cents"], 1000);
    // The refunded jackpot wager no longer feeds the pool the displays show.
    assert_eq!(w.server.get("/api/v1/jackpots").1[0]["pool_cents"], 200_000);
    let current = w.server.get("/api/v1/games/current").1["number"]
        .as_i64()
        .unwrap();
    assert_eq!(current, game + 1);
    let next = w.server.sell(
        &w.writer,
        sale(
            "b",
            json!({"type": "standard", "spots": [9, 10]}),
            "standard",
            500,
            1,
        ),
    );
    assert_eq!(next["first_game"].as_i64(), Some(game + 1));
    let (status, p) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{}/pay", t["serial"].as_str().unwrap()),
        Value::Null,
    );
    assert_eq!((status, p["paid_cents"].as_i64()), (200, Some(500)));
}

fn invalidation_is_for_supervisors_with_a_reason_before_settlement(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let open = w.server.get("/api/v1/games/current").1["number"]
        .as_i64()
        .unwrap();
    let (status, _) = w.server.post(
        &w.writer,
        &format!("/api/v1/games/{open}/invalidate"),
        json!({"reason": "x"}),
    );
    assert_eq!(status, 403);
    let (status, e) = invalidate(&w, open, "  ");
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_reason")));
    let settled = w.server.close_and_settle(&w.supervisor)["number"]
        .as_i64()
        .unwrap();
    let (status, e) = invalidate(&w, settled, "too late");
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("cannot_invalidate"))
    );
    let (status, e) = invalidate(&w, 999_999, "no such game");
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM game_invalidations"),
        0
    );
}

/// A rule set where 3 games are charged as 2 (rule 6.2(a),(b) with another threshold), so a
/// 3-game ticket's total does not split evenly over its games.
fn three_for_two(dir: &tempfile::TempDir) -> String {
    let text = keno_core::rules::ACT_1992_TOML.replace(
        "{ from_games = 50, free_games = 1 }",
        "{ from_games = 3, free_games = 1 }",
    );
    let path = dir.path().join("rules.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn rule_17_3_a_ticket_whose_every_game_is_invalidated_gets_back_exactly_its_total(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = three_for_two(&dir);
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--rules", rules.as_str()]);
    let w = world(&db, &args);
    let t = w.server.sell(
        &w.writer,
        sale(
            "three",
            json!({"type": "standard", "spots": [7]}),
            "standard",
            100,
            3,
        ),
    );
    assert_eq!(
        (t["charged_games"].as_i64(), t["total_cents"].as_i64()),
        (Some(2), Some(200))
    );
    let first = t["first_game"].as_i64().unwrap();
    // Each game's share is 200 / 3 rounded down; the last game also takes the cent left over
    // (shared/rules/INTERPRETATION.md, rule 17.3): 66 + 66 + 68 = 200, not 198.
    for (game, share) in [(first, 66), (first + 1, 66), (first + 2, 68)] {
        let (status, inv) = invalidate(&w, game, "power failure");
        assert_eq!(status, 200, "{inv}");
        assert_eq!(inv["refunded_cents"], share, "game {game}: {inv}");
    }
    let serial = t["serial"].as_str().unwrap();
    let (_, d) = w
        .server
        .get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(
        (
            d["invalidated_refund_cents"].as_u64(),
            d["payable_cents"].as_u64()
        ),
        (Some(200), Some(200)),
        "{d}"
    );
    let (status, p) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/pay"),
        Value::Null,
    );
    assert_eq!((status, p["paid_cents"].as_i64()), (200, Some(200)), "{p}");
}

/// General rule 18.2 as decided: invalidating a game, the supervisor may name tickets whose
/// wagers are forfeited rather than refunded. A name that plays no part in the game is refused
/// before anything changes. The first build refunded every wager (`forfeit` was an unknown
/// field).
fn general_rule_18_2_a_cheating_players_wager_is_forfeited_not_refunded(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let bet = json!({"type": "standard", "spots": [1, 2, 3, 4]});
    let serial = |t: Value| t["serial"].as_str().unwrap().to_string();
    let honest = serial(s.sell(&w.writer, sale("honest", bet.clone(), "standard", 500, 1)));
    let cheat = serial(s.sell(&w.writer, sale("cheat", bet, "standard", 500, 1)));
    let game = s.get("/api/v1/games/current").1["number"].as_i64().unwrap();
    let (status, e) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{game}/invalidate"),
        json!({"reason": "marked cards", "forfeit": ["9999999999999999999"]}),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_request")),
        "{e}"
    );
    assert_eq!(
        s.get("/api/v1/games/current").1["number"],
        game,
        "nothing changed"
    );
    let (status, done) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{game}/invalidate"),
        json!({"reason": "marked cards", "forfeit": [cheat]}),
    );
    assert_eq!(status, 200, "{done}");
    assert_eq!(
        (
            done["tickets_refunded"].as_i64(),
            done["refunded_cents"].as_i64()
        ),
        (Some(1), Some(500)),
        "{done}"
    );
    assert_eq!(done["forfeited"], json!([cheat]));
    let owed =
        |t: &str| s.get_as(&w.writer, &format!("/api/v1/tickets/{t}")).1["payable_cents"].as_i64();
    assert_eq!((owed(&honest), owed(&cheat)), (Some(500), Some(0)));
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{cheat}/pay"),
        Value::Null,
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("no_prize")),
        "{e}"
    );
}
