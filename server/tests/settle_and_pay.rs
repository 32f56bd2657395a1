//! Settlement across games, pro-rating, jackpot sharing and payment over real HTTP, on SQLite
//! and PostgreSQL (issue 4).
//!
//! The draw is the real RNG, so these tests make wins certain by covering the board: one
//! 1-spot ticket on each of the 80 numbers has exactly 20 winners in every game. Where a test
//! needs bigger prizes it runs the server with an operator's rule set (`--rules`), as a casino
//! would for a promotion.

use keno_core::rules::ACT_1992_TOML;
use keno_testkit::{on_both_backends, sale, world, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_multi_game_ticket_is_settled_in_each_game_and_paid_once,
    major_prizes_are_pro_rated_to_50000_dollars,
    a_jackpot_is_shared_by_two_winners_in_proportion_to_wager,
    a_jackpot_share_under_200_dollars_is_paid_in_cash_like_any_minor_win,
);

fn detail(s: &Server, token: &str, serial: &str) -> Value {
    let (status, t) = s.get_as(token, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(status, 200, "{t}");
    t
}

fn a_multi_game_ticket_is_settled_in_each_game_and_paid_once(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let serials = keno_testkit::cover_the_board(&w, "cover", (100, 3, "standard"));
    let first = s.close_and_settle(&w.supervisor);
    let first_game = first["number"].as_i64().unwrap();
    let drawn: Vec<u64> = first["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(drawn.len(), 20);

    // After one game: 20 tickets won $3 (rule 18.1, 1 spot), none is payable yet.
    let winner = &serials[drawn[0] as usize - 1];
    let t = detail(s, &w.writer, winner);
    assert_eq!(t["results"][0]["state"], "settled");
    assert_eq!(t["results"][0]["ways"][0]["catch"], 1);
    assert_eq!(t["results"][0]["prize_cents"], 300);
    assert_eq!(t["results"][1]["state"], "open");
    assert_eq!(
        (t["won_cents"].as_u64(), t["payable_cents"].as_u64()),
        (Some(300), Some(0))
    );
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("not_settled")));

    let second = s.close_and_settle(&w.supervisor);
    let third = s.close_and_settle(&w.supervisor);
    assert_eq!(third["number"].as_i64(), Some(first_game + 2));
    let in_game = |g: &Value, n: usize| {
        g["drawn"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_u64() == Some(n as u64))
    };
    let mut total_won = 0;
    for (i, serial) in serials.iter().enumerate() {
        let t = detail(s, &w.writer, serial);
        let games: Vec<&Value> = vec![&first, &second, &third];
        let expected: u64 = games.iter().filter(|g| in_game(g, i + 1)).count() as u64 * 300;
        assert_eq!(
            t["won_cents"].as_u64(),
            Some(expected),
            "ticket on {}",
            i + 1
        );
        assert_eq!(t["payable_cents"].as_u64(), Some(expected));
        total_won += expected;
    }
    // 20 winners a game for three games.
    assert_eq!(total_won, 3 * 20 * 300);

    // Pay: once; a losing ticket has nothing to pay; two pays at once pay once.
    let (status, p) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["method"], "cash");
    let paid = p["paid_cents"].as_i64().unwrap();
    assert!(paid >= 300);
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));
    let t = detail(s, &w.writer, winner);
    assert_eq!(
        (
            t["status"].as_str(),
            t["paid_cents"].as_i64(),
            t["payable_cents"].as_i64()
        ),
        (Some("paid"), Some(paid), Some(0))
    );

    let loser = serials
        .iter()
        .enumerate()
        .find(|(i, _)| ![&first, &second, &third].iter().any(|g| in_game(g, i + 1)));
    if let Some((_, loser)) = loser {
        let (status, e) = s.post(
            &w.writer,
            &format!("/api/v1/tickets/{loser}/pay"),
            Value::Null,
        );
        assert_eq!((status, e["error"].as_str()), (409, Some("no_prize")));
    }
    let other = serials
        .iter()
        .find(|serial| {
            *serial != winner && detail(s, &w.writer, serial)["payable_cents"].as_u64() > Some(0)
        })
        .unwrap()
        .clone();
    let pays: Vec<_> = (0..6)
        .map(|_| {
            let (base, token, serial) = (s.base.clone(), w.writer.clone(), other.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .build()
                    .into();
                agent
                    .post(format!("{base}/api/v1/tickets/{serial}/pay"))
                    .header("Authorization", format!("Bearer {token}"))
                    .send_empty()
                    .unwrap()
                    .status()
                    .as_u16()
            })
        })
        .collect();
    let statuses: Vec<u16> = pays.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(statuses.iter().all(|&s| s == 200 || s == 409));
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets WHERE status = 'paid'"),
        2
    );
}

