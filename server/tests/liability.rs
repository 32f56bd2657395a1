//! The open game's live liability (issue 18) over real HTTP, on SQLite and PostgreSQL: its
//! figures are the ways sold into it, a cancellation takes its ways back, and a multi-game
//! ticket sold into an earlier game counts in each game it plays.

use keno_core::theory::DRAWS;
use keno_core::{Exposure, NumberSet, RuleSet, ScheduleId, WayInPlay};
use keno_testkit::{on_both_backends, sale, world, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    the_liability_is_the_ways_sold_into_the_open_game,
    the_worst_case_and_the_simulated_draws_count_the_bonus_prizes,
);

fn way(numbers: &[u8], amount: u64) -> WayInPlay {
    let numbers = NumberSet::from_numbers(numbers).unwrap();
    WayInPlay {
        plays_under: RuleSet::act_1992()
            .plays_as(ScheduleId::Standard, numbers.len())
            .unwrap(),
        numbers,
        amount_per_way_cents: amount,
    }
}

/// The figures keno-core gives for these ways.
fn expected(ways: &[WayInPlay]) -> (u64, u64) {
    let rules = RuleSet::act_1992();
    let mut game = Exposure::default();
    for w in ways {
        game.add(w, &rules.way_exposure(w));
    }
    let cents = (game.expected_numerator / u128::from(DRAWS)) as u64;
    (cents, game.worst_case(&rules, 0))
}

