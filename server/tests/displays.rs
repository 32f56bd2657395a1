//! The player displays in a real browser (issue 7): headless Chromium (Debian's chromium and
//! chromium-driver, installed by `.ci/run`) against a real server. The board lights each
//! number as it is drawn and never one the server has not committed, says a game is closed
//! before it is drawn (rule 9.4), and reconnects by itself after a restart; the check page
//! shows a ticket's catches and prize and plain words for wrong serials and for guessing.
//! The pages do not depend on the database, so these run on SQLite only.

use std::collections::BTreeSet;

use keno_testkit::browser::{keep_screenshot, Browser};
use keno_testkit::{free_port, sale, Backend, Server, TestDb};
use serde_json::{json, Value};

/// Games closed by hand; numbers revealed 0.5 s apart, so the page can be watched filling in
/// (a poll every few tens of milliseconds sees each step, the closed board included).
const WATCHED: &[&str] = &[
    "--game-interval",
    "3600",
    "--reveal-interval",
    "0.5",
    "--keno-day-start",
    "00:00",
    "--keno-day-end",
    "00:00",
];

const BOARD_STATE: &str = r#"
    const text = (id) => document.getElementById(id).textContent;
    const notice = document.getElementById('notice');
    return {
        game: text('game'),
        status: text('status'),
        countdown: text('countdown'),
        lit: [...document.querySelectorAll('.cell.lit')].map((c) => Number(c.textContent)),
        notice: notice.classList.contains('shown') ? notice.textContent : null,
        jackpots: document.getElementById('jackpots').children.length,
        prizes: document.querySelectorAll('#prizes tr').length,
        history: [...document.querySelectorAll('#history .row')].map((r) => r.textContent),
    };
"#;