/// Writes an operator's rule set beside the test database and returns `--rules PATH`.
fn rules_file(dir: &tempfile::TempDir, text: &str) -> String {
    let path = dir.path().join("rules.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn major_prizes_are_pro_rated_to_50000_dollars(db: TestDb) {
    // A promotion: 1 spot pays $5,000. Twenty winners a game win $100,000 of major prizes.
    let dir = tempfile::tempdir().unwrap();
    let text = ACT_1992_TOML.replace(
        "{ spots = 1, pays = { 1 = 300 } }",
        "{ spots = 1, pays = { 1 = 500000 } }",
    );
    let rules = rules_file(&dir, &text);
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--rules", rules.as_str()]);
    args.extend(keno_testkit::ANY_PAYOUT);
    let w = world(&db, &args);
    let s = &w.server;
    let serials = keno_testkit::cover_the_board(&w, "cover", (100, 1, "standard"));
    let game = s.close_and_settle(&w.supervisor);
    let mut prizes = Vec::new();
    for n in game["drawn"].as_array().unwrap() {
        let t = detail(s, &w.writer, &serials[n.as_u64().unwrap() as usize - 1]);
        let way = &t["results"][0]["ways"][0];
        // Rule 12.5: each gets $50,000 x 5,000 / 100,000 = $2,500.
        assert_eq!(
            (way["prize_cents"].as_u64(), way["prorated"].as_bool()),
            (Some(250_000), Some(true)),
            "{t}"
        );
        assert_eq!(t["cheque"], true);
        prizes.push(way["prize_cents"].as_u64().unwrap());
    }
    assert_eq!(prizes.iter().sum::<u64>(), 5_000_000);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM game_settlements WHERE prorated AND prorate_before_cents = 10000000 AND prorate_after_cents = 5000000"), 1);
    // Major prizes are paid by cheque (rule 12.2).
    let winner = &serials[game["drawn"][0].as_u64().unwrap() as usize - 1];
    let (status, p) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        keno_testkit::hand_pay(),
    );
    assert_eq!(
        (status, p["method"].as_str(), p["paid_cents"].as_i64()),
        (200, Some("cheque"), Some(250_000))
    );
}

/// The built-in rules with a 1-spot jackpot type (guaranteed $1,000, 20% of each wager), so two
/// tickets on the same number win together in one game out of four.
fn one_spot_jackpot(dir: &tempfile::TempDir) -> String {
    let text = ACT_1992_TOML
        .replace(
            "[[jackpots]]\nspots = 6",
            "[[jackpots]]\nspots = 1\nguaranteed_cents = 100000\ncontribution_basis_points = 2000\nmin_wager_cents = 200\nstep_cents = 100\n\n[[jackpots]]\nspots = 6",
        )
        .replace(
            "  { spots = 6, pays = { 3 = 200, 4 = 800, 5 = 10000 } },\n  { spots = 8, pays = { 4 = 400",
            "  { spots = 1, pays = {} },\n  { spots = 6, pays = { 3 = 200, 4 = 800, 5 = 10000 } },\n  { spots = 8, pays = { 4 = 400",
        );
    rules_file(dir, &text)
}