fn the_liability_is_the_ways_sold_into_the_open_game(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let auditor = db.principal("auditor", "AUDREY", None);
    let get = || {
        let (status, l) = s.get_as(&auditor, "/api/v1/games/current/liability");
        assert_eq!(status, 200, "{l}");
        l
    };
    let empty = get();
    assert_eq!(
        (
            empty["ways"].as_u64(),
            empty["expected_payout_cents"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(empty["per_number"].as_array().unwrap().len(), 80);
    // The writer may not see it; a refusal says who in plain English.
    let (status, e) = s.get_as(&w.writer, "/api/v1/games/current/liability");
    assert_eq!(status, 403);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("a writer may not"),
        "{e}"
    );
    let (_, e) = s.post(&auditor, "/api/v1/games/current/close", Value::Null);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("an auditor may not"),
        "{e}"
    );

    let sell = |id: &str, bet: Value, amount: u64, games: u32| {
        s.sell(&w.writer, sale(id, bet, "standard", amount, games))["serial"]
            .as_str()
            .unwrap()
            .to_string()
    };
    sell("one", json!({"type": "standard", "spots": [7]}), 100, 1);
    let four = sell(
        "four",
        json!({"type": "standard", "spots": [1, 2, 3, 4]}),
        300,
        1,
    );
    sell(
        "multi",
        json!({"type": "standard", "spots": [7, 8]}),
        200,
        3,
    );
    let ways = [way(&[7], 100), way(&[1, 2, 3, 4], 300), way(&[7, 8], 200)];
    let l = get();
    assert_eq!(
        (
            l["tickets"].as_u64(),
            l["ways"].as_u64(),
            l["stake_cents"].as_u64()
        ),
        (Some(3), Some(3), Some(600))
    );
    assert_eq!(
        l["per_number"][6],
        json!({"number": 7, "ways": 2, "stake_cents": 300})
    );
    assert_eq!(
        l["per_number"][0],
        json!({"number": 1, "ways": 1, "stake_cents": 300})
    );
    let (cents, worst) = expected(&ways);
    assert_eq!(
        (
            l["expected_payout_cents"].as_u64(),
            l["worst_case_cents"].as_u64()
        ),
        (Some(cents), Some(worst))
    );
    assert!(worst >= cents && cents > 0);

    // Cancelled: its way is taken back (rule 8).
    assert_eq!(
        s.post(
            &w.writer,
            &format!("/api/v1/tickets/{four}/cancel"),
            Value::Null
        )
        .0,
        200
    );
    let l = get();
    assert_eq!(
        (l["tickets"].as_u64(), l["stake_cents"].as_u64()),
        (Some(2), Some(300))
    );
    assert_eq!(
        l["expected_payout_cents"].as_u64(),
        Some(expected(&[ways[0], ways[2]]).0)
    );

    // The next game: only the multi-game ticket plays in it.
    let first = l["game"].as_i64().unwrap();
    s.close_and_settle(&w.supervisor);
    let mut next = get();
    s.wait_for("the next game's book", || {
        next = get();
        next["game"].as_i64() != Some(first)
    });
    assert_eq!(
        (next["tickets"].as_u64(), next["stake_cents"].as_u64()),
        (Some(1), Some(200))
    );
    assert_eq!(
        next["expected_payout_cents"].as_u64(),
        Some(expected(&[ways[2]]).0)
    );
}

on_both_backends!(a_sale_over_the_ticket_potential_limit_is_refused_and_stores_nothing);

/// `--ticket-potential-limit 100000`: a $1 10-spot stands to win more than $1,000 and is
/// refused before anything is stored; a 1-spot sells.
fn a_sale_over_the_ticket_potential_limit_is_refused_and_stores_nothing(db: TestDb) {
    let w = world(
        &db,
        &[MANUAL_CLOCK, &["--ticket-potential-limit", "100000"]].concat(),
    );
    let s = &w.server;
    let entries = || db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'ticket_sold'");
    let ten: Vec<u8> = (1..=10).collect();
    let body = sale(
        "big",
        json!({"type": "standard", "spots": ten}),
        "standard",
        100,
        1,
    );
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", body);
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("ticket_potential_over_limit")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("$1,000.00"), "{e}");
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 0);
    assert_eq!(entries(), 0);
    s.sell(
        &w.writer,
        sale(
            "small",
            json!({"type": "standard", "spots": [7]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(entries(), 1);
}

on_both_backends!(a_sale_over_a_game_limit_is_refused_and_stores_nothing);

/// `--number-stake-limit 500` and `--game-expected-payout-limit`: the sales in the open game
/// count against them (those in flight too), a sale that would pass one is refused with its
/// own code before anything is stored, and a cancellation makes room again.
fn a_sale_over_a_game_limit_is_refused_and_stores_nothing(db: TestDb) {
    let rules = RuleSet::act_1992();
    // A $2 and a $3 1-spot's expectation, exactly: the limit lets those two in, no more.
    let two = ((rules.way_exposure(&way(&[1], 200)).expected_numerator
        + rules.way_exposure(&way(&[1], 300)).expected_numerator)
        / u128::from(DRAWS)) as u64;
    let limit = two.to_string();
    let w = world(
        &db,
        &[
            MANUAL_CLOCK,
            &[
                "--number-stake-limit",
                "500",
                "--game-expected-payout-limit",
                &limit,
            ],
        ]
        .concat(),
    );
    let s = &w.server;
    let tickets = || db.query_i64("SELECT COUNT(*) AS n FROM tickets");
    let entries = || db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'ticket_sold'");
    let try_sell = |id: &str, spots: &[u8], amount: u64| {
        s.post(
            &w.writer,
            "/api/v1/tickets",
            sale(
                id,
                json!({"type": "standard", "spots": spots}),
                "standard",
                amount,
                1,
            ),
        )
    };
    let (status, first) = try_sell("a", &[7], 200);
    assert_eq!(status, 201, "{first}");
    assert_eq!(
        try_sell("b", &[7], 300).0,
        201,
        "number 7 at $5.00: at the limit"
    );
    let auditor = db.principal("auditor", "AUDREY", None);
    let (_, l) = s.get_as(&auditor, "/api/v1/games/current/liability");
    assert_eq!(
        (
            l["tickets"].as_u64(),
            l["per_number"][6]["stake_cents"].as_u64(),
            l["expected_payout_cents"].as_u64()
        ),
        (Some(2), Some(500), Some(two)),
        "{l}"
    );
    let (status, e) = try_sell("c", &[7], 100);
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("number_stake_over_limit")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("number 7"), "{e}");
    assert_eq!((tickets(), entries()), (2, 2), "the refusal stored nothing");

    // The expected payout: the two 1-spots in are at its limit; a third is refused.
    let (status, e) = try_sell("d", &[9], 200);
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("game_expected_payout_over_limit")),
        "{e}"
    );
    assert_eq!(tickets(), 2);

    // A cancellation takes its ways back and makes room.
    let serial = first["serial"].as_str().unwrap();
    let cancel = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{serial}/cancel"),
        Value::Null,
    );
    assert_eq!(cancel.0, 200, "{}", cancel.1);
    s.wait_for("the book to take the cancelled ticket back", || {
        try_sell("e", &[9], 100).0 == 201
    });
    let (_, l) = s.get_as(&auditor, "/api/v1/games/current/liability");
    assert_eq!(l["limits"]["number_stake_cents"].as_u64(), Some(500));
    assert_eq!(l["tickets"].as_u64(), Some(2), "{l}");
    // The simulated draws never pay more than the sound bound.
    let largest = l["simulated"]["largest_cents"].as_u64().unwrap();
    assert!(largest <= l["worst_case_cents"].as_u64().unwrap(), "{l}");
    assert_eq!(l["simulated"]["draws"].as_u64(), Some(1000));
}

