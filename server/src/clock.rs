//! The game clock and the drawer, the two background tasks of the central computer.
//!
//! The clock opens a game, closes it when its time is up (rule 9.2) and opens the next. The
//! drawer takes closed games in order, draws each number with the OS CSPRNG, commits it, then
//! announces it (rules 9.3, 10.1), and settles the game once its 20th number is in. Games are
//! settled strictly in order because each game's jackpot pools carry into the next. After a
//! restart the drawer finds a game left mid-draw and continues from its last committed number
//! (rule 10.3). With several instances on one database only the leader runs them
//! (`leader.rs`), and every write they make checks its term, so the leader that takes over from
//! one that died mid-draw continues from the last committed number too.

use std::sync::atomic::Ordering;
use std::time::Duration;

use actix_web::web;
use diesel::prelude::*;
use keno_core::game_time::repair_open_game;
use keno_core::random::draw_next;
use keno_core::{
    clock_step, drawer_step, ClockStep, DrawerStep, GameEvent, GameState, NumberSet, OpenGameFacts,
    Repair,
};

use crate::audit::clock_steps::GameRepaired;
use crate::audit::log::Entry;
use crate::db::schema::{drawn_numbers, games};
use crate::db::{now_micros, DbConnection};
use crate::draw_monitor::Monitor;
use crate::error::{DomainResult, Failure};
use crate::games::{advance, drawn, ensure_open_game, hold, GameRow, Opening};
use crate::leader::Term;
use crate::settlement;
use crate::state::AppState;
use crate::store;
use crate::time::local;
use keno_api::events::{Event, GameClosed, GameDrawn, NumberDrawn};

/// Runs the game clock forever.
pub async fn run_clock(state: web::Data<AppState>) {
    loop {
        let Some(term) = state.leadership.wait_for_term(Duration::from_secs(1)).await else {
            continue;
        };
        let step = crate::state::read(&state, move |s, conn| Ok(clock_tick(s, conn, term)?)).await;
        let wait = match step {
            Ok(wait) => wait,
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "game clock");
                Duration::from_secs(1)
            }
        };
        if !wait.is_zero() {
            // Looked at again at least every second: leadership may have moved.
            tokio::select! {
                _ = tokio::time::sleep(wait.min(Duration::from_secs(1))) => {}
                _ = state.clock_wake.notified() => {}
            }
        }
    }
}

/// One decision of the game clock (`keno_core::clock_step`), carried out; how long until the
/// next look.
fn clock_tick(s: &AppState, conn: &mut DbConnection, term: Term) -> anyhow::Result<Duration> {
    let now = now_micros();
    let open = crate::games::open_game(conn)?;
    if let Some(game) = &open {
        if repair(s, conn, game, term, now)? {
            return Ok(Duration::ZERO);
        }
    }
    let open = open.map(|g| (g.number, g.closes_at));
    let keno_open = s.settings.hours.keno_day(local(now)).is_some();
    // Rule 16.2: the early closure of today's Keno Day, if one is in force.
    let closure = crate::closures::closes_at(&s.settings.hours, conn, now)?;
    match clock_step(open, keno_open, closure, now) {
        ClockStep::OpenNext => {
            let opened = ensure_open_game(&s.store, &s.events, conn, opening(s), term)?;
            Ok(if opened.is_some() {
                Duration::ZERO
            } else {
                Duration::from_secs(1)
            })
        }
        ClockStep::Close { game, .. } => {
            // The close opens the next game in its transaction when Keno is open (9.2).
            close_game(s, conn, game, (Some(term), None))?;
            Ok(Duration::ZERO)
        }
        ClockStep::WaitUntil(at) => Ok(Duration::from_micros((at - now).max(0) as u64)),
        ClockStep::Idle => {
            // Keno is closed (its hours are over, or it closed early: rule 16.2): look again at
            // the start of the next Keno Day (or in a minute).
            let next = s.settings.hours.next_start(local(now));
            let wait = (next - local(now)).to_std().unwrap_or(Duration::ZERO);
            Ok(wait.min(Duration::from_secs(60)))
        }
    }
}