fn lit(state: &Value) -> BTreeSet<i64> {
    state["lit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect()
}

fn close(server: &Server, supervisor: &str) -> i64 {
    let (status, game) = server.post(supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    game["number"].as_i64().unwrap()
}

/// Watches the board through game `game`'s draw; asserts what a player may see at each moment.
fn watch_draw(browser: &Browser, server: &Server, game: i64) -> BTreeSet<i64> {
    let mut closed_before_numbers = false;
    let mut counts = BTreeSet::new();
    let start = std::time::Instant::now();
    loop {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "game {game} never filled the board; saw counts {counts:?}"
        );
        let state = browser.run(BOARD_STATE);
        let on_board = lit(&state);
        // Read after the page: the record then holds at least what the page showed.
        let committed: BTreeSet<i64> = server.get(&format!("/api/v1/games/{game}")).1["drawn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_i64().unwrap())
            .collect();
        if state["game"] == format!("GAME {game}") {
            assert!(
                on_board.is_subset(&committed),
                "the board shows {on_board:?}, the record holds {committed:?}"
            );
            if on_board.is_empty() && state["status"] == "GAME CLOSED" {
                closed_before_numbers = true;
            }
            counts.insert(on_board.len());
            if on_board.len() == 20 {
                assert!(
                    closed_before_numbers,
                    "rule 9.4: GAME CLOSED is shown first"
                );
                assert!(
                    counts.len() >= 8,
                    "numbers appear one by one: saw counts {counts:?}"
                );
                return on_board;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(40));
    }
}

#[test]
fn the_board_lights_each_number_as_it_is_drawn_and_survives_a_restart() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let supervisor = db.principal("supervisor", "SUPER", None);
    let listen = format!("127.0.0.1:{}", free_port());
    let server = Server::start_on(&db, &listen, WATCHED);
    browser.goto(&format!("{}/", server.base));
    let ready = browser.wait_for("the board", BOARD_STATE, |s| {
        s["status"] == "OPEN FOR PLAY"
            && s["countdown"].as_str().unwrap().contains("closes in")
            && s["prizes"].as_u64() > Some(0)
            && s["jackpots"].as_u64() > Some(0)
    });
    assert_eq!(lit(&ready).len(), 0);

    let game = close(&server, &supervisor);
    let on_board = watch_draw(&browser, &server, game);
    let settled = server.wait_settled(game);
    let drawn: BTreeSet<i64> = settled["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect();
    assert_eq!(on_board, drawn);
    let after = browser.wait_for("the results row", BOARD_STATE, |s| {
        s["history"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().starts_with(&game.to_string()))
    });
    assert!(after["countdown"]
        .as_str()
        .unwrap()
        .contains(&format!("Game {}", game + 1)));
    keep_screenshot(&browser.screenshot(), "board.png");

    // The server goes away: the page says so, and comes back by itself when it returns.
    server.kill();
    browser.wait_for("the reconnecting notice", BOARD_STATE, |s| {
        s["notice"]
            .as_str()
            .is_some_and(|n| n.contains("Reconnecting"))
    });
    let server = Server::start_on(&db, &listen, WATCHED);
    browser.wait_for("the board back", BOARD_STATE, |s| s["notice"].is_null());
    let next = close(&server, &supervisor);
    let on_board = watch_draw(&browser, &server, next);
    assert_eq!(on_board.len(), 20);
}

/// A check digit that makes `digits` pass the Luhn check, as serials do.
fn with_luhn(digits: &str) -> String {
    let sum: u32 = digits
        .chars()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            let d = c.to_digit(10).unwrap();
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    format!("{digits}{}", (10 - sum % 10) % 10)
}

const CHECK_STATE: &str = r#"
    const message = document.getElementById('message');
    const summary = document.getElementById('summary');
    return {
        message: message.classList.contains('shown') ? message.textContent : null,
        summary: summary ? summary.textContent : null,
        games: [...document.querySelectorAll('#result .game')].map((g) => ({
            game: Number(g.dataset.game),
            text: g.textContent,
            hits: g.querySelectorAll('.hit').length,
        })),
    };
"#;

fn check_in_page(browser: &Browser, serial: &str) -> Value {
    // Cleared first, so the wait below sees this check's answer, not the last one's.
    browser.run("document.getElementById('result').innerHTML = ''; document.getElementById('message').classList.remove('shown');");
    browser.type_into("#serial", serial);
    browser.click("#go");
    browser.wait_for("the answer", CHECK_STATE, |s| {
        !s["message"].is_null() || !s["summary"].is_null()
    })
}

#[test]
fn a_player_checks_a_ticket_and_guessing_is_slowed() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let args: Vec<&str> = keno_testkit::MANUAL_CLOCK
        .iter()
        .copied()
        .chain(["--check-rate", "1"])
        .collect();
    let server = Server::start(&db, &args);
    let ticket = server.sell(
        &writer,
        sale(
            "t1",
            json!({"type": "quick_pick", "count": 8}),
            "standard",
            200,
            2,
        ),
    );
    let serial = ticket["serial"].as_str().unwrap();
    let first = server.close_and_settle(&supervisor)["number"]
        .as_i64()
        .unwrap();
    let (_, detail) = server.get_as(&writer, &format!("/api/v1/tickets/{serial}"));

    browser.goto(&format!("{}/check", server.base));
    // Typed with the spaces a person might put in; the page strips them.
    let spaced = format!("{} {}", &serial[..10], &serial[10..]);
    let shown = check_in_page(&browser, &spaced);
    assert!(shown["message"].is_null(), "{shown}");
    let summary = shown["summary"].as_str().unwrap();
    assert!(summary.contains(serial), "{summary}");
    // A ticket with a game still to come and nothing won yet says so, never "won $0.00".
    let won = detail["won_cents"].as_u64().unwrap();
    let said = match won {
        0 => "no prize yet".to_string(),
        _ => format!("won {}", dollars(won)),
    };
    assert!(summary.contains(&said), "{summary} / {won}");
    let games = shown["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["game"], first);
    let caught = detail["results"][0]["ways"][0]["catch"].as_u64().unwrap();
    assert_eq!(games[0]["hits"].as_u64(), Some(caught), "{shown}");
    assert!(games[0]["text"]
        .as_str()
        .unwrap()
        .contains(&format!("caught {caught} of 8")));
    assert!(games[1]["text"].as_str().unwrap().contains("not drawn yet"));
    keep_screenshot(&browser.screenshot(), "check.png");

    // A serial that passes the check digit but was never sold, and one that cannot be a serial.
    let unknown = with_luhn(&"1".repeat(19));
    assert_ne!(unknown, serial);
    let shown = check_in_page(&browser, &unknown);
    assert!(
        shown["message"]
            .as_str()
            .unwrap()
            .contains("cannot find a ticket"),
        "{shown}"
    );
    let shown = check_in_page(&browser, "12345");
    assert!(
        shown["message"]
            .as_str()
            .unwrap()
            .contains("not a ticket number"),
        "{shown}"
    );
    let shown = check_in_page(&browser, "12ab");
    assert!(
        shown["message"]
            .as_str()
            .unwrap()
            .contains("not a ticket number"),
        "{shown}"
    );

    // Guessing from one address runs out of its allowance (a burst of 10, then 1 a minute).
    let mut refused = None;
    for _ in 0..12 {
        let (status, e) = server.get(&format!("/api/v1/tickets/{unknown}/check"));
        if status == 429 {
            refused = Some(e);
            break;
        }
        assert_eq!(status, 404, "{e}");
    }
    let refused = refused.expect("a 429 within the burst");
    assert_eq!(refused["error"], "too_many_requests");
    let shown = check_in_page(&browser, serial);
    assert!(
        shown["message"]
            .as_str()
            .unwrap()
            .contains("Too many checks"),
        "{shown}"
    );
}

/// Cents as the page shows them: `$2,700.00`.
fn dollars(cents: u64) -> String {
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("${grouped}.{:02}", cents % 100)
}

#[test]
fn dollars_are_grouped_by_thousands() {
    assert_eq!(dollars(5), "$0.05");
    assert_eq!(dollars(270_000), "$2,700.00");
    assert_eq!(dollars(123_456_789), "$1,234,567.89");
}

const CLOSURE_STATE: &str = r#"
    const c = document.getElementById('closure');
    return { hidden: c.hidden, text: c.textContent };
"#;

/// Rule 16.2: the board and the check page show "KENO CLOSES AT hh:mm" from the moment a
/// closure is scheduled (read at load, and heard on the event stream), and take it down when it
/// is withdrawn.
#[test]
fn the_board_and_the_check_page_give_notice_of_an_early_closure() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let supervisor = db.principal("supervisor", "SUPER", None);
    // Keno all day from an hour ago: a closure ten minutes ahead is before the day's end.
    let start = keno_testkit::keno_day_from_an_hour_ago();
    let args = [
        "--game-interval",
        "3600",
        "--keno-day-start",
        &start,
        "--keno-day-end",
        &start,
        "--closure-notice",
        "60",
    ];
    let server = Server::start(&db, &args);
    browser.goto(&format!("{}/display", server.base));
    browser.wait_for("the board", BOARD_STATE, |s| s["status"] == "OPEN FOR PLAY");
    assert_eq!(browser.run(CLOSURE_STATE)["hidden"], true);
    let body = json!({
        "closes_at": keno_testkit::rfc3339_in(600),
        "inspector_notified": "Insp. Jones",
        "reason": "staff shortage",
    });
    let (status, closure) = server.post(&supervisor, "/api/v1/keno/closures", body);
    assert_eq!(status, 201, "{closure}");
    let words = format!(
        "KENO CLOSES AT {}",
        closure["closes_at_local"].as_str().unwrap()
    );
    // Heard on the event stream by the board already open.
    browser.wait_for("the notice on the board", CLOSURE_STATE, |s| {
        s["hidden"] == false && s["text"] == words.as_str()
    });
    // Read at load by the check page.
    browser.goto(&format!("{}/check", server.base));
    browser.wait_for("the notice on the check page", CLOSURE_STATE, |s| {
        s["hidden"] == false && s["text"] == words.as_str()
    });
    let id = closure["id"].as_i64().unwrap();
    let (status, _) = server.post(
        &supervisor,
        &format!("/api/v1/keno/closures/{id}/withdraw"),
        json!({"reason": "staff found"}),
    );
    assert_eq!(status, 200);
    browser.wait_for("the notice taken down", CLOSURE_STATE, |s| {
        s["hidden"] == true
    });
}

/// A writer's cancel (rule 8): the refund.
fn cancel(server: &Server, writer: &str, serial: &str) -> u64 {
    let (status, c) = server.post(
        writer,
        &format!("/api/v1/tickets/{serial}/cancel"),
        Value::Null,
    );
    assert_eq!(status, 200, "{c}");
    c["refund_cents"].as_u64().unwrap()
}

/// Issue 16 (8), issue 19: every game of a ticket is on the check page, a game invalidated
/// (rule 17.3) and a game cancelled (rule 8) each as such with its refund, and a ticket
/// cancelled whole says what was refunded, never "won $0.00".
#[test]
fn the_check_page_shows_games_cancelled_and_invalidated_with_their_refunds() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let server = Server::start(&db, keno_testkit::MANUAL_CLOCK);
    let bet = json!({"type": "standard", "spots": [1, 2, 3, 4]});
    let three = server.sell(&writer, sale("three", bet, "standard", 200, 3));
    let first = server.close_and_settle(&supervisor)["number"]
        .as_i64()
        .unwrap();
    // The second game invalidated while open; the third then cancelled (8.2: games unplayed).
    let (status, inv) = server.post(
        &supervisor,
        &format!("/api/v1/games/{}/invalidate", first + 1),
        json!({"reason": "fire alarm"}),
    );
    assert_eq!(status, 200, "{inv}");
    let three = three["serial"].as_str().unwrap();
    assert_eq!(cancel(&server, &writer, three), 200);
    // The public check carries the cancelled games and their refund.
    let (_, checked) = server.get(&format!("/api/v1/tickets/{three}/check"));
    assert_eq!(checked["cancelled_games"], json!([first + 2]), "{checked}");
    assert_eq!(checked["refund_cents"], 200);

    browser.goto(&format!("{}/check", server.base));
    let shown = check_in_page(&browser, three);
    let games = shown["games"].as_array().unwrap();
    let listed: Vec<i64> = games.iter().map(|g| g["game"].as_i64().unwrap()).collect();
    assert_eq!(listed, vec![first, first + 1, first + 2], "{shown}");
    let text = |i: usize| games[i]["text"].as_str().unwrap().to_string();
    // General rule 18.2: the refund comes with the ticket's payment, which is due now.
    assert!(
        text(1).contains("INVALIDATED: $2.00 refunded · to collect now"),
        "{shown}"
    );
    assert!(text(2).contains("CANCELLED: $2.00 refunded"), "{shown}");
    assert_eq!(
        checked["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["standing"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            // The draw is the real RNG: the first game may have won.
            if checked["results"][0]["prize_cents"] == 0 {
                "no_prize"
            } else {
                "won"
            },
            "invalidated",
            "cancelled"
        ],
        "{checked}"
    );
    let summary = shown["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!(" game {} cancelled, $2.00 refunded", first + 2)),
        "{summary}"
    );
    keep_screenshot(&browser.screenshot(), "check-closed.png");

    // A ticket cancelled whole before its first game (8.1): every game cancelled, the refund.
    let later = server.sell(
        &writer,
        sale(
            "later",
            json!({"type": "quick_pick", "count": 5}),
            "standard",
            300,
            2,
        ),
    );
    let later = later["serial"].as_str().unwrap();
    assert_eq!(cancel(&server, &writer, later), 600);
    let shown = check_in_page(&browser, later);
    let summary = shown["summary"].as_str().unwrap();
    assert!(summary.contains("CANCELLED: $6.00 refunded"), "{summary}");
    assert!(!summary.contains("won"), "{summary}");
    let games = shown["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{shown}");
    for g in games {
        let text = g["text"].as_str().unwrap();
        assert!(text.contains("CANCELLED: $3.00 refunded"), "{text}");
        assert!(!text.contains("$0.00"), "{text}");
    }
}

/// Every 1-spot ticket on the board, `games` games at $1: 20 of them win each game.
fn cover_the_board(server: &Server, writer: &str, games: u32) -> Vec<String> {
    (1..=80)
        .map(|n| {
            let body = sale(
                &format!("cover-{n}"),
                json!({"type": "standard", "spots": [n]}),
                "standard",
                100,
                games,
            );
            server.sell(writer, body)["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Issue 19: the check page says when a prize is paid, from the server's one payability rule:
/// a multi-game ticket's early win "paid after game N" (rule 11.5), never "won" as if payable;
/// a paid ticket how and when it was paid; an invalidated game's refund, due now (general rule
/// 18.2).
#[test]
fn the_check_page_says_when_a_prize_is_paid_and_how_it_was() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let server = Server::start(&db, keno_testkit::MANUAL_CLOCK);
    let serials = cover_the_board(&server, &writer, 2);
    let first = server.close_and_settle(&supervisor);
    let game = first["number"].as_i64().unwrap();
    let winner = &serials[first["drawn"][0].as_u64().unwrap() as usize - 1];

    // Won in the first of two games: payable only after the second.
    let (_, checked) = server.get(&format!("/api/v1/tickets/{winner}/check"));
    assert_eq!(
        checked["lines"][0],
        json!({"game": game, "standing": "won", "prize_cents": 300, "refund_cents": null,
               "collect": "after_game", "after_game": game + 1}),
        "{checked}"
    );
    assert_eq!(checked["lines"][1]["standing"], "to_come", "{checked}");
    browser.goto(&format!("{}/check", server.base));
    let shown = check_in_page(&browser, winner);
    let text = |s: &Value, i: usize| s["games"][i]["text"].as_str().unwrap().to_string();
    let waiting = format!(
        "WON $3.00 · paid after game {}, the ticket's last",
        game + 1
    );
    assert!(text(&shown, 0).contains(&waiting), "{shown}");
    assert!(text(&shown, 1).contains("not drawn yet"), "{shown}");
    let summary = shown["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("paid after game {}", game + 1)),
        "{summary}"
    );
    assert!(!summary.contains("to collect"), "{summary}");
    keep_screenshot(&browser.screenshot(), "check-waiting.png");

    // After the last game, paid at the counter: how and when, every win marked paid.
    server.close_and_settle(&supervisor);
    let (status, paid) = server.post(
        &writer,
        &format!("/api/v1/tickets/{winner}/pay"),
        Value::Null,
    );
    assert_eq!(status, 200, "{paid}");
    let shown = check_in_page(&browser, winner);
    let summary = shown["summary"].as_str().unwrap();
    let cents = paid["paid_cents"].as_u64().unwrap();
    assert!(
        summary.contains(&format!("PAID ${}.00 in cash on ", cents / 100)),
        "{summary}"
    );
    assert!(text(&shown, 0).contains("WON $3.00 · PAID"), "{shown}");
    keep_screenshot(&browser.screenshot(), "check-paid.png");

    // A ticket whose one game was invalidated: its wager refunded, to collect now.
    let lone = server.sell(
        &writer,
        sale(
            "lone",
            json!({"type": "standard", "spots": [5, 6, 7]}),
            "standard",
            200,
            1,
        ),
    );
    let lone = lone["serial"].as_str().unwrap();
    let (status, inv) = server.post(
        &supervisor,
        &format!("/api/v1/games/{}/invalidate", game + 2),
        json!({"reason": "the blower stopped"}),
    );
    assert_eq!(status, 200, "{inv}");
    let shown = check_in_page(&browser, lone);
    assert!(
        text(&shown, 0).contains("INVALIDATED: $2.00 refunded · to collect now"),
        "{shown}"
    );
    let summary = shown["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!(
            ": game {} invalidated, $2.00 refunded, $2.00 to collect at a Keno writer",
            game + 2
        )),
        "{summary}"
    );
    assert!(!summary.contains("won"), "{summary}");
    keep_screenshot(&browser.screenshot(), "check-invalidated.png");
}

/// Issue 19: money reads one way on the board ("$20,000.00" beside "$2,000.40", never "$20,000"),
/// and a link to `/check?serial=` (a receipt's QR code, a scanner) checks the ticket at once.
#[test]
fn money_reads_one_way_and_a_link_opens_the_check() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let server = Server::start(&db, keno_testkit::MANUAL_CLOCK);
    let ticket = server.sell(
        &writer,
        sale(
            "t1",
            json!({"type": "standard", "spots": [7, 8, 9, 10, 11, 12]}),
            "jackpot",
            200,
            1,
        ),
    );
    let serial = ticket["serial"].as_str().unwrap();

    browser.goto(&format!("{}/", server.base));
    let amounts = browser.wait_for(
        "the board's prizes and pools",
        "return [...document.querySelectorAll('#jackpots b, #prizes td, #prizes caption')].flatMap((e) => e.textContent.match(/\\$[0-9.,]+/g) || []);",
        |a| a.as_array().is_some_and(|a| a.len() > 5),
    );
    let format = |m: &str| {
        let (whole, cents) = m[1..].split_once('.').unwrap_or((&m[1..], ""));
        cents.len() == 2
            && whole.split(',').enumerate().all(|(i, g)| {
                g.chars().all(|c| c.is_ascii_digit())
                    && (g.len() == 3 || (i == 0 && !g.is_empty() && g.len() <= 3))
            })
    };
    for m in amounts.as_array().unwrap() {
        let m = m.as_str().unwrap();
        assert!(format(m), "{m} is not dollars and cents: {amounts}");
    }

    browser.goto(&format!("{}/check?serial={serial}", server.base));
    let s = browser.wait_for("the linked ticket checked", CHECK_STATE, |s| {
        !s["summary"].is_null()
    });
    assert!(s["summary"].as_str().unwrap().contains(serial), "{s}");
}

/// What overflows on the board now: any part past the screen's edge, any number too big for
/// its cell.
const OVERFLOW: &str = r#"
    const w = window.innerWidth, h = window.innerHeight;
    const out = [];
    for (const e of document.querySelectorAll('header > *, .board, aside .panel, .link')) {
        if (getComputedStyle(e).display === 'none' || e.hidden) continue;
        const r = e.getBoundingClientRect();
        if (r.right > w + 1 || r.bottom > h + 1 || r.left < -1 || r.top < -1) {
            out.push(`${e.id || e.className || e.tagName} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
        }
    }
    for (const c of document.querySelectorAll('.board .cell')) {
        if (c.scrollWidth > c.clientWidth + 1 || c.scrollHeight > c.clientHeight + 1) out.push(`cell ${c.textContent}`);
    }
    return { size: `${w}x${h}`, out, cells: document.querySelectorAll('.board .cell').length };
"#;

/// Issue 19: the board fits a full HD screen, a 1280x720 one and a screen on its side
/// (1080x1920): nothing past an edge, every number inside its cell.
#[test]
fn the_board_fits_landscape_small_and_portrait_screens() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let server = Server::start(&db, keno_testkit::MANUAL_CLOCK);
    browser.goto(&format!("{}/", server.base));
    browser.wait_for("the board", BOARD_STATE, |s| {
        s["prizes"].as_u64() > Some(0) && s["jackpots"].as_u64() > Some(0)
    });
    for (width, height, name) in [
        (1920, 1080, "board-1920x1080.png"),
        (1280, 720, "board-1280x720.png"),
        (1080, 1920, "board-portrait.png"),
    ] {
        browser.resize(width, height);
        std::thread::sleep(std::time::Duration::from_millis(400));
        let fit = browser.run(OVERFLOW);
        assert_eq!(fit["cells"], 80, "{fit}");
        assert_eq!(fit["out"], json!([]), "at {width}x{height}: {fit}");
        keep_screenshot(&browser.screenshot(), name);
    }
}