/// Rule 6.3(e): a bonus prize is part of the prize, so the game's liability counts it. With a
/// $190 bonus for a 1-spot catching 1, twenty $1 1-spots on 1 to 20 can pay $193 each: the
/// draw of all twenty pays $3,860. The first build showed a worst case of $60.00 and left the
/// bonus out of the simulated draws and the expectation.
fn the_worst_case_and_the_simulated_draws_count_the_bonus_prizes(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let inspector = db.principal("inspector", "INES", None);
    let auditor = db.principal("auditor", "AUDREY", None);
    let bonus = json!({"name": "Lucky one", "catch": 1, "spots": 1, "prize_cents": 19_000, "every_nth_game": 1});
    let (status, created) = s.post(&w.supervisor, "/api/v1/bonus-prizes", bonus);
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (status, approved) = s.post(
        &inspector,
        &format!("/api/v1/bonus-prizes/{id}/approve"),
        json!({"reference": "CSA approval 2026/88"}),
    );
    assert_eq!(status, 200, "{approved}");
    // The bonus is fixed as a game opens: the next one offers it.
    s.close_and_settle(&w.supervisor);
    assert_eq!(s.get("/api/v1/bonus-prizes").1["offered_now"], json!([id]));
    for n in 1..=20 {
        let bet = json!({"type": "standard", "spots": [n]});
        s.sell(&w.writer, sale(&format!("b{n}"), bet, "standard", 100, 1));
    }
    let (status, l) = s.get_as(&auditor, "/api/v1/games/current/liability");
    assert_eq!(status, 200, "{l}");
    // Each way: $3 on the schedule (rule 18.1) and the $190 bonus: $193, a minor prize.
    assert_eq!(l["worst_case_cents"].as_u64(), Some(20 * 19_300), "{l}");
    // A quarter of the twenty catch in an average draw.
    let rules = RuleSet::act_1992();
    let one = way(&[1], 100);
    let bonus = [0, 19_000];
    let numerator = rules.way_exposure_with(&one, &bonus).expected_numerator * 20;
    assert_eq!(
        l["expected_payout_cents"].as_u64(),
        Some((numerator / u128::from(DRAWS)) as u64),
        "{l}"
    );
    assert!(
        l["expected_payout_cents"].as_u64() > Some(20 * 19_300 / 5),
        "{l}"
    );
    // The simulated draws pay the bonus too: their largest is $193 for each number drawn.
    let largest = l["simulated"]["largest_cents"].as_u64().unwrap();
    assert!(largest >= 19_300 * 5 && largest % 19_300 == 0, "{l}");
}