/// A game left open under a clock that was wrong (issue 22), judged by keno-core's rule
/// (`repair_open_game`): closed now, or, its Keno Day not yet begun, closed and invalidated
/// with every wager refunded (rule 17.3). Recorded in the trail (`game_repaired`). True when
/// it acted.
fn repair(
    s: &AppState,
    conn: &mut DbConnection,
    game: &GameRow,
    term: Term,
    now: i64,
) -> anyhow::Result<bool> {
    let today = match s.settings.hours.keno_day(local(now)) {
        Some(date) => Some(crate::keno_day::from_date(date)?),
        None => None,
    };
    let facts = OpenGameFacts {
        opened_at: game.opened_at,
        closes_at: game.closes_at,
        keno_day: crate::keno_day::stored(&game.keno_day, format_args!("game {}", game.number))?,
    };
    let repair = repair_open_game(facts, today, now);
    if repair == Repair::None {
        return Ok(false);
    }
    let what = repair.described();
    tracing::warn!(game = game.number, keno_day = %game.keno_day, "a game opened under a wrong clock is {what}");
    let repaired = GameRepaired {
        repair,
        opened_at: game.opened_at,
        closes_at: game.closes_at,
        keno_day: game.keno_day.clone(),
        game_time: now,
    };
    let entry = Entry::new(
        crate::audit::kind::EntryKind::GameRepaired,
        game.number,
        serde_json::to_value(&repaired)?,
    );
    store::transact(&s.store.db, conn, None, |conn| {
        term.check(conn)?;
        crate::audit::log::append(conn, vec![entry])
    })?;
    if repair == Repair::CloseNow {
        close_game(s, conn, game.number, (Some(term), None))?;
        return Ok(true);
    }
    let reason = format!(
        "opened under a clock ahead of time, for Keno Day {} not yet begun",
        game.keno_day
    );
    // The next game opens at the clock's next look.
    let done = crate::invalidation::by_the_server(&s.store, conn, (game.number, term), &reason)?;
    crate::invalidation::announce(&s.events, &s.jackpots_changed, &done);
    Ok(true)
}

/// What opening a game takes of the settings in force.
fn opening(s: &AppState) -> Opening<'_> {
    Opening {
        hours: s.settings.hours,
        interval: s.settings.game_interval,
        source: s.settings.draw_source,
        rule_set: &s.rule_set_hash,
    }
}

/// Closes game `number` (`games::close_game`: the next opens) and, if this call closed it,
/// tells the displays and wakes the drawer: the clock's close, a supervisor's, or an
/// invalidation's of an open game. Whether this call closed it.
pub fn close_game(
    s: &AppState,
    conn: &mut DbConnection,
    number: i64,
    (term, by): (Option<Term>, Option<&crate::games::ByHand>),
) -> QueryResult<bool> {
    let closing = (number, term, by);
    let Some(closed) = crate::games::close_game(&s.store, conn, opening(s), closing)? else {
        return Ok(false);
    };
    s.announced_close.fetch_max(number, Ordering::Relaxed);
    // Rule 9.4: the displays are told the game is closed before it is drawn.
    s.events.publish(&Event::GameClosed(GameClosed {
        game: number,
        closed_at: Some(crate::db::rfc3339(closed.at)),
    }));
    if let Some(next) = &closed.next {
        let opened = crate::games::game_opened_event(next);
        s.events.publish(&Event::GameOpened(opened));
    }
    s.wake_drawer();
    Ok(true)
}

