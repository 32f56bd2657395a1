//! The jackpot pools the displays are sent (`jackpot_changed`, rule 7.3 as interpreted) over
//! real HTTP on SQLite and PostgreSQL: the announcer keeps a tally of the jackpot tickets and
//! reads only what changed since it last looked (issue 37), and what it announces is always what
//! `GET /api/v1/jackpots` reads whole, through sales, a cancel (rule 8), a void (rule 17.2), a
//! multi-game ticket and a game settled; a cancel and a void are announced by themselves.
//! Strangers asking for the pools at once share readings (one at a time), each answered from
//! a reading begun after it asked.

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use keno_testkit::{on_both_backends, sale, subscribe, world, Server, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    the_announced_pools_are_the_pools_read_whole_through_a_game_and_the_next,
    strangers_asking_at_once_share_the_readings_of_the_pools,
);

/// A jackpot ticket of 6 spots at `cents` a way for `games` games; its serial.
fn jackpot(w: &World, id: &str, cents: u64, games: u32) -> String {
    let bet = json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6]});
    let t = w
        .server
        .sell(&w.writer, sale(id, bet, "jackpot", cents, games));
    t["serial"].as_str().expect("a serial").to_string()
}

/// The 6-spot pool as `GET /api/v1/jackpots` reads it whole.
fn read_whole(w: &World) -> i64 {
    let (status, pools) = w.server.get("/api/v1/jackpots");
    assert_eq!(status, 200, "{pools}");
    six_spot(&pools)
}

fn six_spot(pools: &Value) -> i64 {
    pools
        .as_array()
        .and_then(|p| p.iter().find(|j| j["spots"] == 6))
        .and_then(|j| j["pool_cents"].as_i64())
        .unwrap_or_else(|| panic!("no 6-spot pool in {pools}"))
}

/// Waits for the announcement of `expected` (the 6-spot pool), past those the announcer made
/// before the change that led to it; fails when none comes in 10 s.
fn announced(events: &Receiver<(String, Value)>, expected: i64) {
    let until = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let Ok((kind, data)) = events.recv_timeout(left) else {
            panic!("no jackpot_changed of {expected} cents; announced: {seen:?}");
        };
        if kind == "jackpot_changed" {
            let pool = six_spot(&data);
            if pool == expected {
                return;
            }
            seen.push(pool);
        }
    }
}

fn the_announced_pools_are_the_pools_read_whole_through_a_game_and_the_next(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let events = subscribe(&w.server);
    let start = read_whole(&w);
    // Rule 7.3 as interpreted: 20% of the amount per way, each game the ticket plays.
    jackpot(&w, "a", 500, 1);
    let multi = jackpot(&w, "b", 1000, 3);
    let after_sales = read_whole(&w);
    assert_eq!(
        after_sales,
        start + 100 + 200,
        "the open game only of the multi-game ticket"
    );
    announced(&events, after_sales);

    // A cancel (rule 8) and a void (rule 17.2) are announced once committed.
    let (status, cancelled) = w.server.post(
        &w.writer,
        &format!("/api/v1/tickets/{multi}/cancel"),
        Value::Null,
    );
    assert_eq!(status, 200, "{cancelled}");
    let after_cancel = read_whole(&w);
    assert_eq!(after_cancel, after_sales - 200);
    announced(&events, after_cancel);
    let voided = jackpot(&w, "c", 1500, 1);
    let after_c = read_whole(&w);
    assert_eq!(after_c, after_cancel + 300);
    announced(&events, after_c);
    let why = json!({"reason": "marked the cards", "excluded_person": "man in a red cap"});
    let (status, void) = w.server.post(
        &w.supervisor,
        &format!("/api/v1/tickets/{voided}/void"),
        why,
    );
    assert_eq!(status, 200, "{void}");
    let after_void = read_whole(&w);
    assert_eq!(after_void, after_c - 300);
    announced(&events, after_void);
    jackpot(&w, "d", 500, 2);
    let after_d = read_whole(&w);
    assert_eq!(after_d, after_void + 100);
    announced(&events, after_d);

    // The game settled: the pools carry over, and the next game's sales (and the second game
    // of "d") count on top of them.
    let settled = w.server.close_and_settle(&w.supervisor);
    assert_eq!(
        settled["drawn"].as_array().map(Vec::len),
        Some(20),
        "{settled}"
    );
    jackpot(&w, "e", 1000, 1);
    let next_game = read_whole(&w);
    announced(&events, next_game);
    jackpot(&w, "f", 500, 1);
    let later = read_whole(&w);
    assert_eq!(later, next_game + 100);
    announced(&events, later);
}

/// Forty strangers asking for the pools at once, ten times each, while a writer sells jackpot
/// tickets: every answer is 200, none is older than its request (a sale answered before a
/// request began is in its answer), and the server read the pools fewer than half as many
/// times as it was asked (each reading reads every jackpot ticket of the open game; before,
/// it read once per request).
fn strangers_asking_at_once_share_the_readings_of_the_pools(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let (s, said) = Server::start_traced(&db, MANUAL_CLOCK);
    let sold = std::sync::atomic::AtomicI64::new(0);
    let sell = |i: usize| {
        let bet = json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6]});
        s.sell(&writer, sale(&format!("j-{i}"), bet, "jackpot", 200, 1));
        sold.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    };
    let base = six_spot(&s.get("/api/v1/jackpots").1);
    sell(0);
    let each = six_spot(&s.get("/api/v1/jackpots").1) - base;
    assert!(each > 0, "a jackpot sale adds to the pool");
    let asked = std::thread::scope(|scope| {
        scope.spawn(|| (1..20).for_each(sell));
        let askers: Vec<_> = (0..40)
            .map(|_| {
                scope.spawn(|| {
                    for _ in 0..10 {
                        let before = sold.load(std::sync::atomic::Ordering::SeqCst);
                        let (status, pools) = s.get("/api/v1/jackpots");
                        assert_eq!(status, 200, "{pools}");
                        let pool = six_spot(&pools);
                        assert!(
                            pool >= base + each * before,
                            "{pool} is older than the request"
                        );
                    }
                })
            })
            .collect();
        askers.into_iter().map(|a| a.join().unwrap()).count() * 10
    });
    let readings = said.text().matches("the jackpot pools read whole").count();
    eprintln!("{readings} readings of the pools for {asked} requests");
    assert!(readings > 0, "no reading logged");
    assert!(
        readings * 2 < asked,
        "{readings} readings for {asked} requests"
    );
}
