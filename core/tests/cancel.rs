//! Cancelling a ticket (rule 8): what is cancelled and refunded, or why not.

use keno_core::{cancellation, CancelFacts, CancelRefusal, Cancellation, KenoDay, TicketStatus};

fn day(text: &str) -> KenoDay {
    text.parse().unwrap()
}

/// A 5-game ticket at $2.00 a game (games 100-104), sold on Keno Day 2026-11-23, none drawn.
fn five_games() -> CancelFacts {
    CancelFacts {
        status: TicketStatus::Active,
        keno_day: day("2026-11-23"),
        first_game: 100,
        last_played_game: 104,
        games: 5,
        keno_to_go: false,
        total_cents: 1_000,
        game_cost_cents: 200,
        first_not_drawing: Some(100),
    }
}

/// A Keno To Go ticket: 50 games at $1.00, charged for 49 (rule 6.2(a)).
fn keno_to_go() -> CancelFacts {
    CancelFacts {
        games: 50,
        last_played_game: 149,
        keno_to_go: true,
        total_cents: 4_900,
        game_cost_cents: 100,
        ..five_games()
    }
}

fn today() -> KenoDay {
    day("2026-11-23")
}

#[test]
fn rule_8_1_a_whole_ticket_before_its_first_draw_returns_what_was_paid() {
    assert_eq!(
        cancellation(&five_games(), today()),
        Ok(Cancellation {
            from_game: 100,
            to_game: 104,
            whole: true,
            refund_cents: 1_000
        })
    );
}

#[test]
fn rule_8_2_the_games_not_played_of_a_multi_game_ticket() {
    let mut f = five_games();
    f.first_not_drawing = Some(102);
    assert_eq!(
        cancellation(&f, today()),
        Ok(Cancellation {
            from_game: 102,
            to_game: 104,
            whole: false,
            refund_cents: 600
        })
    );
    // Cancelled from 103 already (last played 102): the rest, game 102, once more in part.
    f.last_played_game = 102;
    assert_eq!(cancellation(&f, today()).unwrap().refund_cents, 200);
}

#[test]
fn rule_8_2_keno_to_go_whole_only() {
    let whole = cancellation(&keno_to_go(), today()).unwrap();
    // The discount comes back too: what was paid, not 50 games' cost.
    assert_eq!((whole.whole, whole.refund_cents), (true, 4_900));
    let mut started = keno_to_go();
    started.first_not_drawing = Some(101);
    let e = cancellation(&started, today()).unwrap_err();
    assert_eq!(e, CancelRefusal::KenoToGoWholeOnly);
    assert_eq!((e.code(), e.rule()), ("cancel_not_allowed", "8.2"));
    assert_eq!(
        e.to_string(),
        "a Keno To Go ticket can be cancelled only whole, before the first number of its first \
         game (rule 8.2)"
    );
}

#[test]
fn rule_8_3_not_on_a_later_keno_day() {
    let e = cancellation(&five_games(), day("2026-11-24")).unwrap_err();
    assert_eq!(
        e,
        CancelRefusal::LaterKenoDay {
            sold_on: day("2026-11-23")
        }
    );
    assert_eq!((e.code(), e.rule()), ("cancel_not_allowed", "8.3"));
    assert_eq!(
        e.to_string(),
        "the ticket was sold on Keno Day 2026-11-23; its games cannot be cancelled on a later \
         Keno Day (rule 8.3)"
    );
    // The Keno Day itself, however late in it; and a day "before" (a clock set back) is not later.
    assert!(cancellation(&five_games(), day("2026-11-23")).is_ok());
    assert!(cancellation(&five_games(), day("2026-11-22")).is_ok());
}

#[test]
fn rule_8_1_not_once_every_game_has_started_drawing() {
    let mut f = five_games();
    f.first_not_drawing = None;
    let e = cancellation(&f, today()).unwrap_err();
    assert_eq!(e, CancelRefusal::EveryGameDrawing);
    assert_eq!((e.code(), e.rule()), ("cancel_not_allowed", "8.1"));
    // A game outside the ticket's played games is none of its games.
    f.first_not_drawing = Some(105);
    assert_eq!(
        cancellation(&f, today()),
        Err(CancelRefusal::EveryGameDrawing)
    );
    f.first_not_drawing = Some(99);
    assert_eq!(
        cancellation(&f, today()),
        Err(CancelRefusal::EveryGameDrawing)
    );
}

#[test]
fn rule_8_1_a_single_game_drawing() {
    // Only reachable when the server's game lookup says so: a one-game ticket whose "first not
    // drawing" is past its first game.
    let f = CancelFacts {
        games: 1,
        last_played_game: 101,
        first_not_drawing: Some(101),
        ..five_games()
    };
    let e = cancellation(&f, today()).unwrap_err();
    assert_eq!(e, CancelRefusal::GameDrawing);
    assert_eq!(e.rule(), "8.1");
}

#[test]
fn paid_or_cancelled_already() {
    let mut f = five_games();
    f.status = TicketStatus::Paid;
    let e = cancellation(&f, day("2030-01-01")).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        ("already_paid", "the ticket is paid")
    );
    f.status = TicketStatus::Cancelled;
    let e = cancellation(&f, day("2030-01-01")).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        ("already_cancelled", "the ticket is already cancelled")
    );
}

#[test]
fn refusals_come_in_the_servers_order() {
    let mut f = keno_to_go();
    f.first_not_drawing = Some(101);
    let later = day("2026-11-24");
    assert_eq!(cancellation(&f, later).unwrap_err().rule(), "8.3");
    f.first_not_drawing = None;
    assert_eq!(
        cancellation(&f, today()).unwrap_err(),
        CancelRefusal::EveryGameDrawing
    );
}