/// Runs the drawer forever; `monitor` is draw monitoring's windows, which each settlement
/// feeds.
pub async fn run_drawer(
    state: web::Data<AppState>,
    monitor: web::Data<Monitor>,
    gate: web::Data<crate::suspension::gate::Gate>,
    incidents: web::Data<crate::incidents::Incidents>,
) {
    // The game this term has already announced again after taking over.
    let mut reannounced: Option<(Term, i64)> = None;
    let warm = monitor.clone();
    let warmed = crate::store::read(&state.store, move |conn| {
        warm.catch_up(conn).map_err(Failure::Internal)
    });
    if let Err(e) = warmed.await {
        tracing::error!(error = %format!("{e:#}"), "draw monitoring: the settled games not read");
    }
    loop {
        let Some(term) = state.leadership.wait_for_term(Duration::from_secs(1)).await else {
            continue;
        };
        // Suspended (issue 33): nothing is drawn until two people resume.
        if gate.admit(keno_core::suspension::Doing::Draw).is_err() {
            idle(&state, Duration::from_secs(1)).await;
            continue;
        }
        let next = crate::store::read(&state.store, move |conn| -> DomainResult<Option<GameRow>> {
            let awaiting = GameState::codes_where(GameState::awaiting_draw);
            Ok(games::table
                .filter(games::state.eq_any(awaiting))
                .order(games::number)
                .select(GameRow::as_select())
                .first(conn)
                .optional()?)
        })
        .await;
        let result = match next {
            Ok(Some(game)) => {
                process((&state, &monitor, &gate), game, term, &mut reannounced).await
            }
            Ok(None) => {
                tokio::select! {
                    _ = state.drawer_wake.notified() => {}
                    _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                }
                Ok(())
            }
            Err(e) => Err(e.into()),
        };
        if let Err(e) = result {
            let said = format!("{e:#}");
            tracing::error!(error = %said, "drawer");
            let now = crate::db::now_micros();
            incidents.failed(crate::incidents::Fault::Drawer, &said, now);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// Waits for a wake-up of the drawer, or `at_most`.
async fn idle(state: &AppState, at_most: Duration) {
    tokio::select! {
        _ = state.drawer_wake.notified() => {}
        _ = tokio::time::sleep(at_most) => {}
    }
}

/// Carries the lowest game awaiting a draw as far as it goes now, step by step as
/// `keno_core::drawer_step` decides.
async fn process(
    (state, monitor, gate): (
        &web::Data<AppState>,
        &web::Data<Monitor>,
        &crate::suspension::gate::Gate,
    ),
    game: GameRow,
    term: Term,
    reannounced: &mut Option<(Term, i64)>,
) -> anyhow::Result<()> {
    let number = game.number;
    announce_again(state, &game, term, reannounced).await?;
    loop {
        let s = state.clone();
        let facts =
            crate::store::read(&s.store, move |conn| Ok(crate::games::facts(conn, number)?))
                .await?;
        let Some(facts) = facts else {
            return Ok(());
        };
        let now = now_micros();
        match drawer_step(&facts, &state.settings.drawer(), now) {
            DrawerStep::DrawNext { .. } => {
                tokio::time::sleep(state.settings.reveal_interval).await;
                if state.leadership.term() != Some(term) {
                    return Ok(());
                }
                let s = state.clone();
                let drawn =
                    crate::state::read(&s, move |s, conn| Ok(draw_one(s, conn, number, term)?))
                        .await?;
                match drawn {
                    Drawn::Number(position, n) => {
                        state.events.publish(&Event::NumberDrawn(NumberDrawn {
                            game: number,
                            position,
                            number: n,
                        }))
                    }
                    Drawn::Nothing => {}
                    Drawn::RngFailed(said) => rng_failed(state, gate, number, said).await?,
                }
            }
            DrawerStep::FinishDraw => {
                let s = state.clone();
                let numbers =
                    crate::state::read(&s, move |s, conn| Ok(finish_draw(s, conn, number, term)?))
                        .await?;
                if let Some(numbers) = numbers {
                    state.events.publish(&Event::GameDrawn(GameDrawn {
                        game: number,
                        drawn: numbers,
                    }));
                }
            }
            DrawerStep::Settle => return settle(state, monitor, number, term).await,
            // Rule 10.1: time to check the balls against the numbers shown before settling.
            DrawerStep::BallCheckUntil(until) => {
                let wait = Duration::from_micros((until - now).max(0) as u64);
                idle(state, wait.max(Duration::from_millis(1))).await;
                return Ok(());
            }
            // The device posts the balls (balls.rs); the 20th wakes the drawer. A correction
            // waiting for its approvals wakes it when decided; either is looked at each second.
            DrawerStep::AwaitDevice | DrawerStep::HeldByCorrection | DrawerStep::Nothing => {
                idle(state, Duration::from_secs(1)).await;
                return Ok(());
            }
        }
    }
}

/// Closed (and perhaps partly drawn) before this process started, or taken over mid-draw
/// from a leader that died: a crash may have come between a commit and its announcement,
/// so the displays hear it all again (rules 9.3, 9.4, 10.3).
async fn announce_again(
    state: &web::Data<AppState>,
    game: &GameRow,
    term: Term,
    reannounced: &mut Option<(Term, i64)>,
) -> anyhow::Result<()> {
    let number = game.number;
    let unannounced = number > state.announced_close.load(Ordering::Relaxed);
    if unannounced {
        state.announced_close.fetch_max(number, Ordering::Relaxed);
        state.events.publish(&Event::GameClosed(GameClosed {
            game: number,
            closed_at: None,
        }));
    }
    let taken_over = game.state == GameState::Drawing && *reannounced != Some((term, number));
    if unannounced || taken_over {
        let s = state.clone();
        let so_far = crate::store::read(&s.store, move |conn| Ok(drawn(conn, number)?)).await?;
        for (i, n) in so_far.iter().enumerate() {
            state.events.publish(&Event::NumberDrawn(NumberDrawn {
                game: number,
                position: i + 1,
                number: *n,
            }));
        }
    }
    *reannounced = Some((term, number));
    Ok(())
}

/// Settles the game and announces it; a game held meanwhile (a fault, a correction) is
/// looked at again when something happens, or in a second.
async fn settle(
    state: &web::Data<AppState>,
    monitor: &web::Data<Monitor>,
    number: i64,
    term: Term,
) -> anyhow::Result<()> {
    let (s, monitor) = (state.clone(), monitor.clone());
    let settled = crate::state::read(&s, move |s, conn| {
        let how = (&s.rule_sets, s.settings.drawer(), &**monitor);
        Ok(settlement::settle(&s.store, conn, how, number, term)?)
    })
    .await?;
    match settled {
        Some(settled) => {
            // A checkpoint of the trail with every settlement (issue 20).
            state.anchor.settled.store(true, Ordering::SeqCst);
            state.events.publish(&Event::GameSettled(settled.summary));
            for alarm in settled.alarms {
                tracing::warn!(
                    game = alarm.game,
                    test = ?alarm.test,
                    device = alarm.device.as_deref().unwrap_or("none"),
                    p_value = alarm.p_value,
                    "draw monitoring: a test fails at 99.9% confidence"
                );
                state.events.publish(&Event::DrawMonitorAlarm(alarm));
            }
            let s = state.clone();
            web::block(move || crate::jackpots::announce(&s.store.db, &s.rules, &s.events)).await?;
        }
        None => idle(state, Duration::from_secs(1)).await,
    }
    Ok(())
}

/// What drawing the next number of a game did.
enum Drawn {
    /// The number at its position, committed.
    Number(usize, u8),
    /// Nothing to draw: the game has its 20 numbers, or is not drawable.
    Nothing,
    /// The randomness failed: nothing was drawn or written.
    RngFailed(String),
}

/// Draws and commits the next number of a game.
fn draw_one(
    state: &AppState,
    conn: &mut DbConnection,
    number: i64,
    term: Term,
) -> anyhow::Result<Drawn> {
    let pause = Some(crate::store::Pause(&state.store.faults, "draw"));
    let rng_failed = std::cell::Cell::new(None);
    let drawn = crate::store::transact(&state.store.db, conn, pause, |conn| {
        term.check(conn)?;
        // The game row first: a cancel that holds it (rule 8.1) is then wholly before this
        // number, timestamps included.
        if !hold(
            conn,
            number,
            GameEvent::NumberDrawn { standing: 1 }.allowed_from(),
        )? {
            return QueryResult::Ok(None);
        }
        let so_far = drawn(conn, number)?;
        if so_far.len() >= keno_core::board::NUMBERS_DRAWN {
            return Ok(None);
        }
        // Drawn before anything is written: a failed RNG leaves the game as it was.
        let set = NumberSet::from_numbers(&so_far).expect("stored numbers are valid");
        let mut rng = crate::draw_rng::DrawRng::default();
        let n = draw_next(&mut rng, set);
        if let Some(failed) = rng.failure() {
            rng_failed.set(Some(failed.to_string()));
            return Ok(None);
        }
        let position = so_far.len() + 1;
        // Rule 8.1: with its first number the game is drawing, and no longer cancellable.
        let standing = position as u8;
        if !advance(conn, number, &GameEvent::NumberDrawn { standing })? {
            return Ok(None);
        }
        let now = now_micros();
        diesel::insert_into(drawn_numbers::table)
            .values((
                drawn_numbers::game.eq(number),
                drawn_numbers::position.eq(position as i32),
                drawn_numbers::number.eq(i32::from(n)),
                drawn_numbers::drawn_at.eq(now),
            ))
            .execute(conn)?;
        crate::audit::log::append(
            conn,
            vec![crate::audit::log::Entry::new(
                crate::audit::kind::EntryKind::NumberDrawn,
                number,
                serde_json::json!({
                    "attempt": 1, "position": position, "number": n, "drawn_at": now,
                    "leader_epoch": term.0,
                }),
            )],
        )?;
        Ok(Some((position, n)))
    })?;
    if let Some(failed) = rng_failed.take() {
        return Ok(Drawn::RngFailed(failed));
    }
    Ok(drawn.map_or(Drawn::Nothing, |(position, n)| Drawn::Number(position, n)))
}

/// The randomness failed drawing game `number`: the system is suspended (issue 33) and the
/// displays are told; the drawer draws nothing until two people resume it.
async fn rng_failed(
    state: &web::Data<AppState>,
    gate: &crate::suspension::gate::Gate,
    number: i64,
    said: String,
) -> anyhow::Result<()> {
    tracing::error!(game = number, error = %said, "the RNG failed: nothing drawn");
    let closed = crate::state::write(state, None, move |s, conn| {
        let found = crate::suspension::Found {
            cause: keno_core::suspension::Cause::Rng,
            detail: format!("drawing game {number}: {said}; no number was drawn"),
            lost: None,
        };
        crate::suspension::begin(conn, &found, &s.leadership.instance)?;
        Ok(crate::suspension::closed(conn)?)
    })
    .await?;
    gate.tell(&state.events, closed);
    idle(state, Duration::from_secs(1)).await;
    Ok(())
}

/// Marks a game with 20 numbers as drawn; returns its numbers.
fn finish_draw(
    state: &AppState,
    conn: &mut DbConnection,
    number: i64,
    term: Term,
) -> anyhow::Result<Option<Vec<u8>>> {
    Ok(crate::store::transact(
        &state.store.db,
        conn,
        None,
        |conn| {
            term.check(conn)?;
            let numbers = drawn(conn, number)?;
            if numbers.len() != keno_core::board::NUMBERS_DRAWN {
                return QueryResult::Ok(None);
            }
            let now = now_micros();
            let changed = advance(conn, number, &GameEvent::DrawComplete)?;
            if changed {
                diesel::update(games::table.find(number))
                    .set(games::drawn_at.eq(now))
                    .execute(conn)?;
                crate::audit::log::append(
                    conn,
                    vec![crate::audit::log::Entry::new(
                        crate::audit::kind::EntryKind::GameDrawn,
                        number,
                        serde_json::json!({ "drawn": numbers, "drawn_at": now }),
                    )],
                )?;
            }
            Ok(changed.then_some(numbers))
        },
    )?)
}