fn a_jackpot_is_shared_by_two_winners_in_proportion_to_wager(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = one_spot_jackpot(&dir);
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--rules", rules.as_str()]);
    let w = world(&db, &args);
    let s = &w.server;
    let small = s.sell(
        &w.writer,
        sale(
            "j2",
            json!({"type": "standard", "spots": [40]}),
            "jackpot",
            200,
            60,
        ),
    );
    let big = s.sell(
        &w.writer,
        sale(
            "j4",
            json!({"type": "standard", "spots": [40]}),
            "jackpot",
            400,
            60,
        ),
    );
    let first = small["first_game"].as_i64().unwrap();
    // 40 is drawn in a game with probability 1/4: 60 games all missing it has odds 3e-8.
    let won = (0..60)
        .map(|_| s.close_and_settle(&w.supervisor))
        .find(|g| g["drawn"].as_array().unwrap().iter().any(|n| n == 40))
        .expect("40 drawn in one of 60 games");
    let game = won["number"].as_i64().unwrap();
    let index = (game - first) as usize;
    let prize = |t: &Value| {
        let t = detail(s, &w.writer, t["serial"].as_str().unwrap());
        let way = t["results"][index]["ways"][0].clone();
        assert_eq!(way["jackpot"], true, "{way}");
        way["prize_cents"].as_u64().unwrap()
    };
    let (p2, p4) = (prize(&small), prize(&big));
    let pool = db.query_i64(&format!(
        "SELECT pool_cents AS n FROM jackpot_pools WHERE game = {game} AND spots = 1"
    )) as u64;
    // The pool: $1,000 plus 20% of $6 for each game played up to and including this one.
    assert_eq!(pool, 100_000 + 120 * (index as u64 + 1));
    // Rule 12.6: shares in proportion to wager, rounded down.
    assert_eq!(p2, pool / 3);
    assert_eq!(p4, pool * 2 / 3);
    assert!(pool - (p2 + p4) <= 1);
    // Rule 7.2: the next game's pool starts again at the guaranteed minimum.
    assert_eq!(
        db.query_i64(&format!(
            "SELECT next_pool_cents AS n FROM jackpot_pools WHERE game = {game} AND spots = 1"
        )),
        100_000
    );
}

/// Rule 1(h): a major prize is $200 or more on one way. Two jackpot entries on the same number
/// at $2 and $30 share a pool of about $1,000: the $2 entry's share (about $62) is a minor win,
/// paid in cash at the counter with no hand-pay (rule 12.2); the $30 entry's is a major prize.
fn a_jackpot_share_under_200_dollars_is_paid_in_cash_like_any_minor_win(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = one_spot_jackpot(&dir);
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--rules", rules.as_str()]);
    let w = world(&db, &args);
    let s = &w.server;
    let entry = |id: String, cents: u64| {
        let t = s.sell(
            &w.writer,
            sale(
                &id,
                json!({"type": "standard", "spots": [40]}),
                "jackpot",
                cents,
                1,
            ),
        );
        t["serial"].as_str().unwrap().to_string()
    };
    // 40 is drawn in a game with probability 1/4: 60 games all missing it has odds 3e-8.
    let (small, big) = (0..60)
        .find_map(|n| {
            let pair = (entry(format!("s{n}"), 200), entry(format!("b{n}"), 3000));
            let game = s.close_and_settle(&w.supervisor);
            game["drawn"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d == 40)
                .then_some(pair)
        })
        .expect("40 drawn in one of 60 games");
    let (small_view, big_view) = (detail(s, &w.writer, &small), detail(s, &w.writer, &big));
    let share = small_view["payable_cents"].as_i64().unwrap();
    assert!(share > 0 && share < 20_000, "{small_view}");
    assert!(
        big_view["payable_cents"].as_i64() > Some(20_000),
        "{big_view}"
    );
    // The small share: cash, no claimant asked for.
    let (status, paid) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{small}/pay"),
        Value::Null,
    );
    assert_eq!(status, 200, "{paid}");
    assert_eq!(
        (paid["method"].as_str(), paid["paid_cents"].as_i64()),
        (Some("cash"), Some(share)),
        "{paid}"
    );
    // The big one is a hand-pay.
    let (status, refused) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{big}/pay"),
        Value::Null,
    );
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"], "hand_pay_required", "{refused}");
    let out = keno_testkit::audit(&db, &["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
